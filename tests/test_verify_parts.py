"""verify's cause for batches cut into parts whose number follows the batch's size
(data_evidence.parts_cause; stop 45 V-v3: Tacotron2-Pytorch's collate_fn, where verify
blamed a missing DistributedSampler that was there)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from dp2ddp.verify import protocol
from dp2ddp.verify.data_evidence import parts_cause
from dp2ddp.verify.records import RankRecord


def _run(rank: int, loads: list[bool]) -> RankRecord:
    windows: list[dict[str, Any]] = [
        {"loaded": [f"s{i}"]} if on else {} for i, on in enumerate(loads)
    ]
    data = {"status": protocol.STOPPED, "windows": windows}
    return RankRecord(rank, Path("/nonexistent"), protocol.STOPPED, data, {}, "", "")


def test_fewer_parts_per_rank_is_the_cause_with_the_warning() -> None:
    original = _run(0, [True, False, True])
    ranks = [_run(0, [True, True, True]), _run(1, [True, True, True])]
    said = ["train.py:33:13: DP051 a sharded batch cut into chunks of a global size"]
    cause = parts_cause(original, ranks, "step 2: 1 missing", said)
    assert cause is not None and cause.key == "parts_per_batch"
    assert "original trained 2 step(s)" in cause.detail and "rank 0 1" in cause.detail
    assert "train.py:33:13: DP051" in cause.detail


def test_a_lower_bound_counts_only_where_it_already_differs() -> None:
    # The original's second batch was not recorded in 3 steps: at least 3 steps per batch.
    original = _run(0, [True, False, False])
    assert parts_cause(original, [_run(0, [True, False, True])], "d", []) is not None
    assert parts_cause(original, [_run(0, [True, False, False])], "d", []) is None


def test_the_same_steps_per_batch_is_no_such_cause() -> None:
    original = _run(0, [True, True, True])
    ranks = [_run(0, [True, True, True]), _run(1, [True, True, True])]
    assert parts_cause(original, ranks, "d", []) is None


def test_batches_of_no_tensor_count_too() -> None:
    """Tacotron2's collate_fn returns lists of numpy parts: no digest, but a batch."""
    original = RankRecord(
        0, Path("/nonexistent"), protocol.STOPPED,
        {"windows": [{"batches": 1}, {}, {}]}, {}, "", "",
    )  # fmt: skip
    cause = parts_cause(original, [_run(0, [True, False, True])], "d", [])
    assert cause is not None and "at least 3" in cause.detail
