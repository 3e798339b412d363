import torch.nn as nn


def unwrap(model):
    return model.module if isinstance(model, nn.DataParallel) else model
