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


class Engine:
    """A stand-in library trainer holding the model and its optimizer: `step(loss)` runs
    the backward and the optimizer step."""

    def __init__(self, model: Any, lr: float) -> None:
        self.optimizer = torch.optim.SGD(model.parameters(), lr=lr)

    def step(self, loss: Any) -> None:
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
