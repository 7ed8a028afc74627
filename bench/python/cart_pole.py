"""cart in PyTorch eager, following milabench's milarun/models/cart_pole.py:
REINFORCE on CartPole-v0 (gym's classic-control physics in Python, the v0
TimeLimit of 200 steps), exactly --episode-length (500) steps per update with a
reset on done, returns over all of them, Adam 1e-2, no dropout, count = 500 per
update. Usage: cart_pole.py [MAX_COUNT]."""
import math, os, random
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.distributions import Categorical
from meter import Meter, max_count

torch.manual_seed(1234)
torch.set_num_threads(int(os.environ.get("OMP_NUM_THREADS", "1")))  # init_torch: workers or 1
random.seed(1234)
gamma, episode_length = 0.99, 500


class CartPoleV0:
    """gym's CartPoleEnv dynamics (Euler) behind TimeLimit(200)."""
    def reset(self):
        self.s = np.array([random.uniform(-0.05, 0.05) for _ in range(4)])
        self.t = 0
        return self.s

    def step(self, a):
        x, xd, th, thd = self.s
        force = 10.0 if a == 1 else -10.0
        ct, st = math.cos(th), math.sin(th)
        temp = (force + 0.05 * thd * thd * st) / 1.1
        thacc = (9.8 * st - ct * temp) / (0.5 * (4.0 / 3.0 - 0.1 * ct * ct / 1.1))
        xacc = temp - 0.05 * thacc * ct / 1.1
        self.s = np.array([x + 0.02 * xd, xd + 0.02 * xacc, th + 0.02 * thd, thd + 0.02 * thacc])
        self.t += 1
        done = bool(abs(self.s[0]) > 2.4 or abs(self.s[2]) > 12 * 2 * math.pi / 360 or self.t >= 200)
        return self.s, 1.0, done, {}


class Policy(nn.Module):
    def __init__(self):
        super().__init__()
        self.affine1 = nn.Linear(4, 128)
        self.affine2 = nn.Linear(128, 2)
        self.saved_log_probs = []
        self.rewards = []

    def forward(self, x):
        return F.softmax(self.affine2(F.relu(self.affine1(x))), dim=1)


env, policy = CartPoleV0(), Policy()
optimizer = optim.Adam(policy.parameters(), lr=1e-2)
eps = np.finfo(np.float32).eps.item()


def select_action(state):
    state = torch.from_numpy(state).float().unsqueeze(0)
    m = Categorical(policy(state))
    action = m.sample()
    policy.saved_log_probs.append(m.log_prob(action))
    return action.item()


def finish_episode():
    R, policy_loss, returns = 0, [], []
    for r in policy.rewards[::-1]:
        R = r + gamma * R
        returns.insert(0, R)
    returns = torch.tensor(returns)
    returns = (returns - returns.mean()) / (returns.std() + eps)
    for log_prob, R in zip(policy.saved_log_probs, returns):
        policy_loss.append(-log_prob * R)
    optimizer.zero_grad()
    torch.cat(policy_loss).sum().backward()
    optimizer.step()
    del policy.rewards[:]
    del policy.saved_log_probs[:]


m = Meter(max_count(100_000))
while True:
    state = env.reset()
    for t in range(episode_length):
        state, reward, done, _ = env.step(select_action(state))
        policy.rewards.append(reward)
        if done:
            state = env.reset()
    finish_episode()
    if not m.step(episode_length):
        break
m.report("cart_pole")
