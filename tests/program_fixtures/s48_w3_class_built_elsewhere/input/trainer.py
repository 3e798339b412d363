"""Stop 48 p's leftover: `Trainer.__init__(self, student, teacher)` wraps the student and
trains the teacher beside it; the class is constructed in train.py only, so this module's
own calls prove nothing. The program's constructions (train.py's `Trainer(Net(),
nn.Linear(6, 1))`, read for every module) hand the teacher a construction:
`ddp_sync_module(self.teacher)`, as for a construction in this module."""
import torch
import torch.nn as nn


class Trainer:
    def __init__(self, student, teacher):
        self.student = nn.DataParallel(student)
        self.teacher = teacher
        params = list(self.student.parameters()) + list(self.teacher.parameters())
        self.opt = torch.optim.SGD(params, lr=0.05)

    def step(self, xb, yb):
        loss = nn.functional.mse_loss(self.student(xb) + self.teacher(xb), yb)
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()
        return loss
