"""A loss of another module summing a term over the batch and dividing it by a row's size
(one sample's C*H*W), not by the rows: DataParallel's gradient of the term was the whole
batch's, DDP's is 1/WORLD_SIZE of it: DP004 (before: no warning). A sum divided by the
rows (`/ out.size(0)`, MeanLoss) is a mean: nothing said."""
import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, TensorDataset

from _dp2ddp import (
    DEVICE,
    DEVICE_IDS,
    DdpDistributedSampler,
    ddp_per_rank_batch,
    ddp_print,
    ddp_setup,
)
from losses import MeanLoss, RestoreLoss

ddp_setup()


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.est = nn.Conv2d(3, 3, 3, padding=1)
        self.out = nn.Conv2d(3, 3, 3, padding=1)

    def forward(self, x):
        return self.est(x), self.out(x)


torch.manual_seed(0)
data = TensorDataset(torch.randn(16, 3, 6, 6), torch.randn(16, 3, 6, 6))
loader = DataLoader(
    data,
    batch_size=ddp_per_rank_batch(8),
    sampler=DdpDistributedSampler(data, shuffle=False),
)
model = DistributedDataParallel(Net().to(DEVICE), device_ids=DEVICE_IDS)
criterion = RestoreLoss()
second = MeanLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
for epoch in range(2):
    for x, y in loader:
        est, out = model(x)
        loss = criterion(out, y, est) + second(out, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
ddp_print("weights %.4f" % sum(p.sum().item() for p in model.parameters()))
