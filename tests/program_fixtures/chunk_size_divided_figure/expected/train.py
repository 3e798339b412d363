"""v3-B (stop 42, MILVLG/mcan-vqa@6b165e9's core/exec.py): each batch of a sharded loader is
cut into sub-batches of a size derived from the batch size (`sub = bs // accu`). The slices
take this rank's part of `sub`; a figure of this rank's sub-batch divided by the same `sub`
(`loss.item() / sub`, a per-sample loss; a running sum of such) must take it too, or it
prints 1 / WORLD_SIZE of the original's figure. A count of chunks (`args.bs // sub`) keeps
the global size; a value dp2ddp cannot place (the learning rate read from the optimizer)
is said (DP106). Every sample is the same, so each sub-batch's per-sample loss is the same
number on every rank and in the original (tests/test_program_pairs_e2e.py)."""

import argparse

import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, TensorDataset

from _dp2ddp import (
    DEVICE,
    DEVICE_IDS,
    WORLD_SIZE,
    DdpDistributedSampler,
    ddp_per_rank_batch,
    ddp_print,
    ddp_setup,
)

ddp_setup()


parser = argparse.ArgumentParser()
parser.add_argument("--bs", type=int, default=4)
parser.add_argument("--accu", type=int, default=2)
args = parser.parse_args()
sub = args.bs // args.accu
torch.manual_seed(0)
model = DistributedDataParallel(nn.Linear(4, 1).to(DEVICE), device_ids=DEVICE_IDS)
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
loss_fn = nn.MSELoss(reduction="sum")
data = TensorDataset(torch.ones(16, 4), torch.full((16, 1), 3.0))
loader = DataLoader(
    data,
    batch_size=ddp_per_rank_batch(args.bs),
    drop_last=True,
    sampler=DdpDistributedSampler(data, shuffle=False, drop_last=True),
)
for step, (x, y) in enumerate(loader):
    optimizer.zero_grad()
    total = 0.0
    for k in range(args.bs // sub):
        xs, ys = x[k * ddp_per_rank_batch(sub) : (k + 1) * ddp_per_rank_batch(sub)], y[
            k * ddp_per_rank_batch(sub) : (k + 1) * ddp_per_rank_batch(sub)
        ]
        loss = loss_fn(model(xs), ys)
        (loss * WORLD_SIZE).backward()
        total += loss.item()
        ddp_print("per-sample loss %.4f" % (loss.item() / ddp_per_rank_batch(sub)))
        # dp2ddp: DP106
        ddp_print("lr per sample %.5f" % (optimizer.param_groups[0]["lr"] / sub))
    ddp_print("step %d mean %.4f" % (step, total / ddp_per_rank_batch(sub) / args.accu))
    optimizer.step()
E2E_DIGEST = [round(float(p.detach().sum()), 5) for p in model.parameters()]
