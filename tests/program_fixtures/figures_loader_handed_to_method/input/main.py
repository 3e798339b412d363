"""Class v3-A of stop 46 (WangYueFt/prnet@82d466a's layout): the entry hands its training
loader to a method of an instance of another module's class, `learner.train_one_epoch(epoch,
train_loader=loader, opt=opt)`, whose epoch figures (a loss sum and a sample count over its
batches) it prints and returns."""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from learner import Learner

torch.manual_seed(0)
x = torch.randn(32, 6)
y = (x.sum(1, keepdim=True) > 0).float()
model = nn.DataParallel(nn.Linear(6, 1))
loader = DataLoader(TensorDataset(x, y), batch_size=8, shuffle=True, drop_last=True)
learner = Learner(model).cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(2):
    info = learner.train_one_epoch(epoch, train_loader=loader, opt=opt)
