"""The models of a package (re-exported by its __init__.py) return each replica's loss
averaged over its rows; the loop sums the values DataParallel gathered. A sum of replica
means: no `* WORLD_SIZE` at the backward (it doubled every update on 2 ranks)."""
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
from nets import LossHead, MeanHead

ddp_setup()


torch.manual_seed(0)

head = DistributedDataParallel(LossHead().to(DEVICE), device_ids=DEVICE_IDS)
mean_head = DistributedDataParallel(MeanHead().to(DEVICE), device_ids=DEVICE_IDS)
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
opt = torch.optim.SGD(list(head.parameters()) + list(mean_head.parameters()), lr=0.1)

for epoch in range(2):
    for xb, yb, tb in loader:
        loss = head(xb, yb).sum()
        opt.zero_grad()
        loss.backward()
        opt.step()
        total = mean_head(xb, tb)[:, 0].sum()
        opt.zero_grad()
        total.backward()
        opt.step()

if ddp_is_main():
    print('weights %.6f' % sum(p.abs().sum().item() for p in head.parameters()))
    print('mean %.6f' % sum(p.abs().sum().item() for p in mean_head.parameters()))
