import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

import utils.models
from _dp2ddp import (
    DEVICE,
    DEVICE_IDS,
    DdpDistributedSampler,
    ddp_per_rank_batch,
    ddp_print,
    ddp_same_random,
    ddp_wrap_trainable,
)
from core.test import test_net


def train_net(epochs):
    model = utils.models.build()
    model.apply(utils.models.init_weights)
    # dp2ddp: DP041 some parameters may get no gradient: find_unused_parameters=True
    model = ddp_wrap_trainable(
        model.to(DEVICE), device_ids=DEVICE_IDS, find_unused_parameters=True
    )
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    with ddp_same_random():
        dataset = TensorDataset(torch.randn(16, 4), torch.randint(0, 2, (16,)))
    loader = DataLoader(
        dataset,
        batch_size=ddp_per_rank_batch(8),
        sampler=DdpDistributedSampler(dataset, shuffle=False),
    )
    for epoch in range(epochs):
        for x, y in loader:
            x = utils.models.to_device(x)
            loss = nn.functional.cross_entropy(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        ddp_print(epoch, loss.item(), test_net(model))
