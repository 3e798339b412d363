import torch.nn as nn


def init_net(net):
    return nn.DataParallel(net)
