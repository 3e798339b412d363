import torch
import torch.nn as nn
from data import dataloader
from torch.nn.parallel import DistributedDataParallel

from _dp2ddp import DEVICE, DEVICE_IDS, ddp_print, ddp_setup

ddp_setup()


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
            # dp2ddp: DP030 running figure printed from this rank's shard
            ddp_print("batch %d loss %.4f" % (batch, total_loss / log_interval))
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
model = DistributedDataParallel(nn.Linear(4, 1).to(DEVICE), device_ids=DEVICE_IDS)
opt = torch.optim.SGD(model.parameters(), lr=0.05)
for epoch in range(2):
    train_loader.sampler.set_epoch(epoch)
    train(model, train_loader, opt, 2)
    ddp_print("valid %.4f" % evaluate(model, valid_loader))
ddp_print("weights %.4f" % model.module.weight.sum().item())
