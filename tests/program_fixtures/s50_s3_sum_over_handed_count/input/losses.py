"""The loss of a step: a summed loss over the count its caller hands in."""

import torch.nn as nn


class TokenLoss(nn.Module):
    def __init__(self, pad):
        super().__init__()
        self.criterion = nn.CrossEntropyLoss(ignore_index=pad, reduction="sum")

    def forward(self, x, y):
        return self.criterion(x, y)


class LossCompute:
    def __init__(self, generator, criterion, opt):
        self.generator = generator
        self.criterion = criterion
        self.opt = opt

    def __call__(self, x, y, norm):
        x = self.generator(x)
        loss = self.criterion(x.contiguous().view(-1, x.size(-1)), y.contiguous().view(-1)) / norm
        loss.backward()
        self.opt.step()
        self.opt.zero_grad()
        return loss.item() * norm
