import torch
import torch.nn as nn


def evaluate(model, dataloader):
    score = 0
    for x, y in iter(dataloader):
        score += ((model(x) > 0).float() == y).sum().item()
    return score / len(dataloader.dataset)


def train(model, train_loader, eval_loader, num_epochs):
    optim = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(num_epochs):
        for x, y in train_loader:
            loss = nn.functional.binary_cross_entropy_with_logits(model(x), y)
            loss.backward()
            optim.step()
            optim.zero_grad()
        model.train(False)
        print("epoch %d eval score %.2f" % (epoch, evaluate(model, eval_loader)))
        model.train(True)
