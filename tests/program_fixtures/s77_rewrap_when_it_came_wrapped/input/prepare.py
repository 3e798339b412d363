"""Sets a model's input scale from one batch; hands back a wrapped model only if it was
handed one."""

import torch
from torch import nn


def prepare(model, batch):
    came_parallel = False
    if isinstance(model, nn.DataParallel):
        came_parallel = True
        model = model.module
    with torch.no_grad():
        model.scale.fill_(float(batch.abs().max()))
    if came_parallel:
        model = nn.DataParallel(model)
    return model
