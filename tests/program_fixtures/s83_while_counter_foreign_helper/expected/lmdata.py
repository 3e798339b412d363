from torch.nn.parallel import DistributedDataParallel

from _dp2ddp import DEVICE, DEVICE_IDS


def wrap(net):
    # dp2ddp: DP001 DataParallel dim is not 0
    return DistributedDataParallel(net.to(DEVICE), device_ids=DEVICE_IDS)


def columns(stream, width):
    rows = stream.size(0) // width
    return stream[: rows * width].view(width, -1).t().contiguous()


def cut(source, at, length):
    n = min(length, source.size(0) - 1 - at)
    return source[at : at + n], source[at + 1 : at + 1 + n]
