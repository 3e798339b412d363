"""Stop 46's vision round (helper v1) end to end, in ONE torchrun launch (2 CPU processes,
gloo, through tests/e2e_driver.py); the lead folds it into test_round_classes_e2e's launch.

- model_wrap_parameterless_modules (v1-A, AbnerHqC/GaitSet@5535943's TripletLoss and
  seathiefwang/MGN-pytorch@384e820's `nn.ModuleList()` of losses): DataParallel wraps of
  modules that hold no parameter. Before: `DistributedDataParallel(...)`, whose constructor
  raised on both ranks ("... doesn't have any parameter that requires a gradient"), no
  warning. Now `ddp_wrap_trainable(...)` holds them (no averaging, `.module` kept), and rank 0
  prints the original's weights.
- importlib_percent_name (v1-B, icoz69/CEC-CVPR2021@3a5d335): the trainer module imported by
  `'models.%s.trainer' % args.kind`. Before: DP034, nothing migrated (each rank trained all
  the data). Now the module is migrated and rank 0 prints the original's weights.
- rank_zero_write_function_named_like_method (v1-C, GaitSet's `load_data`): a function that
  writes a file when missing and reads it, and another class's method of the same name called
  in a loop. Before: DP054, no barrier ("load_data() is called in pkg/dataset.py where not
  every rank may arrive", the method's call taken for the function's), rank 1 could read
  before rank 0 wrote. Now the write is rank 0's, a barrier before the read, no warning.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from e2e_driver import workdir_of

pytestmark = pytest.mark.e2e

TESTS = Path(__file__).resolve().parent
#: golden fixture (expected.py) or program fixture (its expected/ and entry) -> rank 0's line
CASES = {
    "model_wrap_parameterless_modules": ("", "weights 0.0400"),
    "importlib_percent_name": ("train.py", "weights 0.0752"),
    "rank_zero_write_function_named_like_method": ("train.py", "weights 51.1804"),
}


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Path], str]:
    out = tmp_path_factory.mktemp("stop46_v1")
    scripts: dict[str, Path] = {}
    for case, (entry, _) in CASES.items():
        folder = out / case
        if entry:
            shutil.copytree(TESTS / "program_fixtures" / case / "expected", folder)
            scripts[case] = folder / entry
        else:
            folder.mkdir()
            scripts[case] = folder / f"{case}.py"
            scripts[case].write_text((TESTS / "fixtures" / case / "expected.py").read_text())
    command = [sys.executable, "-m", "torch.distributed.run", "--standalone"]
    command += ["--nproc_per_node=2", str(TESTS / "e2e_driver.py"), str(out / "runs")]
    command += [str(s) for s in scripts.values()]
    env = {k: v for k, v in os.environ.items() if k not in ("RANK", "WORLD_SIZE", "LOCAL_RANK")}
    proc = subprocess.run(
        command, cwd=out, capture_output=True, text=True, timeout=600,
        env={**env, "OMP_NUM_THREADS": "1"},
    )  # fmt: skip
    return out / "runs", scripts, proc.stdout + proc.stderr


@pytest.mark.parametrize("case", CASES)
def test_stop46_v1_case_runs_to_the_end_with_the_originals_weights(
    runs: tuple[Path, dict[str, Path], str], case: str
) -> None:
    folder, scripts, console = runs
    workdir = folder / workdir_of(scripts[case])
    for rank in (0, 1):
        status = workdir / f"rank{rank}.status.json"
        assert status.exists(), console[-6000:]
        assert json.loads(status.read_text())["ok"], console[-6000:]
    assert CASES[case][1] in (workdir / "rank0.stdout").read_text()
    assert "weights" not in (workdir / "rank1.stdout").read_text()
