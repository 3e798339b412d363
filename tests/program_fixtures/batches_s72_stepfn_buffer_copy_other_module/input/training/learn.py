"""The step copies the batch it pulls into a buffer its caller made, then trains on that."""

import torch.nn.functional as F


def learn(model, optimizer, provider, buffer, targets_buffer):
    images, labels = provider.__next__()
    buffer.copy_(images)
    targets_buffer.copy_(labels)
    loss = F.mse_loss(model(buffer), targets_buffer)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    return loss.item()
