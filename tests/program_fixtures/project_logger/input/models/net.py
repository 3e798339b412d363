import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)

    def forward(self, x):
        return self.fc(x)


def test():
    net = Net()
    y = net(torch.randn(2, 4))
    print(y.size())


if __name__ == "__main__":
    test()
