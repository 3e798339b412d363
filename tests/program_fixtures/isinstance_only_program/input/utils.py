import torch


def unwrap(model):
    """The bare model, whether it was wrapped for several GPUs or not."""
    if isinstance(model, torch.nn.DataParallel):
        return model.module
    return model
