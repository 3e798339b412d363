"""e2e case (issue 16, DeepCTR-Torch's fit()): the training loader is iterated through a
progress bar bound by `with`, `with tqdm(enumerate(loader)) as t: for _, (x, y) in t:`. The
loop is the loader's: its DistributedSampler shards it (4 + 4 of each batch of 8), and nothing
splits the per-rank batch a second time."""

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

try:
    from tqdm import tqdm
except ImportError:  # tqdm's interface, where it is not installed

    class tqdm:  # noqa: N801
        def __init__(self, iterable, disable=False):
            self.iterable = iterable

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

        def __iter__(self):
            return iter(self.iterable)


def main():
    torch.manual_seed(0)
    generator = torch.Generator().manual_seed(1)
    x = torch.randn(48, 4, generator=generator)
    y = x @ torch.tensor([[1.0], [-2.0], [0.5], [3.0]])
    model = nn.DataParallel(nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1)))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    loader = DataLoader(TensorDataset(x, y), batch_size=8, shuffle=True)
    for epoch in range(2):
        with tqdm(enumerate(loader), disable=True) as t:
            for _, (inputs, targets) in t:
                optimizer.zero_grad()
                loss = nn.functional.mse_loss(model(inputs), targets)
                loss.backward()
                optimizer.step()
        print(f"epoch {epoch} loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
