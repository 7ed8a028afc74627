#!/usr/bin/python3
"""PyTorch eager twin of the C++ minigrid workload (BabyAI ACModel expert_filmcnn
+ GRU instruction + LSTM memory, BabyAI PPOAlgo with recurrence), for speed
comparison only. The environment is NOT simulated: observations are random
MiniGrid-shaped codes and episodes end at random (p = 1/100 per frame), so this
times model + PPO work only; the C++ side also steps its real grid world.
Prints frames/s (the workload's count unit) per update after warm-up.

    /usr/bin/python3 bench/python/minigrid.py --procs 64 --frames-per-proc 40 --updates 6 --threads 2
"""
import argparse, time
import torch, torch.nn as nn, torch.nn.functional as F


def init_linear(m):
    if isinstance(m, nn.Linear):
        m.weight.data.normal_(0, 1)
        m.weight.data *= 1 / torch.sqrt(m.weight.data.pow(2).sum(1, keepdim=True))
        if m.bias is not None:
            m.bias.data.fill_(0)


class Film(nn.Module):
    def __init__(self, inf, outf, inc, imm):
        super().__init__()
        self.conv1 = nn.Conv2d(inc, imm, 3, padding=1); self.bn1 = nn.BatchNorm2d(imm)
        self.conv2 = nn.Conv2d(imm, outf, 3, padding=1); self.bn2 = nn.BatchNorm2d(outf)
        self.weight = nn.Linear(inf, outf); self.bias = nn.Linear(inf, outf)

    def forward(self, x, y):
        x = self.conv2(F.relu(self.bn1(self.conv1(x))))
        return F.relu(self.bn2(x * self.weight(y)[:, :, None, None] + self.bias(y)[:, :, None, None]))


