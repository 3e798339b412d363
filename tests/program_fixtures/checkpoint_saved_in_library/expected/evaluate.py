import torch

from _dp2ddp import DEVICE


def load_best(model, path):
    model.load_state_dict(torch.load(path, map_location=DEVICE))
    return model
