"""Stop 46's still-silent leftovers (helper f) end to end, in ONE torchrun launch: each
migrated fixture runs under torchrun (2 CPU processes, gloo) through tests/e2e_driver.py.

- data_eval_step_buffer: an evaluation pass keeping each batch's summed loss in a buffer
  filled by the step counter (`batch_loss[i] = ...`), divided by a sample count the loop
  sums. Before: the validation loader sharded, the count summed over the ranks and the
  buffer not: rank 0 printed its half's loss over all samples, no warning. Now the
  loader stays whole (DP015): rank 0 prints the original's figure.
- importlib_prefix_every_member (program): `importlib.import_module("nets." + opt.arch)`
  with no static end; nets/logged.py wraps nothing and builds no loader, but prints and
  appends to history.txt. Before: not read into the program, both ranks printed and
  appended (4 lines for the original's 2). Now rank 0 alone.

The lead folds this launch into a shared one after merging.
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
#: case -> (its migrated script, relative to the launch's folder; a program fixture's entry)
SCRIPTS = {
    "data_eval_step_buffer": "data_eval_step_buffer/data_eval_step_buffer.py",
    "importlib_prefix_every_member": "importlib_prefix_every_member/expected/train.py",
}
#: the lines the original (one process, DataParallel) printed
ORIGINAL = {"data_eval_step_buffer": ("epoch 0 val 1.062166", "epoch 1 val 1.108099")}


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    out = tmp_path_factory.mktemp("stop46_f")
    (out / "data_eval_step_buffer").mkdir()
    shutil.copy(
        TESTS / "fixtures" / "data_eval_step_buffer" / "expected.py",
        out / SCRIPTS["data_eval_step_buffer"],
    )
    shutil.copytree(
        TESTS / "program_fixtures" / "importlib_prefix_every_member" / "expected",
        out / "importlib_prefix_every_member" / "expected",
    )
    command = [sys.executable, "-m", "torch.distributed.run", "--standalone"]
    command += ["--nproc_per_node=2", str(TESTS / "e2e_driver.py"), str(out / "runs")]
    command += [str(out / s) for s in SCRIPTS.values()]
    env = {k: v for k, v in os.environ.items() if k not in ("RANK", "WORLD_SIZE", "LOCAL_RANK")}
    proc = subprocess.run(
        command, cwd=out, capture_output=True, text=True, timeout=600,
        env={**env, "OMP_NUM_THREADS": "1"},
    )  # fmt: skip
    return out / "runs", proc.stdout + proc.stderr


def _workdir(runs: tuple[Path, str], case: str) -> Path:
    return runs[0] / workdir_of(runs[0].parent / SCRIPTS[case])


def _status(runs: tuple[Path, str], case: str, rank: int) -> dict[str, Any]:
    path = _workdir(runs, case) / f"rank{rank}.status.json"
    assert path.exists(), runs[1][-6000:]
    status: dict[str, Any] = json.loads(path.read_text())
    assert status["ok"], runs[1][-6000:]
    return status


def test_a_step_buffer_keeps_the_evaluation_whole(runs: tuple[Path, str]) -> None:
    for rank in (0, 1):
        _status(runs, "data_eval_step_buffer", rank)
    stdout = (_workdir(runs, "data_eval_step_buffer") / "rank0.stdout").read_text()
    for line in ORIGINAL["data_eval_step_buffer"]:
        assert line in stdout, stdout


def test_a_module_imported_by_a_computed_name_is_migrated(runs: tuple[Path, str]) -> None:
    case = "importlib_prefix_every_member"
    for rank in (0, 1):
        _status(runs, case, rank)
    workdir = _workdir(runs, case)
    assert "building logged" in (workdir / "rank0.stdout").read_text()
    assert "building" not in (workdir / "rank1.stdout").read_text()
    assert (workdir / "history.txt").read_text().splitlines() == ["epoch 0", "epoch 1"]
