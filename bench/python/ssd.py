#!/usr/bin/env python3
"""Eager twin of `milarun run ssd`, following the original's
milarun/models/ssd/{train,ssd300,base_model,utils}.py and
milarun/datasets/coco/detect.py: SSD300 on torchvision's resnet34 up to
layer3 (its first block at stride 1; the original loads ImageNet weights, both
sides here start random), xavier-initialised extra blocks and heads, 8732
default boxes, Loss (smooth-L1 + cross-entropy with 3:1 hard negatives),
SGD(1e-3, momentum 0.9, weight decay 5e-4); COCODetection with
SSDTransformer (SSDCropping, flip, Resize((300, 300)), ColorJitter(0.125, 0.5,
0.5, 0.05), ToTensor, Normalize, Encoder.encode) on PIL's full decode;
DataLoader(shuffle, num_workers=4) whatever --workers; torch threads =
--workers or 1 (the profile gives none: 1); input with requires_grad=True;
dataloop counting batch_size per step; loss.item() three times per step.

  /usr/bin/python3 bench/python/ssd.py --dataroot DATA --batch-size 4 --max-count 80
"""
import argparse
import itertools
import json
import os
import random
from math import sqrt

import numpy as np
import torch
import torch.nn as nn
import torchvision
import torchvision.transforms as transforms
from PIL import Image

from original_loop import RateLogger, add_init_torch_args, dataloop, init_torch, report


def calc_iou_tensor(box1, box2):
    be1 = box1.unsqueeze(1).expand(-1, box2.size(0), -1)
    be2 = box2.unsqueeze(0).expand(box1.size(0), -1, -1)
    lt = torch.max(be1[:, :, :2], be2[:, :, :2])
    rb = torch.min(be1[:, :, 2:], be2[:, :, 2:])
    delta = rb - lt
    delta[delta < 0] = 0
    intersect = delta[:, :, 0] * delta[:, :, 1]
    delta1 = be1[:, :, 2:] - be1[:, :, :2]
    delta2 = be2[:, :, 2:] - be2[:, :, :2]
    return intersect / (delta1[:, :, 0] * delta1[:, :, 1] + delta2[:, :, 0] * delta2[:, :, 1] - intersect)


class DefaultBoxes:
    def __init__(self, fig_size=300, feat_size=(38, 19, 10, 5, 3, 1), steps=(8, 16, 32, 64, 100, 300),
                 scales=(21, 45, 99, 153, 207, 261, 315), aspect_ratios=((2,), (2, 3), (2, 3), (2, 3), (2,), (2,))):
        self.scale_xy, self.scale_wh = 0.1, 0.2
        fk = fig_size / np.array(steps)
        boxes = []
        for idx, sfeat in enumerate(feat_size):
            sk1, sk2 = scales[idx] / fig_size, scales[idx + 1] / fig_size
            sizes = [(sk1, sk1), (sqrt(sk1 * sk2),) * 2]
            for alpha in aspect_ratios[idx]:
                w, h = sk1 * sqrt(alpha), sk1 / sqrt(alpha)
                sizes += [(w, h), (h, w)]
            for w, h in sizes:
                for i, j in itertools.product(range(sfeat), repeat=2):
                    boxes.append(((j + 0.5) / fk[idx], (i + 0.5) / fk[idx], w, h))
        self.xywh = torch.tensor(boxes).float().clamp_(min=0, max=1)
        self.ltrb = torch.cat([self.xywh[:, :2] - 0.5 * self.xywh[:, 2:], self.xywh[:, :2] + 0.5 * self.xywh[:, 2:]], 1)


class Encoder:
    def __init__(self, dboxes):
        self.dboxes, self.nboxes = dboxes.ltrb, dboxes.ltrb.size(0)

    def encode(self, bboxes_in, labels_in, criteria=0.5):
        ious = calc_iou_tensor(bboxes_in, self.dboxes)
        best_dbox_ious, best_dbox_idx = ious.max(dim=0)
        best_bbox_ious, best_bbox_idx = ious.max(dim=1)
        best_dbox_ious.index_fill_(0, best_bbox_idx, 2.0)
        idx = torch.arange(0, best_bbox_idx.size(0), dtype=torch.int64)
        best_dbox_idx[best_bbox_idx[idx]] = idx
        masks = best_dbox_ious > criteria
        labels_out = torch.zeros(self.nboxes, dtype=torch.long)
        labels_out[masks] = labels_in[best_dbox_idx[masks]]
        bboxes_out = self.dboxes.clone()
        bboxes_out[masks, :] = bboxes_in[best_dbox_idx[masks], :]
        x, y = 0.5 * (bboxes_out[:, 0] + bboxes_out[:, 2]), 0.5 * (bboxes_out[:, 1] + bboxes_out[:, 3])
        w, h = bboxes_out[:, 2] - bboxes_out[:, 0], bboxes_out[:, 3] - bboxes_out[:, 1]
        return torch.stack([x, y, w, h], 1), labels_out


