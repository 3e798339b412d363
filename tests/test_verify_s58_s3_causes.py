"""Stop 58 s3: verify's causes, named from what the runs measured.

- v1-G (riverlight/HSR@00ec23c): "float summation order" where the first diverging step is
  another optimizer's (a discriminator after its generator's step 1): the floor is step 1's
  model's. Now that optimizer, its step() line and what it received are named.
- In-loop draws: PF-Net's per-sample `random.sample` in steps that also start a loader's
  iterator was "no known cause"; ModernTCN's `ddp_draw_share` masks (the original's values)
  were "random numbers drawn inside the training loop". Now the first is named, the second
  not.
- A torch.load of a file that is no checkpoint, and v3-E's per-chunk BatchNorm on a dummy
  forward before the wrap, were "the original failed under verify's seeding".
- `verify ENTRY` started outside the project ran both programs in that folder at once.

One original process and one launch (shared_verify); the notes' texts and the DP022 cause
are unit tests.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from shared_verify import Pair, Shared, report_of, run_pairs_across_files

from dp2ddp.verify.failures import plain_crash_note
from dp2ddp.verify.ratio_cause import ranks_apart

CASES = Path(__file__).parent / "verify_cases_s58"

PAIRS_ACROSS_FILES = True  # tests/shared_verify.py: one launch with the other such files
PAIRS: dict[str, Pair] = {
    "two_optimizers": Pair(
        "test_the_optimizer_that_diverged_first_is_named",
        CASES / "two_optimizers_dp.py",
        CASES / "two_optimizers_ddp.py",
    ),
    "per_sample": Pair(
        "test_per_sample_draws_beside_a_loader_are_named",
        CASES / "per_sample_draws_dp.py",
        CASES / "per_sample_draws_ddp.py",
    ),
    "shared_mask": Pair("test_shared_draws_are_not_a_cause", CASES / "shared_mask_dp.py"),
    "dummy_forward": Pair(
        "test_a_dummy_forward_before_the_wrap_runs",
        CASES / "dummy_forward_dp.py",
        CASES / "dummy_forward_ddp.py",
    ),
    "entry_folder": Pair(
        "test_entry_outside_the_project_runs_in_its_own_folder",
        CASES / "run_folder_asks_entry.py",
        options={"steps": 2},
    ),
    # last: both runs crash, which ends the launch
    "checkpoint": Pair(
        "test_a_load_of_no_checkpoint_is_named_not_the_seeding",
        CASES / "not_a_checkpoint_dp.py",
        CASES / "not_a_checkpoint_dp.py",
        ends_launch=True,
    ),
}


@pytest.fixture(scope="module")
def shared(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> dict[str, Shared]:
    """The selected tests' pairs, run in one original process and one launch with the
    other files' that set PAIRS_ACROSS_FILES (stop 60: one launch for five files)."""
    return run_pairs_across_files(request, tmp_path_factory, timeout=400.0)


def _causes(report: object) -> str:
    return "\n".join(f"{c.key}: {c.title}: {c.detail}" for c in report.causes)  # type: ignore[attr-defined]


@pytest.mark.e2e
def test_the_optimizer_that_diverged_first_is_named(shared: dict[str, Shared]) -> None:
    """At the base (643fbf08): "likely float summation order: step 1 within ..." or "no
    known cause", whatever the discriminator's first step did."""
    report = report_of(shared, "two_optimizers")
    assert report.exit_code == 1, report
    assert report.first_diverging_step == 2, report
    # Since stop 59 the original's migrate warnings are read for a given migration too:
    # DP059 at the relativistic means (the true cause) comes first, this cause after it.
    assert report.causes[0].key == "batch_statistic_loss", _causes(report)
    assert "two_optimizers_dp.py:27" in report.causes[0].detail, _causes(report)
    first = next(c for c in report.causes if c.key == "other_optimizer_first")
    assert "optimizer 1 (SGD) diverged first, at step 2 (its own step 1)" in first.title
    assert "two_optimizers_dp.py:31" in first.title, first.title
    assert "its gradients already differ there" in first.detail, first.detail
    assert not any(c.key == "float_order" for c in report.causes), _causes(report)


