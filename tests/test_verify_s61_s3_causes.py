"""Stop 61 s3: verify's causes must be the true ones (issue 28 item 6, round 13's v3-E).

- A submodule wrapped in place under a GPU count (VIPL-SLP/VAC_CSLR@71f3e03's
  `model.conv2d = nn.DataParallel(...)` under `if len(gpu_list) > 1`): the original's CPU run
  never reaches the wrap, so DP042's line was dropped as "not run" and verify said "no warning
  of dp2ddp migrate says how they go apart" beside it. The migration wraps on every rank:
  warnings at lines the original did not reach are now read before any such claim, and an
  apart code among them is named, with where it stands. DP069 (an optimizer over a model no
  wrap holds: each rank trains its own copy) is one of the codes that say how ranks go apart.
- The draws a `with ddp_same_random():` block surrounds are read in the file the migrated
  run executed (its real path recorded with the place), so the block's line and the draws'
  lines are one file's (stop 60 s3's left 2: the draws were read at the same relative path
  under the original's folder).
- A divergence from step 1 named after a batch mismatch at step 3
  (contemn1/title_tagger@6b009e7: the token count was the cause): a data fault measured at
  a later step than the first differing update is no cause of it. The causes are named from
  the steps before it, and the later fault follows them, said to come later.

One original process and one launch shared with the other PAIRS_ACROSS_FILES modules; the
rest are unit tests.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest
from shared_verify import Pair, Shared, report_of, run_pairs_across_files

from dp2ddp.verify.draw_cause import shared_reads
from dp2ddp.verify.first_step import before_mismatch, later, mismatch_step
from dp2ddp.verify.ratio_cause import ranks_apart
from dp2ddp.verify.reach import CWD
from dp2ddp.verify.recorder import _program_line
from dp2ddp.verify.records import RankRecord
from dp2ddp.verify.report import Cause
from dp2ddp.verify.sharding import MISMATCH, OK, Sharding, StepShards

CASES = Path(__file__).parent / "verify_cases_s61"

PAIRS_ACROSS_FILES = True  # tests/shared_verify.py: one launch with the other such files
PAIRS: dict[str, Pair] = {
    "guarded_partial": Pair(
        "test_a_partial_wrap_the_original_never_reached_is_named",
        CASES / "partial_guarded_dp.py",
    ),
    "later_batch": Pair(
        "test_a_later_batch_fault_does_not_lead_an_earlier_divergence",
        CASES / "token_mean_dp.py",
        CASES / "token_mean_ddp.py",
    ),
}


@pytest.fixture(scope="module")
def shared(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> dict[str, Shared]:
    """The selected tests' pairs, run in one original process and one launch with the
    other files' that set PAIRS_ACROSS_FILES."""
    return run_pairs_across_files(request, tmp_path_factory, timeout=400.0)


def _causes(report: object) -> str:
    return "\n".join(f"{c.key}: {c.title}: {c.detail}" for c in report.causes)  # type: ignore[attr-defined]


@pytest.mark.e2e
def test_a_partial_wrap_the_original_never_reached_is_named(shared: dict[str, Shared]) -> None:
    """At the base (8936342c): "no warning of dp2ddp migrate says how they go apart, and it
    warned at: ./partial_guarded_dp.py:27 DP069", DP042 at line 26 among the notes."""
    report = report_of(shared, "guarded_partial")
    assert report.exit_code == 1, report
    cause = report.causes[0]
    assert cause.key == "ranks_out_of_sync", _causes(report)
    assert "no warning" not in cause.detail, cause.detail
    assert "(DP069, DP042)" in cause.title, cause.title
    assert "partial_guarded_dp.py:26 at lines the original's run did not reach" in cause.detail
    assert "partial_guarded_dp.py:26 DP042 DataParallel wraps a submodule" in cause.detail


@pytest.mark.e2e
def test_a_later_batch_fault_does_not_lead_an_earlier_divergence(
    shared: dict[str, Shared],
) -> None:
    """At the base: the one cause "the model's inputs are not the loaded samples ... from
    step 3", for updates that differ from step 1 (each rank's own token count)."""
    report = report_of(shared, "later_batch")
    assert report.exit_code == 1, report
    assert report.first_diverging_step == 1, report
    keys = [c.key for c in report.causes]
    assert keys[-1] == "inputs_changed" and len(keys) > 1, _causes(report)
    assert "inputs_changed" not in keys[:-1], _causes(report)
    last = report.causes[-1]
    assert last.title.startswith("later, from step 3: "), last.title
    assert "after the updates first differed at step 1" in last.detail, last.detail


