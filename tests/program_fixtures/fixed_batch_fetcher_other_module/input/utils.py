"""Debug outputs, computed without gradients (stargan-v2's core/utils.py)."""

import torch


@torch.no_grad()
def debug_image(net, inputs, step):
    torch.save(net(inputs["x"]), "sample_%d.pt" % step)
