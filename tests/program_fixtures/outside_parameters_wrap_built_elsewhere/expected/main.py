"""Class v3-B of stop 46 (okankop/Driver-Anomaly-Detection@6f7f251's layout): the wrap is
made by models.generate_model(), and a head built here beside it goes to the same optimizer;
`head` is also the name of train_step()'s parameter (another variable)."""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

from _dp2ddp import ddp_is_main, ddp_per_rank_batch, ddp_setup, ddp_sync_module
from models import generate_model

ddp_setup()


def train_step(model, head, xb, yb, opt):
    loss = nn.functional.binary_cross_entropy_with_logits(head(model(xb)), yb)
    opt.zero_grad()
    loss.backward()
    opt.step()
    return loss.item()


torch.manual_seed(0)
x = torch.randn(32, 6)
y = (x.sum(1, keepdim=True) > 0).float()
model = generate_model()
head = nn.Linear(4, 1)
opt = torch.optim.SGD(list(model.parameters()) + list(head.parameters()), lr=0.5)
ddp_sync_module(head)
dataset = TensorDataset(x, y)
loader = DataLoader(
    dataset,
    batch_size=ddp_per_rank_batch(8),
    sampler=DistributedSampler(dataset, shuffle=True),
)
for epoch in range(2):
    loader.sampler.set_epoch(epoch)
    for xb, yb in loader:
        train_step(model, head, xb, yb, opt)
if ddp_is_main():
    torch.save(head.state_dict(), "head.pth")
E2E_DIGEST = [round(v, 4) for v in head.weight.flatten().tolist()]
