"""A batch source of the program's own named like torch's loader, end to end (class v2-A of
stop 40; program fixture own_batch_class_named_loader).

lemonhu/NER-BERT-pytorch@5f7577b: `data_loader.DataLoader` is the program's class, whose
`data_iterator()` generator cuts an index list into batches; `train()` takes them with
`next(data_iterator)`, given the model and the iterator through `train_and_evaluate()`.
Read by its name as a loader the data pass shards, the batches were neither split nor
said: every rank trained the whole global batch. The class's code names no loader
(ProgramLoaders.batch_classes), so the batches proof splits them where they enter the loop.

The original (input/) runs in a plain process, the committed migration (expected/, which
tests/test_programs.py keeps equal to what `dp2ddp migrate` makes of input/) under torchrun
with two CPU (gloo) processes, both through tests/e2e_driver.py: rank 0's model sees half
the rows the original's saw, and the final weights are the original's.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest
from test_examples import Launch, _assert_exited_cleanly, _assert_ran, _launch

CASE = Path(__file__).parent / "program_fixtures" / "own_batch_class_named_loader"


def _run(kind: str, root: Path, prefix: list[str]) -> tuple[Path, Launch]:
    tree = root / kind
    shutil.copytree(CASE / kind, tree, ignore=shutil.ignore_patterns("__pycache__"))
    script = tree / "train.py"
    return script, _launch(prefix, root / "out", [script])


@pytest.fixture(scope="module")
def original(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Launch]:
    return _run("input", tmp_path_factory.mktemp("own_batches_input"), [sys.executable])


@pytest.fixture(scope="module")
def migrated(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Launch]:
    prefix = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node=2"]
    return _run("expected", tmp_path_factory.mktemp("own_batches_expected"), prefix)


def _line(launch: Launch, script: Path, start: str) -> str:
    found = [line for line in launch.logs(script, 0).splitlines() if line.startswith(start)]
    assert len(found) == 1, launch.report(script, 2)
    return found[0]


@pytest.mark.e2e
def test_each_rank_trains_its_half_of_the_own_batches(
    original: tuple[Path, Launch], migrated: tuple[Path, Launch]
) -> None:
    (before, plain), (after, ddp) = original, migrated
    _assert_ran(plain, before, 1)
    _assert_exited_cleanly(ddp, [after])
    _assert_ran(ddp, after, 2)
    assert _line(plain, before, "rows seen") == "rows seen 32"
    assert _line(ddp, after, "rows seen") == "rows seen 16", ddp.report(after, 2)
    assert _line(ddp, after, "final weight") == _line(plain, before, "final weight")
    assert not ddp.logs(after, 1), ddp.report(after, 2)
