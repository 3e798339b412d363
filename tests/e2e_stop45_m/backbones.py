"""Stand-in for a library's model factory (timm.create_model): dp2ddp reads nothing of it.
`create` returns a model whose forward() runs every layer, its head included; a program that
calls the stem and the blocks one by one leaves the head without a gradient
(tests/fixtures/model_wrap_s51_v4_unknown_model_taken_apart, YuanGongND/ast's timm ViT)."""

from __future__ import annotations

from types import SimpleNamespace

import torch
import torch.nn as nn


class _Backbone(nn.Module):
    def __init__(self, width: int, head: bool) -> None:
        super().__init__()
        self.stem = nn.Linear(6, width)
        self.blocks = nn.ModuleList(nn.Linear(width, width) for _ in range(2))
        self.head = nn.Linear(width, 3) if head else nn.Identity()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.stem(x)
        for block in self.blocks:
            x = torch.relu(block(x))
        out: torch.Tensor = self.head(x)
        return out


def create(name: str, head: bool = True) -> nn.Module:
    return _Backbone(settings(name).width, head)


def settings(name: str) -> SimpleNamespace:
    return SimpleNamespace(width=4, scale=0.5)
