"""Validation round stop 42, class v3-A as corrected (jnhwkim/ban-vqa@ef4cc36's
`getattr(base_model, 'build_%s' % args.model)(...)`): the model is built by a builder
picked from a program module by a name known only at run time, so its class is not
resolved; a part the builder assembles (`Gate`, another module's class handed to `Net`)
leaves a layer without a gradient. Before: no DP041, "Expected to have finished
reduction" at step 2 on both ranks. Now find_unused_parameters=True, said (DP041)."""

import sys

import torch
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, TensorDataset

import nets
from _dp2ddp import (
    DEVICE,
    DEVICE_IDS,
    DdpDistributedSampler,
    ddp_per_rank_batch,
    ddp_print,
    ddp_setup,
)


def main(arch):
    ddp_setup()
    torch.manual_seed(0)
    constructor = "build_%s" % arch
    model = getattr(nets, constructor)(8)
    # dp2ddp: DP041 some parameters may get no gradient: find_unused_parameters=True
    model = DistributedDataParallel(
        model.to(DEVICE), device_ids=DEVICE_IDS, find_unused_parameters=True
    )
    g = torch.Generator().manual_seed(0)
    ds = TensorDataset(torch.randn(16, 4, generator=g), torch.randn(16, 4, generator=g))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for x, y in DataLoader(
        ds,
        batch_size=ddp_per_rank_batch(4),
        sampler=DdpDistributedSampler(ds, shuffle=False),
    ):
        loss = ((model(x) - y) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    digest = [round(float(p.detach().sum()), 5) for p in model.parameters()]
    ddp_print("final", digest)
    return digest


if __name__ == "__main__":
    ddp_setup()
    E2E_DIGEST = main(sys.argv[1] if len(sys.argv) > 1 else "gated")
