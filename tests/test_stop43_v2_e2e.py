"""Stop 43's generative/NLP round (helper v2) and the lead's classes after it, end to end:
the golden migrations of its classes run under torchrun (2 CPU processes, gloo) to the end
in one launch, and rank 0 prints what the original (one process, DataParallel) printed.

- hazards_unused_mode_calls (v2-E, Kyubyong/bert_ner@dd0e190): an encoder run with gradients
  only when fine-tuned, its mode set by `self.encoder.train()` / `.eval()` on each branch:
  find_unused_parameters=True (before: no DP041, "Expected to have finished reduction" at
  step 2 on both ranks).
- batches_list_of_samples (v2-B, Morizeyao/GPT2-Chinese@bbb4465): a batch sliced from a list
  of token-id lists, made a tensor later: each rank its rows (before: the whole list on every
  rank).
- batches_list_pair_of_samples (stop 43, lead): two lists sliced in one binding,
  `xs, ys = X[a:b], Y[a:b]`: each cut by its own rows (before: the pair's tuple form passed
  both lists whole to every rank).
- batches_fixed_whole_summed_loss (stop 43, lead): one fixed batch drawn before the loop, a
  summed loss: left unscaled, DP004 (before: `(loss * WORLD_SIZE).backward()`, WORLD_SIZE
  times DataParallel's gradient on every rank, no warning); since stop 44 without DP004.

Stop 44 (helper f) joins the per-backward decision of a summed loss's scale
(batches/summed.py):
- batches_summed_loss_fixed_and_split: split batches and a fixed debug batch in one module:
  the split ones keep `(loss * WORLD_SIZE)`, the fixed one is unscaled (before: both
  unscaled, the split batches' gradient halved);
- batches_summed_loss_split_only: the scale kept;
- batches_summed_loss_whole_recomputed: a whole batch recomputed in the loop (`x = base *
  2`): unscaled (before: scaled, WORLD_SIZE times DataParallel's gradient, no warning).
- program set_epoch_handed_loader (DP011 across modules): a shuffled loader handed to another
  module's one-pass function in this module's epoch loop gets set_epoch there; one handed to
  a function with its own epoch loop keeps a sampler advancing on each pass. Each pass of
  each loader: the ranks' parts disjoint, together the dataset, a new order each epoch.
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

FIXTURES = Path(__file__).resolve().parent / "fixtures"
PROGRAM_FIXTURES = Path(__file__).resolve().parent / "program_fixtures"
#: program fixtures (their golden migration, expected/) run in the same launch: case -> entry
PROGRAMS = {"set_epoch_handed_loader": "main.py"}
DRIVER = Path(__file__).resolve().parent / "e2e_driver.py"
#: golden fixture -> the lines rank 0 prints, as the original printed them
CASES = {
    "hazards_unused_mode_calls": ("weights 4.2358",),
    "batches_list_of_samples": ("weights 419.157",),
    "batches_list_pair_of_samples": ("weights 1.2714",),
    "batches_fixed_whole_summed_loss": ("weights 0.5918",),
    "batches_summed_loss_fixed_and_split": ("weights 1.0256",),
    "batches_summed_loss_split_only": ("weights 0.9063",),
    "batches_summed_loss_whole_recomputed": ("weights 51.8052",),
}


@pytest.fixture(scope="module")
def launch(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Path], str]:
    out = tmp_path_factory.mktemp("stop43_v2")
    scripts = {}
    for case in CASES:
        script = out / f"{case}.py"
        script.write_text((FIXTURES / case / "expected.py").read_text())
        scripts[case] = script
    for case, entry in PROGRAMS.items():
        shutil.copytree(PROGRAM_FIXTURES / case / "expected", out / case)
        scripts[case] = out / case / entry
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


def test_set_epoch_each_pass_of_a_handed_loader(
    launch: tuple[Path, dict[str, Path], str],
) -> None:
    """set_epoch_handed_loader: per pass (loader_a's two epochs, then loader_b's two), the
    ranks' ids are disjoint and together the 16 samples, and each epoch is a new order
    (before the fix of the set_epoch place, a sampler advancing by itself; without either,
    the same order every epoch)."""
    out, scripts, console = launch
    runs = out / "runs" / workdir_of(scripts["set_epoch_handed_loader"])
    seen = []
    for rank in (0, 1):
        status = json.loads((runs / f"rank{rank}.status.json").read_text())
        assert status["ok"], console[-6000:]
        seen.append(status["digest"])
    for rank in (0, 1):
        assert len(seen[rank]) == 4 * 8, seen
    passes = [[ids[8 * p : 8 * (p + 1)] for p in range(4)] for ids in seen]
    for p in range(4):
        assert not set(passes[0][p]) & set(passes[1][p]), passes
        assert set(passes[0][p]) | set(passes[1][p]) == set(range(16)), passes
    for first, second in ((0, 1), (2, 3)):
        assert passes[0][first] + passes[1][first] != passes[0][second] + passes[1][second]
