"""A file-system check that decides a read of stdin and a removal (issue 29;
lshiwjx/2s-AGCN@953c14f, kenziyuliu/MS-G3D@2f927f4).

`if os.path.isdir(logdir): if input(...) == "y": shutil.rmtree(logdir)` on every rank: the
check was true on the rank that came second, after rank 0 had made the directory, so that
rank alone read stdin (EOFError with the answer piped in, a wait at a terminal). The test
launches it once with `runs_old` made before the launch (holding `stale.txt`) and
`runs_new` absent; the answer "y" follows the one stdin_answer reads. The rank named by
E2E_SLOW_RANK starts 1.1 s late.
"""

import argparse
import os
import shutil
import time

import torch.nn as nn


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--logdir", default="runs_old")
    args = parser.parse_args()
    if os.environ.get("RANK", "0") == os.environ.get("E2E_SLOW_RANK"):
        time.sleep(1.1)
    model = nn.DataParallel(nn.Linear(4, 2))
    if os.path.isdir(args.logdir):  # made before the launch: asked, removed
        if input("delete it? y/n") == "y":
            shutil.rmtree(args.logdir)
            print("Dir removed")
        else:
            raise SystemExit("not removed")
    os.makedirs(args.logdir, exist_ok=True)
    logdir = "runs_new"  # absent at the start: no question
    if os.path.exists(logdir) and (args.logdir == "-" or input("delete new? ") == "y"):
        shutil.rmtree(logdir)
    os.makedirs(logdir, exist_ok=True)
    stale = os.path.exists(os.path.join(args.logdir, "stale.txt"))
    rank = os.environ.get("RANK", "0")
    with open(os.path.join(args.logdir, f"rank{rank}.txt"), "w") as f:
        f.write(f"stale={stale}")
    print("stale:", stale, "model:", type(model).__name__)


if __name__ == "__main__":
    main()
