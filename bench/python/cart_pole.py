"""cart in PyTorch eager, as src/workloads/cart_pole.cpp (PyTorch's REINFORCE
example; the classic CartPole physics in Python as gym's, episode length 500)."""
import math, random, torch
from meter import Meter, max_count

class CartPole:
    def reset(self):
        self.s = [random.uniform(-0.05, 0.05) for _ in range(4)]
        self.t = 0
        return self.s
    def step(self, a):
        x, xd, th, thd = self.s
        force = 10.0 if a == 1 else -10.0
        ct, st = math.cos(th), math.sin(th)
        temp = (force + 0.05 * thd * thd * st) / 1.1
        thacc = (9.8 * st - ct * temp) / (0.5 * (4.0 / 3.0 - 0.1 * ct * ct / 1.1))
        xacc = temp - 0.05 * thacc * ct / 1.1
        x, xd, th, thd = x + 0.02 * xd, xd + 0.02 * xacc, th + 0.02 * thd, thd + 0.02 * thacc
        self.s, self.t = [x, xd, th, thd], self.t + 1
        done = abs(x) > 2.4 or abs(th) > 12 * 2 * math.pi / 360 or self.t >= 500
        return self.s, 1.0, done

class Policy(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.affine1, self.dropout, self.affine2 = torch.nn.Linear(4, 128), torch.nn.Dropout(0.6), torch.nn.Linear(128, 2)
    def forward(self, x):
        return torch.softmax(self.affine2(torch.relu(self.dropout(self.affine1(x)))), dim=1)

policy, env = Policy(), CartPole()
opt = torch.optim.Adam(policy.parameters(), lr=1e-2)
eps = torch.finfo(torch.float32).eps
m = Meter(max_count(100_000))
while True:
    state, log_probs, rewards = env.reset(), [], []
    while True:
        probs = policy(torch.tensor(state, dtype=torch.float32).unsqueeze(0))
        action = torch.multinomial(probs, 1).item()
        log_probs.append(torch.log(probs[0][action]))
        state, r, done = env.step(action)
        rewards.append(r)
        if done:
            break
    R, returns = 0.0, []
    for r in reversed(rewards):
        R = r + 0.99 * R
        returns.insert(0, R)
    ret = torch.tensor(returns)
    ret = (ret - ret.mean()) / (ret.std() + eps) if len(returns) > 1 else ret - ret.mean()
    loss = -(torch.stack(log_probs) * ret).sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
    if not m.step(len(rewards)):
        break
m.report("cart_pole")
