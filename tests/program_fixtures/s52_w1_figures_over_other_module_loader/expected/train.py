# Running figures summed in loops over a loader another module builds with a batch sampler
# of the program's own and returns (stop 52 w1: alinlab/cs-kd@b447f25 train.py's Loss/Acc,
# `correct += ...` over datasets.py's load_dataset()). That module shards it (DdpBatchShard):
# each rank sums its part of each batch. `correct / len(trainloader.dataset)` is summed over
# the ranks after the loop (the original's figure); the mean loss over the batches is
# rank 0's share: DP030 (before: neither, rank 0 printed its share without a word).
import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel

from _dp2ddp import DEVICE, DEVICE_IDS, ddp_all_reduce_sum, ddp_print, ddp_setup
from datasets import load_dataset

ddp_setup()


torch.manual_seed(0)
trainloader, valloader = load_dataset(8)
net = DistributedDataParallel(nn.Linear(4, 2).to(DEVICE), device_ids=DEVICE_IDS)
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(net.parameters(), lr=0.1)


def train(epoch):
    net.train()
    correct = 0
    for inputs, targets in trainloader:
        outputs = net(inputs)
        loss = criterion(outputs, targets)
        correct += outputs.argmax(1).eq(targets).sum().item()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    correct = ddp_all_reduce_sum(correct)
    ddp_print("epoch %d acc %.4f" % (epoch, correct / len(trainloader.dataset)))


def finetune():
    train_loss = 0
    for batch_idx, (inputs, targets) in enumerate(trainloader):
        loss = criterion(net(inputs), targets)
        train_loss += loss.item()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    # dp2ddp: DP030 running figure printed from this rank's shard
    ddp_print("finetune loss %.4f" % (train_loss / (batch_idx + 1)))


for epoch in range(2):
    train(epoch)
finetune()
ddp_print("weights %.4f" % sum(p.sum().item() for p in net.parameters()))
