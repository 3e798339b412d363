"""Stop 57 v2-C (castorini/hedwig@277814c, models/lr/__main__.py): an entry inside a package
of a repository whose root folder holds an __init__.py, run as `python -m app.train` from the
root; its modules import each other as top-level packages (`common`, `app`). The helpers
must be imported as `app._dp2ddp`: the base named them after the root folder
(`from <root>.app._dp2ddp import`), which neither `python -m app.train` from the root nor
the launch it printed could import (ModuleNotFoundError on every rank, no warning)."""
import torch
import torch.nn as nn
from torch.utils.data import TensorDataset

from app.net import Net
from common.trainer import fit


def main():
    torch.manual_seed(0)
    x = torch.randn(16, 3)
    y = x.sum(dim=1, keepdim=True)
    model = nn.DataParallel(Net())
    fit(model, TensorDataset(x, y), 2)
    print("weight %.4f" % model.module.fc.weight.sum().item())


if __name__ == "__main__":
    main()
