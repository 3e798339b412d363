"""Debug outputs, computed without gradients (stargan-v2's core/utils.py)."""

import torch

from _dp2ddp import ddp_is_main


@torch.no_grad()
def debug_image(net, inputs, step):
    if ddp_is_main():
        torch.save(net(inputs["x"]), "sample_%d.pt" % step)
