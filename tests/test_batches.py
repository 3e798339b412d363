"""Training batches that do not come from a DataLoader (issue 20): the runtime helpers and
the pass's choices. The golden fixtures batches_* show the rewrites; tests/test_fidelity_e2e.py
runs the migrated scripts under torchrun and through `dp2ddp verify`."""

from __future__ import annotations

import warnings
from collections import namedtuple
from typing import Any

import pytest
import torch

from dp2ddp import MigrateOptions, migrate_source
from dp2ddp.templating import render


def _helpers(rank: int, world: int) -> dict[str, Any]:
    """The helpers as the migrated header defines them, in a process of rank `rank`."""
    namespace: dict[str, Any] = {
        "torch": torch,
        "warnings": warnings,
        "RANK": rank,
        "WORLD_SIZE": world,
    }
    exec(render("helpers/shard_batch.py.j2"), namespace)
    exec(render("helpers/rank_batches.py.j2"), namespace)
    return namespace


def test_ranks_take_contiguous_parts_of_every_tensor_as_dataparallel_scattered() -> None:
    x = torch.arange(24.0).reshape(6, 4)
    y = torch.arange(6)
    pair = namedtuple("pair", "x y")
    parts = [
        _helpers(rank, 3)["ddp_shard_batch"]({"batch": pair(x, y), "note": "kept"})
        for rank in range(3)
    ]
    for rank, part in enumerate(parts):
        assert part["note"] == "kept"
        assert isinstance(part["batch"], pair)
        assert torch.equal(part["batch"].x, x[2 * rank : 2 * rank + 2])
        assert torch.equal(part["batch"].y, y[2 * rank : 2 * rank + 2])
    # DataParallel's scatter: torch's own chunks, in rank order, make up the batch again
    assert torch.equal(torch.cat([p["batch"].x for p in parts]), x)


def test_sequence_first_batches_are_split_by_columns() -> None:
    source = torch.arange(40).reshape(10, 4)  # (sequence, batch)
    parts = [_helpers(rank, 2)["ddp_shard_batch"](source, dim=1) for rank in range(2)]
    assert [p.shape for p in parts] == [(10, 2), (10, 2)]
    assert torch.equal(torch.cat(parts, dim=1), source)
    assert all(p.is_contiguous() for p in parts)  # get_batch's .view(-1) needs it
    assert torch.equal(parts[1][3:5].reshape(-1), source[3:5, 2:].reshape(-1))


def test_a_batch_objects_tensors_are_cut_in_a_copy() -> None:
    """Stop 65 v1-A (torchtext's Batch): an object holding the batch's tensors in its
    attributes comes back as a copy with them cut along `dim` (before: whole, on every
    rank); the rest of the object stays, the caller's object is left as it was, and an
    object holding no tensor (a module, a plain value) passes as it is."""

    class Batch:
        def __init__(self, question: torch.Tensor, answer: torch.Tensor) -> None:
            self.question = question
            self.answer = answer
            self.pair = (question, answer)
            self.batch_size = question.size(1)
            self.fields = {"question": "text"}

    question, answer = torch.arange(30).reshape(5, 6), torch.arange(42).reshape(7, 6)
    batch = Batch(question, answer)
    parts = [_helpers(rank, 2)["ddp_shard_batch"](batch, dim=1) for rank in range(2)]
    for rank, part in enumerate(parts):
        assert type(part) is Batch and part is not batch
        assert torch.equal(part.question, question[:, 3 * rank : 3 * rank + 3])
        assert torch.equal(part.pair[1], answer[:, 3 * rank : 3 * rank + 3])
        assert part.fields == {"question": "text"}
    assert batch.question is question  # the caller's object is not cut
    assert torch.equal(torch.cat([p.answer for p in parts], dim=1), answer)
    module = torch.nn.Linear(6, 2)
    assert _helpers(0, 2)["ddp_shard_batch"](module) is module


def test_tensors_that_disagree_along_dim_are_refused() -> None:
    shard = _helpers(0, 2)["ddp_shard_batch"]
    with pytest.raises(ValueError, match="differ in size along dim 1"):
        shard((torch.zeros(5, 4), torch.zeros(5, 6)), dim=1)
    # targets flattened already: a 1-D tensor is read as per-sample values (stop 67), whose
    # length (20) is not the batch's (4): refused all the same
    with pytest.raises(ValueError, match="differ in size along dim 1"):
        shard((torch.zeros(5, 4), torch.zeros(20)), dim=1)


