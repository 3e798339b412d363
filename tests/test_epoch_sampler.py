"""DdpDistributedSampler(advance_epoch=True) (templates/helpers/distributed_sampler.py.j2),
run as the migrated header defines it: pass k draws DistributedSampler's order after
set_epoch(k), on every rank."""

from __future__ import annotations

import itertools
from typing import Any

import torch
from torch.utils.data import DistributedSampler, TensorDataset

from dp2ddp.templating import render


def _sampler_class() -> Any:
    namespace: dict[str, Any] = {"DistributedSampler": DistributedSampler, "itertools": itertools}
    exec(render("helpers/distributed_sampler.py.j2"), namespace)
    return namespace["DdpDistributedSampler"]


DATASET = TensorDataset(torch.arange(10))


def _reference(epoch: int, rank: int) -> list[int]:
    sampler: DistributedSampler[Any] = DistributedSampler(
        DATASET, num_replicas=2, rank=rank, shuffle=True, seed=3
    )
    sampler.set_epoch(epoch)
    return list(sampler)


def test_each_pass_is_the_next_epoch_on_every_rank() -> None:
    cls = _sampler_class()
    for rank in (0, 1):
        sampler = cls(DATASET, num_replicas=2, rank=rank, shuffle=True, seed=3, advance_epoch=True)
        passes = [list(sampler) for _ in range(3)]
        assert passes == [_reference(epoch, rank) for epoch in range(3)]
    assert _reference(0, 0) != _reference(1, 0)  # the test can tell epochs apart


def test_an_explicit_set_epoch_decides_the_next_pass() -> None:
    sampler = _sampler_class()(
        DATASET, num_replicas=2, rank=0, shuffle=True, seed=3, advance_epoch=True
    )
    sampler.set_epoch(5)
    assert list(sampler) == _reference(5, 0)
    sampler.set_epoch(7)  # set before the next pass: that epoch
    assert list(sampler) == _reference(7, 0)
    assert list(sampler) == _reference(8, 0)  # not set: it moves on by itself


def test_an_epoch_counter_started_again_draws_new_orders() -> None:
    """Round 30 (lmbxmu/ABCPruner@3233593): an epoch loop in a function called once per
    search candidate set its counter's epochs 0, 1 on every call, so every candidate trained
    on the same orders, where DataParallel's loader drew a new one on each pass. An epoch
    not past the last pass's moves on past it; with or without advance_epoch."""
    for advance in (True, False):
        sampler = _sampler_class()(
            DATASET, num_replicas=2, rank=1, shuffle=True, seed=3, advance_epoch=advance
        )
        passes = []
        for _candidate in range(3):
            for epoch in range(2):
                sampler.set_epoch(epoch)
                passes.append(list(sampler))
        assert passes == [_reference(epoch, 1) for epoch in range(6)]


def test_without_advance_epoch_each_pass_repeats_the_epoch() -> None:
    """The default stays DistributedSampler's: the epoch moves only with set_epoch."""
    sampler = _sampler_class()(DATASET, num_replicas=2, rank=1, shuffle=True, seed=3)
    assert [list(sampler) for _ in range(2)] == [_reference(0, 1)] * 2
