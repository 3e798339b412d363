"""Round 22 (cls), bhheo/AB_distillation@a7701d3, with the model in another module: each
replica's forward() returns its loss divided by its own rows (the caller stores the count on
the model before each call, or forward() takes it from its input), and the loop sums the
replicas' values, alone or beside another term. Each is a sum of means, not a sum over the
batch: no `* WORLD_SIZE` at the backward (it doubled every update on 2 ranks)."""
import torch
from torch.nn.parallel import DistributedDataParallel

from _dp2ddp import (
    DEVICE,
    DEVICE_IDS,
    DdpDistributedSampler,
    ddp_is_main,
    ddp_per_rank_batch,
    ddp_same_random,
    ddp_setup,
)
from models import LossNet, OwnCount

ddp_setup()


torch.manual_seed(0)

model = DistributedDataParallel(LossNet().to(DEVICE), device_ids=DEVICE_IDS)
other = DistributedDataParallel(OwnCount().to(DEVICE), device_ids=DEVICE_IDS)
with ddp_same_random():
    x = torch.randn(16, 8)
    y = torch.randint(0, 4, (16,))
    t = torch.randn(16, 4)
dataset = torch.utils.data.TensorDataset(x, y, t)
loader = torch.utils.data.DataLoader(
    dataset,
    batch_size=ddp_per_rank_batch(8),
    sampler=DdpDistributedSampler(dataset, shuffle=False),
)
opt = torch.optim.SGD(list(model.parameters()) + list(other.parameters()), lr=0.1)

for epoch in range(2):
    for xb, yb, tb in loader:
        model.module.batch_size = xb.shape[0]
        loss = model(xb, yb)[:, 0].sum()
        opt.zero_grad()
        loss.backward()
        opt.step()
        mixed = other(xb, tb).sum() + 0.5 * other(xb, tb).mean()
        opt.zero_grad()
        mixed.backward()
        opt.step()

if ddp_is_main():
    print('weights %.6f' % sum(p.abs().sum().item() for p in model.parameters()))
    print('other %.6f' % sum(p.abs().sum().item() for p in other.parameters()))