def test_each_tensor_is_cut_on_its_own_where_each_is_an_argument() -> None:
    """Stop 82 (round 35, a skip-gram batch of pairs beside K negatives per pair): with
    `each=True` (the migration proved each tensor one argument of the model's call) the
    tensors are cut each by its own size, as DataParallel's scatter did; one smaller than
    WORLD_SIZE keeps the batch whole, as a small batch does."""
    pairs, negatives = torch.arange(4), torch.arange(12)
    parts = [_helpers(rank, 2)["ddp_shard_batch"]((pairs, negatives), each=True) for rank in (0, 1)]
    assert [p[0].tolist() for p in parts] == [[0, 1], [2, 3]]
    assert [p[1].tolist() for p in parts] == [list(range(6)), list(range(6, 12))]
    whole = _helpers(1, 2)["ddp_shard_batch"]((torch.arange(1), negatives), each=True)
    assert whole[0].tolist() == [0] and whole[1] is negatives
    with pytest.raises(ValueError, match="differ in size along dim 0"):
        _helpers(0, 2)["ddp_shard_batch"]((pairs, negatives))


def test_a_tokens_and_lengths_pair_that_disagrees_is_refused_not_dealt_out() -> None:
    """Stop 68 (round 20, a torchtext Field with lengths, sequence first, the wrap at
    dim 0): the (tokens, lengths) pairs are no lists of samples (their tensors differ in
    shape); before, the row-list fallback gave rank 0 the tokens and rank 1 the lengths."""

    class Batch:
        def __init__(self) -> None:
            self.src = (torch.zeros(5, 4, dtype=torch.long), torch.full((4,), 5))
            self.trg = (torch.zeros(6, 4, dtype=torch.long), torch.full((4,), 6))

    for rank in range(2):
        with pytest.raises(ValueError, match="differ in size along dim 0.*lengths"):
            _helpers(rank, 2)["ddp_shard_batch"](Batch())


def test_lists_of_samples_in_a_dict_are_cut_by_their_length() -> None:
    """A replay memory's {"s": [...], "a": [...], "d": [...]} (v4-A): 0-dim tensors and
    flags cannot be cut along dim 0, so the lists of samples are, as the tensors stacked
    from them were by DataParallel; a lone tensor leaf still raises."""
    memory = {
        "s": [torch.full((4,), float(i)) for i in range(6)],
        "a": [torch.tensor(i) for i in range(6)],
        "d": [i % 2 == 0 for i in range(6)],
    }
    parts = [_helpers(rank, 2)["ddp_shard_batch"](memory) for rank in range(2)]
    assert [torch.stack(p["s"])[:, 0].tolist() for p in parts] == [[0, 1, 2], [3, 4, 5]]
    assert [[int(a) for a in p["a"]] for p in parts] == [[0, 1, 2], [3, 4, 5]]
    assert parts[1]["d"] == [False, True, False]
    with pytest.raises(ValueError, match="no dim 0"):
        _helpers(0, 2)["ddp_shard_batch"]({"s": torch.zeros(6, 4), "a": torch.tensor(1)})


def test_remainder_left_out_and_small_batches_kept_whole() -> None:
    with pytest.warns(UserWarning, match="the last 1 are left out"):
        first = _helpers(0, 2)["ddp_shard_batch"](torch.arange(5))
    assert first.tolist() == [0, 1]
    assert _helpers(1, 2)["ddp_shard_batch"](torch.arange(5)).tolist() == [2, 3]
    assert _helpers(1, 4)["ddp_shard_batch"](torch.arange(3)).tolist() == [0, 1, 2]
    assert _helpers(0, 1)["ddp_shard_batch"](torch.arange(3)).tolist() == [0, 1, 2]


def test_per_process_ranks_take_whole_batches_in_turn_and_as_many_steps() -> None:
    batches = [_helpers(rank, 2)["ddp_rank_batches"](iter(range(7))) for rank in range(2)]
    assert [list(b) for b in batches] == [[0, 2, 4], [1, 3, 5]]


def _migrated(source: str, *, per_process_batch: bool = False) -> tuple[str, list[str]]:
    options = MigrateOptions(per_process_batch=per_process_batch)
    result = migrate_source(source, options, filename="train.py")
    return result.code, [f"{d.code} {d.message}" for d in result.diagnostics]


LOOP = """
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

model = nn.DataParallel(nn.Linear(4, 1){dim})
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
{setup}
for epoch in range(2):
    for {target} in {iterable}:
        nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
"""


