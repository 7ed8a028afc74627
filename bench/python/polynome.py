"""toy_reg in PyTorch eager, following milabench's milarun/models/polynome.py:
host-built batches copied to the device, loss.item() every step, p -= 0.01 * grad
by hand, count = batch size. Usage: polynome.py [MAX_COUNT] [BATCH]."""
import os, sys
import torch
import torch.nn.functional as F
from meter import Meter, max_count

torch.manual_seed(1234)
torch.set_num_threads(int(os.environ.get("OMP_NUM_THREADS", "1")))  # init_torch: workers or 1
poly_degree = 4
batch_size = int(sys.argv[2]) if len(sys.argv) > 2 else 256
device = torch.device("cpu")
W_target = torch.randn(poly_degree, 1) * 5
b_target = torch.randn(1) * 5


def make_features(x):
    x = x.unsqueeze(1)
    return torch.cat([x ** i for i in range(1, poly_degree + 1)], 1)


def get_batch():
    x = make_features(torch.randn(batch_size))
    return x, x.mm(W_target) + b_target.item()


fc = torch.nn.Linear(W_target.size(0), 1).to(device)
m = Meter(max_count(20_000_000))
while True:
    batch_x, batch_y = get_batch()
    batch_x, batch_y = batch_x.to(device), batch_y.to(device)
    fc.zero_grad()
    output = F.smooth_l1_loss(fc(batch_x), batch_y)
    loss = output.item()
    output.backward()
    for param in fc.parameters():
        param.data.add_(-0.01 * param.grad.data)
    if not m.step(batch_size):
        break
m.report("polynome")
