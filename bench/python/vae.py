"""vae in PyTorch eager, following milabench's milarun/models/vae.py: torchvision
MNIST (ToTensor) through a DataLoader (shuffle, num_workers 0 as on CPU), VAE
784-400-20, Adam 1e-3, loss.item() every step, count = len(data). Reads
$MILARUN_DATAROOT/mnist/MNIST/raw. Usage: vae.py [MAX_COUNT] [BATCH]."""
import os, sys
import torch
import torch.utils.data
from torch import nn, optim
from torch.nn import functional as F
from torchvision import datasets, transforms
from meter import Meter, max_count

torch.manual_seed(1234)
torch.set_num_threads(int(os.environ.get("OMP_NUM_THREADS", "1")))  # init_torch: workers or 1
device = torch.device("cpu")
batch_size = int(sys.argv[2]) if len(sys.argv) > 2 else 128
root = os.path.join(os.environ.get("MILARUN_DATAROOT", "data"), "mnist")
train = datasets.MNIST(root, train=True, download=False, transform=transforms.ToTensor())
train_loader = torch.utils.data.DataLoader(train, batch_size=batch_size, shuffle=True)


class VAE(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(784, 400)
        self.fc21 = nn.Linear(400, 20)
        self.fc22 = nn.Linear(400, 20)
        self.fc3 = nn.Linear(20, 400)
        self.fc4 = nn.Linear(400, 784)

    def encode(self, x):
        h1 = F.relu(self.fc1(x))
        return self.fc21(h1), self.fc22(h1)

    def reparameterize(self, mu, logvar):
        std = torch.exp(0.5 * logvar)
        eps = torch.randn_like(std)
        return eps.mul(std).add_(mu)

    def decode(self, z):
        return torch.sigmoid(self.fc4(F.relu(self.fc3(z))))

    def forward(self, x):
        mu, logvar = self.encode(x.view(-1, 784))
        return self.decode(self.reparameterize(mu, logvar)), mu, logvar


def loss_function(recon_x, x, mu, logvar):
    BCE = F.binary_cross_entropy(recon_x, x.view(-1, 784), reduction='sum')
    KLD = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())
    return BCE + KLD


model = VAE().to(device)
optimizer = optim.Adam(model.parameters(), lr=1e-3)
model.train()
m, done = Meter(max_count(500_000)), False
while not done:
    for data, target in train_loader:
        data = data.to(device)
        optimizer.zero_grad()
        recon_batch, mu, logvar = model(data)
        loss = loss_function(recon_batch, data, mu, logvar)
        loss.backward()
        loss.item()
        optimizer.step()
        if not m.step(len(data)):
            done = True
            break
m.report("vae")
