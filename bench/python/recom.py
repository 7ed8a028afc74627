#!/usr/bin/env python3
"""recom in PyTorch Python eager, for comparing with `milarun run recom`.

NeuMF (MLPerf NCF reference's neumf.py) with Adam and BCE-with-logits on the
users/items of DATAROOT/ml-20m/ratings.bin (the cache milarun writes; run
`milarun run recom` once, or generate the dataset, first). Batches (positives
and 4 negatives per positive, negatives not rated by the user) are made with
numpy before the clock starts, so the figure is the model's speed alone, the
most favourable case for Python. Prints samples/s (the milarun count unit).
  python3 bench/python/recom.py -d DATAROOT --batch-size 2048 --threads 2
"""
import argparse
import os
import time

import numpy as np
import torch
import torch.nn as nn


class NeuMF(nn.Module):
    def __init__(self, nb_users, nb_items, mf_dim, layers):
        super().__init__()
        self.mf_user_embed = nn.Embedding(nb_users, mf_dim)
        self.mf_item_embed = nn.Embedding(nb_items, mf_dim)
        self.mlp_user_embed = nn.Embedding(nb_users, layers[0] // 2)
        self.mlp_item_embed = nn.Embedding(nb_items, layers[0] // 2)
        self.mlp = nn.ModuleList([nn.Linear(layers[i - 1], layers[i]) for i in range(1, len(layers))])
        self.final = nn.Linear(layers[-1] + mf_dim, 1)
        for e in (self.mf_user_embed, self.mf_item_embed, self.mlp_user_embed, self.mlp_item_embed):
            e.weight.data.normal_(0., 0.01)
        for layer in self.mlp:
            limit = np.sqrt(6. / (layer.in_features + layer.out_features))
            layer.weight.data.uniform_(-limit, limit)
        limit = np.sqrt(3. / self.final.in_features)
        self.final.weight.data.uniform_(-limit, limit)

    def forward(self, user, item):
        xmf = self.mf_user_embed(user) * self.mf_item_embed(item)
        xmlp = torch.cat((self.mlp_user_embed(user), self.mlp_item_embed(item)), dim=1)
        for layer in self.mlp:
            xmlp = nn.functional.relu(layer(xmlp))
        return self.final(torch.cat((xmf, xmlp), dim=1))


def load(dataroot):
    raw = np.fromfile(os.path.join(dataroot, "ml-20m", "ratings.bin"), dtype=np.uint8)
    assert raw[:8].tobytes() == b"ML20MBIN", "not a milarun ratings cache"
    users, items, pairs = np.frombuffer(raw[16:40].tobytes(), dtype=np.int64)
    rec = np.frombuffer(raw[40:].tobytes(), dtype=np.int32).reshape(-1, 2)
    last = np.r_[rec[1:, 0] != rec[:-1, 0], True]  # each user's last pair: held out
    train = rec[~last]
    return int(users), int(items), train


def batches(users, items, train, bsz, count, neg, rng):
    keys = np.sort(train[:, 0].astype(np.int64) * items + train[:, 1])
    out = []
    for _ in range(count):
        npos = bsz // (neg + 1)
        pos = train[rng.integers(0, len(train), npos)]
        u = np.repeat(pos[:, 0], neg + 1).astype(np.int64)
        it = np.repeat(pos[:, 1], neg + 1).astype(np.int64)
        lab = np.zeros(len(u), dtype=np.float32)
        lab[::neg + 1] = 1
        negm = lab == 0
        cand = rng.integers(0, items, negm.sum())
        while True:  # redraw negatives the user rated
            k = u[negm] * items + cand
            hit = keys[np.minimum(np.searchsorted(keys, k), len(keys) - 1)] == k
            if not hit.any():
                break
            cand[hit] = rng.integers(0, items, hit.sum())
        it[negm] = cand
        perm = rng.permutation(len(u))
        out.append((torch.from_numpy(u[perm]), torch.from_numpy(it[perm]),
                    torch.from_numpy(lab[perm]).view(-1, 1)))
    return out


def main():
    p = argparse.ArgumentParser()
    p.add_argument("-d", "--dataroot", default=os.environ.get("MILARUN_DATAROOT", "data"))
    p.add_argument("-f", "--factors", type=int, default=64)
    p.add_argument("--layers", default="256,256,128,64")
    p.add_argument("-l", "--learning-rate", type=float, default=0.0005)
    p.add_argument("-b", "--batch-size", type=int, default=2048)
    p.add_argument("-n", "--negative-samples", type=int, default=4)
    p.add_argument("--warmup", type=int, default=5)
    p.add_argument("--steps", type=int, default=40)
    p.add_argument("--threads", type=int, default=torch.get_num_threads())
    a = p.parse_args()
    torch.set_num_threads(a.threads)
    torch.manual_seed(0)
    users, items, train = load(a.dataroot)
    data = batches(users, items, train, a.batch_size, a.warmup + a.steps, a.negative_samples,
                   np.random.default_rng(0))
    model = NeuMF(users, items, a.factors, [int(x) for x in a.layers.split(",")])
    opt = torch.optim.Adam(model.parameters(), lr=a.learning_rate)
    criterion = nn.BCEWithLogitsLoss()
    n = 0
    for step, (u, i, y) in enumerate(data):
        if step == a.warmup:
            t0, n = time.perf_counter(), 0
        loss = criterion(model(u, i), y)
        loss.item()  # the original's it.log(loss=loss.item()) every step
        opt.zero_grad()
        loss.backward()
        opt.step()
        n += len(u)
    dt = time.perf_counter() - t0
    print(f"recom python eager: torch {torch.__version__}, {torch.get_num_threads()} threads, {users} users, "
          f"{items} items, batch {a.batch_size}: {n / dt:.0f} samples/s ({dt / a.steps * 1000:.1f} ms/step), "
          f"loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
