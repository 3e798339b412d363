# The loader class lives in loaders.py; train.py builds the training loader and the
# validation loader from it. Its rewritten __init__ shards every instance unless told
# ddp_shard=False: the validation loader, only evaluated here, is built whole.
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import TensorDataset

from loaders import TaskLoader

torch.manual_seed(0)
X = torch.randn(64, 8)
Y = (X[:, 0] > 0).long()
Xv = torch.randn(32, 8)
Yv = torch.randint(0, 2, (32,))

train_loader = TaskLoader(TensorDataset(X, Y), batch_size=16, shuffle=True)
val_loader = TaskLoader(TensorDataset(Xv, Yv), batch_size=8)

model = nn.DataParallel(nn.Linear(8, 2))
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
    print('epoch %d val_acc %.4f over %d batches' % (epoch, float(np.mean(accs)), len(accs)))
