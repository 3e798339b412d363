"""Stop 46's v3 round classes end to end, in ONE torchrun launch (2 CPU processes, gloo):
the golden migrations of two program fixtures run under torchrun through tests/e2e_driver.py.

- v3-B (okankop/Driver-Anomaly-Detection@6f7f251's layout, program fixture
  outside_parameters_wrap_built_elsewhere): the model is wrapped by models.generate_model(),
  a head built in the entry beside it goes to the same optimizer. Before, the head trained
  apart on each rank; now `ddp_sync_module(head)` follows the optimizer: both ranks end with
  the same head (E2E_DIGEST: its weights).
- v3-C (the same repository, program fixture output_cut_wrap_built_elsewhere): a normal and
  an anomalous batch are concatenated and the head's rows cut back at the normal loader's
  batch size. Before, each rank cut its 2 + 2 rows at the global 4 (no anomalous rows);
  now the cut reads `ddp_per_rank_batch(args.n_batch)`: 2 and 2 on every step.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from e2e_driver import workdir_of

pytestmark = pytest.mark.e2e

TESTS = Path(__file__).resolve().parent
DRIVER = TESTS / "e2e_driver.py"
#: program fixture -> its entry
CASES = {
    "outside_parameters_wrap_built_elsewhere": "main.py",
    "output_cut_wrap_built_elsewhere": "main.py",
}


@pytest.fixture(scope="module")
def launch(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Path], str]:
    out = tmp_path_factory.mktemp("stop46_v3")
    scripts: dict[str, Path] = {}
    for case, entry in CASES.items():
        shutil.copytree(TESTS / "program_fixtures" / case / "expected", out / case)
        scripts[case] = out / case / entry
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


def test_head_beside_a_wrap_built_elsewhere_stays_alike(
    launch: tuple[Path, dict[str, Path], str],
) -> None:
    case = "outside_parameters_wrap_built_elsewhere"
    first, second = (_status(launch, case, rank)["digest"] for rank in (0, 1))
    assert first and first == second, (first, second)


def test_rows_cut_at_the_batch_size_are_this_ranks(
    launch: tuple[Path, dict[str, Path], str],
) -> None:
    out, scripts, _ = launch
    case = "output_cut_wrap_built_elsewhere"
    for rank in (0, 1):
        _status(launch, case, rank)
    stdout = (out / "runs" / workdir_of(scripts[case]) / "rank0.stdout").read_text()
    lines = [line for line in stdout.splitlines() if line.startswith("normal rows")]
    assert lines == ["normal rows 2 anomalous rows 2"] * 4, stdout
