"""Stop 63 s2: verify's causes on round 15's repositories.

- report_forward_before_guarded_wrap_dp.py (FFly/pytorch-cifar10-all-in-gpu@93d9401): a
  report's forward (torchsummary) before a wrap the original skips on CPU (`if device ==
  'cuda'`). verify numbered the models by first forward, a wrapper apart from its module:
  the original's model 0 (the bare model, trained) was compared with the migration's model
  0 (the bare model, the report's forward alone; the DDP wrapper was 1): "original: 0
  samples", NOT EQUIVALENT. A wrapper is now its module (recorder.model_ordinal):
  EQUIVALENT, disjoint 4+4.
- image_optimizer_dp.py (happen2me/genda@858cea8, stop 62 v3-D): images optimised per
  batch by their own Adam through a frozen teacher, then a student's step. verify recorded
  the image optimizer's steps as a model's ("ranks in sync NO": each rank optimises its own
  share of the images). An optimizer over plain tensors no called or wrapped module holds
  steps data, not a model: not recorded (verify/data_optimizers.py); the student's steps
  are compared: EQUIVALENT.
- The migration's DP083 (a sync-BN package's layers, synchronised by the removed
  `patch_replication_callback`: XiaLiPKU/EMANet@f09ffac, stop 62 v1-C) is a cause verify
  names, at the patch's line: its original on CPU cannot reproduce the synchronisation, and
  EMANet was NOT EQUIVALENT from step 1 with no cause named (unit test, no launch).

One original process and one launch shared with the other PAIRS_ACROSS_FILES modules.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from shared_verify import Pair, Shared, report_of, run_pairs_across_files

from dp2ddp.verify.ratio_cause import said_losses

CASES = Path(__file__).parent / "verify_cases_s63_s2"

PAIRS_ACROSS_FILES = True  # tests/shared_verify.py: one launch with the other such files
PAIRS: dict[str, Pair] = {
    "guarded_wrap": Pair(
        "test_a_report_forward_before_a_wrap_skipped_on_cpu_numbers_no_model_apart",
        CASES / "report_forward_before_guarded_wrap_dp.py",
    ),
    "image_optimizer": Pair(
        "test_an_optimizer_over_input_images_is_not_compared_as_the_models",
        CASES / "image_optimizer_dp.py",
    ),
}


@pytest.fixture(scope="module")
def shared(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> dict[str, Shared]:
    """The selected tests' pairs, run in one original process and one launch with the
    other files' that set PAIRS_ACROSS_FILES."""
    return run_pairs_across_files(request, tmp_path_factory, timeout=400.0)


@pytest.mark.e2e
def test_a_report_forward_before_a_wrap_skipped_on_cpu_numbers_no_model_apart(
    shared: dict[str, Shared],
) -> None:
    report = report_of(shared, "guarded_wrap")
    assert report.sharding_status == "ok", report.sharding
    assert "disjoint samples (4+4)" in report.sharding, report.sharding
    assert report.exit_code == 0, report


@pytest.mark.e2e
def test_an_optimizer_over_input_images_is_not_compared_as_the_models(
    shared: dict[str, Shared],
) -> None:
    report = report_of(shared, "image_optimizer")
    assert report.ranks_in_sync.startswith("yes"), report.ranks_in_sync
    assert report.optimizers == 1, report
    assert report.exit_code == 0, report


def test_synchronised_batchnorm_the_migration_said_is_a_named_cause() -> None:
    warning = (
        "./train.py:58:9: DP083 BatchNorm the removed replication patch synchronised is per "
        "process: patch_replication_callback(net)"
    )
    causes = said_losses((warning, "./train.py:12:1: DP041 some parameters may get no grad"))
    assert [c.key for c in causes] == ["synchronised_batchnorm"], causes
    assert "./train.py:58" in causes[0].detail and "per rank" in causes[0].title
    assert said_losses(("./train.py:12:1: DP041 some parameters may get no grad",)) == []
