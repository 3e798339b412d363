# dp2ddp: DP025 DataParallel module that no entry script imports
from torch.nn.parallel import DistributedDataParallel

from _dp2ddp import DEVICE, DEVICE_IDS


def parallel(model):
    model = DistributedDataParallel(model.to(DEVICE), device_ids=DEVICE_IDS)
    return model.to(DEVICE)
