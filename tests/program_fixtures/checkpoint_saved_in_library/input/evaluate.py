import torch


def load_best(model, path):
    model.load_state_dict(torch.load(path))
    return model
