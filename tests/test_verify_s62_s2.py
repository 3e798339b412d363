"""Stop 62 s2: verify on batches cut by an index array, and on a model keeping state on `self`.

- index_rebound_dp.py (the golden batches_s62_s2_index_tensor_rebound's input, after
  FFly/pytorch-cifar10-all-in-gpu@93d9401): an unseeded `torch.randperm` each epoch, the
  range loop's counter rebound to the index slice, `torch.backends.cudnn.benchmark = True`
  beside. verify migrates it: EQUIVALENT, the ranks fed disjoint halves of the original's
  batches. At the base (f9374607) the migration said DP047 and DP006 and every rank trained
  every batch of its own permutation.
- state_on_self_dp.py (round 14 v2-F, 123sherlocklee/Generative-BiLSTM@4341d29): a model
  without BatchNorm whose forward() keeps its output on `self` as the next call's state. On
  W GPUs DataParallel's fresh replicas drop it; verify's original undid such writes only on
  its chunked path (models with BatchNorm), so the state was kept, step 2 backpropagated
  through step 1's freed graph, and verify said "the original failed under verify's seeding"
  (the base: RUN FAILED). Against a migration by hand that drops the state before each call:
  EQUIVALENT.

One original process and one launch shared with the other PAIRS_ACROSS_FILES modules; the
last test needs no launch.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import torch
from shared_verify import Pair, Shared, report_of, run_pairs_across_files

from dp2ddp.verify.replicas import whole_forward

CASES = Path(__file__).parent / "verify_cases_s62_s2"

PAIRS_ACROSS_FILES = True  # tests/shared_verify.py: one launch with the other such files
PAIRS: dict[str, Pair] = {
    "index_rebound": Pair(
        "test_batches_cut_by_a_drawn_index_array_are_split_as_dataparallel_did",
        CASES / "index_rebound_dp.py",
    ),
    "state_on_self": Pair(
        "test_the_original_drops_what_forward_keeps_on_self_without_batchnorm",
        CASES / "state_on_self_dp.py",
        CASES / "state_on_self_ddp.py",
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
def test_batches_cut_by_a_drawn_index_array_are_split_as_dataparallel_did(
    shared: dict[str, Shared],
) -> None:
    report = report_of(shared, "index_rebound")
    assert report.exit_code == 0, report
    assert report.sharding_status == "ok", report.sharding
    assert "disjoint samples (4+4)" in report.sharding, report.sharding


@pytest.mark.e2e
def test_the_original_drops_what_forward_keeps_on_self_without_batchnorm(
    shared: dict[str, Shared],
) -> None:
    report = report_of(shared, "state_on_self")
    assert not report.failures, report.failures
    assert report.exit_code == 0, report


class _Stateful(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.lin = torch.nn.Linear(2, 2)
        self.h: torch.Tensor | None = None

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.h is None:
            self.h = torch.zeros(x.size(0), 2)
        out: torch.Tensor = self.lin(x) + self.h
        self.h = out
        self.seen = x.size(0)  # an attribute forward adds: kept, as after the chunked path
        return out


def _recorder(chunks: int) -> Any:
    return SimpleNamespace(options=SimpleNamespace(norm_chunks=chunks), replica=None)


def test_the_whole_batch_forward_of_a_wrap_undoes_what_forward_set_on_self() -> None:
    """The original emulating W replicas: the state set in forward() is gone after the
    call (two steps backpropagate, as on W GPUs), an added attribute keeps its value; a
    world of one, or a model no DataParallel wraps, runs as written."""
    model = torch.nn.DataParallel(_Stateful())
    call = torch.nn.Module.__call__
    for _ in range(2):
        out = whole_forward(_recorder(2), call, model, (torch.ones(4, 2),), {})
        out.sum().backward()  # step 2 would backpropagate through step 1's freed graph
        assert model.module.h is None and model.module.seen == 4
    whole_forward(_recorder(1), call, model, (torch.ones(4, 2),), {})
    assert model.module.h is not None
    bare = _Stateful()
    whole_forward(_recorder(2), call, bare, (torch.ones(4, 2),), {})
    assert bare.h is not None
