# The critic's gradient penalty summed over the batch's rows in another module's helper
# (round 39 rerun, tomguluson92/StyleGAN_PyTorch@4fd0711's loss/loss.py): the sum reaches
# backward() here, over this rank's rows only: DP004 says so (before: nothing, the
# gradient's rows were not followed to the helper's parameter).
import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, TensorDataset

from _dp2ddp import (
    DEVICE,
    DEVICE_IDS,
    DdpDistributedSampler,
    ddp_per_rank_batch,
    ddp_print,
    ddp_same_random,
    ddp_setup,
)
from penalties import slope_penalty

ddp_setup()


torch.manual_seed(0)
critic = DistributedDataParallel(
    nn.Sequential(nn.Linear(5, 12), nn.Tanh(), nn.Linear(12, 1)).to(DEVICE),
    device_ids=DEVICE_IDS,
)
optimizer = torch.optim.SGD(critic.parameters(), lr=0.02)
with ddp_same_random():
    images_dataset = TensorDataset(torch.randn(24, 5))
images = DataLoader(
    images_dataset,
    batch_size=ddp_per_rank_batch(6),
    sampler=DdpDistributedSampler(images_dataset, shuffle=False),
)
for epoch in range(2):
    for (real,) in images:
        optimizer.zero_grad()
        loss = nn.functional.softplus(-critic(real)).mean() + 5.0 * slope_penalty(real, critic)
        loss.backward()
        optimizer.step()
ddp_print("weights %.6f" % sum(p.sum().item() for p in critic.parameters()))
