# A batch sampler of the program composing each batch by position (samples first, then a
# partner of each), its loader built and returned by another module, and the loop reading
# rows by position: `net(inputs[:batch_size // 2])` trained, the second half its partners
# (validation round 5 of stop 52, v2-A: alinlab/cs-kd@b447f25 datasets.py's
# PairBatchSampler and load_dataset, train.py:134-142). The shard keeps a contiguous part
# of each batch on each rank: rank 0's part is the samples, rank 1's their partners, so a
# rank's first half is not its share of the samples: DP082 (before: nothing said, the
# ranks trained on other samples and pairs).
import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel

from _dp2ddp import DEVICE, DEVICE_IDS, ddp_print, ddp_same_random, ddp_setup
from data import load_dataset

ddp_setup()


torch.manual_seed(0)
with ddp_same_random():
    trainloader, size = load_dataset(4)
net = DistributedDataParallel(nn.Linear(3, 1).to(DEVICE), device_ids=DEVICE_IDS)
optimizer = torch.optim.SGD(net.parameters(), lr=0.1)
for epoch in range(2):
    for batch_idx, (inputs, targets) in enumerate(trainloader):
        batch_size = inputs.size(0)
        outputs = net(inputs[: batch_size // 2])
        with torch.no_grad():
            partners = net(inputs[batch_size // 2 :])
        loss = ((outputs - targets[: batch_size // 2]) ** 2).mean()
        loss = loss + ((outputs - partners) ** 2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
ddp_print("weights %.4f" % net.module.weight.sum().item())
