"""toy_lstm in PyTorch eager, following milabench's milarun/models/sine_wave.py:
2 LSTMCells(51) + Linear on 97 of 100 generated series, SGD lr 0.01 through
optimizer.step(closure) (one forward/backward per step), loss.item() every step,
count = --samples (100) per step. Usage: sine_wave.py [MAX_COUNT]."""
import os
import numpy as np
import torch
import torch.nn as nn
import torch.optim as optim
from meter import Meter, max_count

np.random.seed(1234)
torch.manual_seed(1234)
torch.set_num_threads(int(os.environ.get("OMP_NUM_THREADS", "1")))  # init_torch: workers or 1
device, _dtype, samples = torch.device("cpu"), torch.float32, 100


def generate_wave_data(T, L, N):
    x = np.empty((N, L), 'int64')
    x[:] = np.array(range(L)) + np.random.randint(-4 * T, 4 * T, N).reshape(N, 1)
    return np.sin(x / 1.0 / T).astype('float64')


class Sequence(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm1 = nn.LSTMCell(1, 51)
        self.lstm2 = nn.LSTMCell(51, 51)
        self.linear = nn.Linear(51, 1)

    def forward(self, input):
        outputs = []
        h_t = torch.zeros(input.size(0), 51).to(device=device, dtype=_dtype)
        c_t = torch.zeros(input.size(0), 51).to(device=device, dtype=_dtype)
        h_t2 = torch.zeros(input.size(0), 51).to(device=device, dtype=_dtype)
        c_t2 = torch.zeros(input.size(0), 51).to(device=device, dtype=_dtype)
        for input_t in input.chunk(input.size(1), dim=1):
            h_t, c_t = self.lstm1(input_t, (h_t, c_t))
            h_t2, c_t2 = self.lstm2(h_t, (h_t2, c_t2))
            outputs += [self.linear(h_t2)]
        return torch.stack(outputs, 1).squeeze(2)


data = generate_wave_data(20, 1000, samples)
input = torch.from_numpy(data[3:, :-1]).to(device=device, dtype=_dtype)
target = torch.from_numpy(data[3:, 1:]).to(device=device, dtype=_dtype)
seq = Sequence().to(device=device, dtype=_dtype)
criterion = nn.MSELoss()
optimizer = optim.SGD(seq.parameters(), lr=0.01)
seq.train()
m = Meter(max_count(8000))
while True:
    def closure():
        optimizer.zero_grad()
        out = seq(input.to(device=device, dtype=_dtype))
        loss = criterion(out, target)
        loss.backward()
        loss.item()
        return loss
    optimizer.step(closure)
    if not m.step(samples):
        break
m.report("sine_wave")
