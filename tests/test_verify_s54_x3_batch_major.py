"""Stop 54 x3 (v1-D of round 7): a batch-major loader whose batches the program transposes
to (T, B) before a `DataParallel(model, dim=1)` wrap (xyz961014/longterm@c62d11e).

verify read the loaded batches along the wrap's dim 1, their time steps, which every rank's
shard has: "ranks overlap" (and a false cause) on a right migration. The loaded batches hold
their samples along the dim whose size is the loader's batch size (the sampler's indices,
recorder's `loaded_split`); the time-major collate of fresh6's V10 (test_verify_time_major)
holds them in its columns, and stays read so. Records built from real tensors through the
recorder's digests, and the split told apart on real DataLoader iterators; no launch (own
minimal program: /work/fresh18/x3_54/bm/prog/train.py, docs/real-world.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import torch
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.dataloader import _BaseDataLoaderIter

from dp2ddp.verify import protocol
from dp2ddp.verify.alignment import _split_dim
from dp2ddp.verify.digest import sample_digests
from dp2ddp.verify.records import RankRecord
from dp2ddp.verify.sharding import OK, check_sharding, loader_dim

#: 8 spans of 6 tokens (a batch-major dataset: one span per index)
SPANS = torch.arange(48).reshape(8, 6) % 11 + 1  # no zero: none trimmed (digest)


def _record(rank: int, rows: list[int], split: int | None) -> RankRecord:
    """One window: the loader gave SPANS[rows] (B, T); the model got its transpose's first
    T - 1 time steps (T - 1, B), split along dim 1 by the wrap."""
    batch = SPANS[rows]
    model_in = batch.t()[:-1]
    window: dict[str, Any] = {
        "index": 1,
        "inputs": {"0": sample_digests(model_in)},
        "inputs_dim1": {"0": sample_digests(model_in.transpose(0, 1))},
        "loaded": sample_digests(batch),
        "loaded_dim1": sample_digests(batch.transpose(0, 1)),
    }
    if split is not None:
        window["loaded_split"] = [split]
    data = {
        "status": protocol.STOPPED,
        "events": [],
        "windows": [window],
        "wrappers": [{"class": "DataParallel", "dim": 1}],
    }
    return RankRecord(rank, Path("/nonexistent"), protocol.STOPPED, data, {}, "", "")


def _check(split: int | None, shards: list[list[int]]) -> Any:
    original = _record(0, [0, 1, 2, 3], split)
    return check_sharding(original, [_record(r, s, split) for r, s in enumerate(shards)], 1)


def test_batch_major_loader_is_read_along_its_rows() -> None:
    """Each rank loaded 2 of the original's 4 spans: split right, read along dim 0."""
    result = _check(0, [[0, 1], [2, 3]])
    assert result.status == OK, result.describe()
    assert result.steps[0].per_rank == (2, 2) and result.steps[0].original == 4
    assert "sampler's rows" in result.source


def test_without_the_split_recorded_the_wrap_dim_is_read() -> None:
    """What verify read before (an older record): the time steps, every rank's, not OK."""
    assert _check(None, [[0, 1], [2, 3]]).status != OK


def test_a_wrong_split_is_still_found() -> None:
    """Both ranks loaded the same spans: read along the rows, still not the original's."""
    result = _check(0, [[0, 1], [0, 1]])
    assert result.status != OK and result.steps[0].identical


class _Rows(Dataset[torch.Tensor]):
    def __init__(self, data: torch.Tensor) -> None:
        self.data = data

    def __len__(self) -> int:
        return len(self.data)

    def __getitem__(self, index: int) -> torch.Tensor:
        return self.data[index]


def _iter(data: torch.Tensor, **kwargs: Any) -> _BaseDataLoaderIter:
    return iter(DataLoader(_Rows(data), batch_size=4, **kwargs))


def test_the_split_is_the_dim_of_the_loaders_batch_size() -> None:
    """On real iterators: a default collate's (B, T) is split along 0; a collate that
    returns (T, B) along 1; a last, shorter batch or a square one is not told apart."""
    rows = _iter(SPANS)
    assert _split_dim(rows, next(rows)) == 0
    columns = _iter(SPANS, collate_fn=lambda b: torch.stack(b, 1))
    assert _split_dim(columns, next(columns)) == 1
    square = _iter(SPANS[:, :4])
    assert _split_dim(square, next(square)) == -1
    short = _iter(SPANS[:6])
    next(short)
    assert _split_dim(short, next(short)) == -1


def test_runs_that_disagree_keep_the_wrap_dim() -> None:
    """A split told 0 in one batch and 1 in another says nothing: the wrap's dim."""
    records = [_record(0, [0, 1, 2, 3], 0), _record(1, [0, 1], 1)]
    assert loader_dim(records, 1, 1) == 1
    assert loader_dim([_record(0, [0, 1, 2, 3], 0)], 1, 1) == 0
