"""Evaluation features saved as a MATLAB file on rank 0 and read back at once, by every rank,
through another module's function given the same literal path (class v1-B of stop 40,
Xiaoccer/MobileFaceNet_Pytorch@26bd8d2's LFW evaluation: `scipy.io.savemat(path, result)`,
`accs = evaluation_10_fold(path)` -> `scipy.io.loadmat`). Before: the write went to rank 0,
nothing stood between it and the other ranks' read (rank 1 read a missing file). Now a
ddp_barrier() goes between them, as for numpy's save and load."""
import logging
import os

import numpy as np
import scipy.io
import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

from _dp2ddp import (
    DEVICE,
    DEVICE_IDS,
    ddp_barrier,
    ddp_is_main,
    ddp_per_rank_batch,
    ddp_same_random,
    ddp_setup,
)
from evaluate import score

ddp_setup()


logging.basicConfig(level=logging.INFO)
_print = logging.info
os.makedirs("result", exist_ok=True)
net = DistributedDataParallel(nn.Linear(4, 2).to(DEVICE), device_ids=DEVICE_IDS)
opt = torch.optim.SGD(net.parameters(), lr=0.1)
with ddp_same_random():
    train_dataset = TensorDataset(torch.rand(16, 4), torch.rand(16, 2))
train = DataLoader(
    train_dataset,
    batch_size=ddp_per_rank_batch(4),
    sampler=DistributedSampler(train_dataset, shuffle=True),
)
with ddp_same_random():
    test = DataLoader(TensorDataset(torch.rand(8, 4)), batch_size=4)
flags = [1, -1] * 4
for epoch in range(2):
    train.sampler.set_epoch(epoch)
    for x, y in train:
        loss = ((net(x) - y) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    features = None
    with torch.no_grad():
        # dp2ddp: DP015 evaluation metrics not reduced
        for (x,) in test:
            f = net(x).numpy()
            features = f if features is None else np.concatenate((features, f), 0)
    if ddp_is_main():
        scipy.io.savemat("./result/tmp_result.mat", {"fl": features, "flag": flags})
    ddp_barrier()
    accs = score("./result/tmp_result.mat")
    _print("score %.4f" % accs)
