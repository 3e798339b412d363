import torch

from .replicate import DataParallelWithCallback


def convert_model(module):
    """Rebuild a DataParallel model as a DataParallelWithCallback."""
    if isinstance(module, torch.nn.DataParallel):
        return DataParallelWithCallback(module.module, device_ids=module.device_ids)
    return module
