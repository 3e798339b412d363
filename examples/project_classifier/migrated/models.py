"""The model and how it is put on the GPUs (DataParallel when there are several)."""

import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel

from _dp2ddp import DEVICE, DEVICE_IDS


class Classifier(nn.Module):
    def __init__(self, features=16, classes=3):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(features, 32), nn.ReLU(), nn.Linear(32, classes))

    def forward(self, x):
        return self.net(x)


def build_model(device):
    model = Classifier()
    model = DistributedDataParallel(model.to(DEVICE), device_ids=DEVICE_IDS)
    return model.to(device)
