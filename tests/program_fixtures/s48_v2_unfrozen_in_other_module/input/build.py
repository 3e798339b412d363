import torch.nn as nn

from nets import Net


def get_net():
    return nn.DataParallel(Net())
