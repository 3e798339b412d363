"""Validation round stop 32, class E1 (Eromera/erfnet_pytorch@d4a46fa): the model's
class comes from a module imported by a name given at run time, and its forward()
leaves the decoder unused when only the encoder is trained. Before: no DP041,
"Expected to have finished reduction" at step 2 on both ranks. Now
find_unused_parameters=True, said (DP041)."""

import importlib
import sys

import torch
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


def main(model_name):
    ddp_setup()
    torch.manual_seed(0)
    model_file = importlib.import_module(model_name)
    # dp2ddp: DP041 some parameters may get no gradient: find_unused_parameters=True
    model = DistributedDataParallel(
        model_file.Net().to(DEVICE), device_ids=DEVICE_IDS, find_unused_parameters=True
    )
    g = torch.Generator().manual_seed(0)
    ds = TensorDataset(torch.randn(16, 4, generator=g), torch.randn(16, 4, generator=g))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for x, y in DataLoader(
        ds,
        batch_size=ddp_per_rank_batch(4),
        sampler=DdpDistributedSampler(ds, shuffle=False),
    ):
        loss = ((model(x, only_encode=True) - y) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    digest = [round(float(p.detach().sum()), 5) for p in model.parameters()]
    ddp_print("final", digest)
    return digest


if __name__ == "__main__":
    ddp_setup()
    E2E_DIGEST = main(sys.argv[1] if len(sys.argv) > 1 else "net")
