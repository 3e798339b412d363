"""Stop 45 (helper f), end to end: the golden migrations whose running program changed, run
under torchrun (2 CPU processes, gloo) in one launch.

- data_split_comprehension (v3-D of stop 44, ehoogeboom/e3_diffusion_for_molecules'
  retrieve_dataloaders): one DataLoader call in a dict comprehension builds the loaders of
  "train", "valid" and "test". Before, every split was sharded as training data, and test()'s
  `nll_epoch / n_samples` was each rank's half of the validation set (rank 0's printed, the
  best epoch picked by it). Now only "train" is sharded: on both ranks each epoch's
  validation figure is the one over the whole split, computed directly in the fixture.
- data_split_loop_literal_keys: the same, the call in a loop over the split names
  (`dataloaders[split] = DataLoader(...)`; before: DP084, every split sharded).
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
CASES = ("data_split_comprehension", "data_split_loop_literal_keys")


@pytest.fixture(scope="module")
def launch(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Path], str]:
    out = tmp_path_factory.mktemp("stop45_f")
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
def test_evaluated_splits_of_one_call_stay_whole(
    launch: tuple[Path, dict[str, Path], str], case: str
) -> None:
    """Each epoch's validation figure is the whole split's on both ranks (sharded, each
    rank's would be its half's, different on the two ranks)."""
    out, scripts, console = launch
    runs = out / "runs" / workdir_of(scripts[case])
    digests = []
    for rank in (0, 1):
        status = json.loads((runs / f"rank{rank}.status.json").read_text())
        assert status["ok"], console[-6000:]
        digests.append(status["digest"])
    assert len(digests[0]) == 2, digests
    for val, whole in digests[0]:
        assert val == pytest.approx(whole, abs=1e-4), digests
    assert digests[0] == digests[1], digests
    stdout = (runs / "rank0.stdout").read_text()
    assert "best epoch 1" in stdout, stdout
