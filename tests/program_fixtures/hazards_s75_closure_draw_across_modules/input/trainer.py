"""A loss factory of another module returns a closure that draws noise for the batch it is
given, through a helper of a third module (round 26, a graph diffusion repo's spelling: the
closure kept on `self`, `self.loss_fn(self.net, batch)` in the loop). Every rank seeds alike
and draws the same noise for its own rows, where DataParallel drew one stream for the whole
global batch: DP006 at the call (the factory's call in __init__ draws nothing: no DP006
there)."""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from losses import get_denoise_loss


class Trainer:
    def __init__(self):
        torch.manual_seed(3)
        points = torch.randn(1, 4).repeat(24, 1)
        self.loader = DataLoader(TensorDataset(points), batch_size=8)
        self.net = nn.DataParallel(nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 4)))
        self.opt = torch.optim.SGD(self.net.parameters(), lr=0.05)
        self.loss_fn = get_denoise_loss(0.5)

    def train(self):
        for epoch in range(3):
            for (batch,) in self.loader:
                loss = self.loss_fn(self.net, batch, torch.ones(1, 4))
                self.opt.zero_grad()
                loss.backward()
                self.opt.step()
        total = sum(p.detach().double().sum().item() for p in self.net.parameters())
        print("weights %.6f" % total)
