"""A training loop over an alias of its loader parameter (class v1-B of stop 42): the
batches are the sharded loader's, each this rank's share, not split again."""

import torch.nn as nn

import helpers


def train(model, train_loader, optimizer, epochs, rows):
    for epoch in range(epochs):
        tl = train_loader
        for x, y in tl:
            x, y = helpers.cuda(x), helpers.cuda(y)
            rows.append(x.shape[0])
            loss = nn.functional.mse_loss(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
