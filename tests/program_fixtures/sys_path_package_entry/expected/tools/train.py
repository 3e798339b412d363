"""A package entry that makes the project root importable itself (reid-strong-baseline's
tools/train.py shape): run as `python tools/train.py` from the root, or as
`python -m tools.train`. The helpers import must come after the sys.path edit."""
import os
import sys

import torch
from torch.nn.parallel import DistributedDataParallel

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from tools._dp2ddp import DEVICE, DEVICE_IDS, ddp_setup  # noqa: E402
from engine.trainer import fit  # noqa: E402

E2E_DIGEST = {}


def main():
    ddp_setup()
    torch.manual_seed(0)
    model = DistributedDataParallel(
        torch.nn.Linear(2, 2).to(DEVICE), device_ids=DEVICE_IDS
    )
    E2E_DIGEST.update(fit(model))


if __name__ == "__main__":
    main()
