"""A log kept open through pathlib and written by a helper, and a checkpoint saved by a
lambda (classes v1-C and v1-D of the stop-42 validation round,
ternaus/robot-surgery-segmentation@1d18157 utils.train): migrated, rank 0 alone appends
the log's lines and writes the checkpoint."""

import json
from pathlib import Path

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


def write_event(log, step, **data):
    data["step"] = step
    log.write(json.dumps(data, sort_keys=True))
    log.write("\n")
    log.flush()


torch.manual_seed(0)
root = Path("runs")
root.mkdir(exist_ok=True, parents=True)
model_path = root / "model.pt"
model = nn.DataParallel(nn.Linear(4, 2))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
loader = DataLoader(TensorDataset(torch.randn(16, 4), torch.randn(16, 2)), batch_size=4)
save = lambda ep: torch.save({"model": model.state_dict(), "epoch": ep}, str(model_path))
log = root.joinpath("train.log").open("at", encoding="utf8")
step = 0
for epoch in range(2):
    for x, y in loader:
        loss = ((model(x) - y) ** 2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        step += 1
    write_event(log, step, epoch=epoch)
    save(epoch + 1)
