"""A time-stamped run directory guarded by an exists-check that raises (issue 22 item 4).

As wujiyang/Face_Pytorch@3afd941 (train.py): `if os.path.exists(save_dir): raise
NameError("model dir exists!")`, then `os.makedirs(save_dir)`, `save_dir` stamped with the
time. Migrated before the fix, the stamp was shared and makedirs made tolerant, but every
rank still ran the check: rank 1, here a little late as under load, found rank 0's folder
and raised. The check reads what the program changes right after it: it is rank 0's
reading on every rank (taken before rank 0 makes the folder), so no rank raises.
"""

import os
import time
from datetime import datetime

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


def main():
    torch.manual_seed(0)
    save_dir = os.path.join("runs", "model_" + datetime.now().strftime("%Y%m%d_%H%M%S"))
    if os.environ.get("RANK") == "1":
        time.sleep(0.5)
    if os.path.exists(save_dir):
        raise NameError("model dir exists!")
    os.makedirs(save_dir)
    data = TensorDataset(torch.randn(32, 4), torch.randint(0, 2, (32,)))
    loader = DataLoader(data, batch_size=8, shuffle=True)
    model = nn.DataParallel(nn.Linear(4, 2))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for x, y in loader:
        loss = nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    torch.save(model.state_dict(), os.path.join(save_dir, "model.pth"))
    runs = len(os.listdir("runs"))
    print("runs:", runs)


if __name__ == "__main__":
    main()
