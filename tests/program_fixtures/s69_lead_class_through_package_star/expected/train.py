import torch
import torch.nn as nn

from nets import *

# isort: split
from torch.nn.parallel import DistributedDataParallel

from _dp2ddp import (
    DEVICE,
    DEVICE_IDS,
    DdpDistributedSampler,
    ddp_per_rank_batch,
    ddp_print,
    ddp_same_random,
    ddp_setup,
)

ddp_setup()


torch.manual_seed(0)
# dp2ddp: DP041 some parameters may get no gradient: find_unused_parameters=True
model = DistributedDataParallel(
    Mimic(nn.Linear(8, 4), nn.Linear(8, 4)).to(DEVICE),
    device_ids=DEVICE_IDS,
    find_unused_parameters=True,
)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
with ddp_same_random():
    data = torch.utils.data.TensorDataset(
        torch.randn(16, 8), torch.randint(0, 4, (16,))
    )
for x, y in torch.utils.data.DataLoader(
    data,
    batch_size=ddp_per_rank_batch(4),
    sampler=DdpDistributedSampler(data, shuffle=False),
):
    loss = model(x, y).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
ddp_print("weights %.6f" % sum(p.sum().item() for p in model.parameters()))
