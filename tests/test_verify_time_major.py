"""verify's sharding check on time-major batches (fresh6 class V10): a DataLoader whose
collate returns (T, B) batches of zero-padded token sequences, wrapped in
`DataParallel(model, dim=1)`. The samples are the batch's columns; its rows are time steps,
which every rank's shard has, so counting rows reported "ranks overlap" on a right
migration. The records here are built from real tensors through the recorder's digests."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import torch

from dp2ddp.verify import protocol
from dp2ddp.verify.digest import sample_digests
from dp2ddp.verify.records import RankRecord
from dp2ddp.verify.sharding import OK, check_sharding

SEQUENCES = [[1, 5, 7, 2], [1, 4, 2], [1, 9, 9, 9, 8, 2], [1, 3, 2]]


def _time_major(seqs: list[list[int]]) -> torch.Tensor:
    """The repro's collate: each batch padded with zeros to its own longest sequence."""
    out = torch.zeros(max(len(s) for s in seqs), len(seqs), dtype=torch.long)
    for j, s in enumerate(seqs):
        out[: len(s), j] = torch.tensor(s)
    return out


def _record(rank: int, seqs: list[list[int]], dim: int) -> RankRecord:
    batch = _time_major(seqs)
    rows, columns = sample_digests(batch), sample_digests(batch.transpose(0, 1))
    window: dict[str, Any] = {
        "index": 1,
        "inputs": {"0": rows},
        "inputs_dim1": {"0": columns},
        "loaded": rows,
        "loaded_dim1": columns,
    }
    data = {
        "status": protocol.STOPPED,
        "events": [],
        "windows": [window],
        "wrappers": [{"class": "DataParallel", "dim": dim}],
    }
    return RankRecord(rank, Path("/nonexistent"), protocol.STOPPED, data, {}, "", "")


def _check(dim: int, shards: list[list[list[int]]]) -> Any:
    original = _record(0, SEQUENCES, dim)
    return check_sharding(original, [_record(r, s, dim) for r, s in enumerate(shards)], 1)


def test_time_major_shards_are_split_along_dim_1() -> None:
    """Each rank collates its two sequences (padded to its own longest): the columns are
    the original's, disjoint; the check reads DataParallel's dim from the original."""
    result = _check(1, [SEQUENCES[:2], SEQUENCES[2:]])
    assert result.status == OK, result.describe()
    assert result.steps[0].per_rank == (2, 2) and result.steps[0].original == 4
    assert "dim 1" in result.source


def test_time_major_rows_are_not_samples() -> None:
    """The same records read along dim 0 (a wrap of dim 0) are not the original's batch:
    what the check said of the dim=1 program before."""
    assert _check(0, [SEQUENCES[:2], SEQUENCES[2:]]).status != OK


def test_time_major_same_data_on_both_ranks_is_still_found() -> None:
    result = _check(1, [SEQUENCES, SEQUENCES])
    assert result.status != OK and result.steps[0].identical
