"""Stop 46 class v3-A when the callee module needs no other change (WangYueFt/prnet@82d466a's
layout, `net._train_one_epoch(train_loader=...)`): the entry hands its training loader to a
method of another module's class, whose loop sums a figure over its batches and divides it by
the dataset's length; the module prints nothing, so nothing else of it changes."""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from learner import Learner

torch.manual_seed(0)
x = torch.randn(32, 6)
y = x.sum(1, keepdim=True)
model = nn.DataParallel(nn.Linear(6, 1))
loader = DataLoader(TensorDataset(x, y), batch_size=8, shuffle=False)
learner = Learner(model)
opt = torch.optim.SGD(model.parameters(), lr=0.05)
for epoch in range(2):
    loss = learner.train_one_epoch(loader, opt)
    print("epoch %d loss %.4f" % (epoch, loss))
