import torch

from _dp2ddp import ddp_is_main


def fit(model, path):
    if ddp_is_main():
        torch.save(model.state_dict(), path)
