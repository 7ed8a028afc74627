#!/usr/bin/env python3
"""PyTorch eager twin of `milarun run ssd` (the original's milarun.models.ssd:main):
SSD300 with torchvision's resnet34 up to layer3 (layer3 at stride 1), the five
additional blocks and 3x3 heads, 8732 default boxes, IoU-0.5 matching, smooth-L1
+ cross-entropy with 3:1 hard negative mining, SGD(1e-3, 0.9, 5e-4); COCO through
a DataLoader (shuffle, num_workers=--workers) with SSD random crop, flip, resize
to 300, ColorJitter(0.125, 0.5, 0.5, 0.05), Normalize; torch.set_num_threads(--workers).
CPU only: the speed reference for the C++ build on the same machine.

Prints one line: images/s over the timed steps (after --warmup steps).

  /usr/bin/python3 bench/python/ssd.py --dataroot DATA --batch-size 4 --workers 2 --steps 10
"""
import argparse
import itertools
import json
import math
import os
import random
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
import torchvision
import torchvision.transforms as T
from PIL import Image


def default_boxes():
    """xywh [8732, 4], clamped to [0, 1]; sizes outermost, then rows, columns."""
    fig, feats, steps = 300, [38, 19, 10, 5, 3, 1], [8, 16, 32, 64, 100, 300]
    scales, ratios = [21, 45, 99, 153, 207, 261, 315], [[2], [2, 3], [2, 3], [2, 3], [2], [2]]
    out = []
    for k, f in enumerate(feats):
        fk, s1, s2 = fig / steps[k], scales[k] / fig, scales[k + 1] / fig
        sizes = [(s1, s1), (math.sqrt(s1 * s2),) * 2]
        for a in ratios[k]:
            sizes += [(s1 * math.sqrt(a), s1 / math.sqrt(a)), (s1 / math.sqrt(a), s1 * math.sqrt(a))]
        for w, h in sizes:
            for i, j in itertools.product(range(f), repeat=2):
                out.append(((j + 0.5) / fk, (i + 0.5) / fk, w, h))
    return torch.tensor(out).clamp_(0, 1)


def to_ltrb(b):
    return torch.cat([b[:, :2] - b[:, 2:] / 2, b[:, :2] + b[:, 2:] / 2], 1)


def iou(a, b):  # ltrb [A, 4], [B, 4] -> [A, B]
    lt = torch.max(a[:, None, :2], b[None, :, :2])
    rb = torch.min(a[:, None, 2:], b[None, :, 2:])
    inter = (rb - lt).clamp(min=0).prod(2)
    area = lambda x: (x[:, 2:] - x[:, :2]).prod(1)
    return inter / (area(a)[:, None] + area(b)[None, :] - inter)


class Coco(torch.utils.data.Dataset):
    def __init__(self, root, dboxes):
        doc = json.load(open(os.path.join(root, "coco/annotations/instances_train2017.json")))
        label = {c["id"]: k + 1 for k, c in enumerate(doc["categories"])}
        self.labels = len(label) + 1
        imgs = {i["id"]: (i["file_name"], i["width"], i["height"], []) for i in doc["images"]}
        for a in doc["annotations"]:
            imgs[a["image_id"]][3].append((a["bbox"], label[a["category_id"]]))
        self.items = [v for v in imgs.values() if v[3]]
        self.dir = os.path.join(root, "coco/train2017")
        self.xywh, self.ltrb = dboxes, to_ltrb(dboxes)
        self.jitter = T.ColorJitter(0.125, 0.5, 0.5, 0.05)
        self.tail = T.Compose([T.ToTensor(), T.Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225])])

    def __len__(self):
        return len(self.items)

    def crop(self, img, boxes, labels):
        while True:
            mode = random.choice([None, 0.1, 0.3, 0.5, 0.7, 0.9, -1])
            if mode is None:
                return img, boxes, labels
            w, h = random.uniform(0.3, 1), random.uniform(0.3, 1)
            if not 0.5 <= w / h <= 2:
                continue
            l, t = random.uniform(0, 1 - w), random.uniform(0, 1 - h)
            win = torch.tensor([[l, t, l + w, t + h]])
            if not (iou(boxes, win) > mode).all():
                continue
            c = (boxes[:, :2] + boxes[:, 2:]) / 2
            keep = (c[:, 0] > l) & (c[:, 0] < l + w) & (c[:, 1] > t) & (c[:, 1] < t + h)
            if not keep.any():
                continue
            b = boxes[keep].clone()
            b[:, 0::2] = (b[:, 0::2].clamp(l, l + w) - l) / w
            b[:, 1::2] = (b[:, 1::2].clamp(t, t + h) - t) / h
            W, H = img.size
            return img.crop((int(l * W), int(t * H), int((l + w) * W), int((t + h) * H))), b, labels[keep]

    def encode(self, boxes, labels):
        ious = iou(boxes, self.ltrb)  # [G, D]
        best_iou, best_gt = ious.max(0)
        _, best_d = ious.max(1)
        best_iou[best_d] = 2.0
        best_gt[best_d] = torch.arange(len(best_d))
        pos = best_iou > 0.5
        out_l = torch.zeros(len(self.xywh), dtype=torch.long)
        out_l[pos] = labels[best_gt[pos]]
        out_b = self.xywh.clone()
        g = boxes[best_gt[pos]]
        out_b[pos] = torch.cat([(g[:, :2] + g[:, 2:]) / 2, g[:, 2:] - g[:, :2]], 1)
        return out_b, out_l

    def __getitem__(self, i):
        name, W, H, anns = self.items[i]
        img = Image.open(os.path.join(self.dir, name)).convert("RGB")
        boxes = torch.tensor([[x / W, y / H, (x + w) / W, (y + h) / H] for (x, y, w, h), _ in anns])
        labels = torch.tensor([l for _, l in anns])
        img, boxes, labels = self.crop(img, boxes, labels)
        if random.random() < 0.5:
            img = img.transpose(Image.FLIP_LEFT_RIGHT)
            boxes = torch.stack([1 - boxes[:, 2], boxes[:, 1], 1 - boxes[:, 0], boxes[:, 3]], 1)
        img = self.tail(self.jitter(img.resize((300, 300), Image.BILINEAR)))
        b, l = self.encode(boxes, labels)
        return img, b.t().contiguous(), l


