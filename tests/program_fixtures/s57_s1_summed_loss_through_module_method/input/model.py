import torch.nn as nn

from losses import PointDistance


class AutoEncoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.encode = nn.Linear(3, 2)
        self.decode = nn.Linear(2, 3)
        self.score = nn.Linear(2, 1)
        self.criterion = PointDistance()

    def forward(self, x):
        code = self.encode(x)
        return self.decode(code), self.score(code.mean(1)).squeeze(1)

    def get_loss(self, clouds, rebuilt):
        return self.criterion(clouds, rebuilt)
