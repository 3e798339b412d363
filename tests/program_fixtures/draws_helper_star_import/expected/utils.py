"""Helpers of a WGAN program, imported by the entry with `from utils import *`."""
import torch


def gen_rand_noise(batch_size):
    return torch.randn(batch_size, 8)
