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
    ddp_setup,
)
from engine import Trainer

ddp_setup()


torch.manual_seed(0)
rows = TensorDataset(torch.randn(32, 4), torch.randn(32, 1))
loader = DataLoader(
    rows,
    batch_size=ddp_per_rank_batch(8),
    sampler=DdpDistributedSampler(rows, shuffle=False),
)
model = DistributedDataParallel(nn.Linear(4, 1).to(DEVICE), device_ids=DEVICE_IDS)
trainer = Trainer(model, torch.optim.SGD(model.parameters(), lr=0.1))
trainer.train(train_data=loader, epochs=2)
ddp_print("weights %.6f" % sum(p.sum().item() for p in model.parameters()))
