"""Stop 45's round of audio/video/point clouds (helper v3), end to end: the golden migration
of its silent class runs under torchrun (2 CPU processes, gloo) to the end, as the original
(one process, DataParallel) did.

- rank_zero_own_mkdir_method (v3-B, hansen7/OcCo@4a236a6): a logger class whose own method
  `mkdir(self)` (no exist_ok parameter) its `__init__` calls as `self.mkdir()`. Before, the
  call was taken for pathlib's and given `exist_ok=True`: both ranks raised TypeError before
  training. Now the program's own method is left as it is (mkdir.py); the pathlib and
  os.makedirs calls inside it are made idempotent, so both ranks run it.
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
    "rank_zero_own_mkdir_method": ("saved True",),
}


@pytest.fixture(scope="module")
def launch(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Path], str]:
    out = tmp_path_factory.mktemp("stop45_v3")
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
