"""Stop 44's refused inputs (helper g), end to end: the golden migrations run under torchrun
(2 CPU processes, gloo) to the end in one launch, and rank 0 prints what the original (one
process, DataParallel) printed.

- detect_indent_tabs_libcst_refuses (stop 43's v2-A, jalola/improved-wgan-pytorch@2a3d3d5):
  lines indented `    \\t    ` under a block of 8 spaces, valid Python that libcst's parser
  refuses, re-indented as Python reads them (DP110). Before: the file was refused (rc 2) with
  the error at 1:1.
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
    "detect_indent_tabs_libcst_refuses": ("loss 0.2624", "step 1", "loss 0.0656", "loss 0.0164"),
}


@pytest.fixture(scope="module")
def launch(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Path], str]:
    out = tmp_path_factory.mktemp("stop44_g")
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
def test_refused_input_class_runs_to_the_end_as_dataparallel_did(
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
    rank1 = (out / "runs" / workdir_of(scripts[case]) / "rank1.stdout").read_text()
    assert "loss" not in rank1, rank1
