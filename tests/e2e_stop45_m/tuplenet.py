"""A stand-in for a library's encoder that returns a tuple (pytorch_transformers'
BertModel: the sequence output and the pooled output, computed by a pooler layer of its
own): the library of tests/fixtures/model_wrap_s52_v1_indexed_library_output, on the shared
launch's PYTHONPATH (tests/test_round_classes_e2e.py)."""

import torch
import torch.nn as nn


class Encoder(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.body = nn.Linear(4, 8)
        self.pooler = nn.Linear(8, 8)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        seq = torch.tanh(self.body(x))
        return seq, torch.tanh(self.pooler(seq.mean(1)))
