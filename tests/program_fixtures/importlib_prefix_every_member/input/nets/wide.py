from torch import nn


def build(opt):
    print("building a wide net")
    return nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 1))


def record(epoch):
    print("epoch", epoch)
