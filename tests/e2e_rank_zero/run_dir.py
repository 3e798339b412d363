"""A time-stamped run directory made before main() with a computed exist_ok (issue 10 item 2).

As victoresque/pytorch-template@41dc06f (parse_config.py): the `__main__` block builds the
config, which makes `saved/models/<run id>` with `exist_ok = run_id == ""` (an existing run
is never overwritten) and writes config.json, before main() and so before ddp_setup().
Under torchrun every rank made it: the second raised FileExistsError, and ranks reading the
clock in different seconds made two directories; every rank's open("w") truncated the
config.json rank 0 had written (pytorch-template's write_json, utils/util.py). The sleep makes rank 1 read the clock
more than a second after rank 0, as a rank that starts late under load does.
"""

import json
import os
import time
from datetime import datetime
from pathlib import Path

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class Config:
    def __init__(self, root, run_id=None):
        if os.environ.get("RANK") == "1":
            time.sleep(1.2)
        if run_id is None:  # time stamp as the default run id
            run_id = datetime.now().strftime(r"%m%d_%H%M%S")
        self._save_dir = Path(root) / "models" / run_id
        exist_ok = run_id == ""
        self.save_dir.mkdir(parents=True, exist_ok=exist_ok)
        with (self.save_dir / "config.json").open("w") as f:
            json.dump({"lr": 0.1, "epochs": 2}, f)

    @property
    def save_dir(self):
        return self._save_dir


def main(config):
    torch.manual_seed(0)
    data = TensorDataset(torch.randn(32, 4), torch.randint(0, 2, (32,)))
    loader = DataLoader(data, batch_size=8, shuffle=True)
    model = nn.DataParallel(nn.Linear(4, 2))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(2):
        for x, y in loader:
            loss = nn.functional.cross_entropy(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
        torch.save(model.state_dict(), config.save_dir / f"epoch{epoch}.pth")
    runs = len(list(Path("saved/models").iterdir()))
    print("runs:", runs)


if __name__ == "__main__":
    config = Config("saved")
    main(config)
