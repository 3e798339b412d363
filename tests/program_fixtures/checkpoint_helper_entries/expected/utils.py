import torch

from _dp2ddp import DEVICE


def load_ckpt(model, path):
    model.load_state_dict(torch.load(path, map_location=DEVICE))