# -- units ---------------------------------------------------------------------------------
def _shards(step: int, ok: bool) -> StepShards:
    return StepShards(step, "model", 8, (4, 4), False, 0, 0 if ok else 8, 0 if ok else 8, 0)


def test_the_steps_before_a_later_mismatch_are_judged_alone() -> None:
    sharding = Sharding(MISMATCH, [_shards(1, True), _shards(2, True), _shards(3, False)], "m")
    assert mismatch_step(sharding) == 3
    earlier = before_mismatch(sharding, 1)
    assert earlier is not None and earlier.status == OK
    assert [s.step for s in earlier.steps] == [1, 2]
    assert before_mismatch(sharding, 3) is None  # the mismatch may be the cause
    assert before_mismatch(sharding, None) is None
    first_bad = Sharding(MISMATCH, [_shards(1, False), _shards(2, True)], "m")
    assert before_mismatch(first_bad, 1) is None
    changed = Sharding(OK, [_shards(1, True), _shards(2, True)], "m", [], [_shards(2, False)])
    assert mismatch_step(changed) == 2
    kept = before_mismatch(changed, 1)
    assert kept is not None and kept.changed_inputs == [] and len(kept.steps) == 1
    cause = later(Cause("k", "title", "detail"), 3, 1)
    assert cause.title == "later, from step 3: title"


def test_ranks_apart_reads_the_warnings_the_original_did_not_reach() -> None:
    reached = ("/p/main.py:27:7: DP043 mean over a data-dependent selection: x[m].mean()",)
    unreached = ("/p/main.py:26:18: DP042 DataParallel wraps a submodule in place: conv",)
    cause = ranks_apart(reached, "after step 1, rank 1 differs", None, unreached)
    assert "no warning" not in cause.detail, cause.detail
    assert "(DP042)" in cause.title and "/p/main.py:26 DP042" in cause.detail
    assert "/p/main.py:26 at lines the original's run did not reach" in cause.detail
    other = ("/p/main.py:30:1: DP030 figure printed from a rank's shard",)
    assert "no warning" in ranks_apart(reached, "after step 1", None, other).detail


def _record(rank: int, directory: Path, data: dict[str, object]) -> RankRecord:
    return RankRecord(rank, directory, "done", dict(data), {}, "", "")


def test_shared_draws_are_read_in_the_file_the_run_executed(tmp_path: Path) -> None:
    """The `with ddp_same_random():` block's line and its function's draws come from one
    file, the one the migrated run executed (recorded with the place), not the file at the
    same relative path under the original's working folder. At the base the draws were the
    original's (`ds.py line 3`) beside the migration's block line (stop 60 s3's left 2)."""
    original, copy = tmp_path / "user", tmp_path / "copy"
    original.mkdir()
    copy.mkdir()
    (original / "ds.py").write_text(
        "import torch\ndef add_noise(x):\n    return x + torch.randn(3)\n"
    )
    (copy / "ds.py").write_text(
        "import torch\n\nfrom _dp2ddp import ddp_same_random\n\n\ndef add_noise(x):\n"
        "    with ddp_same_random():\n        return x + torch.randn(3)\n"
    )
    place = f"ds.py:7 add_noise\t{copy / 'ds.py'}"
    steps = [_shards(1, True)]
    ev = SimpleNamespace(
        migrated=[_record(0, tmp_path, {}), _record(1, tmp_path, {"shared_reads": {place: 2}})],
        original=_record(0, tmp_path, {CWD: str(original)}),
        sharding=Sharding(OK, steps, "m", steps, [_shards(1, False)]),
    )
    cause = shared_reads(ev)  # type: ignore[arg-type]
    assert cause is not None
    assert "`with ddp_same_random():` at ds.py:7 (in add_noise" in cause.detail, cause.detail
    assert "around the draws of ds.py line 8 (torch.randn)" in cause.detail, cause.detail


def test_a_recorded_place_names_the_file_that_ran() -> None:
    place = _program_line(with_function=True)
    shown, _, ran = place.partition("\t")
    assert shown.endswith(" test_a_recorded_place_names_the_file_that_ran"), place
    assert Path(ran) == Path(__file__).resolve(), place
