"""vae in PyTorch eager, as src/workloads/vae.cpp (PyTorch's VAE example on
MNIST-shaped data, batch 128, Adam 1e-3). Reads DATAROOT/mnist idx files."""
import sys, os, torch, numpy as np
from meter import Meter, max_count
root = os.environ.get("MILARUN_DATAROOT", "data")
raw = open(os.path.join(root, "mnist/MNIST/raw/train-images-idx3-ubyte"), "rb").read()
images = torch.from_numpy(np.frombuffer(raw[16:], dtype=np.uint8).copy()).view(-1, 784).float() / 255

class VAE(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1, self.fc21, self.fc22 = torch.nn.Linear(784, 400), torch.nn.Linear(400, 20), torch.nn.Linear(400, 20)
        self.fc3, self.fc4 = torch.nn.Linear(20, 400), torch.nn.Linear(400, 784)
    def forward(self, x):
        h1 = torch.relu(self.fc1(x))
        mu, logvar = self.fc21(h1), self.fc22(h1)
        z = mu + torch.randn_like(mu) * torch.exp(0.5 * logvar)
        return torch.sigmoid(self.fc4(torch.relu(self.fc3(z)))), mu, logvar

model = VAE()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
m, b, n = Meter(max_count(300_000)), 128, images.size(0)
done = False
while not done:
    perm = torch.randperm(n)
    for i in range(0, n, b):
        x = images.index_select(0, perm[i:i + b])
        recon, mu, logvar = model(x)
        bce = torch.nn.functional.binary_cross_entropy(recon, x, reduction="sum")
        kld = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())
        loss = bce + kld
        opt.zero_grad()
        loss.backward()
        opt.step()
        if not m.step(x.size(0)):
            done = True
            break
m.report("vae")
