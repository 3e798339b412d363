"""Stop 52 (helper s1): tensors the optimizer trains that no DDP wrap holds, reached through
modules: `make()` of a.py returns b.py's `build()`; a.py's `Child` and this module's `Twin`
hold the `gain` and the nn.ParameterList `shift` their base `Base` of b.py binds; and all
handed over in parameter-group dicts (`{"params": extra, "lr": ...}`). Each rank would
train its own copies on its share."""
import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, TensorDataset

from _dp2ddp import (
    DEVICE,
    DEVICE_IDS,
    DdpDistributedSampler,
    ddp_is_main,
    ddp_per_rank_batch,
    ddp_print,
    ddp_setup,
    ddp_sync_tensor,
)
from a import Child, make
from b import Base

ddp_setup()


class Twin(Base):
    def apply(self, h):
        return h + self.gain * self.shift[1]


torch.manual_seed(0)
x = torch.randn(32, 6)
y = x.sum(1, keepdim=True) * 2 + 1
dataset = TensorDataset(x, y)
loader = DataLoader(
    dataset,
    batch_size=ddp_per_rank_batch(8),
    sampler=DdpDistributedSampler(dataset, shuffle=False),
)
model = DistributedDataParallel(nn.Linear(6, 1).to(DEVICE), device_ids=DEVICE_IDS)
extra = make()
head = Child()
twin = Twin()
opt = torch.optim.SGD(
    [
        {"params": model.parameters()},
        {"params": extra, "lr": 0.02},
        {"params": [head.gain, twin.gain]},
        {"params": head.shift, "lr": 0.02},
        {"params": twin.shift},
    ],
    lr=0.01,
)
list(map(ddp_sync_tensor, extra))
ddp_sync_tensor(head.gain)
ddp_sync_tensor(twin.gain)
list(map(ddp_sync_tensor, head.shift))
list(map(ddp_sync_tensor, twin.shift))
for epoch in range(2):
    for xb, yb in loader:
        out = twin.apply(head.apply(model(xb) * extra[0] + extra[1]))
        loss = ((out - yb) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
if ddp_is_main():
    print("extra %.4f %.4f" % (extra[0].item(), extra[1].item()))
    print("gain %.4f twin %.4f" % (head.gain.item(), twin.gain.item()))
shifts = [head.shift[0], head.shift[1], twin.shift[1]]
ddp_print("shift %.4f %.4f twin %.4f" % tuple(p.item() for p in shifts))
