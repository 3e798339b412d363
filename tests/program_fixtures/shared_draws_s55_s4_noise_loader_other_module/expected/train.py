"""Stop 55 s4, class r2-B across modules (learn-GAN's utils.py builds the loader): noise
sized by the batch of a loader another module's function returns, and shards. Each rank
draws its rows of the original's one draw of the global batch's noise. E2E_DIGEST: the first
step's noise (before: DP006, both ranks drew the same rows for their own samples)."""

import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel

from _dp2ddp import DEVICE, DEVICE_IDS, WORLD_SIZE, ddp_draw_share, ddp_setup
from data import make_loader

ddp_setup()


nz = 4
torch.manual_seed(0)
loader = make_loader()
netG = DistributedDataParallel(nn.Linear(nz, 3).to(DEVICE), device_ids=DEVICE_IDS)
optimizer = torch.optim.SGD(netG.parameters(), lr=0.5)
drawn = []
for epoch in range(2):
    loader.sampler.set_epoch(epoch)
    for real, _ in loader:
        noise = ddp_draw_share(lambda: torch.randn(real.size(0) * WORLD_SIZE, nz))
        drawn.append(noise)
        loss = (netG(noise) - real).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
E2E_DIGEST = [round(v, 5) for v in drawn[0].flatten().tolist()]
