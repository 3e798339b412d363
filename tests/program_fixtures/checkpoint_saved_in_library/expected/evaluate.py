import torch

from _dp2ddp import DEVICE, ddp_barrier


def load_best(model, path):
    ddp_barrier()
    model.load_state_dict(torch.load(path, map_location=DEVICE))
    return model
