"""toy_reg in PyTorch eager, as src/workloads/polynome.cpp (degree 4, batch 256)."""
import torch
from meter import Meter, max_count
d, b = 4, 256
w, bias = torch.randn(d, 1) * 5, torch.randn(1) * 5
fc = torch.nn.Linear(d, 1)
opt = torch.optim.SGD(fc.parameters(), lr=0.1)
powers = torch.arange(1, d + 1).unsqueeze(0)
m = Meter(max_count(20_000_000))
while True:
    with torch.no_grad():
        x = torch.randn(b, 1).pow(powers)
        y = x.mm(w) + bias
    opt.zero_grad()
    loss = torch.nn.functional.smooth_l1_loss(fc(x), y)
    loss.backward()
    opt.step()
    if not m.step(b):
        break
m.report("polynome")