def ssd_cropping(img, img_size, bboxes, labels):
    options = (None, (0.1, None), (0.3, None), (0.5, None), (0.7, None), (0.9, None), (None, None))
    while True:
        mode = random.choice(options)
        if mode is None:
            return img, img_size, bboxes, labels
        htot, wtot = img_size
        min_iou = float("-inf") if mode[0] is None else mode[0]
        max_iou = float("+inf") if mode[1] is None else mode[1]
        for _ in range(1):
            w, h = random.uniform(0.3, 1.0), random.uniform(0.3, 1.0)
            if w / h < 0.5 or w / h > 2:
                continue
            left, top = random.uniform(0, 1.0 - w), random.uniform(0, 1.0 - h)
            right, bottom = left + w, top + h
            ious = calc_iou_tensor(bboxes, torch.tensor([[left, top, right, bottom]]))
            if not ((ious > min_iou) & (ious < max_iou)).all():
                continue
            xc, yc = 0.5 * (bboxes[:, 0] + bboxes[:, 2]), 0.5 * (bboxes[:, 1] + bboxes[:, 3])
            masks = (xc > left) & (xc < right) & (yc > top) & (yc < bottom)
            if not masks.any():
                continue
            bboxes[bboxes[:, 0] < left, 0] = left
            bboxes[bboxes[:, 1] < top, 1] = top
            bboxes[bboxes[:, 2] > right, 2] = right
            bboxes[bboxes[:, 3] > bottom, 3] = bottom
            bboxes, labels = bboxes[masks, :], labels[masks]
            l, t, r, b = int(left * wtot), int(top * htot), int(right * wtot), int(bottom * htot)
            img = img.crop((l, t, r, b))
            bboxes[:, 0] = (bboxes[:, 0] - left) / w
            bboxes[:, 1] = (bboxes[:, 1] - top) / h
            bboxes[:, 2] = (bboxes[:, 2] - left) / w
            bboxes[:, 3] = (bboxes[:, 3] - top) / h
            return img, (b - t, r - l), bboxes, labels


class SSDTransformer:
    def __init__(self, dboxes):
        self.encoder = Encoder(dboxes)
        self.img_trans = transforms.Compose([
            transforms.Resize((300, 300)),
            transforms.ColorJitter(brightness=0.125, contrast=0.5, saturation=0.5, hue=0.05),
            transforms.ToTensor()])
        self.normalize = transforms.Normalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225])

    def __call__(self, img, img_size, bbox, label):
        img, img_size, bbox, label = ssd_cropping(img, img_size, bbox, label)
        if random.random() < 0.5:
            bbox[:, 0], bbox[:, 2] = 1.0 - bbox[:, 2], 1.0 - bbox[:, 0]
            img = img.transpose(Image.FLIP_LEFT_RIGHT)
        img = self.normalize(self.img_trans(img).contiguous())
        bbox, label = self.encoder.encode(bbox, label)
        return img, img_size, bbox, label


class COCODetection(torch.utils.data.Dataset):
    def __init__(self, img_folder, annotate_file, transform):
        with open(annotate_file) as fin:
            data = json.load(fin)
        self.img_folder, self.transform = img_folder, transform
        self.label_map = {cat["id"]: k + 1 for k, cat in enumerate(data["categories"])}
        self.labelnum = len(self.label_map) + 1
        self.images = {img["id"]: (img["file_name"], (img["height"], img["width"]), []) for img in data["images"]}
        for b in data["annotations"]:
            self.images[b["image_id"]][2].append((b["bbox"], self.label_map[b["category_id"]]))
        self.images = {k: v for k, v in self.images.items() if v[2]}
        self.img_keys = list(self.images.keys())

    def __len__(self):
        return len(self.images)

    def __getitem__(self, idx):
        fn, (htot, wtot), anns = self.images[self.img_keys[idx]]
        img = Image.open(os.path.join(self.img_folder, fn)).convert("RGB")
        bbox = torch.tensor([(l / wtot, t / htot, (l + w) / wtot, (t + h) / htot) for (l, t, w, h), _ in anns])
        labels = torch.tensor([lab for _, lab in anns])
        return self.transform(img, (htot, wtot), bbox, labels)


