#!/usr/bin/python3
"""PyTorch eager twin of the C++ atari workload (pytorch-a2c-ppo-acktr CNNBase +
A2C (the original's default: RMSprop, one update per rollout) or PPO (the
profile's), with the three .item() reads of the agents' update() after every
optimizer step), for speed comparison only. The game is NOT
simulated: observations are random 4x84x84 uint8 stacks and rewards random
signs, so this times model + PPO work only; the C++ side also steps and renders
16 real games. Prints the workload's count unit (num-processes per update) per
second and agent steps/s after warm-up.

    /usr/bin/python3 bench/python/atari.py --algo ppo --num-processes 16 --num-steps 128 --num-mini-batch 4 --updates 4 --threads 1
    /usr/bin/python3 bench/python/atari.py --updates 200 --threads 1     # the original's defaults: a2c, 5 steps
"""
import argparse, math, time
import torch, torch.nn as nn, torch.nn.functional as F


def ortho(m, gain):
    nn.init.orthogonal_(m.weight, gain); nn.init.constant_(m.bias, 0); return m


class Policy(nn.Module):
    def __init__(self, c=4, actions=6, hidden=512):
        super().__init__()
        g = math.sqrt(2)
        self.main = nn.Sequential(
            ortho(nn.Conv2d(c, 32, 8, stride=4), g), nn.ReLU(), ortho(nn.Conv2d(32, 64, 4, stride=2), g), nn.ReLU(),
            ortho(nn.Conv2d(64, 32, 3, stride=1), g), nn.ReLU(), nn.Flatten(),
            ortho(nn.Linear(32 * 7 * 7, hidden), g), nn.ReLU())
        self.critic_linear = ortho(nn.Linear(hidden, 1), 1)
        self.dist_linear = ortho(nn.Linear(hidden, actions), 0.01)

    def forward(self, obs):
        h = self.main(obs.float() / 255.0)
        return F.log_softmax(self.dist_linear(h), 1), self.critic_linear(h).squeeze(1)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--num-processes", type=int, default=16)
    p.add_argument("--algo", default="a2c", choices=["a2c", "ppo"])
    p.add_argument("--num-steps", type=int, default=5)
    p.add_argument("--num-mini-batch", type=int, default=32)
    p.add_argument("--ppo-epoch", type=int, default=4)
    p.add_argument("--updates", type=int, default=4)
    p.add_argument("--threads", type=int, default=torch.get_num_threads())
    a = p.parse_args()
    torch.set_num_threads(a.threads)
    torch.manual_seed(0)
    P, T = a.num_processes, a.num_steps
    policy = Policy()
    if a.algo == "a2c":
        opt = torch.optim.RMSprop(policy.parameters(), 7e-4, eps=1e-5, alpha=0.99)
    else:
        opt = torch.optim.Adam(policy.parameters(), 7e-4, eps=1e-5)
    clip = 0.1 if a.algo == "ppo" else 0.2  # the profile passes --clip-param 0.1 with ppo
    obs = torch.zeros(T + 1, P, 4, 84, 84, dtype=torch.uint8)
    obs[0] = torch.randint(0, 255, (P, 4, 84, 84), dtype=torch.uint8)
    rates = []
    num_updates = int(10e6) // T // P
    for j in range(a.updates):
        t0 = time.time()
        for g in opt.param_groups:
            g["lr"] = 7e-4 - 7e-4 * j / num_updates
        values, actions, logps, rewards, nd = torch.zeros(T + 1, P), torch.zeros(T, P, dtype=torch.long), torch.zeros(T, P), torch.zeros(T, P), torch.ones(T, P)
        for t in range(T):
            with torch.no_grad():
                logits, v = policy(obs[t])
            act = torch.multinomial(logits.exp(), 1).squeeze(1)
            values[t], actions[t], logps[t] = v, act, logits.gather(1, act[:, None]).squeeze(1)
            obs[t + 1] = torch.randint(0, 255, (P, 4, 84, 84), dtype=torch.uint8)
            rewards[t] = torch.randint(-1, 2, (P,)).float()
        with torch.no_grad():
            values[T] = policy(obs[T])[1]
        adv = torch.zeros(T, P); run = torch.zeros(P)
        for t in reversed(range(T)):
            delta = rewards[t] + 0.99 * values[t + 1] * nd[t] - values[t]
            run = delta + 0.99 * 0.95 * nd[t] * run; adv[t] = run
        returns = adv + values[:-1]
        a_n = (adv - adv.mean()) / (adv.std() + 1e-5)
        b_obs = obs[:-1].reshape(T * P, 4, 84, 84)
        b_act, b_logp, b_adv, b_val, b_ret = actions.reshape(-1), logps.reshape(-1), a_n.reshape(-1), values[:-1].reshape(-1), returns.reshape(-1)
        mb = T * P // a.num_mini_batch
        if a.algo == "a2c":  # A2C_ACKTR.update, use_gae off: discounted returns
            ret = torch.zeros(T + 1, P); ret[T] = values[T]
            for t in reversed(range(T)):
                ret[t] = ret[t + 1] * 0.99 * nd[t] + rewards[t]
            logits, v = policy(b_obs)
            advantages = ret[:-1] - v.view(T, P)
            value_loss = advantages.pow(2).mean()
            action_loss = -(advantages.detach() * logits.gather(1, b_act[:, None]).view(T, P)).mean()
            ent = -(logits.exp() * logits).sum(1).mean()
            loss = value_loss * 0.5 + action_loss - ent * 0.01
            opt.zero_grad(); loss.backward()
            nn.utils.clip_grad_norm_(policy.parameters(), 0.5); opt.step()
            value_loss.item(), action_loss.item(), ent.item()
        for _ in range(a.ppo_epoch if a.algo == "ppo" else 0):
            perm = torch.randperm(T * P)
            for m in range(a.num_mini_batch):
                idx = perm[m * mb:(m + 1) * mb]
                logits, v = policy(b_obs[idx])
                ratio = torch.exp(logits.gather(1, b_act[idx][:, None]).squeeze(1) - b_logp[idx])
                s1 = ratio * b_adv[idx]; s2 = torch.clamp(ratio, 1 - clip, 1 + clip) * b_adv[idx]
                action_loss = -torch.min(s1, s2).mean()
                vc = b_val[idx] + (v - b_val[idx]).clamp(-clip, clip)
                value_loss = 0.5 * torch.max((v - b_ret[idx]).pow(2), (vc - b_ret[idx]).pow(2)).mean()
                ent = -(logits.exp() * logits).sum(1).mean()
                loss = value_loss * 0.5 + action_loss - ent * 0.01
                opt.zero_grad(); loss.backward()
                nn.utils.clip_grad_norm_(policy.parameters(), 0.5); opt.step()
                value_loss.item(), action_loss.item(), ent.item()
        obs[0].copy_(obs[-1])
        dt = time.time() - t0
        rates.append(P / dt)
        print(f"update {j}: {P / dt:.3f} count/s ({P * T / dt:.1f} agent steps/s) loss {loss.item():.4f}", flush=True)
    steady = rates[1:] if len(rates) > 1 else rates
    print(f"mean count/s (after first update): {sum(steady) / len(steady):.3f}")


if __name__ == "__main__":
    main()
