"""A stand-in training library (not part of any program): a step helper handed the loss
and the optimizer, and an optimizer factory."""

from typing import Any

import torch


def make_optimizer(model: Any, lr: float) -> Any:
    return torch.optim.SGD(model.parameters(), lr=lr)


def trainer_step(loss: Any, optimizer: Any) -> None:
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
