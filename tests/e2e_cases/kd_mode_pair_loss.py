"""e2e case (stop 49 g2): a distillation loss chosen by a mode switch, as
AberHu/Knowledge-Distillation-Zoo@65470c8's `criterionKD` and megvii-research/mdistiller@a08d46f's
distillers are. The mode run, `sp`, compares the batch's rows in a class whose names say
nothing of a loss (SP: a Gram matrix over the batch); the modes not run have a loss function
found by its name (rkd_loss) and a class with a distance method (IRG). Each rank's Gram matrix
is over its own part of the batch, DataParallel's over the whole: verify says NOT EQUIVALENT
and must name SP's place, the one the run reached, not rkd_loss's or IRG's."""

import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


def rkd_loss(f_s, f_t):
    return F.smooth_l1_loss(torch.cdist(f_s, f_s), torch.cdist(f_t, f_t))


class IRG(nn.Module):
    def euclidean_dist(self, f):
        return torch.mm(f, f.t())

    def forward(self, f_s, f_t):
        return F.mse_loss(self.euclidean_dist(f_s), self.euclidean_dist(f_t))


class SP(nn.Module):
    def forward(self, f_s, f_t):
        g_s = F.normalize(torch.mm(f_s, f_s.t()), dim=1)
        g_t = F.normalize(torch.mm(f_t, f_t.t()), dim=1)
        return (g_s - g_t).pow(2).mean()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--mode", default="sp")
    args = parser.parse_args()
    torch.manual_seed(0)
    features = torch.randn(32, 4)
    student = nn.Linear(4, 3)
    teacher = nn.Linear(4, 3)
    if args.mode == "irg":
        criterion = IRG()
    elif args.mode == "sp":
        criterion = SP()
    model = student
    if torch.cuda.device_count() > 1:
        model = nn.DataParallel(student)
    loader = DataLoader(TensorDataset(features), batch_size=8, shuffle=True)
    optimizer = torch.optim.SGD(student.parameters(), lr=0.5)
    for (x,) in loader:
        optimizer.zero_grad()
        out = model(x)
        with torch.no_grad():
            target = teacher(x)
        if args.mode == "rkd":
            loss = rkd_loss(out, target)
        else:
            loss = criterion(out, target)
        loss.backward()
        optimizer.step()


if __name__ == "__main__":
    main()
