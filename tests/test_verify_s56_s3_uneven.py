"""Stop 56 s3: a global batch that no even WORLD_SIZE divides (r4-A, r4-C of stop 55).

dragen1860/LearningToCompare-Pytorch@be5fbbe trains on `batchsz = 3` episodes a step:
DataParallel scattered them 2+1, `ddp_per_rank_batch(3)` loads 1 per rank on 2 processes,
the global batch 2. Migrate now says so (DP184, golden fixtures `data_s56_s3_odd_*`). Its
validation loader, built in the epoch loop beside the training loader and read between the
steps, got a shuffled DistributedSampler of its own at epoch 0: verify counted the two
samplers' passes at epoch 0 as one sampler repeating its order and named "DistributedSampler
.set_epoch not called" (sharding.epoch_repeated: per sampler now, and only a repeat begun by
the first differing step). One original process and one launch (shared_verify).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from shared_verify import Pair, Shared, report_of, run_pairs_across_files

from dp2ddp.verify.records import RankRecord
from dp2ddp.verify.sharding import epoch_repeated

CASES = Path(__file__).parent / "verify_cases"

PAIRS_ACROSS_FILES = True  # tests/shared_verify.py: one launch with the other such files
PAIRS: dict[str, Pair] = {
    "uneven_validation": Pair(
        "test_an_uneven_batch_beside_a_validation_sampler_is_named",
        CASES / "uneven_batch_with_validation_dp.py",
        options={"steps": 2},
    ),
}


@pytest.fixture(scope="module")
def shared(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> dict[str, Shared]:
    """The selected tests' pairs, run in one original process and one launch with the
    other files' that set PAIRS_ACROSS_FILES (stop 60: one launch for five files)."""
    return run_pairs_across_files(request, tmp_path_factory, timeout=400.0)


@pytest.mark.e2e
def test_an_uneven_batch_beside_a_validation_sampler_is_named(shared: dict[str, Shared]) -> None:
    """At the base (a1717898): cause "DistributedSampler.set_epoch not called … repeated epoch
    0's order" (one epoch, set_epoch called), and no migrate code said the batch. Now: the
    batch of 3 on 2 processes, with DP184's line."""
    report = report_of(shared, "uneven_validation")
    assert report.exit_code == 1, report
    assert [c.key for c in report.causes] == ["batch_not_divisible"], report.causes
    cause = report.causes[0]
    assert "batch of 3 does not divide by 2 processes" in cause.title
    assert (
        "warned DP184" in cause.detail and "uneven_batch_with_validation_dp.py:18" in cause.detail
    ), cause.detail
    assert "set_epoch" not in f"{cause.title}\n{cause.detail}\n{cause.fix}"


def _record(*passes: dict[str, object]) -> RankRecord:
    return RankRecord(0, Path("."), "ok", {"samplers": list(passes)}, {}, "", "")


def test_a_repeated_epoch_is_one_samplers_and_begun_by_the_first_bad_step() -> None:
    """Two samplers at epoch 0 are no repeat; one sampler at epoch 0 twice is, where that
    pass began by the first differing step; a record without numbers is one sampler's."""
    train = {"kind": "DistributedSampler", "shuffle": True, "epoch": 0, "sampler": 0, "window": 1}
    val = {**train, "sampler": 1, "window": 2}
    again = {**train, "window": 3}
    assert not epoch_repeated(_record(train, val), 1)
    assert epoch_repeated(_record(train, val, again), 3)
    assert not epoch_repeated(_record(train, val, again), 2)
    old = [{k: v for k, v in p.items() if k not in {"sampler", "window"}} for p in (train, val)]
    assert epoch_repeated(_record(*old), 1)
