"""Stop 57 s3: verify's run folder, its notes on a crash, and what it counts.

- v4-F of stop 56: `verify ORIGINAL MIGRATED` started both programs in one folder at once;
  a program that asks before it reuses its run folder found the other's and read end of
  file. The migrated run now starts in a copy of the working folder (copy_run_folder).
- r1-B of stop 55, and stop 56's DecoupleGCN: an EOFError at `input()` and a relative path
  missing in the working folder were blamed on verify's seeding (failures.plain_crash_note).
- v2 of stop 56: a whole pass over a loader with no forward (Koopa's spectrum) was counted
  into step 1's batch (fed.FedBatches.exhausted).
- MusicTransformer (stop 56): an original that calls its model's forward() itself is seen
  as its parts: samples of a part no rank has, and parameters named otherwise, made a NOT
  EQUIVALENT of an exact migration (sharding.unrecorded, records.same_parameters).

One original process and one launch (shared_verify); the file-name row of --to-end and the
"no batch recorded" status are unit tests.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from shared_verify import Pair, Shared, report_of, run_pairs_across_files

from dp2ddp.verify.records import RankRecord
from dp2ddp.verify.sharding import UNRECORDED, check_sharding
from dp2ddp.verify.toend import unmatched_files

CASES = Path(__file__).parent / "verify_cases_s57"
GOOD = Path(__file__).parent / "verify_cases" / "mlp_ddp.py"

PAIRS_ACROSS_FILES = True  # tests/shared_verify.py: one launch with the other such files
PAIRS: dict[str, Pair] = {
    "stdin": Pair(
        "test_a_read_of_stdin_is_named_not_the_seeding", CASES / "reads_stdin_dp.py", GOOD
    ),
    "relative": Pair(
        "test_a_missing_relative_path_names_the_folder", CASES / "relative_config_dp.py", GOOD
    ),
    "statistics": Pair(
        "test_a_pass_without_a_step_is_not_step_ones_batch", CASES / "statistics_pass_dp.py"
    ),
    "forward": Pair(
        "test_a_model_whose_forward_is_called_is_compared_whole", CASES / "forward_called_dp.py"
    ),
    # last here: at the base its migrated run could fail and end the launch (it passes now:
    # not `ends_launch`, which would put it after s58's crashing pair and cost a second round)
    "own_folder": Pair(
        "test_each_run_starts_in_its_own_folder",
        CASES / "run_folder_asks_dp.py",
        CASES / "run_folder_asks_ddp.py",
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
def test_each_run_starts_in_its_own_folder(shared: dict[str, Shared]) -> None:
    """At the base (a3724108): RUN FAILED, "EOFError: EOF when reading a line" in whichever
    run came second to `snapshot/run`. Now the migration starts in a copy of the folder."""
    report = report_of(shared, "own_folder")
    assert report.exit_code == 0, report
    assert not report.failures, report.failures
    assert report.sharding_status == "ok", report.sharding


@pytest.mark.e2e
def test_a_read_of_stdin_is_named_not_the_seeding(shared: dict[str, Shared]) -> None:
    """At the base: "the original failed under verify's seeding (EOFError ...)"."""
    report = report_of(shared, "stdin")
    assert report.exit_code == 2, report
    assert report.failures[0].message.startswith("EOFError"), report.failures
    notes = "\n".join(report.notes)
    assert "the original reads standard input at" in notes, notes
    assert "reads_stdin_dp.py:7" in notes, notes
    assert "seeding (" not in notes and "random.seed" not in notes, notes


@pytest.mark.e2e
def test_a_missing_relative_path_names_the_folder(shared: dict[str, Shared]) -> None:
    """At the base: "the original failed under verify's seeding (FileNotFoundError ...)"."""
    report = report_of(shared, "relative")
    assert report.exit_code == 2, report
    notes = "\n".join(report.notes)
    assert "the original did not find configs/width.txt" in notes, notes
    assert "a path relative to the folder it runs in: verify ran it in" in notes, notes
    assert f"lies in {CASES.resolve()}: start verify from there" in notes, notes
    assert "random.seed" not in notes, notes


@pytest.mark.e2e
def test_a_pass_without_a_step_is_not_step_ones_batch(shared: dict[str, Shared]) -> None:
    """At the base: "ranks fed disjoint samples (10+10) forming the original's batch of 20":
    the statistics pass's 16 samples counted into step 1."""
    report = report_of(shared, "statistics")
    assert report.exit_code == 0, report
    assert "(2+2) forming the original's batch of 4" in report.sharding, report.sharding


@pytest.mark.e2e
def test_a_model_whose_forward_is_called_is_compared_whole(shared: dict[str, Shared]) -> None:
    """At the base: NOT EQUIVALENT, "rank 0: 0, rank 1: 0" and "optimized only by the
    migration" for every parameter of an exact migration."""
    report = report_of(shared, "forward")
    assert report.exit_code == 0, report
    assert "(2+2) forming the original's batch of 4" in report.sharding, report.sharding
    assert "left out" in report.sharding, report.sharding
    assert not [c for c in report.causes if "different parameters" in c.title], report.causes
    assert any("the same parameters by their order" in n for n in report.notes), report.notes


def _fed(*steps: dict[str, list[str]]) -> RankRecord:
    windows = [{"index": i + 1, "inputs": step} for i, step in enumerate(steps)]
    return RankRecord(0, Path("."), "ok", {"windows": windows}, {}, "", "")


def test_no_batch_recorded_on_the_ranks_is_not_a_difference() -> None:
    """The ranks recorded no sample of the original's model: not comparable step by step
    (at the base: "global batch differs ... rank 0: 0, rank 1: 0"); a model no rank fed,
    beside one they did, is left out and said."""
    original = _fed({"0": ["a", "b"]}, {"0": ["c", "d"]})
    nothing = _fed({}, {})
    sharding = check_sharding(original, [nothing, nothing], 2)
    assert sharding.status == UNRECORDED and not sharding.failed, sharding
    assert sharding.describe().startswith("not comparable step by step: no batch recorded")
    both = _fed({"0": ["a", "b"], "1": ["h", "i"]})
    ranks = [_fed({"0": ["a"]}), _fed({"0": ["b"]})]
    sharding = check_sharding(both, ranks, 1)
    assert sharding.status == "ok" and sharding.unrecorded == ["1"], sharding
    assert "model 1 fed samples no rank recorded, left out" in sharding.describe()


def test_files_written_under_other_names_are_listed() -> None:
    """CoupletAI's checkpoints (`Transformer_1.bin` by the original, `DistributedDataParallel
    _1.bin` by rank 0): "files ok" alone at the base; now each side's own files."""
    original = ["/p/out/Transformer_1.bin", "/p/out/log.txt"]
    ranks = [["/p/out/DistributedDataParallel_1.bin", "/p/out/log.txt"], []]
    assert unmatched_files(original, ranks) == (
        ["/p/out/Transformer_1.bin"],
        ["/p/out/DistributedDataParallel_1.bin"],
    )
    assert unmatched_files(["/p/a"], [["/p/a"], ["/p/a"]]) == ([], [])
