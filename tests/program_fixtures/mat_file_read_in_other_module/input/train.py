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
from torch.utils.data import DataLoader, TensorDataset

from evaluate import score

logging.basicConfig(level=logging.INFO)
_print = logging.info
os.makedirs("result", exist_ok=True)
net = nn.DataParallel(nn.Linear(4, 2))
opt = torch.optim.SGD(net.parameters(), lr=0.1)
train = DataLoader(TensorDataset(torch.rand(16, 4), torch.rand(16, 2)), batch_size=4, shuffle=True)
test = DataLoader(TensorDataset(torch.rand(8, 4)), batch_size=4)
flags = [1, -1] * 4
for epoch in range(2):
    for x, y in train:
        loss = ((net(x) - y) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    features = None
    with torch.no_grad():
        for (x,) in test:
            f = net(x).numpy()
            features = f if features is None else np.concatenate((features, f), 0)
    scipy.io.savemat("./result/tmp_result.mat", {"fl": features, "flag": flags})
    accs = score("./result/tmp_result.mat")
    _print("score %.4f" % accs)
