"""A stand-in for a library's model that returns a dict (transformers' ModelOutput): the
library of tests/fixtures/model_wrap_s49_f2_library_dict_entry_stored_over, on the shared
launch's PYTHONPATH (tests/test_round_classes_e2e.py)."""

import torch
import torch.nn as nn


class Backbone(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.body = nn.Linear(4, 8)
        self.classifier = nn.Linear(8, 5)

    def forward(self, x: torch.Tensor) -> dict[str, torch.Tensor]:
        h = torch.relu(self.body(x))
        return {"last_hidden_state": h, "logits": self.classifier(h)}


def create_model() -> Backbone:
    return Backbone()
