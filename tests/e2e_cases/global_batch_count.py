"""Validation round stop 34, class B1 (csqiangwen/DeepFillv2_Pytorch@e505471's masks):
inside the loop over a loader of batch_size=B, a tensor of the batch's rows filled by
`for i in range(B): mask[i] = ...`. Migrated, each rank's batch is B / 2: `mask[2]`
raised IndexError on both ranks at the first step. Now the count is read per rank
(ddp_per_rank_batch(B)): the original's weights."""

import argparse

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

parser = argparse.ArgumentParser()
parser.add_argument("--batch_size", type=int, default=4)
args = parser.parse_args([])

torch.manual_seed(0)
images = torch.randn(16, 1, 4, 4)
loader = DataLoader(TensorDataset(images), batch_size=args.batch_size, drop_last=True)
model = nn.DataParallel(nn.Conv2d(2, 1, 3, padding=1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for _epoch in range(2):
    for (img,) in loader:
        mask = torch.empty(img.shape[0], 1, 4, 4)
        for i in range(args.batch_size):
            mask[i] = (img[i] > 0).float()
        out = model(torch.cat([img * (1 - mask), mask], 1))
        loss = ((out - img) ** 2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
E2E_DIGEST = [round(float(p.detach().sum()), 5) for p in model.parameters()]
print("final", E2E_DIGEST)
