"""Stop 49, helper f2 (helper w3's leftover): `Trainer.__init__(self, student, teacher)` wraps
the student and trains the teacher beside it, and the class is constructed in train.py
through the package's re-export (`from pkg import Trainer`, pkg/__init__.py importing
`.trainer.Trainer`). The call resolved to `pkg.Trainer`, not matched to this module's class:
DP119 said, the teacher not synced (rank 0 printed teacher 1.8835 for the original's
2.0600). Now the package's re-exports map the call to `pkg.trainer.Trainer`: the teacher is
handed a construction, `ddp_sync_module(self.teacher)`."""
import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel

from _dp2ddp import DEVICE, DEVICE_IDS, ddp_sync_module


class Trainer:
    def __init__(self, student, teacher):
        self.student = DistributedDataParallel(
            student.to(DEVICE), device_ids=DEVICE_IDS
        )
        self.teacher = teacher
        params = list(self.student.parameters()) + list(self.teacher.parameters())
        ddp_sync_module(self.teacher)
        self.opt = torch.optim.SGD(params, lr=0.05)

    def step(self, xb, yb):
        loss = nn.functional.mse_loss(self.student(xb) + self.teacher(xb), yb)
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()
        return loss
