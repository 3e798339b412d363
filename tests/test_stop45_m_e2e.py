"""Stop 45's randomness and file leftovers (helper m), end to end: the golden migrations run
under torchrun (2 CPU processes, gloo) in one launch.

- rank_zero_hdf_cache_built_by_every_rank (f90/Wave-U-Net-Pytorch@86c113d's shape): an HDF
  cache a Dataset builds when missing (`h5py.File(path, "w")` around a loop), then reads.
  Migrated, rank 0 alone writes the program's file (the other rank a scratch file), a
  barrier precedes the read, and rank 0 prints the original's weights. Before, both ranks
  created and filled the one file. h5py is a stand-in (tests/e2e_stop45_m/h5py.py) that
  logs each open for writing.
- batches_whole_drawn_apart_mean_loss: a fixed whole batch drawn before the loop from
  numpy's unseeded stream, a mean loss. Migrated, the draw runs in `with
  ddp_same_random():`: every rank trains rank 0's batch, so the weights rank 0 prints are
  those of one process training the batch it prints (before: each rank its own batch, DDP
  averaging two batches' gradients, silently).
"""

from __future__ import annotations

import ast
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from e2e_driver import workdir_of

pytestmark = pytest.mark.e2e

TESTS = Path(__file__).resolve().parent
DRIVER = TESTS / "e2e_driver.py"
HDF = "rank_zero_hdf_cache_built_by_every_rank"
DRAWN = "batches_whole_drawn_apart_mean_loss"
CASES = (HDF, DRAWN)


@pytest.fixture(scope="module")
def launch(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Path], str]:
    out = tmp_path_factory.mktemp("stop45_m")
    scripts = {}
    for case in CASES:
        folder = out / case
        folder.mkdir()
        shutil.copy(TESTS / "fixtures" / case / "expected.py", folder / "train.py")
        scripts[case] = folder / "train.py"
    command = [sys.executable, "-m", "torch.distributed.run", "--standalone"]
    command += ["--nproc_per_node=2", str(DRIVER), str(out / "runs"), *map(str, scripts.values())]
    env = {k: v for k, v in os.environ.items() if k not in ("RANK", "WORLD_SIZE", "LOCAL_RANK")}
    path = os.pathsep.join(filter(None, [str(TESTS / "e2e_stop45_m"), env.get("PYTHONPATH")]))
    proc = subprocess.run(
        command, cwd=out, capture_output=True, text=True, timeout=400,
        env={**env, "OMP_NUM_THREADS": "1", "PYTHONPATH": path,
             "H5PY_STANDIN_LOG": str(out / "h5py.log")},
    )  # fmt: skip
    return out, scripts, proc.stdout + proc.stderr


def _ran(launch: tuple[Path, dict[str, Path], str], case: str) -> str:
    out, scripts, console = launch
    for rank in (0, 1):
        status = out / "runs" / workdir_of(scripts[case]) / f"rank{rank}.status.json"
        assert status.exists(), console[-6000:]
        assert json.loads(status.read_text())["ok"], console[-6000:]
    return (out / "runs" / workdir_of(scripts[case]) / "rank0.stdout").read_text()


def test_hdf_cache_is_written_once_and_read_after_it(
    launch: tuple[Path, dict[str, Path], str],
) -> None:
    stdout = _ran(launch, HDF)
    assert "weights 0.1836" in stdout, stdout  # the original's (one process, DataParallel)
    writes = (launch[0] / "h5py.log").read_text().splitlines()
    assert writes.count("w rows.hdf5") == 1, writes  # rank 0 alone; rank 1 a scratch file
    assert sum(line.startswith("w dp2ddp-rank1-") for line in writes) == 1, writes


def test_whole_batch_drawn_apart_is_drawn_alike(
    launch: tuple[Path, dict[str, Path], str],
) -> None:
    stdout = _ran(launch, DRAWN)
    lines = {line.split(" ", 1)[0]: line.split(" ", 1)[1] for line in stdout.splitlines()}
    batch = torch.tensor(ast.literal_eval(lines["batch"]))
    torch.manual_seed(0)  # one process training rank 0's batch, as DataParallel trained it
    model = torch.nn.Linear(3, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    for _ in range(3):
        loss = model(batch).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    got = ast.literal_eval(lines["weights"])
    want = [p.tolist() for p in model.parameters()]
    assert torch.allclose(torch.tensor(got[0]), torch.tensor(want[0]), atol=1e-6), (got, want)
    assert torch.allclose(torch.tensor(got[1]), torch.tensor(want[1]), atol=1e-6), (got, want)
