"""Stop 45's vision round (helper v1), end to end: the golden migrations of its classes run
under torchrun (2 CPU processes, gloo) to the end in one launch, and rank 0 prints what the
original (one process, DataParallel) printed.

- rank_zero_run_folder_counted_by_walk (v1-A, inspire-group/SSD@cf2e162): a run folder
  numbered by an os.walk count of the earlier runs: rank 0's walk on every rank, one new
  folder (before: rank 1 counted rank 0's new folder too and made `3-run`, no warning).
- rank_zero_distutils_copy_tree (v1-B, the same repository): distutils' copy_tree of the
  checkpoint folder on rank 0 alone, after its save (before: every rank copied).
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
    "rank_zero_run_folder_counted_by_walk": ("folders ['1-run', '2-run']",),
    "rank_zero_distutils_copy_tree": ("latest ['model_0.pt', 'model_1.pt']",),
}


@pytest.fixture(scope="module")
def launch(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Path], str]:
    out = tmp_path_factory.mktemp("stop45_v1")
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


def test_one_new_run_folder(launch: tuple[Path, dict[str, Path], str]) -> None:
    """Both ranks ran in one folder: the walk's count was rank 0's on rank 1 too."""
    out, scripts, console = launch
    root = out / "runs" / workdir_of(scripts["rank_zero_run_folder_counted_by_walk"]) / "runs"
    assert sorted(p.name for p in (root / "exp").iterdir()) == ["1-run", "2-run"], console[-3000:]