class SSD300(nn.Module):
    def __init__(self, label_num):
        super().__init__()
        self.label_num = label_num
        rn34 = torchvision.models.resnet34()  # the original: pretrained=True (same work, other values)
        layer1 = nn.Sequential(*list(rn34.children())[:6])
        layer2 = nn.Sequential(*list(rn34.children())[6:7])
        block = list(layer2.children())[0][0]
        block.conv1.stride = (1, 1)
        block.downsample[0].stride = (1, 1)
        self.model = nn.Sequential(layer1, layer2)
        chans = [256, 512, 512, 256, 256, 256]
        mids = [256, 256, 128, 128, 128]
        self.additional_blocks = nn.ModuleList(
            nn.Sequential(nn.Conv2d(chans[k], mids[k], kernel_size=1), nn.ReLU(inplace=True),
                          nn.Conv2d(mids[k], chans[k + 1], kernel_size=3, padding=1 if k < 3 else 0,
                                    stride=2 if k < 3 else 1),
                          nn.ReLU(inplace=True)) for k in range(5))
        self.num_defaults = [4, 6, 6, 6, 4, 4]
        self.loc = nn.ModuleList(nn.Conv2d(oc, nd * 4, kernel_size=3, padding=1)
                                 for nd, oc in zip(self.num_defaults, chans))
        self.conf = nn.ModuleList(nn.Conv2d(oc, nd * label_num, kernel_size=3, padding=1)
                                  for nd, oc in zip(self.num_defaults, chans))
        for layer in [*self.additional_blocks, *self.loc, *self.conf]:
            for param in layer.parameters():
                if param.dim() > 1:
                    nn.init.xavier_uniform_(param)

    def forward(self, data):
        x = self.model(data)
        src = [x]
        for block in self.additional_blocks:
            x = block(x)
            src.append(x)
        locs = torch.cat([l(s).view(s.size(0), 4, -1) for s, l in zip(src, self.loc)], 2).contiguous()
        confs = torch.cat([c(s).view(s.size(0), self.label_num, -1) for s, c in zip(src, self.conf)], 2).contiguous()
        return locs, confs


class Loss(nn.Module):
    def __init__(self, dboxes):
        super().__init__()
        self.scale_xy, self.scale_wh = 1.0 / dboxes.scale_xy, 1.0 / dboxes.scale_wh
        self.sl1_loss = nn.SmoothL1Loss(reduction="none")
        self.dboxes = nn.Parameter(dboxes.xywh.transpose(0, 1).unsqueeze(dim=0), requires_grad=False)
        self.con_loss = nn.CrossEntropyLoss(reduction="none")

    def forward(self, ploc, plabel, gloc, glabel):
        mask = glabel > 0
        pos_num = mask.sum(dim=1)
        gxy = self.scale_xy * (gloc[:, :2, :] - self.dboxes[:, :2, :]) / self.dboxes[:, 2:, ]
        gwh = self.scale_wh * (gloc[:, 2:, :] / self.dboxes[:, 2:, :]).log()
        vec_gd = torch.cat((gxy, gwh), dim=1).contiguous()
        sl1 = (mask.float() * self.sl1_loss(ploc, vec_gd).sum(dim=1)).sum(dim=1)
        con = self.con_loss(plabel, glabel)
        con_neg = con.clone()
        con_neg[mask] = 0
        _, con_idx = con_neg.sort(dim=1, descending=True)
        _, con_rank = con_idx.sort(dim=1)
        neg_mask = con_rank < torch.clamp(3 * pos_num, max=mask.size(1)).unsqueeze(-1)
        closs = (con * (mask.float() + neg_mask.float())).sum(dim=1)
        num_mask = (pos_num > 0).float()
        return ((sl1 + closs) * num_mask / pos_num.float().clamp(min=1e-6)).mean(dim=0)


def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--dataroot", required=True)
    p.add_argument("--batch-size", type=int, default=32)
    add_init_torch_args(p)
    a = p.parse_args(argv)

    device = init_torch(a)
    dboxes = DefaultBoxes()
    train_coco = COCODetection(os.path.join(a.dataroot, "coco/train2017"),
                               os.path.join(a.dataroot, "coco/annotations/instances_train2017.json"),
                               SSDTransformer(dboxes))
    loader = torch.utils.data.DataLoader(train_coco, batch_size=a.batch_size, shuffle=True, num_workers=4)
    ssd300 = SSD300(train_coco.labelnum)
    ssd300.train()
    ssd300 = ssd300.to(device)
    loss_func = Loss(dboxes).to(device)
    optim = torch.optim.SGD(ssd300.parameters(), lr=1e-3, momentum=0.9, weight_decay=5e-4)
    avg_loss = 0.0
    wrapper = RateLogger(a.max_count, a.sample_duration)
    for it, (img, img_size, bbox, label) in dataloop(loader, wrapper):
        it.set_count(a.batch_size)
        img = img.to(device).requires_grad_(True)
        ploc, plabel = ssd300(img)
        gloc = bbox.transpose(1, 2).contiguous().to(device)
        glabel = label.to(device)
        loss = loss_func(ploc, plabel, gloc, glabel)
        if not np.isinf(loss.item()):
            avg_loss = 0.999 * avg_loss + 0.001 * loss.item()
        it.log(loss=loss.item())
        optim.zero_grad()
        loss.backward()
        optim.step()
    report("ssd", wrapper, batch_size=a.batch_size)


if __name__ == "__main__":
    main()
