import torch.nn as nn

from _dp2ddp import ddp_print


class Partial(nn.Module):
    def __init__(self):
        super().__init__()
        ddp_print("building partial")
        self.fc = nn.Linear(6, 1)
        self.aux = nn.Linear(6, 1)

    def forward(self, x):
        return self.fc(x)
