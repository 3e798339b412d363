import torch.nn as nn
import torch.nn.functional as F


class Mimic(nn.Module):
    """The teacher's output is read only detached: its parameters get no gradient."""

    def __init__(self, teacher, student):
        super().__init__()
        self.teacher, self.student = teacher, student
        self.bridge = nn.Linear(4, 4)

    def forward(self, x, y):
        guide = self.teacher(x)
        out = self.student(x)
        return ((self.bridge(out) - guide.detach()) ** 2).mean() + F.cross_entropy(out, y)
