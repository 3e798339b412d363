"""The training steps: each pulls one batch from what its caller hands it, and trains."""

import torch.nn.functional as F

from _dp2ddp import ddp_same_random, ddp_shard_batch


def fit_step(model, optimizer, provider):
    with ddp_same_random():
        inputs, targets = provider.__next__()
    inputs, targets = ddp_shard_batch((inputs, targets))
    loss = F.mse_loss(model(inputs), targets)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()


def refine_step(model, optimizer, batches):
    with ddp_same_random():
        batch = next(batches)
    batch = ddp_shard_batch(batch, source=batches)
    inputs, targets = batch
    loss = F.l1_loss(model(inputs), targets)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
