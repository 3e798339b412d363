import torch.nn as nn


def mlp(input_dims=8, n_class=2):
    return nn.Sequential(nn.Linear(input_dims, 16), nn.ReLU(), nn.Linear(16, n_class))
