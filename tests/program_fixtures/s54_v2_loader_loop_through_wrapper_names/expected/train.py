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
from engine import do_training_epoch, do_validation_epoch

ddp_setup()


torch.manual_seed(0)
train_set = TensorDataset(torch.randn(8, 2), torch.randn(8, 1))
probe_set = TensorDataset(torch.randn(8, 2), torch.randn(8, 1))
train_loader = DataLoader(
    train_set,
    batch_size=ddp_per_rank_batch(4),
    sampler=DdpDistributedSampler(train_set, shuffle=False),
)
# dp2ddp: DP015 evaluation metrics not reduced
probe_loader = DataLoader(probe_set, batch_size=4, shuffle=True)
model = DistributedDataParallel(nn.Linear(2, 1).to(DEVICE), device_ids=DEVICE_IDS)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(2):
    train_loss = do_training_epoch(train_loader, model, optimizer)
    probe_loss = do_validation_epoch(probe_loader, model)
    ddp_print(f"epoch {epoch} train_loss={train_loss:.4f} probe_loss={probe_loss:.4f}")
ddp_print("weights %.4f" % sum(p.abs().sum().item() for p in model.parameters()))
