import torch.nn as nn


def build():
    stem = nn.Linear(4, 4)
    for param in stem.parameters():
        param.requires_grad = False
    return nn.Sequential(stem, nn.Linear(4, 2))


def to_device(x):
    return x


def init_weights(layer):
    if isinstance(layer, nn.Linear):
        nn.init.constant_(layer.bias, 0)
