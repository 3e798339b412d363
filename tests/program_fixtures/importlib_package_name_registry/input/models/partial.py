import torch.nn as nn


class Partial(nn.Module):
    def __init__(self):
        super().__init__()
        print("building partial")
        self.fc = nn.Linear(6, 1)
        self.aux = nn.Linear(6, 1)

    def forward(self, x):
        return self.fc(x)
