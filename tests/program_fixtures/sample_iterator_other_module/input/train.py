"""Class S1 of stop 31 across modules (edge-connect's edge_connect.py): the sample iterator
is the generator of rows.py, drawn in sample() where nothing backpropagates (the model after
.eval()): the program tells rows.py, whose loader stays whole; the samples are the
original's rows, saved by rank 0. The training loader is sharded."""

import os

import torch
import torch.nn as nn
from torch.utils.data import DataLoader

from rows import Rows


class Trainer:
    def __init__(self):
        torch.manual_seed(0)
        self.model = nn.DataParallel(nn.Linear(4, 1))
        self.opt = torch.optim.SGD(self.model.parameters(), lr=0.1)
        self.train_set = Rows(16)
        self.sample_iterator = Rows(8).create_iterator(4)

    def train(self):
        loader = DataLoader(self.train_set, batch_size=4, shuffle=False)
        for epoch in range(2):
            for x in loader:
                loss = self.model(x).pow(2).mean()
                self.opt.zero_grad()
                loss.backward()
                self.opt.step()
            self.sample(epoch)

    def sample(self, epoch):
        self.model.eval()
        x = next(self.sample_iterator)
        out = self.model(x).detach()
        self.model.train()
        os.makedirs("samples", exist_ok=True)
        torch.save(out, f"samples/{epoch}.pt")
        print("sample", epoch, "rows", out.shape[0], "sum %.6f" % out.sum().item())


if __name__ == "__main__":
    Trainer().train()
