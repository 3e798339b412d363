"""Exists-checks whose folder another rank makes (issue 29; stop 34's X1/F1).

`if os.path.exists(save): raise` with the folder made afterwards by a helper of another
function (LeeDoYup/FixMatch-pytorch's get_logger): the late rank found the folder and
raised. `if not os.path.exists(d): print(...); os.mkdir(d)` (kaidic/LDAM-DRW's
prepare_folders): when rank 1 made the folder first, rank 0 printed nothing. Rank 0's
reading decides for every rank. The rank named by E2E_SLOW_RANK is 1.1 s late.
"""

import logging
import os
import time

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


def slow(rank):
    if os.environ.get("E2E_SLOW_RANK") == rank and os.environ.get("RANK", "0") == rank:
        time.sleep(1.1)


def get_logger(path):
    os.makedirs(path, exist_ok=True)
    logger = logging.getLogger("exists_made_elsewhere")
    logger.addHandler(logging.FileHandler(os.path.join(path, "log.txt")))
    return logger


def prepare_folders(root):
    for folder in (root, os.path.join(root, "ckpt")):
        if not os.path.exists(folder):
            print("creating folder " + folder)
            os.mkdir(folder)


def main():
    slow("0")
    slow("1")
    save = os.path.join("saved", "run")
    if os.path.exists(save):
        raise Exception("already existing model: " + save)
    logger = get_logger(save)
    prepare_folders("logs")
    torch.manual_seed(0)
    loader = DataLoader(TensorDataset(torch.randn(16, 4), torch.randn(16, 1)), batch_size=4)
    model = nn.DataParallel(nn.Linear(4, 1))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for x, y in loader:
        opt.zero_grad()
        nn.functional.mse_loss(model(x), y).backward()
        opt.step()
    torch.save(model.state_dict(), os.path.join("logs", "ckpt", "model.pt"))
    logger.warning("done")
    print("done")


if __name__ == "__main__":
    main()
