"""DP127's facts (dp2ddp/program/padded_batches.py): which collates pad to a length the
batch decides, and which losses are a mean over elements (stop 50, helper w1)."""

from __future__ import annotations

import ast

from dp2ddp.program.padded_batches import (
    mean_losses,
    padding_collates,
    padding_facts,
    trains_with_collate,
)

HELPERS = """
import numpy as np
def pad_1D(inputs, PAD=0):
    def pad_data(x, length, PAD):
        return np.pad(x, (0, length - x.shape[0]), mode="constant", constant_values=PAD)
    max_len = max((len(x) for x in inputs))
    return np.stack([pad_data(x, max_len, PAD) for x in inputs])
def to_ten(inputs):
    return np.stack([np.pad(x, (0, 10 - len(x))) for x in inputs])
"""

DATASET = """
class Dataset:
    def collate_fn(self, data):
        return pad_1D([d["text"] for d in data])
    def fixed_collate(self, data):
        return to_ten(data)
class Longest:
    def __call__(self, batch):
        longest = 0
        for x in batch:
            if len(x) > longest:
                longest = len(x)
        return torch.zeros(len(batch), longest)
def by_sequence(batch):
    return pad_sequence(batch, batch_first=True)
def main():
    return DataLoader(ds, shuffle=True, collate_fn=Longest())
"""


def test_a_collate_pads_by_itself_or_through_a_helper_of_the_program() -> None:
    facts = [*padding_facts(ast.parse(HELPERS)), *padding_facts(ast.parse(DATASET))]
    found = padding_collates(facts)
    assert {"pad_1D", "collate_fn", "Longest", "by_sequence"} <= found
    assert not {"to_ten", "fixed_collate", "main"} & found  # main builds a class, runs none


def test_only_a_training_loader_handed_a_padding_collate_counts() -> None:
    collates = frozenset({"Longest", "collate_fn"})
    training = "DataLoader(ds, batch_size=4, shuffle=True, collate_fn=Longest())"
    assert trains_with_collate(ast.parse(training), collates)
    method = "DataLoader(ds, batch_sampler=sampler, collate_fn=ds.collate_fn)"
    assert trains_with_collate(ast.parse(method), collates)
    evaluation = "DataLoader(ds, batch_size=4, shuffle=False, collate_fn=Longest())"
    assert not trains_with_collate(ast.parse(evaluation), collates)
    other = "DataLoader(ds, batch_size=4, shuffle=True, collate_fn=stack)"
    assert not trains_with_collate(ast.parse(other), collates)


def test_a_mean_over_elements_is_found_not_a_sum_a_selection_or_per_sample_values() -> None:
    source = """
a = F.mse_loss(x, y)
b = F.mse_loss(x[m], y[m])
c = F.mse_loss(x, y, reduction="sum")
d = ((x - y) ** 2).mean()
e = torch.mean(torch.abs(x - y))
f = torch.mean(loss / lengths.float())
g = x.mean()
h = nn.L1Loss()
i = nn.L1Loss(reduction="sum")
j = F.cross_entropy(x, y)
k = (x - y).pow(2).mean(1)
l = F.l1_loss(x * mask, y * mask)
"""
    lines = [line for line, _, _ in mean_losses(ast.parse(source))]
    assert sorted(lines) == [2, 5, 6, 9, 13]
