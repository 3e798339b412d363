import torch
import torch.nn as nn


class BatchCriterion(nn.Module):
    """Every other row of the batch a negative; row i + n/2 the positive of row i."""

    def __init__(self, temperature, batch_size):
        super().__init__()
        self.temperature = temperature
        self.diag_mat = 1 - torch.eye(batch_size * 2)

    def forward(self, x, indexes):
        n = x.size(0)
        paired = torch.cat((x.narrow(0, n // 2, n // 2), x.narrow(0, 0, n // 2)), 0)
        pos = (x * paired.data).sum(1).div(self.temperature).exp()
        every = torch.mm(x, x.t().data).div(self.temperature).exp() * self.diag_mat
        return -(pos / every.sum(1)).log().mean()
