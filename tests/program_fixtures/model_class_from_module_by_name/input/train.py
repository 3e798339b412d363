"""Validation round stop 32, class E1 (Eromera/erfnet_pytorch@d4a46fa): the model's
class comes from a module imported by a name given at run time, and its forward()
leaves the decoder unused when only the encoder is trained. Before: no DP041,
"Expected to have finished reduction" at step 2 on both ranks. Now
find_unused_parameters=True, said (DP041)."""

import importlib
import sys

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


def main(model_name):
    torch.manual_seed(0)
    model_file = importlib.import_module(model_name)
    model = nn.DataParallel(model_file.Net())
    g = torch.Generator().manual_seed(0)
    ds = TensorDataset(torch.randn(16, 4, generator=g), torch.randn(16, 4, generator=g))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for x, y in DataLoader(ds, batch_size=4, shuffle=False):
        loss = ((model(x, only_encode=True) - y) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    digest = [round(float(p.detach().sum()), 5) for p in model.parameters()]
    print("final", digest)
    return digest


if __name__ == "__main__":
    E2E_DIGEST = main(sys.argv[1] if len(sys.argv) > 1 else "net")
