"""Batches a generator function draws (classes v1-B and v1-C of the stop-41 validation
round, MrGiovanni/ModelsGenesis@12f7feb), end to end: the migrated scripts under torchrun (2
CPU processes, gloo, one launch) draw each step's batch alike on every rank (`with
ddp_same_random():` around `next(gen)`): each rank trains on its own 2 of the 4 rows (on a
draw of its own, the ranks' rows of a step overlapped), and every rank evaluates the same
validation batches, so the ranks stop early at the same epoch (they left the loop apart)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from e2e_driver import workdir_of

from dp2ddp import migrate_source
from dp2ddp.options import MigrateOptions

pytestmark = pytest.mark.e2e

CASES = Path(__file__).resolve().parent / "e2e_cases"
CASE = CASES / "generator_batches.py"
EARLY_STOP = CASES / "generator_early_stop.py"
DRIVER = Path(__file__).resolve().parent / "e2e_driver.py"


@pytest.fixture(scope="module")
def statuses(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[dict[str, Any]]]:
    """Both scripts migrated and run in one torchrun launch: each one's status per rank."""
    root = tmp_path_factory.mktemp("drawn")
    scripts = []
    for case in (CASE, EARLY_STOP):
        result = migrate_source(
            case.read_text(), MigrateOptions(inline_helpers=True), filename=case.name
        )
        script = root / case.name
        script.write_text(result.code)
        scripts.append(script)
    command = [sys.executable, "-m", "torch.distributed.run", "--standalone"]
    command += ["--nproc_per_node=2", str(DRIVER), str(root / "runs"), *map(str, scripts)]
    env = {k: v for k, v in os.environ.items() if k not in ("RANK", "WORLD_SIZE")}
    proc = subprocess.run(
        command, cwd=root, capture_output=True, text=True, timeout=400,
        env={**env, "OMP_NUM_THREADS": "1"},
    )  # fmt: skip
    found: dict[str, list[dict[str, Any]]] = {}
    for script in scripts:
        found[script.name] = []
        for rank in (0, 1):
            path = root / "runs" / workdir_of(script) / f"rank{rank}.status.json"
            assert path.exists(), proc.stdout + proc.stderr
            status = json.loads(path.read_text())
            assert status["ok"], proc.stdout[-3000:] + proc.stderr[-3000:]
            found[script.name].append(status)
    return found


def test_each_step_is_one_draw_cut_between_the_ranks(
    statuses: dict[str, list[dict[str, Any]]],
) -> None:
    result = migrate_source(
        CASE.read_text(), MigrateOptions(inline_helpers=True), filename=CASE.name
    )
    assert "with ddp_same_random():\n            x, y = next(training_generator)" in result.code
    first, second = (s["digest"] for s in statuses[CASE.name])
    assert len(first) == len(second) == 8 * 2, statuses
    for step in range(8):
        mine, theirs = first[2 * step : 2 * step + 2], second[2 * step : 2 * step + 2]
        assert not set(mine) & set(theirs), (step, first, second)


def test_early_stop_on_drawn_validation_batches_agrees(
    statuses: dict[str, list[dict[str, Any]]],
) -> None:
    """Every rank evaluated rank 0's validation draws: the same losses, the same epoch to
    stop at (both ranks finished: no rank waited for one that had left)."""
    result = migrate_source(
        EARLY_STOP.read_text(), MigrateOptions(inline_helpers=True), filename=EARLY_STOP.name
    )
    assert "with ddp_same_random():\n                x, y = next(validation_generator)" in (
        result.code
    )
    first, second = (s["digest"] for s in statuses[EARLY_STOP.name])
    assert first == second, (first, second)
