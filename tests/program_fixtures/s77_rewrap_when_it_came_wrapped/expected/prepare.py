"""Sets a model's input scale from one batch; hands back a wrapped model only if it was
handed one."""

import torch
from torch.nn.parallel import DistributedDataParallel

from _dp2ddp import DEVICE, DEVICE_IDS


def prepare(model, batch):
    came_parallel = False
    if isinstance(model, DistributedDataParallel):
        came_parallel = True
        model = model.module
    with torch.no_grad():
        model.scale.fill_(float(batch.abs().max()))
    # dp2ddp: DP012 DataParallel wrap kept under a condition
    if came_parallel:
        model = DistributedDataParallel(model.to(DEVICE), device_ids=DEVICE_IDS)
    return model
