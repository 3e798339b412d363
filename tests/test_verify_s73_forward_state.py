"""Stop 73 verify: state a model's forward keeps on `self`, sized by the rows it saw.

- forward_cache_contrast_dp.py (the class of TengdaHan/MemDPC@d7dbbf0, round 25): an
  in-batch contrastive loss computed inside forward, its targets cached in a dict on `self`
  under a key that does not name the batch size, the loss given back per replica
  (`.unsqueeze(0)`) and averaged by the script. verify's original ran the replicas (chunks of
  4), could not gather their one-value outputs, fell back to the whole batch of 8 and met
  the 4-row cache a replica had left: "the original failed under verify's seeding" (RUN
  FAILED, false: the program runs on one device and on 2 GPUs). One value per replica now
  comes back as the replicas' mean (replicas._per_replica), and the replicas' kept state
  makes the model's later forwards run as replicas too (forward_state.py): EQUIVALENT.
- The same with --freeze-batchnorm: verify ran the whole batch (no replicas), so the loss
  took 8 rows' negatives, each rank's 4: NOT EQUIVALENT, no cause (false). The replicas now
  run under --freeze-batchnorm too: EQUIVALENT.
- A crash on such state that is left (a forward over rows no replica saw) is said as
  "not comparable step by step" with the state and migrate's DP007 line (unit test).

One original process and one launch shared with the other PAIRS_ACROSS_FILES modules.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from shared_verify import Pair, Shared, report_of, run_pairs_across_files

from dp2ddp.verify.forward_state import state_crash_cause

CASES = Path(__file__).parent / "verify_cases_s73_verify"

PAIRS_ACROSS_FILES = True  # tests/shared_verify.py: one launch with the other such files
PAIRS: dict[str, Pair] = {
    "cache": Pair(
        "test_a_forward_cache_sized_by_the_replicas_rows_is_compared_as_replicas",
        CASES / "forward_cache_contrast_dp.py",
    ),
    "cache_frozen": Pair(
        "test_frozen_batchnorm_keeps_the_replicas_of_a_forward_coupling_its_rows",
        CASES / "forward_cache_contrast_dp.py",
        options={"freeze_batchnorm": True},
    ),
}


@pytest.fixture(scope="module")
def shared(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> dict[str, Shared]:
    return run_pairs_across_files(request, tmp_path_factory, timeout=400.0)


@pytest.mark.e2e
def test_a_forward_cache_sized_by_the_replicas_rows_is_compared_as_replicas(
    shared: dict[str, Shared],
) -> None:
    report = report_of(shared, "cache")
    assert not report.failures, report.failures
    assert "disjoint samples (4+4)" in report.sharding, report.sharding
    assert report.exit_code == 0, report


@pytest.mark.e2e
def test_frozen_batchnorm_keeps_the_replicas_of_a_forward_coupling_its_rows(
    shared: dict[str, Shared],
) -> None:
    report = report_of(shared, "cache_frozen")
    assert not report.failures, report.failures
    assert report.exit_code == 0, report


def test_a_crash_on_state_a_replica_kept_is_not_comparable_not_the_seeding() -> None:
    warning = (
        "./train.py:26:13: DP007 module state mutated in forward() or backward(): "
        "self.tgt['k'] in Contrast.forward()"
    )
    cause = state_crash_cause(
        {"Contrast.tgt": 4},
        (warning,),
        "ValueError: Expected input batch_size (8) to match target batch_size (4).",
        "train.py:27: return self.ce(score, self.tgt['k'])",
    )
    assert cause.key == "not_comparable"
    assert cause.title.startswith("not comparable step by step")
    assert "Contrast.tgt (set at 4 rows)" in cause.detail
    assert "./train.py:26 (DP007)" in cause.detail
    assert "seeding" in cause.detail and "Not verify's seeding" in cause.detail
