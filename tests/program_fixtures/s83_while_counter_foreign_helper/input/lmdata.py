import torch.nn as nn


def wrap(net):
    return nn.DataParallel(net, dim=1)


def columns(stream, width):
    rows = stream.size(0) // width
    return stream[: rows * width].view(width, -1).t().contiguous()


def cut(source, at, length):
    n = min(length, source.size(0) - 1 - at)
    return source[at : at + n], source[at + 1 : at + 1 + n]
