"""A run directory named by another module's helpers (issue 29): each rank read the clock
(and drew a uuid) in naming.py on its own; the call that names the shared path is read as
rank 0's value here, where the path is made and read."""
import os

import torch
import torch.nn as nn

import naming
from naming import run_name


def main():
    save = os.path.join("runs", run_name("exp"))
    os.makedirs(save, exist_ok=True)
    trial = f"trials/{naming.trial_id()}"
    os.makedirs(trial)
    model = nn.DataParallel(nn.Linear(4, 2))
    torch.save(model.state_dict(), os.path.join(save, "m.pt"))
    model.load_state_dict(torch.load(os.path.join(save, "m.pt")))


if __name__ == "__main__":
    main()
