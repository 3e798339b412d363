import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from _dp2ddp import DdpDistributedSampler, ddp_per_rank_batch, ddp_print, ddp_setup
from engine import Engine

ddp_setup()


torch.manual_seed(0)
inputs = torch.randn(32, 4)
outputs = inputs @ torch.tensor([[1.0], [-2.0], [0.5], [3.0]])
dataset = TensorDataset(inputs, outputs)
train_loader = DataLoader(
    dataset,
    sampler=DdpDistributedSampler(dataset, shuffle=False),
    batch_size=ddp_per_rank_batch(8),
)
layer = nn.Linear(4, 1)
engine = Engine(layer, lr=0.05)
for epoch in range(2):
    engine.train_one_epoch(source=train_loader)
ddp_print("weights", [round(v, 4) for v in layer.weight.flatten().tolist()])
