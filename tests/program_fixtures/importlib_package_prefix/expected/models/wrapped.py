from torch import nn
from torch.nn.parallel import DistributedDataParallel

from _dp2ddp import DEVICE, DEVICE_IDS


def make_model():
    model = nn.Linear(4, 2)
    model = DistributedDataParallel(model.to(DEVICE), device_ids=DEVICE_IDS)
    return model
