import torch.nn as nn


def generate_model():
    model = nn.Sequential(nn.Linear(6, 4), nn.ReLU())
    return nn.DataParallel(model)
