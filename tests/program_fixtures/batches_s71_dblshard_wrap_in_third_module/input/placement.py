import torch
import torch.nn as nn


def on_devices(module):
    if torch.cuda.device_count() > 1:
        module = nn.DataParallel(module)
    return module
