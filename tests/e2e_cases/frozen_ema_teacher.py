"""Validation round stop 34, class X2 (LeeDoYup/FixMatch-pytorch@f167d64's DataParallel-only
variant): a trainer object (not an nn.Module) holds a student and an EMA teacher copied from
it, whose parameters its constructor switches off (`param_k.requires_grad = False` in a loop
over a `zip` of both models' parameters); both are wrapped in DataParallel, the teacher is
updated by hand from `student.module` each step and gives the pseudo-labels of the unlabeled
half. Migrated, both wraps became DistributedDataParallel, whose constructor raised on both
ranks at the teacher's ("DistributedDataParallel is not needed when a module doesn't have any
parameter that requires a gradient"), with no warning. Now ddp_wrap_trainable: the teacher
is held without DDP, the same `.module`: the original's weights, both models."""

import copy

import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


class FixMatch:
    def __init__(self, net, ema_m=0.9):
        self.train_model = net
        self.eval_model = copy.deepcopy(net)
        self.ema_m = ema_m
        for param_q, param_k in zip(
            self.train_model.parameters(), self.eval_model.parameters(), strict=True
        ):
            param_k.data.copy_(param_q.detach().data)
            param_k.requires_grad = False

    @torch.no_grad()
    def _eval_model_update(self):
        student = self.train_model.module.parameters()
        for param_train, param_eval in zip(student, self.eval_model.parameters(), strict=True):
            param_eval.copy_(param_eval * self.ema_m + param_train.detach() * (1 - self.ema_m))


def main():
    torch.manual_seed(0)
    model = FixMatch(nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3)))
    model.train_model = torch.nn.DataParallel(model.train_model)
    model.eval_model = torch.nn.DataParallel(model.eval_model)
    optimizer = torch.optim.SGD(model.train_model.parameters(), lr=0.1)
    labeled = DataLoader(TensorDataset(torch.randn(16, 4), torch.arange(16) % 3), batch_size=4)
    unlabeled = DataLoader(TensorDataset(torch.randn(32, 4)), batch_size=8)
    for _epoch in range(2):
        for (x_lb, y_lb), (x_ulb,) in zip(labeled, unlabeled, strict=True):
            logits = model.train_model(torch.cat([x_lb, x_ulb]))
            sup_loss = F.cross_entropy(logits[: x_lb.shape[0]], y_lb)
            with torch.no_grad():
                pseudo = model.eval_model(x_ulb).argmax(dim=1)
            unsup_loss = F.cross_entropy(logits[x_lb.shape[0] :], pseudo)
            loss = sup_loss + unsup_loss
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            model._eval_model_update()
    return [
        round(float(p.detach().sum()), 5)
        for m in (model.train_model.module, model.eval_model.module)
        for p in m.parameters()
    ]


E2E_DIGEST = main()
print("final", E2E_DIGEST)
