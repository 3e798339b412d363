import os

import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, TensorDataset

import utils
from _dp2ddp import (
    DEVICE,
    DEVICE_IDS,
    DdpDistributedSampler,
    ddp_barrier,
    ddp_per_rank_batch,
    ddp_print,
    ddp_same_random,
    ddp_setup,
)

ddp_setup()


torch.manual_seed(0)
model_dir = "out"
os.makedirs(model_dir, exist_ok=True)
utils.create_csv(model_dir, "losses.csv", ["epoch", "step", "loss"])
ddp_barrier()
utils.save_params(model_dir, {"lr": 0.1})
ddp_barrier()
ddp_print(utils.load_params(model_dir))
model = DistributedDataParallel(nn.Linear(4, 1).to(DEVICE), device_ids=DEVICE_IDS)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
with ddp_same_random():
    dataset = TensorDataset(torch.randn(8, 4), torch.randn(8, 1))
loader = DataLoader(
    dataset,
    batch_size=ddp_per_rank_batch(4),
    sampler=DdpDistributedSampler(dataset, shuffle=False),
)
for epoch in range(2):
    for step, (x, y) in enumerate(loader):
        opt.zero_grad()
        loss = ((model(x) - y) ** 2).mean()
        loss.backward()
        opt.step()
        utils.save_state(model_dir, epoch, step, loss.item())
ddp_print("weights %.4f" % sum(p.sum().item() for p in model.parameters()))
