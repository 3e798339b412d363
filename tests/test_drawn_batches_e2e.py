"""Batches a generator function draws (class v1-B of the stop-41 validation round,
MrGiovanni/ModelsGenesis@12f7feb), end to end: the migrated script under torchrun (2 CPU
processes, gloo) draws each step's batch alike on every rank (`with ddp_same_random():`
around `next(gen)`) and each rank trains on its own 2 of the 4 rows; on a draw of its own,
the ranks' rows of a step overlapped."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from e2e_driver import workdir_of

from dp2ddp import migrate_source
from dp2ddp.options import MigrateOptions

pytestmark = pytest.mark.e2e

CASE = Path(__file__).resolve().parent / "e2e_cases" / "generator_batches.py"
DRIVER = Path(__file__).resolve().parent / "e2e_driver.py"


def test_each_step_is_one_draw_cut_between_the_ranks(tmp_path: Path) -> None:
    result = migrate_source(
        CASE.read_text(), MigrateOptions(inline_helpers=True), filename=CASE.name
    )
    assert "with ddp_same_random():\n            x, y = next(training_generator)" in result.code
    script = tmp_path / CASE.name
    script.write_text(result.code)
    command = [sys.executable, "-m", "torch.distributed.run", "--standalone"]
    command += ["--nproc_per_node=2", str(DRIVER), str(tmp_path / "runs"), str(script)]
    env = {k: v for k, v in os.environ.items() if k not in ("RANK", "WORLD_SIZE")}
    proc = subprocess.run(
        command, cwd=tmp_path, capture_output=True, text=True, timeout=400,
        env={**env, "OMP_NUM_THREADS": "1"},
    )  # fmt: skip
    statuses = []
    for rank in (0, 1):
        path = tmp_path / "runs" / workdir_of(script) / f"rank{rank}.status.json"
        assert path.exists(), proc.stdout + proc.stderr
        statuses.append(json.loads(path.read_text()))
    assert all(s["ok"] for s in statuses), proc.stdout[-3000:] + proc.stderr[-3000:]
    first, second = (s["digest"] for s in statuses)
    assert len(first) == len(second) == 8 * 2, statuses
    for step in range(8):
        mine, theirs = first[2 * step : 2 * step + 2], second[2 * step : 2 * step + 2]
        assert not set(mine) & set(theirs), (step, first, second)