@pytest.mark.e2e
def test_per_sample_draws_beside_a_loader_are_named(shared: dict[str, Shared]) -> None:
    """At the base: "updates differ and no known cause matched"."""
    report = report_of(shared, "per_sample")
    assert report.exit_code == 1, report
    assert any(c.key == "random_in_loop" for c in report.causes), _causes(report)
    assert not any(c.key == "unexplained" for c in report.causes), _causes(report)
    assert "random.sample" in _causes(report), _causes(report)


@pytest.mark.e2e
def test_shared_draws_are_not_a_cause(shared: dict[str, Shared]) -> None:
    """At the base: "random numbers drawn inside the training loop" beside DP043, though the
    migration draws the mask with ddp_draw_share (the original's values on every rank)."""
    report = report_of(shared, "shared_mask")
    assert report.exit_code == 1, report
    causes = _causes(report)
    assert not any(c.key == "random_in_loop" for c in report.causes), causes
    assert "DP043" in causes, causes


@pytest.mark.e2e
def test_a_dummy_forward_before_the_wrap_runs(shared: dict[str, Shared]) -> None:
    """At the base: RUN FAILED, "Expected more than 1 value per channel when training" in
    verify's per-chunk BatchNorm, "the original failed under verify's seeding"."""
    report = report_of(shared, "dummy_forward")
    assert not report.failures, report.failures
    assert report.exit_code == 0, _causes(report)
    notes = "\n".join(report.notes)
    assert "1 training calls (input [2, 8]) were normalised over their whole batch" in notes
    assert "seeding" not in notes, notes


@pytest.mark.e2e
def test_entry_outside_the_project_runs_in_its_own_folder(shared: dict[str, Shared]) -> None:
    """At the base: RUN FAILED, EOFError at the migrated run's `input()`: the original's
    snapshot/run was in the folder both started in."""
    report = report_of(shared, "entry_folder")
    assert not report.failures, report.failures
    assert report.exit_code == 0, _causes(report)
    assert report.sharding_status == "ok", report.sharding


@pytest.mark.e2e
def test_a_load_of_no_checkpoint_is_named_not_the_seeding(shared: dict[str, Shared]) -> None:
    """At the base: "the original failed under verify's seeding (UnpicklingError ...)"."""
    report = report_of(shared, "checkpoint")
    assert report.exit_code == 2, report
    notes = "\n".join(report.notes)
    assert "the original read a file that is no whole checkpoint with torch.load at" in notes
    assert "not_a_checkpoint_dp.py:11" in notes, notes
    assert "random.seed" not in notes, notes


def test_weights_only_and_truncated_loads_are_named() -> None:
    """torch >= 2.6's weights_only refusal and a checkpoint half written (at the base: None,
    so the seeding note)."""
    frames = (
        'File "/p/train.py", line 9, in <module>\n    data = torch.load(path)\n'
        'File "/usr/lib/python3/site-packages/torch/serialization.py", line 1, in load\n'
    )
    refused = plain_crash_note(
        "UnpicklingError: Weights only load failed. This file can still be loaded",
        frames,
        "the original",
        Path("/p"),
    )
    assert refused is not None and "weights_only=False" in refused, refused
    assert "at /p/train.py:9: data = torch.load(path)" in refused, refused
    half = plain_crash_note(
        "RuntimeError: PytorchStreamReader failed reading zip archive: failed finding central",
        frames,
        "the migrated run",
        Path("/p"),
    )
    assert half is not None and half.startswith("the migrated run read a file that is no"), half
    assert (
        plain_crash_note("RuntimeError: shapes differ", frames, "the original", Path("/p")) is None
    )


def test_ranks_apart_names_a_sub_wrap() -> None:
    """amdim-public (stop 57 v3-E): "dp2ddp migrate named no place where they go apart"
    where DP022 had said the evaluator's parameters train apart on each rank."""
    warning = (
        "model.py:40:9: DP022 wrapped model inside another wrapped model: only "
        "self.encoder's gradients are averaged, its other parameters train apart on each rank"
    )
    cause = ranks_apart((warning,), "rank 1 differs after step 1")
    assert "as dp2ddp migrate warned (DP022)" in cause.title, cause
    assert "named no place" not in cause.detail, cause.detail
