"""Stop 51 (helper s1): tensors the optimizer trains, built in another module (`make_extra()`
returns a list display bound to a name first; `make_gains(2)` a list grown by `append` in a
loop), a list grown here after its binding (`extra.append(nn.Parameter(...))`), and the
`scale` of heads.py's own module class (`scaler.scale`). No DDP wrap holds them: each rank
would train its own copies on its share."""
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
    ddp_setup,
    ddp_sync_tensor,
)
from heads import Scaler
from params import make_extra, make_gains

ddp_setup()


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
extra = make_extra()
extra.append(nn.Parameter(torch.full((1,), 0.5)))
gains = make_gains(2)
scaler = Scaler()
opt = torch.optim.SGD(list(model.parameters()) + extra + gains + [scaler.scale], lr=0.05)
list(map(ddp_sync_tensor, extra))
list(map(ddp_sync_tensor, gains))
ddp_sync_tensor(scaler.scale)
for epoch in range(2):
    for xb, yb in loader:
        out = scaler(model(xb) * extra[0] * gains[0] + extra[1] + extra[2] * gains[1])
        loss = ((out - yb) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
if ddp_is_main():
    print(
        "extra %.4f %.4f %.4f gains %.4f %.4f" % tuple(p.item() for p in extra + gains)
    )
    print("scale %.4f" % scaler.scale.item())
