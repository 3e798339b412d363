
from _dp2ddp import DEVICE, DEVICE_IDS, ddp_sync_frozen, ddp_wrap_trainable
from nets import Net


def get_net():
    return ddp_sync_frozen(ddp_wrap_trainable(Net().to(DEVICE), device_ids=DEVICE_IDS))
