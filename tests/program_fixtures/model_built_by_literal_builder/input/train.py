"""Stop 43 (lead), the literal form of stop 42's v3-A: the builder named by a string,
`getattr(nets, "build_gated")(8)`. Before: the callee's only qualified name was
`builtins.getattr`, read as a library's; no DP041, both ranks "Expected to have finished
reduction" at step 2. Now every builder of `nets` stands for it: DP041,
find_unused_parameters=True."""

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

import nets


def main():
    torch.manual_seed(0)
    model = getattr(nets, "build_gated")(8)
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
    E2E_DIGEST = main()
