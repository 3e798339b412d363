import torch
import torch.nn as nn
from data import dataloader


def train(model, train_loader, opt, log_interval):
    model.train()
    total_loss = 0.0
    for batch, (x, y) in enumerate(train_loader):
        model.zero_grad()
        loss = ((model(x) - y) ** 2).mean()
        loss.backward()
        opt.step()
        total_loss += loss.item()
        if batch % log_interval == 0 and batch > 0:
            print("batch %d loss %.4f" % (batch, total_loss / log_interval))
            total_loss = 0.0


def evaluate(model, eval_loader):
    model.eval()
    total = 0.0
    with torch.no_grad():
        for x, y in eval_loader:
            total += ((model(x) - y) ** 2).mean()
    return total / len(eval_loader)


corpus = dataloader
train_loader = corpus.get_train_loader(batch_size=8)
valid_loader = corpus.get_valid_loader(batch_size=4)
model = nn.DataParallel(nn.Linear(4, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.05)
for epoch in range(2):
    train(model, train_loader, opt, 2)
    print("valid %.4f" % evaluate(model, valid_loader))
print("weights %.4f" % model.module.weight.sum().item())
