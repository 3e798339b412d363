"""Class v3-A of stop 46 (WangYueFt/prnet@82d466a's layout): the entry hands its training
loader to a method of an instance of another module's class, `learner.train_one_epoch(epoch,
train_loader=loader, opt=opt)`, whose epoch figures (a loss sum and a sample count over its
batches) it prints and returns."""
import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

from _dp2ddp import DEVICE, DEVICE_IDS, ddp_per_rank_batch, ddp_setup
from learner import Learner

ddp_setup()


torch.manual_seed(0)
x = torch.randn(32, 6)
y = (x.sum(1, keepdim=True) > 0).float()
model = DistributedDataParallel(nn.Linear(6, 1).to(DEVICE), device_ids=DEVICE_IDS)
dataset = TensorDataset(x, y)
loader = DataLoader(
    dataset,
    batch_size=ddp_per_rank_batch(8),
    sampler=DistributedSampler(dataset, shuffle=True, drop_last=True),
    drop_last=True,
)
learner = Learner(model).to(DEVICE)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(2):
    loader.sampler.set_epoch(epoch)
    info = learner.train_one_epoch(epoch, train_loader=loader, opt=opt)
