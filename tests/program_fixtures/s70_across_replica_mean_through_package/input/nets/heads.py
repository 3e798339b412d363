"""Models that compute their loss in forward(): averaged over the rows they are given (a
torch.nn loss's default mean, a `.mean()`, one divided by the rows' count)."""
import torch.nn as nn
import torch.nn.functional as F


class LossHead(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Linear(8, 4)
        self.ce = nn.CrossEntropyLoss()

    def forward(self, x, y):
        out = self.net(x)
        loss = self.ce(out, y) + 0.5 * F.cross_entropy(out, y, label_smoothing=0.1)
        return loss.unsqueeze(0)


class MeanHead(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Linear(8, 4)

    def forward(self, x, t):
        err = (self.net(x) - t).pow(2)
        per_row = err.sum(1).sum() / x.shape[0]
        return (err.mean() + per_row).view(1, 1)
