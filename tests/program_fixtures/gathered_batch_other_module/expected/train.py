"""A fixed batch gathered by helpers of another module (class G4 across modules, issue 28:
GAN_stability's `x_real = utils.get_nsamples(train_loader, ntest)`). From the sharded loader
each rank would gather its own shard, the restarting helper the same samples twice,
silently. Migrated, the loader each helper only reads from is read whole, in rank 0's
order: E2E_DIGEST (the gathered samples) is the original's on both ranks. train_epoch()
trains: its loader stays sharded."""
import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

import utils
from _dp2ddp import (
    DEVICE,
    DEVICE_IDS,
    ddp_per_rank_batch,
    ddp_print,
    ddp_same_random,
    ddp_setup,
    ddp_whole_loader,
)
from utils import get_nsamples

ddp_setup()


torch.manual_seed(0)
dataset = TensorDataset(torch.arange(64.0).view(64, 1))
loader = DataLoader(
    dataset,
    batch_size=ddp_per_rank_batch(8),
    sampler=DistributedSampler(dataset, shuffle=True),
)
model = DistributedDataParallel(nn.Linear(1, 1).to(DEVICE), device_ids=DEVICE_IDS)
opt = torch.optim.SGD(model.parameters(), lr=0.001)

with ddp_same_random():
    x_fixed = get_nsamples(ddp_whole_loader(loader, 8), 8)
    first = utils.first_batches(ddp_whole_loader(loader, 8), 2)
for epoch in range(2):
    loader.sampler.set_epoch(epoch)
    x = utils.train_epoch(model, opt, loader)
    with torch.no_grad():
        grid = model(x_fixed)
    ddp_print(f"epoch {epoch}: grid {grid.shape[0]}, last batch {x.shape[0]}")
E2E_DIGEST = [*x_fixed.view(-1).tolist(), *first.view(-1).tolist()]
ddp_print("fixed", E2E_DIGEST)
