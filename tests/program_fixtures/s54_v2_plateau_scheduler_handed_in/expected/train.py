import torch
import torch.nn as nn
from torch.optim.lr_scheduler import ReduceLROnPlateau
from torch.utils.data import DataLoader, TensorDataset

from _dp2ddp import DdpDistributedSampler, ddp_per_rank_batch, ddp_setup
from trainer import Trainer

ddp_setup()


torch.manual_seed(0)
data = TensorDataset(torch.randn(8, 2), torch.randn(8, 1))
loader = DataLoader(
    data,
    batch_size=ddp_per_rank_batch(4),
    sampler=DdpDistributedSampler(data, shuffle=False),
)
model = nn.Linear(2, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
scheduler = ReduceLROnPlateau(optimizer, "min", factor=0.5, patience=0)
trainer = Trainer(model, optimizer, scheduler, loader, gpus=[0, 1])
trainer.train(4)
