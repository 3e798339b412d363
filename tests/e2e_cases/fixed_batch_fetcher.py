"""A fixed sample batch fetched once through the program's own fetcher object, whose loader
arrives as a parameter (`fetcher_val = Fetcher(loaders["val"])`; `inputs_val =
next(fetcher_val)` before the loop; clovaai/stargan-v2@875b70a's InputFetcher, class S7
of stop 32). One helper builds both loaders, so both are sharded; before, the grids saved
from the fixed batch held this rank's 4 of the original's 8 images. Migrated, the fetcher is
handed the unsharded loader (ddp_unsharded_loader) and fetches in rank 0's order: both
ranks hold the original's 8 images, and the unshuffled training loader's shares train to
the original's weights."""

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


def get_loader(n, batch_size, seed, shuffle):
    g = torch.Generator().manual_seed(seed)
    dataset = TensorDataset(torch.randn(n, 3, generator=g), torch.randn(n, 1, generator=g))
    return DataLoader(dataset, batch_size=batch_size, shuffle=shuffle, drop_last=True)


class Fetcher:
    def __init__(self, loader):
        self.loader = loader

    def _fetch(self):
        try:
            x, y = next(self.iter)
        except (AttributeError, StopIteration):
            self.iter = iter(self.loader)
            x, y = next(self.iter)
        return x, y

    def __next__(self):
        x, y = self._fetch()
        return {"x": x, "y": y}


class Solver:
    def __init__(self):
        self.net = nn.DataParallel(nn.Linear(3, 1))
        self.opt = torch.optim.SGD(self.net.parameters(), lr=0.1)

    def train(self, loaders, iters=4):
        fetcher = Fetcher(loaders["src"])
        fetcher_val = Fetcher(loaders["val"])
        inputs_val = next(fetcher_val)
        grids = []
        for _ in range(iters):
            inputs = next(fetcher)
            loss = nn.functional.mse_loss(self.net(inputs["x"]), inputs["y"])
            self.opt.zero_grad()
            loss.backward()
            self.opt.step()
            with torch.no_grad():
                grids.append(self.net(inputs_val["x"]))
        return grids


torch.manual_seed(0)
loaders = dict(src=get_loader(32, 8, 1, False), val=get_loader(16, 8, 2, True))
solver = Solver()
grids = solver.train(loaders)
# the images of each grid saved from the fixed batch, the last grid's values, the weights
SAMPLES = [*(len(grid) for grid in grids), round(float(grids[-1].sum()), 5)]
E2E_DIGEST = [*SAMPLES, *(round(float(p.detach().sum()), 5) for p in solver.net.parameters())]
print("final", E2E_DIGEST)
