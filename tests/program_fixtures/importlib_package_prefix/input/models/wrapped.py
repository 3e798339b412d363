import torch
from torch import nn


def make_model():
    model = nn.Linear(4, 2)
    if torch.cuda.device_count() > 1:
        model = nn.DataParallel(model)
    return model
