import os

import torch
import torch.nn as nn

import utils
from _dp2ddp import ddp_all_reduce_sum


def train(model, train_loader, num_epochs, output):
    os.makedirs(output, exist_ok=True)
    optim = torch.optim.SGD(model.parameters(), lr=0.1)
    logger = utils.Logger(os.path.join(output, "log.txt"))
    figures = []
    for epoch in range(num_epochs):
        total_loss = 0
        train_score = 0
        for x, y in train_loader:
            pred = model(x)
            loss = nn.functional.binary_cross_entropy_with_logits(pred, y)
            loss.backward()
            optim.step()
            optim.zero_grad()
            total_loss += loss.item() * x.size(0)
            train_score += ((pred > 0).float() == y).sum().item()
        total_loss, train_score = ddp_all_reduce_sum(total_loss, train_score)
        total_loss /= len(train_loader.dataset)
        train_score = 100 * train_score / len(train_loader.dataset)
        logger.write("epoch %d, train_loss: %.4f, score: %.2f" % (epoch, total_loss, train_score))
        figures += [total_loss, train_score]
    return figures
