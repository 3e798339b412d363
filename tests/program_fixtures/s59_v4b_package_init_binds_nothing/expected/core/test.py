import torch

import utils.models
from _dp2ddp import DEVICE, DEVICE_IDS, ddp_wrap_trainable


def test_net(model=None):
    if model is None:
        model = utils.models.build()
        # dp2ddp: DP041 some parameters may get no gradient: find_unused_parameters=True
        model = ddp_wrap_trainable(
            model.to(DEVICE), device_ids=DEVICE_IDS, find_unused_parameters=True
        )
    model.eval()
    with torch.no_grad():
        return model(torch.ones(4, 4)).sum().item()
