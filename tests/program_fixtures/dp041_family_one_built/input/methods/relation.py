import torch.nn as nn


class RelationHead(nn.Module):
    def __init__(self, width, loss_type):
        super().__init__()
        self.fc1 = nn.Linear(width, width)
        self.fc2 = nn.Linear(width, 1)
        self.loss_type = loss_type

    def forward(self, x):
        x = self.fc1(x).relu()
        if self.loss_type == "mse":
            x = self.fc2(x)
        return x


class RelationNet(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.head = RelationHead(width, "mse")

    def forward(self, x):
        return self.head(x)
