import torch.nn as nn

from _dp2ddp import ddp_print


def createCriterion():
    ddp_print("=> creating criterion")
    return nn.MSELoss()
