"""Stop 52 v3-B (xu-ji/IIC@b7602b7 code/utils/cluster/cluster_eval.py): the evaluation's
loop is in a function reached only through a parameter holding it (`get_data=_predict`),
handed on by another function's keyword."""
import torch


def _predict(model, loader):
    hits, seen = 0, 0
    for x, y in loader:
        with torch.no_grad():
            out = model(x)
        hits += int(((out > 0).float() == y).sum())
        seen += len(y)
    return hits, seen


def _matches(model, loader, get_data=None):
    return get_data(model, loader)


def score(model, loader, get_data=_predict):
    model.eval()
    hits, seen = _matches(model, loader, get_data=get_data)
    model.train()
    return hits / seen
