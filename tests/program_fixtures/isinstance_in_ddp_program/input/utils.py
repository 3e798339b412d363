import torch.nn as nn


def unwrap(model):
    """The bare model of a DataParallel wrap; this project's DDP model is kept as it is."""
    return model.module if isinstance(model, nn.DataParallel) else model
