# The loader class lives in loaders.py; train.py builds the training loader and the
# validation loader from it. Its rewritten __init__ shards every instance unless told
# ddp_shard=False: the validation loader, only evaluated here, is built whole.
import numpy as np
import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import TensorDataset

from _dp2ddp import DEVICE, DEVICE_IDS, ddp_print, ddp_same_random, ddp_setup
from loaders import TaskLoader

ddp_setup()


torch.manual_seed(0)
X = torch.randn(64, 8)
Y = (X[:, 0] > 0).long()
with ddp_same_random():
    Xv = torch.randn(32, 8)
    Yv = torch.randint(0, 2, (32,))

train_loader = TaskLoader(TensorDataset(X, Y), batch_size=16, shuffle=True)
# dp2ddp: DP015 evaluation metrics not reduced
val_loader = TaskLoader(TensorDataset(Xv, Yv), batch_size=8, ddp_shard=False)

model = DistributedDataParallel(nn.Linear(8, 2).to(DEVICE), device_ids=DEVICE_IDS)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
crit = nn.CrossEntropyLoss()
for epoch in range(2):
    model.train()
    for x, y in train_loader:
        loss = crit(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    model.eval()
    accs = []
    with torch.no_grad():
        for x, y in val_loader:
            accs.append((model(x).argmax(1) == y).float().mean().item())
    ddp_print(
        'epoch %d val_acc %.4f over %d batches' % (
            epoch, float(np.mean(accs)), len(accs)
        ),
    )
