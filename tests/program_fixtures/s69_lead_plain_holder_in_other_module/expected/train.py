import torch
import torch.nn as nn
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
from parts.critics import Critic, ValueBaseline

ddp_setup()


torch.manual_seed(0)
actor = DistributedDataParallel(nn.Linear(4, 4).to(DEVICE), device_ids=DEVICE_IDS)
baseline = ValueBaseline(Critic())
# dp2ddp: DP218
opt = torch.optim.Adam(
    [{"params": actor.parameters()}, {"params": baseline.trainable(), "lr": 0.01}], lr=0.01
)
with ddp_same_random():
    data = torch.utils.data.TensorDataset(torch.randn(16, 4), torch.randn(16))
for x, reward in torch.utils.data.DataLoader(
    data,
    batch_size=ddp_per_rank_batch(4),
    sampler=DdpDistributedSampler(data, shuffle=False),
):
    value = baseline.critic(actor(x))
    loss = ((value - reward) ** 2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
ddp_print("weights %.6f" % sum(p.sum().item() for p in baseline.critic.parameters()))
