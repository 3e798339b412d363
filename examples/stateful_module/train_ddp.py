"""A classifier whose forward() mutates its own state: a Python counter and a plain tensor.

From "Pytorch Advanced Part-1 DataParallel" (`self.counter += 1` in forward) and "How can
PyTorch DataParallel be used with a custom model?" (ProblematicModel's `internal_state`).
With several GPUs DataParallel runs forward() on throw-away replicas, so these updates are
lost; on CPU it calls the module itself and they stick. Under DDP each process keeps its own
copy, so they silently diverge between processes: dp2ddp flags them (DP007).
"""

import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

from _dp2ddp import DEVICE, DEVICE_IDS, ddp_is_main, ddp_per_rank_batch, ddp_print, ddp_setup

ddp_setup()


class CountingClassifier(nn.Module):
    def __init__(self, input_size, num_classes):
        super(CountingClassifier, self).__init__()
        self.linear = nn.Linear(input_size, num_classes)
        self.counter = 0  # how many forward passes ran
        self.internal_state = torch.zeros(input_size)  # not a Parameter or buffer

    def forward(self, x):
        self.counter += 1
        self.internal_state += torch.sum(x, dim=0).detach().cpu()
        return self.linear(x)


torch.manual_seed(0)
input_size, num_classes = 8, 2
device = DEVICE

inputs = torch.randn(256, input_size) + 0.25
labels = (inputs[:, :2].sum(dim=1) > 0.5).long()
dataset = TensorDataset(inputs, labels)
loader = DataLoader(
    dataset,
    batch_size=ddp_per_rank_batch(32),
    sampler=DistributedSampler(dataset, shuffle=True),
)

model = CountingClassifier(input_size, num_classes)
model = DistributedDataParallel(model.to(DEVICE), device_ids=DEVICE_IDS)

criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)

for epoch in range(3):
    loader.sampler.set_epoch(epoch)
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
    ddp_print(f"epoch {epoch} loss {loss.item():.4f}")

inner = model.module
if ddp_is_main():
    print(f"forward passes counted: {inner.counter}")
    print(f"mean input seen: {(inner.internal_state.sum() / (len(inputs) * 3)).item():.4f}")
    print(f"final loss {loss.item():.4f}")
