"""Models by name: the class a run trains is picked at run time from a table."""
import torch.nn as nn


class DistillLoss(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Linear(8, 4)
        self.ce = nn.CrossEntropyLoss()

    def forward(self, x, y):
        return self.ce(self.net(x), y).view(1, 1)


MODELS = {"distill": DistillLoss}


def build(name):
    return MODELS[name]()
