"""Prints whose arguments call into the program's own package through a star re-export
(`lib/__init__.py`: `from .util import *`), yandex-research/rtdl-revisiting-models@e3ed46c's
`print(f'[{part}]', lib.make_summary(metrics))`. A pure helper (it only builds a string, in
a dict of its own) is pure under the package's name too: that print is guarded like one
with `str(m)`. A helper that steps a scheduler and one the package redefines itself (it
records its argument) are not proved free of work every rank needs: those prints become
ddp_print, their arguments evaluated on every rank and the line printed by rank 0."""

import torch
import torch.nn as nn

import lib

torch.manual_seed(0)
model = nn.DataParallel(nn.Linear(4, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
opt.step()
sched = torch.optim.lr_scheduler.StepLR(opt, 1)
X = {"val": torch.randn(12, 4), "test": torch.randn(12, 4)}

with torch.no_grad():
    metrics = {part: {"score": float(model(x).mean())} for part, x in X.items()}
for part, part_metrics in metrics.items():
    print(f"[{part:<5}]", lib.make_summary(part_metrics))
print("lr", lib.step_and_read(sched))
print(lib.shout("done"))
