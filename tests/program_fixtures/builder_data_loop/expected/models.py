import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel

from _dp2ddp import DEVICE, DEVICE_IDS


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 2)

    def forward(self, x):
        return self.fc(x)


def build_model():
    model = Net()
    model = DistributedDataParallel(model.to(DEVICE), device_ids=DEVICE_IDS)
    return model.to(DEVICE) if torch.cuda.is_available() else model
