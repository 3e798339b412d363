"""A checkpoint saved and loaded back inside a `while keep_training:` loop whose flag the
body sets (princeton-vl/RAFT's shape, stop 34).

Before: migrate failed with "too deeply nested" (the uniformity proof asked the loop about
the flag's binding inside the loop, which asked the loop again, without end). Migrated,
each save is rank 0's, and every rank loads it back in the same pass, and the last one
after the loop: the rank named by E2E_SLOW_RANK sleeps before each save, and a load before
the save finished raises (a checkpoint name new at each save). The barrier goes right after
the save, inside the loop: the loop over the sharded loader runs as many passes on every
rank (analysis/sharded_passes.py; stop 34 gave the load inside the loop DP031 instead;
golden fixture rank_zero_save_load_in_while_flag_loop).
"""

import os
import time

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


def main():
    torch.manual_seed(0)
    data = TensorDataset(torch.randn(32, 4), torch.randn(32, 2))
    loader = DataLoader(data, batch_size=8)
    model = nn.DataParallel(nn.Linear(4, 2))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    os.makedirs("checkpoints", exist_ok=True)
    steps = 0
    keep_training = True
    while keep_training:
        for x, y in loader:
            optimizer.zero_grad()
            nn.functional.mse_loss(model(x), y).backward()
            optimizer.step()
            steps += 1
            if steps % 3 == 0:
                if os.environ.get("RANK", "0") == os.environ.get("E2E_SLOW_RANK"):
                    time.sleep(0.5)
                path = f"checkpoints/{steps}.pth"
                torch.save(model.state_dict(), path)
                model.load_state_dict(torch.load(path))
            if steps >= 7:
                keep_training = False
                break
    model.load_state_dict(torch.load(path))
    print("steps", steps)


if __name__ == "__main__":
    main()
