import torch


def gen_noise(x, flags):
    z = torch.randn_like(x)
    return z * flags
