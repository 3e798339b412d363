"""A stand-in for a graph library's dataset (torch_geometric's Planetoid): item 0 is one whole
graph, an object DataParallel's scatter does not split (not a tensor, tuple, list or dict).
The library of tests/fixtures/batches_s54_x2_object_not_scattered, on the shared launch's
PYTHONPATH (tests/test_round_classes_e2e.py)."""

from __future__ import annotations

import torch


class Data:
    def __init__(self, n: int) -> None:
        generator = torch.Generator().manual_seed(0)
        self.x = torch.randn(n, 3, generator=generator)
        self.y = (self.x.sum(1) > 0).long()
        self.train_mask = torch.arange(n) < n // 2

    def to(self, device: torch.device | str) -> Data:
        self.x, self.y = self.x.to(device), self.y.to(device)
        return self


class Planetoid:
    def __init__(self, n: int) -> None:
        self.graphs = [Data(n)]

    def __getitem__(self, i: int) -> Data:
        return self.graphs[i]
