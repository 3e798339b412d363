"""Noise drawn in a loop over a loader a function is handed (class v1-A of the stop-40
validation round, locuslab/smoothing@78a4d94), end to end: the migrated script under torchrun
(2 CPU processes, gloo) draws the original's noise for the global batch, each rank its rows;
`dp2ddp verify --nproc 2` finds it EQUIVALENT."""

from __future__ import annotations

import json
import runpy
import subprocess
import sys
from pathlib import Path

import pytest
from e2e_driver import workdir_of

from dp2ddp import migrate_source
from dp2ddp.options import MigrateOptions
from dp2ddp.verify.config import VerifyConfig
from dp2ddp.verify.session import verify

pytestmark = pytest.mark.e2e

CASE = Path(__file__).resolve().parent / "e2e_cases" / "noise_handed_loader.py"
DRIVER = Path(__file__).resolve().parent / "e2e_driver.py"


def test_noise_in_a_handed_loaders_loop_is_each_ranks_rows_of_one_draw(tmp_path: Path) -> None:
    result = migrate_source(
        CASE.read_text(), MigrateOptions(inline_helpers=True), filename=CASE.name
    )
    assert "lambda: torch.randn_like(ddp_global_like(inputs))" in result.code
    assert "DP006" not in {d.code for d in result.diagnostics}
    script = tmp_path / CASE.name
    script.write_text(result.code)
    command = [sys.executable, "-m", "torch.distributed.run", "--standalone"]
    command += ["--nproc_per_node=2", str(DRIVER), str(tmp_path / "runs"), str(script)]
    env = {k: v for k, v in __import__("os").environ.items() if k not in ("RANK", "WORLD_SIZE")}
    proc = subprocess.run(
        command,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=400,
        env={**env, "OMP_NUM_THREADS": "1"},
    )
    statuses = []
    for rank in (0, 1):
        path = tmp_path / "runs" / workdir_of(script) / f"rank{rank}.status.json"
        assert path.exists(), proc.stdout + proc.stderr
        statuses.append(json.loads(path.read_text()))
    assert all(s["ok"] for s in statuses), proc.stdout[-3000:] + proc.stderr[-3000:]
    first, second = (s["digest"] for s in statuses)
    assert first and len(first) == len(second) and first != second, statuses
    want = runpy.run_path(str(CASE), run_name="__main__")["E2E_DIGEST"]
    assert [*first, *second] == pytest.approx(want, abs=1e-5), (first, second, want)


def test_noise_in_a_handed_loaders_loop_passes_verify(tmp_path: Path) -> None:
    temp_root = tmp_path / "verify"
    temp_root.mkdir()
    report = verify(VerifyConfig(CASE, None, cwd=tmp_path, temp_root=temp_root, timeout=300.0))
    assert report.exit_code == 0, report
    assert report.sharding_status == "ok", report
