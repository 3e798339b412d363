"""Stop 56 (helper s2, left): DP015's text on loaders a loop of this module does not take
directly. One validation loader per task built in a list comprehension (Rose-STL-Lab/
Dynamic-Adaptation-Network@2afd6e0's `valid_loaders`), walked by a loop over the list's
items; a test loader consumed by a comprehension. Both stay whole (every rank evaluates all
of it: the figures are the original's), and DP015 says how each is iterated (before:
"iterated by no loop of this module (another module's, or by hand with next())", false for
both)."""
import torch
import torch.nn as nn
from tasks import TaskData, report
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

from _dp2ddp import DEVICE, DEVICE_IDS, ddp_is_main, ddp_per_rank_batch, ddp_setup

ddp_setup()


torch.manual_seed(0)
train_dataset = TaskData(0, 16)
train_loader = DataLoader(
    train_dataset,
    batch_size=ddp_per_rank_batch(8),
    sampler=DistributedSampler(train_dataset, shuffle=True),
)
# dp2ddp: DP015 evaluation metrics not reduced
valid_loaders = [(task, DataLoader(TaskData(task, 8), batch_size=4, shuffle=False)) for task in range(1, 3)]
test_set = TaskData(3, 8)
# dp2ddp: DP015 evaluation metrics not reduced
test_loader = DataLoader(test_set, batch_size=4)
model = DistributedDataParallel(nn.Linear(4, 1).to(DEVICE), device_ids=DEVICE_IDS)
opt = torch.optim.SGD(model.parameters(), lr=0.05)
for epoch in range(2):
    train_loader.sampler.set_epoch(epoch)
    for x, y in train_loader:
        loss = nn.functional.mse_loss(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    with torch.no_grad():
        for task, loader in valid_loaders:
            total = 0.0
            for x, y in loader:
                total += nn.functional.mse_loss(model(x), y, reduction="sum").item()
            report(epoch, task, "valid %.4f" % (total / 8))
with torch.no_grad():
    errors = [nn.functional.mse_loss(model(x), y, reduction="sum").item() for x, y in test_loader]
if ddp_is_main():
    print("test %.4f" % (sum(errors) / len(test_set)))
    print("weights %.4f" % model.module.weight.sum().item())
