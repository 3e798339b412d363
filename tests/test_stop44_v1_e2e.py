"""Stop 44's vision round (helper v1), end to end: the golden migrations of its classes run
under torchrun (2 CPU processes, gloo) to the end in one launch, and rank 0 prints what the
original (one process, DataParallel) printed.

- model_wrap_loss_parameters_picked_optimizer (v1-B, euwern/proxynca_pp@217233d): a loss with
  trainable proxies trained by an optimizer whose class a configuration picks:
  ddp_sync_module(criterion) (before: each rank's proxies apart, rank 0 -20.1081 for the
  original's -15.6513, no warning).
- model_wrap_sequential_partial_child (v1-A, the same repository's `nn.Sequential(feat,
  emb)`): a child of the wrapped Sequential never uses a layer: find_unused_parameters=True
  (before: no DP041, "Expected to have finished reduction" at step 2 on both ranks).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from e2e_driver import workdir_of

pytestmark = pytest.mark.e2e

FIXTURES = Path(__file__).resolve().parent / "fixtures"
DRIVER = Path(__file__).resolve().parent / "e2e_driver.py"
#: golden fixture -> the lines rank 0 prints, as the original printed them
CASES = {
    "model_wrap_loss_parameters_picked_optimizer": ("proxies -15.6513 model -0.3587",),
    "model_wrap_sequential_partial_child": ("weights -4.1112",),
}


@pytest.fixture(scope="module")
def launch(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Path], str]:
    out = tmp_path_factory.mktemp("stop44_v1")
    scripts = {}
    for case in CASES:
        script = out / f"{case}.py"
        script.write_text((FIXTURES / case / "expected.py").read_text())
        scripts[case] = script
    command = [sys.executable, "-m", "torch.distributed.run", "--standalone"]
    command += ["--nproc_per_node=2", str(DRIVER), str(out / "runs"), *map(str, scripts.values())]
    env = {k: v for k, v in os.environ.items() if k not in ("RANK", "WORLD_SIZE", "LOCAL_RANK")}
    proc = subprocess.run(
        command, cwd=out, capture_output=True, text=True, timeout=400,
        env={**env, "OMP_NUM_THREADS": "1"},
    )  # fmt: skip
    return out, scripts, proc.stdout + proc.stderr


@pytest.mark.parametrize("case", CASES)
def test_round_class_runs_to_the_end_as_dataparallel_did(
    launch: tuple[Path, dict[str, Path], str], case: str
) -> None:
    out, scripts, console = launch
    for rank in (0, 1):
        status = out / "runs" / workdir_of(scripts[case]) / f"rank{rank}.status.json"
        assert status.exists(), console[-6000:]
        assert json.loads(status.read_text())["ok"], console[-6000:]
    stdout = (out / "runs" / workdir_of(scripts[case]) / "rank0.stdout").read_text()
    for line in CASES[case]:
        assert line in stdout, stdout