class ACModel(nn.Module):
    def __init__(self, d=128):
        super().__init__()
        self.d = d
        self.image_conv = nn.Sequential(
            nn.Conv2d(3, 128, 2, padding=1), nn.BatchNorm2d(128), nn.ReLU(), nn.MaxPool2d(2, 2),
            nn.Conv2d(128, 128, 3, padding=1), nn.BatchNorm2d(128), nn.ReLU(), nn.MaxPool2d(2, 2))
        self.film_pool = nn.MaxPool2d(2, 2)
        self.word_embedding = nn.Embedding(100, d)
        self.instr_rnn = nn.GRU(d, d, batch_first=True)
        self.memory_rnn = nn.LSTMCell(d, d)
        self.controllers = nn.ModuleList([Film(d, 128, 128, 128), Film(d, d, 128, 128)])
        self.actor = nn.Sequential(nn.Linear(d, 64), nn.Tanh(), nn.Linear(64, 7))
        self.critic = nn.Sequential(nn.Linear(d, 64), nn.Tanh(), nn.Linear(64, 1))
        self.apply(init_linear)

    def forward(self, image, instr, memory):
        lengths = (instr != 0).sum(1) - 1
        out, _ = self.instr_rnn(self.word_embedding(instr))
        emb = out[torch.arange(instr.shape[0]), lengths]
        x = self.image_conv(image.transpose(1, 3).transpose(2, 3))
        for c in self.controllers:
            x = c(x, emb)
        x = F.relu(self.film_pool(x)).reshape(x.shape[0], -1)
        h, c = self.memory_rnn(x, (memory[:, :self.d], memory[:, self.d:]))
        logits = F.log_softmax(self.actor(h), 1)
        return logits, self.critic(h).squeeze(1), torch.cat([h, c], 1)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--procs", type=int, default=64)
    p.add_argument("--frames-per-proc", type=int, default=40)
    p.add_argument("--recurrence", type=int, default=20)
    p.add_argument("--batch-size", type=int, default=1280)
    p.add_argument("--epochs", type=int, default=4)
    p.add_argument("--updates", type=int, default=6)
    p.add_argument("--threads", type=int, default=torch.get_num_threads())
    a = p.parse_args()
    torch.set_num_threads(a.threads)
    torch.manual_seed(0)
    N, T, R = a.procs, a.frames_per_proc, a.recurrence
    model = ACModel()
    opt = torch.optim.Adam(model.parameters(), 1e-4, (0.9, 0.999), eps=1e-5)
    instr = torch.tensor([[1, 2, 3, 5, 4]]).repeat(N, 1)
    memory, mask = torch.zeros(N, 256), torch.ones(N)
    rates = []
    for u in range(a.updates):
        t0 = time.time()
        obss, mems, masks, acts, vals, logps, rews, nd = [], [], [], [], [], [], [], []
        for t in range(T):
            obs = torch.randint(0, 11, (N, 7, 7, 3)).float()
            with torch.no_grad():
                logits, value, new_mem = model(obs, instr, memory * mask[:, None])
            action = torch.multinomial(logits.exp(), 1).squeeze(1)
            obss.append(obs); mems.append(memory); masks.append(mask); acts.append(action); vals.append(value)
            logps.append(logits.gather(1, action[:, None]).squeeze(1))
            done = (torch.rand(N) < 0.01).float()
            rews.append(20 * done * torch.rand(N)); memory = new_mem; mask = 1 - done; nd.append(mask)
        t_rollout = time.time() - t0
        with torch.no_grad():
            next_value = model(torch.randint(0, 11, (N, 7, 7, 3)).float(), instr, memory * mask[:, None])[1]
        adv = torch.zeros(T, N); run = torch.zeros(N); nv = next_value
        for t in reversed(range(T)):
            delta = rews[t] + 0.99 * nv * nd[t] - vals[t]
            run = delta + 0.99 * 0.99 * nd[t] * run; adv[t] = run; nv = vals[t]
        flat = lambda xs: torch.stack(xs).transpose(0, 1).reshape(N * T, *xs[0].shape[1:])
        e_obs, e_mem, e_mask = flat(obss), flat(mems), flat(masks)[:, None]
        e_act, e_val, e_logp, e_adv = flat(acts), flat(vals), flat(logps), adv.t().reshape(-1)
        e_ret = e_adv + e_val
        e_instr = instr.repeat_interleave(T, 0)
        for _ in range(a.epochs):
            starts = torch.randperm(N * T // R) * R
            per = a.batch_size // R
            for b in range(0, len(starts), per):
                inds = starts[b:b + per]
                mem = e_mem[inds]; loss = 0
                for i in range(R):
                    idx = inds + i
                    logits, value, mem = model(e_obs[idx], e_instr[idx], mem * e_mask[idx])
                    ent = -(logits.exp() * logits).sum(1).mean()
                    ratio = torch.exp(logits.gather(1, e_act[idx][:, None]).squeeze(1) - e_logp[idx])
                    s1 = ratio * e_adv[idx]; s2 = torch.clamp(ratio, 0.8, 1.2) * e_adv[idx]
                    pl = -torch.min(s1, s2).mean()
                    vc = e_val[idx] + torch.clamp(value - e_val[idx], -0.2, 0.2)
                    vl = torch.max((value - e_ret[idx]).pow(2), (vc - e_ret[idx]).pow(2)).mean()
                    loss = loss + pl - 0.01 * ent + 0.5 * vl
                    ent.item(); value.mean().item(); pl.item(); vl.item()  # babyai PPOAlgo's logs
                    if i < R - 1:
                        e_mem[idx + 1] = mem.detach()
                loss = loss / R
                opt.zero_grad(); loss.backward()
                grad_norm = sum(p.grad.data.norm(2) ** 2 for p in model.parameters() if p.grad is not None) ** 0.5
                nn.utils.clip_grad_norm_(model.parameters(), 0.5); opt.step()
                grad_norm.item(); loss.item()  # log_grad_norms, log_losses
        rate = N * T / (time.time() - t0)
        rates.append(rate)
        print(f"update {u}: {rate:.1f} frames/s loss {loss.item():.4f} (rollout {t_rollout:.2f} s,"
              f" advantages + PPO epochs {time.time() - t0 - t_rollout:.2f} s)", flush=True)
    steady = rates[1:] if len(rates) > 1 else rates
    print(f"mean frames/s (after first update): {sum(steady) / len(steady):.1f}")


if __name__ == "__main__":
    main()
