"""A model whose forward() returns its replica's loss: a sum over the rows it is given,
divided by their count (set by the caller before each call, or in forward() itself)."""
import torch.nn as nn


class LossNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Linear(8, 4)
        self.batch_size = 1
        self.ce = nn.CrossEntropyLoss(reduction='sum')

    def forward(self, x, y):
        loss = self.ce(self.net(x), y) / self.batch_size
        return loss.unsqueeze(0).unsqueeze(1)


class OwnCount(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Linear(8, 4)

    def forward(self, x, y):
        n = x.size(0)
        loss = (self.net(x) - y).pow(2).sum() / n
        return loss.view(1)
