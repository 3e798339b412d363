"""Stop 47 (okankop/Driver-Anomaly-Detection@6f7f251's layout): the command line parsed by
opts.parse_opts() of another module, `.mode` also stored by a transform class of a third
module on its own instances; the head built beside the wrap under `if args.mode == 'train':`
goes to the same optimizer."""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

from _dp2ddp import (
    ddp_is_main,
    ddp_per_rank_batch,
    ddp_same_random,
    ddp_setup,
    ddp_sync_module,
)
from models import generate_model
from opts import parse_opts
from transforms import Scale

ddp_setup()


args = parse_opts()
scale = Scale("same")
torch.manual_seed(0)
with ddp_same_random():
    x = scale(torch.randn(32, 6))
y = (x.sum(1, keepdim=True) > 0).float()
if args.mode == "train":
    model = generate_model()
    head = nn.Linear(4, 1)
    opt = torch.optim.SGD(list(model.parameters()) + list(head.parameters()), lr=args.lr)
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
            loss = nn.functional.binary_cross_entropy_with_logits(head(model(xb)), yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
    if ddp_is_main():
        torch.save(head.state_dict(), "head.pth")
    E2E_DIGEST = [round(v, 4) for v in head.weight.flatten().tolist()]
