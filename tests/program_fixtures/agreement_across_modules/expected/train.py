"""A run directory named by another module's helpers (issue 29): each rank read the clock
(and drew a uuid) in naming.py on its own; the call that names the shared path is read as
rank 0's value here, where the path is made and read."""
import os

import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel

import naming
from _dp2ddp import (
    DEVICE,
    DEVICE_IDS,
    ddp_barrier,
    ddp_is_main,
    ddp_rank0_value,
    ddp_setup,
)
from naming import run_name


def main():
    ddp_setup()
    save = os.path.join("runs", ddp_rank0_value(run_name, "exp"))
    os.makedirs(save, exist_ok=True)
    trial = f"trials/{ddp_rank0_value(naming.trial_id)}"
    os.makedirs(trial, exist_ok=True)
    model = DistributedDataParallel(nn.Linear(4, 2).to(DEVICE), device_ids=DEVICE_IDS)
    if ddp_is_main():
        torch.save(model.state_dict(), os.path.join(save, "m.pt"))
    ddp_barrier()
    model.load_state_dict(torch.load(os.path.join(save, "m.pt"), map_location=DEVICE))


if __name__ == "__main__":
    main()
