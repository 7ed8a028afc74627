"""toy_lstm in PyTorch eager, as src/workloads/sine_wave.cpp (PyTorch's
time_sequence_prediction: 2 LSTMCells(51) + Linear, LBFGS lr 0.8, 100 series)."""
import torch
from meter import Meter, max_count
T, L, N = 20, 1000, 100
shift = torch.randint(-4 * T, 4 * T, (N, 1)).float()
data = torch.sin((torch.arange(L).float().unsqueeze(0) + shift) / T)
inp, tgt = data[3:, :-1].contiguous(), data[3:, 1:].contiguous()

class Sequence(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm1, self.lstm2 = torch.nn.LSTMCell(1, 51), torch.nn.LSTMCell(51, 51)
        self.linear = torch.nn.Linear(51, 1)
    def forward(self, x):
        h1 = c1 = h2 = c2 = torch.zeros(x.size(0), 51)
        outs = []
        for xt in x.split(1, dim=1):
            h1, c1 = self.lstm1(xt, (h1, c1))
            h2, c2 = self.lstm2(h1, (h2, c2))
            outs.append(self.linear(h2))
        return torch.stack(outs, 1).squeeze(2)

seq = Sequence()
opt = torch.optim.LBFGS(seq.parameters(), lr=0.8)
m = Meter(max_count(3000))
while True:
    def closure():
        opt.zero_grad()
        loss = torch.nn.functional.mse_loss(seq(inp), tgt)
        loss.backward()
        return loss
    opt.step(closure)
    if not m.step(inp.size(0)):
        break
m.report("sine_wave")
