"""Stop 44's model leftovers (helper m), end to end: the golden migrations run under torchrun
(2 CPU processes, gloo) to the end in one launch, and rank 0 prints what the original (one
process, DataParallel) printed.

- model_wrap_forwarding_subclass (v3-A, f90/Wave-U-Net-Pytorch@86c113d): the program's own
  DataParallel subclass that only passes its arguments on and forwards attribute reads to
  the wrapped module: migrated, the class rebased on DDP, `model.shapes` still read through
  it (before: DP002, nothing migrated; each rank trained all the data alone).
- forwarding_subclass_in_package (program fixture): the same class in a package module,
  wrapping a model with one sub-network per instrument in a ModuleDict filled in a loop:
  find_unused_parameters=True (DP041), and the checkpoint saved once through the module's
  isinstance check (before: DP002; with the wrap migrated and no DP041, "Expected to have
  finished reduction" at the second instrument's forward).
- toggle_in_function_never_called (stop 43, Uason-Chen/CTR-GCN@e13d758): a `requires_grad =
  False` in a vendored toolkit's method no module of the program names: no DP041, the wrap
  without find_unused_parameters (before: DP041 and a graph walk per step for nothing).
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
DRIVER = TESTS / "e2e_driver.py"
#: name -> (migrated script relative to TESTS, the lines rank 0 prints as the original did)
CASES = {
    "model_wrap_forwarding_subclass": (
        "fixtures/model_wrap_forwarding_subclass/expected.py",
        ("out 2 weights 0.0481",),
    ),
    "forwarding_subclass_in_package": (
        "program_fixtures/forwarding_subclass_in_package/expected/train.py",
        ("weights -0.6447",),
    ),
    "toggle_in_function_never_called": (
        "program_fixtures/toggle_in_function_never_called/expected/train.py",
        ("weights -1.2013",),
    ),
}


@pytest.fixture(scope="module")
def launch(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Path], str]:
    out = tmp_path_factory.mktemp("stop44_m")
    scripts = {}
    for case, (source, _) in CASES.items():
        folder = out / case
        shutil.copytree((TESTS / source).parent, folder)
        scripts[case] = folder / Path(source).name
    command = [sys.executable, "-m", "torch.distributed.run", "--standalone"]
    command += ["--nproc_per_node=2", str(DRIVER), str(out / "runs"), *map(str, scripts.values())]
    env = {k: v for k, v in os.environ.items() if k not in ("RANK", "WORLD_SIZE", "LOCAL_RANK")}
    proc = subprocess.run(
        command, cwd=out, capture_output=True, text=True, timeout=400,
        env={**env, "OMP_NUM_THREADS": "1"},
    )  # fmt: skip
    return out, scripts, proc.stdout + proc.stderr


@pytest.mark.parametrize("case", CASES)
def test_model_leftover_runs_to_the_end_as_dataparallel_did(
    launch: tuple[Path, dict[str, Path], str], case: str
) -> None:
    out, scripts, console = launch
    for rank in (0, 1):
        status = out / "runs" / workdir_of(scripts[case]) / f"rank{rank}.status.json"
        assert status.exists(), console[-6000:]
        assert json.loads(status.read_text())["ok"], console[-6000:]
    stdout = (out / "runs" / workdir_of(scripts[case]) / "rank0.stdout").read_text()
    for line in CASES[case][1]:
        assert line in stdout, stdout
