"""A log directory removed and made again at start-up, on every rank (issue 29; the class
of ermongroup/ncsn@7f27f4a).

`if os.path.exists(args.log): shutil.rmtree(args.log)` then `os.makedirs(args.log)`, and a
sub-directory the same way. The removal goes to rank 0; without a wait, a rank that got
there first (rank 0 slow) made the directory and wrote its file into the old one, which
rank 0 then removed. The test launches it with `logs` made before the launch (holding
`stale.txt`). Then an exists-check that raises before the directory it checks is made
(rank 1 coming second found rank 0's and raised): rank 0's reading on every rank. The rank
named by E2E_SLOW_RANK starts 1.1 s late.
"""

import argparse
import os
import shutil
import time

import torch.nn as nn


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--log", default="logs")
    args = parser.parse_args()
    if os.environ.get("RANK", "0") == os.environ.get("E2E_SLOW_RANK"):
        time.sleep(1.1)
    model = nn.DataParallel(nn.Linear(4, 2))
    if os.path.exists(args.log):
        shutil.rmtree(args.log)
    os.makedirs(args.log)
    tb_path = os.path.join(args.log, "tb")
    if os.path.exists(tb_path):
        shutil.rmtree(tb_path)
    os.makedirs(tb_path, exist_ok=True)
    save_dir = os.path.join(args.log, "model")
    if os.environ.get("RANK", "0") == os.environ.get("E2E_SLOW_RANK"):
        time.sleep(0.5)  # the barriers above lined the ranks up again
    if os.path.exists(save_dir):  # wujiyang/Face_Pytorch@3afd941: never overwrite a run
        raise NameError("model dir exists!")
    os.makedirs(save_dir)
    stale = os.path.exists(os.path.join(args.log, "stale.txt"))
    rank = os.environ.get("RANK", "0")
    with open(os.path.join(tb_path, f"rank{rank}.txt"), "w") as f:
        f.write(f"stale={stale}")
    print("stale:", stale, "model:", type(model).__name__)


if __name__ == "__main__":
    main()
