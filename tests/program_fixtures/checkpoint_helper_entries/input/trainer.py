import torch


def fit(model, path):
    torch.save(model.state_dict(), path)
