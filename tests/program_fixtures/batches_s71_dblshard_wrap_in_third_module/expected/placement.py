from torch.nn.parallel import DistributedDataParallel

from _dp2ddp import DEVICE, DEVICE_IDS


def on_devices(module):
    module = DistributedDataParallel(module.to(DEVICE), device_ids=DEVICE_IDS)
    return module
