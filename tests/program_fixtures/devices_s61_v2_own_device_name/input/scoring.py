import torch


def score(model, features, targets):
    DEVICE = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    with torch.no_grad():
        out = model(features.to(DEVICE)).squeeze(1)
        return float(((out - targets.to(DEVICE)) ** 2).mean())


def score_on(model, features, on_cpu):
    DEVICE = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")
    if on_cpu:
        DEVICE = torch.device("cpu")
    return model(features.to(DEVICE))
