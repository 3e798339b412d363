"""Stop 46's said-not-proved leftovers (helper m) end to end, in ONE torchrun launch: each
golden fixture's migration runs under torchrun (2 CPU processes, gloo) through
tests/e2e_driver.py to the end, and what it computes is compared with one process running
the original (DataParallel on CPU calls its module).

- data_index_table_padded_pass (v1-D of stop 44, yukimasano/self-label@3891e37's pseudo-label
  pass): a tensor table and a numpy table of the whole dataset filled by sample index in a
  pass over the shuffled sharded loader, 15 samples (one repeated by DistributedSampler to
  even the ranks out). Made whole after the pass (ddp_whole_table): on both ranks both tables
  equal the one process's. Before (stop 45): DP105; each rank's rows of the other rank's
  samples stayed 0 (different labels per rank).
- batches_size_kept_by_method (v2-A of stop 45, junyanz/BicycleGAN@40b9d52's `is_train()`): a
  batch kept on self by `set_input(batch)`, its size compared in another method with the
  option the loader's batch_size reads: read per rank, so each rank steps 8 times and skips
  the 2 short batches as the original did. Before: DP061 (said); unsaid at stop 45's base,
  every batch skipped, 0 optimizer steps, exit 0.
"""

from __future__ import annotations

import json
import os
import runpy
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from e2e_driver import workdir_of

pytestmark = pytest.mark.e2e

TESTS = Path(__file__).resolve().parent
DRIVER = TESTS / "e2e_driver.py"
#: golden fixtures whose migration (expected.py) the launch runs
CASES = ("data_index_table_padded_pass", "batches_size_kept_by_method")


@pytest.fixture(scope="module")
def launch(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Path], str]:
    """Every case's migrated script, each in a folder of its own, in one torchrun x2 launch."""
    out = tmp_path_factory.mktemp("stop46_m")
    scripts = {}
    for case in CASES:
        (out / case).mkdir()
        scripts[case] = out / case / f"{case}.py"
        scripts[case].write_text((TESTS / "fixtures" / case / "expected.py").read_text())
    command = [sys.executable, "-m", "torch.distributed.run", "--standalone"]
    command += ["--nproc_per_node=2", str(DRIVER), str(out / "runs"), *map(str, scripts.values())]
    env = {k: v for k, v in os.environ.items() if k not in ("RANK", "WORLD_SIZE", "LOCAL_RANK")}
    proc = subprocess.run(
        command, cwd=out, capture_output=True, text=True, timeout=600,
        env={**env, "OMP_NUM_THREADS": "1"},
    )  # fmt: skip
    return out, scripts, proc.stdout + proc.stderr


def _status(launch: tuple[Path, dict[str, Path], str], case: str, rank: int) -> dict[str, Any]:
    out, scripts, console = launch
    path = out / "runs" / workdir_of(scripts[case]) / f"rank{rank}.status.json"
    assert path.exists(), console[-6000:]
    status: dict[str, Any] = json.loads(path.read_text())
    assert status["ok"], console[-6000:]
    return status


def _original_digest(case: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    """The original's E2E_DIGEST, run in this process (one process, DataParallel)."""
    monkeypatch.chdir(tmp_path)
    return runpy.run_path(str(TESTS / "fixtures" / case / "input.py"))["E2E_DIGEST"]


def test_index_table_is_whole_on_every_rank(
    launch: tuple[Path, dict[str, Path], str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    case = "data_index_table_padded_pass"
    original = _original_digest(case, tmp_path, monkeypatch)
    assert len(original) == 2 * 15 * 3 and 0 not in original[:45]
    for rank in (0, 1):
        assert _status(launch, case, rank)["digest"] == pytest.approx(original, abs=1e-4)


def test_a_batch_kept_by_a_method_is_compared_with_the_per_rank_size(
    launch: tuple[Path, dict[str, Path], str],
) -> None:
    out, scripts, _ = launch
    case = "batches_size_kept_by_method"
    for rank in (0, 1):
        _status(launch, case, rank)
    stdout = (out / "runs" / workdir_of(scripts[case]) / "rank0.stdout").read_text()
    assert "optimizer steps: 8 skipped: 2 probe full: False" in stdout, stdout
