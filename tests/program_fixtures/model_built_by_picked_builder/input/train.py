"""Validation round stop 42, class v3-A as corrected (jnhwkim/ban-vqa@ef4cc36's
`getattr(base_model, 'build_%s' % args.model)(...)`): the model is built by a builder
picked from a program module by a name known only at run time, so its class is not
resolved; a part the builder assembles (`Gate`, another module's class handed to `Net`)
leaves a layer without a gradient. Before: no DP041, "Expected to have finished
reduction" at step 2 on both ranks. Now find_unused_parameters=True, said (DP041)."""

import sys

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

import nets


def main(arch):
    torch.manual_seed(0)
    constructor = "build_%s" % arch
    model = getattr(nets, constructor)(8)
    model = nn.DataParallel(model)
    g = torch.Generator().manual_seed(0)
    ds = TensorDataset(torch.randn(16, 4, generator=g), torch.randn(16, 4, generator=g))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for x, y in DataLoader(ds, batch_size=4, shuffle=False):
        loss = ((model(x) - y) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    digest = [round(float(p.detach().sum()), 5) for p in model.parameters()]
    print("final", digest)
    return digest


if __name__ == "__main__":
    E2E_DIGEST = main(sys.argv[1] if len(sys.argv) > 1 else "gated")
