"""A generator, a critic and a fixed feature network of the program."""
import torch.nn as nn


class G(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 6)

    def forward(self, z):
        return self.fc(z)


class D(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 1)

    def forward(self, x):
        return self.fc(x)


class Features(nn.Module):
    def __init__(self, net):
        super().__init__()
        self.net = net

    def forward(self, x):
        return self.net(x)