def test_dataloader_loops_are_left_to_the_data_pass() -> None:
    setup = "loader = DataLoader(TensorDataset(torch.randn(8, 4), torch.randn(8, 1)), batch_size=4)"
    code, warned = _migrated(LOOP.format(dim="", setup=setup, target="x, y", iterable="loader"))
    assert "ddp_shard_batch" not in code and "DistributedSampler" in code, code


def test_iterator_object_split_along_the_wrap_dim() -> None:
    setup = "pairs = [(torch.randn(3, 4, 4), torch.randn(3, 4, 1))]"
    code, warned = _migrated(
        LOOP.format(dim=", dim=1", setup=setup, target="x, y", iterable="pairs")
    )
    assert "x, y = ddp_shard_batch((x, y), dim=1, source=pairs)" in code, code
    code, warned = _migrated(
        LOOP.format(dim=", dim=int(1)", setup=setup, target="x, y", iterable="pairs")
    )
    assert "ddp_shard_batch" not in code
    assert any(w.startswith("DP037") and "dim is int(1)" in w for w in warned), warned


def test_migrating_twice_splits_once() -> None:
    setup = "pairs = [(torch.randn(4, 4), torch.randn(4, 1))]"
    once, _ = _migrated(LOOP.format(dim="", setup=setup, target="x, y", iterable="pairs"))
    twice, _ = _migrated(once)
    assert twice == once and once.count("= ddp_shard_batch(") == 1


def test_next_of_a_dataloader_iterator_is_left_to_the_data_pass() -> None:
    source = """
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

model = nn.DataParallel(nn.Linear(4, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
dl = DataLoader(TensorDataset(torch.randn(8, 4), torch.randn(8, 1)), batch_size=4)
it = iter(dl)
for step in range(2):
    x, y = next(it)
    nn.functional.mse_loss(model(x), y).backward()
    optimizer.step()
"""
    code, _ = _migrated(source)
    assert "ddp_shard_batch" not in code and "sampler=" in code, code


def test_an_iterator_named_like_a_loader_is_still_split() -> None:
    source = """
import torch
import torch.nn as nn


class Batches:
    def __init__(self, x):
        self.x = x

    def __iter__(self):
        for i in range(0, len(self.x), 4):
            yield self.x[i:i + 4]


model = nn.DataParallel(nn.Linear(4, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
train_loader = Batches(torch.randn(8, 4))
for x in train_loader:
    model(x).mean().backward()
    optimizer.step()
"""
    code, _ = _migrated(source)
    assert "x = ddp_shard_batch(x, source=train_loader)" in code, code


def test_a_batch_of_a_loader_that_shards_already_is_not_split_again() -> None:
    """Stop 78, the double-split guard: the loop's iterable handed to the split (`source=`)
    whose sampler shards already (a DistributedSampler, also inside a batch sampler, a
    DdpBatchShard; its iterator and a progress bar over it too) lets the batch pass whole;
    any other iterable (a plain loader, a list, a generator) leaves the split as it was."""
    from torch.utils.data import BatchSampler, DataLoader, TensorDataset
    from torch.utils.data.distributed import DistributedSampler

    data = TensorDataset(torch.arange(16.0).reshape(8, 2))
    sharded = DataLoader(data, batch_size=2, sampler=DistributedSampler(data, 2, 0))
    batched = DataLoader(
        data, batch_sampler=BatchSampler(DistributedSampler(data, 2, 1), 2, drop_last=False)
    )

    class DdpBatchShard:  # the header's class, by name (another module's helper copy)
        def __init__(self, inner: Any) -> None:
            self.inner = inner

        def __iter__(self) -> Any:
            return iter(self.inner)

        def __len__(self) -> int:
            return len(self.inner)

    shard = DataLoader(data, batch_sampler=DdpBatchShard(BatchSampler(range(8), 4, False)))

    class Bar:  # a progress bar: the loader as `.iterable`
        def __init__(self, iterable: Any) -> None:
            self.iterable = iterable

    plain = DataLoader(data, batch_size=4)
    split = _helpers(1, 2)["ddp_shard_batch"]
    batch = torch.arange(8.0).reshape(4, 2)
    for source in (sharded, batched, shard, iter(sharded), iter(shard), Bar(sharded)):
        assert split(batch, source=source) is batch
    for unsharded in (plain, iter(plain), Bar(plain), [batch], None):
        assert torch.equal(split(batch, source=unsharded), batch[2:])
