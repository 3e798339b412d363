import torch

from _dp2ddp import DEVICE


def score(model, features, targets):
    with torch.no_grad():
        out = model(features.to(DEVICE)).squeeze(1)
        return float(((out - targets.to(DEVICE)) ** 2).mean())


def score_on(model, features, on_cpu):
    DEVICE = DEVICE
    if on_cpu:
        DEVICE = torch.device("cpu")
    return model(features.to(DEVICE))
