from torch.nn.parallel import DistributedDataParallel

from _dp2ddp import DEVICE, DEVICE_IDS


def init_net(net):
    return DistributedDataParallel(net.to(DEVICE), device_ids=DEVICE_IDS)
