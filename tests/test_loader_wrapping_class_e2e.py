"""A class of the program that wraps a DataLoader it builds (class v1-A of the stop-43
validation round, P2333/Bag-of-Tricks-for-AT@ebf1e9b), end to end: the migrated script under
torchrun (2 CPU processes, gloo) trains each rank on its own 2 of each step's 4 rows, the
two ranks' rows together the original's batch, and both end with the original's weights
(before: the loader was sharded and each batch split again at the loop's top, 1 row per
rank and step, half the data never trained on, no warning naming it)."""

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

from dp2ddp import migrate_source
from dp2ddp.options import MigrateOptions

pytestmark = pytest.mark.e2e

CASE = Path(__file__).resolve().parent / "e2e_cases" / "loader_wrapping_class.py"
DRIVER = Path(__file__).resolve().parent / "e2e_driver.py"
STEPS = 8


@pytest.fixture(scope="module")
def statuses(tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, Any]]:
    """The script migrated and run under torchrun x2: its status per rank."""
    root = tmp_path_factory.mktemp("wrapping")
    result = migrate_source(
        CASE.read_text(), MigrateOptions(inline_helpers=True), filename=CASE.name
    )
    script = root / CASE.name
    script.write_text(result.code)
    command = [sys.executable, "-m", "torch.distributed.run", "--standalone"]
    command += ["--nproc_per_node=2", str(DRIVER), str(root / "runs"), str(script)]
    env = {k: v for k, v in os.environ.items() if k not in ("RANK", "WORLD_SIZE")}
    proc = subprocess.run(
        command, cwd=root, capture_output=True, text=True, timeout=400,
        env={**env, "OMP_NUM_THREADS": "1"},
    )  # fmt: skip
    found = []
    for rank in (0, 1):
        path = root / "runs" / workdir_of(script) / f"rank{rank}.status.json"
        assert path.exists(), proc.stdout + proc.stderr
        status = json.loads(path.read_text())
        assert status["ok"], proc.stdout[-3000:] + proc.stderr[-3000:]
        found.append(status)
    return found


def test_the_wrapped_loader_is_sharded_once() -> None:
    code = migrate_source(
        CASE.read_text(), MigrateOptions(inline_helpers=True), filename=CASE.name
    ).code
    assert "sampler=DdpDistributedSampler(" in code
    assert "ddp_shard_batch(" not in code


def test_each_rank_trains_its_half_of_each_step(statuses: list[dict[str, Any]]) -> None:
    first, second = (s["digest"] for s in statuses)
    want = runpy.run_path(str(CASE), run_name="__main__")["E2E_DIGEST"]
    assert len(want) == STEPS * 4 + 2 and len(first) == len(second) == STEPS * 2 + 2
    for step in range(STEPS):
        mine, theirs = first[2 * step : 2 * step + 2], second[2 * step : 2 * step + 2]
        assert sorted(mine + theirs) == sorted(want[4 * step : 4 * step + 4]), (step, first)
    assert first[-2:] == second[-2:] == pytest.approx(want[-2:], abs=1e-4), (first, want)
