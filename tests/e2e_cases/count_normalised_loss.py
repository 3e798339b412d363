"""Fresh round stop 30, class L1 (kuangliu/pytorch-retinanet's FocalLoss): a loss summed
over the batch's elements and divided by the batch's count of positive ones. Here the
positives are uneven: batch 0 has three (two in one rank's part, one in the other's), batch 1
one (the other part has none: the original migration divided by 0 there, and every rank's
weights became NaN). Migrated, the count is the whole batch's (ddp_count_share): the
original's weights on both ranks."""

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


def masked_loss(pred, target):
    num_pos = (target > 0).long().sum()
    err = ((pred - target) ** 2).sum()
    return err / num_pos


torch.manual_seed(0)
x = torch.randn(16, 4)
y = torch.zeros(16, 3)
y[0:3, 0] = 1.0
y[4, 1] = 1.0
y[8, 2] = 1.0
y[12:14, 0] = 1.0
model = nn.DataParallel(nn.Linear(4, 3))
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
loader = DataLoader(TensorDataset(x, y), batch_size=4, shuffle=False)
for _epoch in range(2):
    for inputs, targets in loader:
        optimizer.zero_grad()
        loss = masked_loss(model(inputs), targets)
        loss.backward()
        optimizer.step()
E2E_DIGEST = [round(float(p.detach().sum()), 5) for p in model.parameters()]
print("final", E2E_DIGEST)
