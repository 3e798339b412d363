import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel

from _dp2ddp import DEVICE, DEVICE_IDS


def generate_model():
    model = nn.Sequential(nn.Linear(6, 4), nn.ReLU())
    return DistributedDataParallel(model.to(DEVICE), device_ids=DEVICE_IDS)
