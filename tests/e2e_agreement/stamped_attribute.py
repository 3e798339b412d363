"""A run directory stamped into an attribute, a dict item and a helper's return (issue 29).

`args.save = '{}-{}'.format(args.save, time.strftime(...))`: each rank reads the clock on
its own, so ranks a second apart name two directories, rank 0 saves into its own and rank
1's torch.load of the checkpoint raises FileNotFoundError. The same flow through a dict
item with an f-string and os.path.join, and through a helper's return with pathlib. The
rank named by E2E_SLOW_RANK reads the clock 1.1 s late.
"""

import argparse
import os
import time
from pathlib import Path

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


def slow_down():
    if os.environ.get("RANK", "0") == os.environ.get("E2E_SLOW_RANK"):
        time.sleep(1.1)


def stamp():
    return time.strftime("%Y%m%d-%H%M%S")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--save", default="runs/exp")
    args = parser.parse_args([])
    slow_down()
    args.save = "{}-{}".format(args.save, time.strftime("%Y%m%d-%H%M%S"))
    os.makedirs(args.save, exist_ok=True)
    cfg = {}
    cfg["log_dir"] = os.path.join("logs", f"run_{time.strftime('%H%M%S')}")
    os.makedirs(cfg["log_dir"], exist_ok=True)
    best = Path("best") / stamp()
    best.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(0)
    data = TensorDataset(torch.randn(32, 4), torch.randint(0, 2, (32,)))
    loader = DataLoader(data, batch_size=8, shuffle=True)
    model = nn.DataParallel(nn.Linear(4, 2))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for x, y in loader:
        loss = nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    torch.save(model.state_dict(), os.path.join(args.save, "model.pt"))
    torch.save(model.state_dict(), best / "model.pt")
    model.load_state_dict(torch.load(os.path.join(args.save, "model.pt")))
    model.load_state_dict(torch.load(best / "model.pt"))
    with open(os.path.join(cfg["log_dir"], "done.txt"), "w") as f:
        f.write("done\n")
    made = [len(os.listdir(d)) for d in ("runs", "logs", "best")]
    print("runs:", *made)


if __name__ == "__main__":
    main()
