"""A run folder removed and made again in one branch of an exists-check (issue 29; the
class of ermongroup/ddim@e8df66c).

`if os.path.exists(log_path): shutil.rmtree(log_path); os.makedirs(log_path)` / `else:
os.makedirs(log_path)`, then every rank opens a file in it. The removal goes to rank 0;
each rank's own check sent a late rank into the other branch, and an early one made the
folder (or opened its file in it) while rank 0 was still removing it: "Directory not
empty", or FileNotFoundError (2 of 4 launches). Rank 0's reading decides the branch, and
the ranks wait right after the removal. The test launches it with exp/run holding 200 stale
files. The rank named by E2E_SLOW_RANK starts 1.1 s late.
"""

import os
import shutil
import time

import torch.nn as nn


def main():
    if os.environ.get("RANK", "0") == os.environ.get("E2E_SLOW_RANK"):
        time.sleep(1.1)
    log_path = os.path.join("exp", "run")
    if os.path.exists(log_path):
        shutil.rmtree(log_path)
        os.makedirs(log_path)
    else:
        os.makedirs(log_path)
    rank = os.environ.get("RANK", "0")
    with open(os.path.join(log_path, f"rank{rank}.log"), "w") as f:
        f.write("ok")
    model = nn.DataParallel(nn.Linear(4, 2))
    print("files:", len(os.listdir(log_path)), type(model).__name__)


if __name__ == "__main__":
    main()
