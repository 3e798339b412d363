"""Stop 46's generative round (helper v2) end to end, in ONE torchrun launch (2 CPU processes,
gloo).

- model_wrap_loss_reads_outside_forward (v2-B, rtqichen/ffjord@994864a): a parameter forward
  copies (no gradient there) and the loss reads outside forward through a function handed the
  model, in a model whose runtime-indexed chain gets find_unused_parameters=True (DP041). The
  migration says it (DP048); what DP048 says is checked here: the golden migration raises
  "Expected to mark a variable ready only once" at the first backward on every rank (before:
  the same crash, under DP041 alone), and the remedy DP048 names for a model that uses the
  same parameters every step (static_graph=True for find_unused_parameters=True) trains to
  the end. Both run in one process per rank, one after the other (runner below)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e

TESTS = Path(__file__).resolve().parent
CASE = "model_wrap_loss_reads_outside_forward"

#: Runs each script as __main__ and prints, per rank, whether it raised DDP's double mark.
RUNNER = """
import os, runpy, sys
rank = os.environ.get("RANK")
for script in sys.argv[1:]:
    name = os.path.basename(script)
    try:
        runpy.run_path(script, run_name="__main__")
    except RuntimeError as error:
        twice = "ready only once" in str(error)
        print(f"rank {rank} {name}: raised, marked twice: {twice}", flush=True)
    else:
        print(f"rank {rank} {name}: ran to the end", flush=True)
"""


@pytest.fixture(scope="module")
def launched(tmp_path_factory: pytest.TempPathFactory) -> str:
    out = tmp_path_factory.mktemp("stop46_v2")
    migrated = (TESTS / "fixtures" / CASE / "expected.py").read_text()
    remedy = migrated.replace("find_unused_parameters=True", "static_graph=True")
    assert remedy != migrated
    (out / "as_migrated.py").write_text(migrated)
    (out / "static_graph.py").write_text(remedy)
    (out / "runner.py").write_text(RUNNER)
    command = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node=2"]
    command += [str(out / "runner.py"), str(out / "as_migrated.py"), str(out / "static_graph.py")]
    env = {k: v for k, v in os.environ.items() if k not in ("RANK", "WORLD_SIZE", "LOCAL_RANK")}
    proc = subprocess.run(
        command, cwd=out, capture_output=True, text=True, timeout=300,
        env={**env, "OMP_NUM_THREADS": "1"},
    )  # fmt: skip
    return proc.stdout + proc.stderr


def test_dp048_says_what_the_migration_does_and_its_remedy_trains(launched: str) -> None:
    for rank in (0, 1):
        assert f"rank {rank} as_migrated.py: raised, marked twice: True" in launched, launched
        assert f"rank {rank} static_graph.py: ran to the end" in launched, launched
