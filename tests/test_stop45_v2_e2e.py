"""Stop 45's validation round, generative models and NLP (helper v2), end to end: the golden
migration runs under torchrun (2 CPU processes, gloo) to the end in one launch.

- rank_zero_open_mode_held (v2-B, yulunzhang/RCAN@f722e5d utility.py): a log file and a
  config file opened with a mode held in a name (`open_type = "a" if os.path.exists(p) else
  "w"`). Before: the open was neither read nor rewritten and both ranks appended their lines
  (RCAN's log.txt 16 lines for 8, config.txt with two headers). Now: each file holds the
  original's lines once (rank 0 writes it, rank 1 a scratch file of its own).
- model_wrap_guard_gpu_list_nonempty (v2-C, junyanz/BicycleGAN@40b9d52 init_net): the wrap
  under `if len(gpu_ids) > 0:` in the CPU mode (`--gpu_ids -1`). Before: the guard was taken
  for a GPU-count guard and removed with its body's `assert torch.cuda.is_available()`, and
  both ranks died on the assertion. Now: a device guard, the wrap moved out of it, the
  CUDA-only lines under it: both ranks train to the end.
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
#: golden fixture -> {file it writes: the lines the original (one process) wrote there}
CASES = {
    "rank_zero_open_mode_held": {"log.txt": 2, "config.txt": 2, "history.txt": 2},
    "model_wrap_guard_gpu_list_nonempty": {},
}


@pytest.fixture(scope="module")
def launch(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Path], str]:
    out = tmp_path_factory.mktemp("stop45_v2")
    scripts = {}
    for case in CASES:
        folder = out / case
        folder.mkdir()
        script = folder / "train.py"
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
def test_stop45_v2_case_runs_to_the_end_and_writes_once(
    launch: tuple[Path, dict[str, Path], str], case: str
) -> None:
    out, scripts, console = launch
    workdir = out / "runs" / workdir_of(scripts[case])
    for rank in (0, 1):
        status = workdir / f"rank{rank}.status.json"
        assert status.exists(), console[-6000:]
        assert json.loads(status.read_text())["ok"], console[-6000:]
    for name, lines in CASES[case].items():
        written = (workdir / name).read_text().splitlines()
        assert len(written) == lines, (name, written)


def test_cpu_mode_under_a_nonempty_gpu_list_guard_trains(
    launch: tuple[Path, dict[str, Path], str],
) -> None:
    out, scripts, _ = launch
    workdir = out / "runs" / workdir_of(scripts["model_wrap_guard_gpu_list_nonempty"])
    rank0 = (workdir / "rank0.stdout").read_text()
    assert rank0.count("loss ") == 4, rank0  # 4 steps of this rank's 2 samples each
    assert "loss" not in (workdir / "rank1.stdout").read_text()
