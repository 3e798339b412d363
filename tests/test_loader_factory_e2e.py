"""A loader factory in a sibling module, end to end (program fixture package_script_factory).

The shape of aaron-xichen/pytorch-playground@5d47629 mnist/train.py: the entry lies in a
package folder but imports its siblings by bare name (`import dataset`), so it only runs as
a script; `dataset.get(...)` builds a shuffled training loader and a shuffled test loader
inline (`DataLoader(synthetic(...), ..., **kwargs)`) and returns the list of both, or one
(`ds[0] if len(ds) == 1 else ds`). Before the fix dataset.py was left out of the program
(taken for `python -m mnist.train`, where `import dataset` cannot resolve), and every rank
trained on the whole set in silence.

The original (input/) runs in a plain process, the committed migration (expected/, which
tests/test_programs.py keeps equal to what `dp2ddp migrate mnist/train.py` makes of input/)
under torchrun with two CPU (gloo) processes, both through tests/e2e_driver.py: the ranks
split the 64 training samples between them, each evaluates the whole 32-sample test set
(evaluated in train.py, built in dataset.py: DP015 leaves it unsharded), rank 1 prints
nothing, and rank 0 prints the original's lines.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest
from test_examples import (
    Launch,
    _assert_exited_cleanly,
    _assert_ran,
    _launch,
)

FIXTURE = Path(__file__).parent / "program_fixtures" / "package_script_factory"
TRAIN_SIZE, TEST_SIZE = 64, 32
EPOCHS = 2


def _copy(kind: str, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The fixture tree in a temporary folder (runs write __pycache__ and a checkpoint)."""
    tree = tmp_path_factory.mktemp(kind) / "project"
    shutil.copytree(FIXTURE / kind, tree, ignore=shutil.ignore_patterns("__pycache__"))
    return tree / "mnist" / "train.py"


@pytest.fixture(scope="module")
def original(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Launch]:
    script = _copy("input", tmp_path_factory)
    return script, _launch([sys.executable], script.parents[2] / "out", [script])


@pytest.fixture(scope="module")
def migrated(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Launch]:
    script = _copy("expected", tmp_path_factory)
    prefix = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node=2"]
    return script, _launch(prefix, script.parents[2] / "out", [script])


def _drawn(launch: Launch, script: Path, rank: int) -> dict[str, int]:
    status = launch.status(script, rank) or {}
    counts = status.get("indices_by_size")
    if not counts:
        pytest.skip("this torch has no DataLoader iterator hook to count samples with")
    assert isinstance(counts, dict)
    return counts


def test_the_committed_migration_shards_the_factorys_training_loader() -> None:
    dataset = (FIXTURE / "expected" / "mnist" / "dataset.py").read_text()
    assert "sampler=DdpDistributedSampler(train_dataset, shuffle=True" in dataset
    assert dataset.count("sampler=") == 1  # the test loader stays whole (DP015)


@pytest.mark.e2e
def test_factory_loaders_split_the_training_set_between_the_ranks(
    original: tuple[Path, Launch], migrated: tuple[Path, Launch]
) -> None:
    (before, plain), (after, ddp) = original, migrated
    _assert_ran(plain, before, 1)
    _assert_ran(ddp, after, 2)
    _assert_exited_cleanly(ddp, [after])
    drawn = _drawn(plain, before, 0)
    assert drawn[str(TRAIN_SIZE)] == EPOCHS * TRAIN_SIZE, drawn
    ranks = [_drawn(ddp, after, rank) for rank in (0, 1)]
    rank0, rank1 = (r[str(TRAIN_SIZE)] for r in ranks)
    assert rank0 == rank1 == EPOCHS * TRAIN_SIZE // 2, (
        f"DataParallel drew {drawn[str(TRAIN_SIZE)]} training samples; under torchrun rank 0 "
        f"drew {rank0} and rank 1 {rank1}, not a half each\n{ddp.report(after, 2)}"
    )
    full = drawn[str(TEST_SIZE)]
    assert full == EPOCHS * TEST_SIZE and all(r[str(TEST_SIZE)] == full for r in ranks), (
        drawn,
        ranks,
    )


@pytest.mark.e2e
def test_factory_program_prints_on_rank_zero_only(
    original: tuple[Path, Launch], migrated: tuple[Path, Launch]
) -> None:
    (before, plain), (after, ddp) = original, migrated
    _assert_ran(plain, before, 1)
    _assert_ran(ddp, after, 2)
    report = ddp.report(after, 2)
    assert not ddp.logs(after, 1), f"rank 1 printed; only rank 0 should\n{report}"
    rank0 = ddp.logs(after, 0)
    assert rank0.count("Building the data loaders") == 1, report
    assert rank0.count("accuracy") == EPOCHS, report
