import torch


def load_ckpt(model, path):
    model.load_state_dict(torch.load(path))
