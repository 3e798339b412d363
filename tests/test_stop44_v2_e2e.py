"""Stop 44's generative/NLP round (helper v2), end to end: the golden migration of its silent
class runs under torchrun (2 CPU processes, gloo) to the end, and rank 0 prints what the
original (one process, DataParallel) printed.

- batches_noise_sized_by_config (v2-B, SCccc21/Knowledge-Enriched-DMI@1ec92f4): noise and a
  sample grid made by `torch.randn(n, z_dim)` with `z_dim` read from a JSON config: a
  factory's sizes shape what it makes and hold none of it (flow/origins.py). Before, the walk
  went through the sizes into the config's items and took the grid's noise for a batch cut
  from the config: `sample = ddp_shard_batch(sample)`, rank 0 saved 4 of the 8 samples.
- batches_list_cut_by_step_order, batches_list_cut_while_step (found by helper f): a batch cut
  from a list of plain numbers at a position the loop moves (`for step in order:`, `while`
  with `i += n`): every rank trained on the whole batch, no warning (a `range` loop was split).
  Now split where the batch is bound; the summed loss keeps its scale.
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
    "batches_noise_sized_by_config": ("grid 8", "weights 7.6702"),
    # rank 0 prints its own rows: 2 of the original's 4 (not split before: 4 on each rank)
    "batches_list_cut_by_step_order": ("rows 2", "weights -0.3081"),
    "batches_list_cut_while_step": ("rows 2", "weights -0.4640"),
}


@pytest.fixture(scope="module")
def launch(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Path], str]:
    out = tmp_path_factory.mktemp("stop44_v2")
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
