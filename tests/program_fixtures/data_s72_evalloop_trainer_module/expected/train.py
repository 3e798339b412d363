# The loop's step is a method of a trainer object whose class is in another module, and
# the loop also samples the model under no_grad() on fixed inputs: it trains.
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
)
from gan_trainer import Trainer

ddp_setup()


torch.manual_seed(0)
data = TensorDataset(torch.randn(32, 4), torch.randn(32, 1))
loader = DataLoader(
    data,
    batch_size=ddp_per_rank_batch(8),
    sampler=DdpDistributedSampler(data, shuffle=False),
)
model = DistributedDataParallel(
    nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1)).to(DEVICE),
    device_ids=DEVICE_IDS,
)
trainer = Trainer(model)
fixed = torch.linspace(-1, 1, 8).view(2, 4)
for epoch in range(3):
    for x, y in loader:
        trainer.train_step(x, y)
        with torch.no_grad():
            snapshot = trainer.model(fixed)
if ddp_is_main():
    # dp2ddp: DP030 running figure printed from this rank's shard
    print("last snapshot %.5f" % snapshot.sum().item())
    print("weight sum %.5f" % sum(p.sum().item() for p in model.parameters()))
