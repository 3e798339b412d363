"""Stop 57 v2-C (castorini/hedwig@277814c, models/lr/__main__.py): an entry inside a package
of a repository whose root folder holds an __init__.py, run as `python -m app.train` from the
root; its modules import each other as top-level packages (`common`, `app`). The helpers
must be imported as `app._dp2ddp`: the base named them after the root folder
(`from <root>.app._dp2ddp import`), which neither `python -m app.train` from the root nor
the launch it printed could import (ModuleNotFoundError on every rank, no warning)."""
import torch
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import TensorDataset

from app._dp2ddp import DEVICE, DEVICE_IDS, ddp_print, ddp_setup
from app.net import Net
from common.trainer import fit


def main():
    ddp_setup()
    torch.manual_seed(0)
    x = torch.randn(16, 3)
    y = x.sum(dim=1, keepdim=True)
    model = DistributedDataParallel(Net().to(DEVICE), device_ids=DEVICE_IDS)
    fit(model, TensorDataset(x, y), 2)
    ddp_print("weight %.4f" % model.module.fc.weight.sum().item())


if __name__ == "__main__":
    main()
