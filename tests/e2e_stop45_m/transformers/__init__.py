"""A stand-in for transformers' BertModel (its tuple output: the last layer's hidden states,
then the pooled output, a pooler over the first token's state): the library of
tests/fixtures/model_wrap_s72_falsewarn_pooled_output_kept, on the shared launch's
PYTHONPATH (tests/test_round_classes_e2e.py)."""

import torch
import torch.nn as nn


class BertModel(nn.Module):
    def __init__(self, hidden: int = 8) -> None:
        super().__init__()
        self.embeddings = nn.Linear(4, hidden)
        self.encoder = nn.Linear(hidden, hidden)
        self.pooler = nn.Linear(hidden, hidden)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        seq = torch.tanh(self.encoder(self.embeddings(x)))
        return seq, torch.tanh(self.pooler(seq[:, 0]))