class SSD300(nn.Module):
    def __init__(self, labels):
        super().__init__()
        r = torchvision.models.resnet34()
        self.model = nn.Sequential(*list(r.children())[:7])
        self.model[6][0].conv1.stride = (1, 1)
        self.model[6][0].downsample[0].stride = (1, 1)
        ch, mid, self.labels = [256, 512, 512, 256, 256, 256], [256, 256, 128, 128, 128], labels
        self.additional_blocks = nn.ModuleList(
            nn.Sequential(nn.Conv2d(ch[k], mid[k], 1), nn.ReLU(inplace=True),
                          nn.Conv2d(mid[k], ch[k + 1], 3, padding=1 if k < 3 else 0, stride=2 if k < 3 else 1),
                          nn.ReLU(inplace=True)) for k in range(5))
        nd = [4, 6, 6, 6, 4, 4]
        self.loc = nn.ModuleList(nn.Conv2d(c, n * 4, 3, padding=1) for n, c in zip(nd, ch))
        self.conf = nn.ModuleList(nn.Conv2d(c, n * labels, 3, padding=1) for n, c in zip(nd, ch))
        for m in [*self.additional_blocks, *self.loc, *self.conf]:
            for p in m.parameters():
                if p.dim() > 1:
                    nn.init.xavier_uniform_(p)

    def forward(self, x):
        maps = [self.model(x)]
        for b in self.additional_blocks:
            maps.append(b(maps[-1]))
        n = x.shape[0]
        locs = torch.cat([l(m).view(n, 4, -1) for m, l in zip(maps, self.loc)], 2).contiguous()
        confs = torch.cat([c(m).view(n, self.labels, -1) for m, c in zip(maps, self.conf)], 2).contiguous()
        return locs, confs


def ssd_loss(ploc, plabel, gloc, glabel, d):  # d: [1, 4, D] xywh
    pos = glabel > 0
    npos = pos.sum(1)
    target = torch.cat([10 * (gloc[:, :2] - d[:, :2]) / d[:, 2:], 5 * (gloc[:, 2:] / d[:, 2:]).log()], 1)
    sl1 = (F.smooth_l1_loss(ploc, target, reduction="none").sum(1) * pos.float()).sum(1)
    con = F.cross_entropy(plabel, glabel, reduction="none")
    neg = con.detach().clone()
    neg[pos] = 0
    rank = neg.sort(1, descending=True)[1].sort(1)[1]
    hard = rank < torch.clamp(3 * npos, max=pos.size(1)).unsqueeze(-1)
    closs = (con * (pos.float() + hard.float())).sum(1)
    return ((sl1 + closs) * (npos > 0).float() / npos.float().clamp(min=1e-6)).mean()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--dataroot", required=True)
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--workers", type=int, default=8)
    p.add_argument("--steps", type=int, default=10)
    p.add_argument("--warmup", type=int, default=3)
    a = p.parse_args()
    torch.manual_seed(1234)
    torch.set_num_threads(a.workers)
    dboxes = default_boxes()
    data = Coco(a.dataroot, dboxes)
    loader = torch.utils.data.DataLoader(data, batch_size=a.batch_size, shuffle=True, num_workers=a.workers,
                                         drop_last=True)
    model = SSD300(data.labels)
    print(f"ssd: {sum(p.numel() for p in model.parameters())} parameters", flush=True)
    d = dboxes.t().unsqueeze(0)
    opt = torch.optim.SGD(model.parameters(), lr=1e-3, momentum=0.9, weight_decay=5e-4)
    model.train()
    step, images, start = 0, 0, None
    while step < a.warmup + a.steps:
        for x, gloc, glabel in loader:
            if step == a.warmup:
                start = time.perf_counter()
            ploc, plabel = model(x)
            loss = ssd_loss(ploc, plabel, gloc, glabel, d)
            opt.zero_grad()
            loss.backward()
            opt.step()
            step += 1
            if step > a.warmup:
                images += x.shape[0]
            if step >= a.warmup + a.steps:
                break
    elapsed = time.perf_counter() - start
    print(f"ssd batch {a.batch_size} threads {a.workers}: {images / elapsed:.2f} images/s "
          f"({images} images in {elapsed:.1f} s, last loss {loss.item():.3f})")


if __name__ == "__main__":
    main()
