"""A loader factory in a sibling module, end to end (program fixture package_script_factory).

The shape of aaron-xichen/pytorch-playground@5d47629 mnist/train.py: the entry lies in a
package folder but imports its siblings by bare name (`import dataset`), so it only runs as
a script; `dataset.get(...)` builds a shuffled training loader and a shuffled test loader
inline (`DataLoader(synthetic(...), ..., **kwargs)`) and returns the list of both, or one
(`ds[0] if len(ds) == 1 else ds`). Before the fix dataset.py was left out of the program
(taken for `python -m mnist.train`, where `import dataset` cannot resolve), and every rank
trained on the whole set in silence.

Fixture factory_conditional_return: `build()` returns one loader or a tuple of two, depending
on a flag; the entry's epoch loop calls set_epoch on what it unpacks (the library exports it).

Fixture reexported_torch_names (xcmyz/FastSpeech@1e1a61b's `from dataset import DataLoader`,
docs/real-world.md stop 28 S1): the loader class, DataParallel and torch.save all come
through the project's own package; the training loader must be sharded (it was left whole,
silently) and the test loader, evaluated in the entry, is sharded with its sum reduced.

Fixture factory_flag_run_eval (class E1, Cyanogenoid/pytorch-vqa@8ff1afa, docs/real-world.md
stop 29, helper m): `data.get_loader(val=True)` builds the validation loader with the
training loader's factory, and one `run(net, loader, opt, train=...)` runs both passes (the
step under `if train:`); the validation answers are saved with the weights, the test
answers after training. The validation and test loaders were sharded as training loaders:
8 of 16 answers saved, silently. Each rank must now answer the whole split, and the saved
answers equal the original's (the training set is one batch per epoch: the weights do not
depend on the sample order the sampler draws).

Fixture loader_role_from_consumers (class v1-F of stop 39, BangLiu/QANet-PyTorch@0ce11ca):
the dev loader is built by the training loader's factory (data.py) and handed to a Trainer
class (trainer.py) that scores it under no_grad() and keeps the best score; a held-out
loader built in the entry is handed to trainer.evaluate(). Each loader's role comes from
the loops that consume it in trainer.py, not from its shuffle flag: before, the shuffled
dev and held-out loaders were sharded (rank 0 printed 62.50 and 87.50 where the original
printed 75.00 and 81.25) and the training loader, in order, was left whole with DP015's
"evaluation" text. The training set is in order and its loss a mean, so the weights and
every printed figure equal the original's.

The originals (input/) run in a plain process, the committed migrations (expected/, which
tests/test_programs.py keeps equal to what `dp2ddp migrate` makes of input/) under torchrun
with two CPU (gloo) processes, all through tests/e2e_driver.py: the ranks split the
training samples between them, each evaluates the whole evaluation set (evaluated in the
entry, built in the library: DP015 leaves it unsharded), rank 1 prints nothing, and rank 0
prints the original's lines (figures aside).
"""

from __future__ import annotations

import re
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

PROGRAMS = Path(__file__).parent / "program_fixtures"
#: fixture -> (entry, {dataset size: samples the original draws}), training then evaluation,
#: and whether each rank evaluates half of the evaluation set (else all of it).
CASES: dict[str, tuple[str, tuple[int, int], tuple[int, int], bool]] = {
    # 2 epochs over the 64 training samples; the 32 test samples evaluated after each.
    "package_script_factory": ("mnist/train.py", (64, 2 * 64), (32, 2 * 32), False),
    # 3 epochs, then 2 of fine-tuning, then 2 over a loader looked up by key: all 64 samples;
    # the 32 validation samples evaluated after each of the first 3 epochs.
    "factory_conditional_return": ("train.py", (64, 7 * 64), (32, 3 * 32), False),
    # 2 epochs over 64 samples, the 32 test samples evaluated after each (sharded, reduced).
    "reexported_torch_names": ("train.py", (64, 2 * 64), (32, 2 * 32), True),
    # 2 epochs over the 32 training samples; the 16 validation samples answered after each
    # and the 16 test samples once (both splits of 16: counted together).
    "factory_flag_run_eval": ("train.py", (32, 2 * 32), (16, 3 * 16), False),
    # 2 epochs over the 32 training samples (in order: sharded all the same); the 16 dev
    # samples scored after each and the 16 held-out samples once, by trainer.py's loops.
    "loader_role_from_consumers": ("train.py", (32, 2 * 32), (16, 3 * 16), False),
}


def _copy(kind: str, root: Path) -> list[Path]:
    """Each fixture's tree under `root`/<fixture> (runs write __pycache__ and checkpoints)."""
    scripts = []
    for name, (entry, _, _, _) in CASES.items():
        tree = root / name
        shutil.copytree(PROGRAMS / name / kind, tree, ignore=shutil.ignore_patterns("__pycache__"))
        scripts.append(tree / entry)
    return scripts


@pytest.fixture(scope="module")
def original(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[Path], Launch]:
    root = tmp_path_factory.mktemp("factory_input")
    scripts = _copy("input", root)
    return scripts, _launch([sys.executable], root / "out", scripts)


@pytest.fixture(scope="module")
def migrated(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[Path], Launch]:
    root = tmp_path_factory.mktemp("factory_expected")
    scripts = _copy("expected", root)
    prefix = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node=2"]
    return scripts, _launch(prefix, root / "out", scripts)


def _drawn(launch: Launch, script: Path, rank: int) -> dict[str, int]:
    status = launch.status(script, rank) or {}
    counts = status.get("indices_by_size")
    if not counts:
        pytest.skip("this torch has no DataLoader iterator hook to count samples with")
    assert isinstance(counts, dict)
    return counts


def test_the_reexported_loader_class_is_sharded() -> None:
    train = (PROGRAMS / "reexported_torch_names" / "expected" / "train.py").read_text()
    assert re.search(r"sampler=DistributedSampler\(train_dataset, shuffle=True\)", train)
    assert "    train_loader.sampler.set_epoch(epoch)\n" in train
    assert "model = DistributedDataParallel(Net()" in train
    assert re.search(r"if ddp_is_main\(\):\n( {12}.*\n)* {12}tools\.save\(", train)


def test_the_committed_migrations_shard_the_factories_training_loaders() -> None:
    dataset = (
        PROGRAMS / "package_script_factory" / "expected" / "mnist" / "dataset.py"
    ).read_text()
    assert re.search(r"sampler=DdpDistributedSampler\(\s*train_dataset, shuffle=True", dataset)
    assert dataset.count("sampler=") == 1  # the test loader stays whole (DP015)
    train = (PROGRAMS / "package_script_factory" / "expected" / "mnist" / "train.py").read_text()
    assert "    train_loader.sampler.set_epoch(epoch)\n" in train


@pytest.mark.e2e
def test_torchrun_exits_cleanly(
    original: tuple[list[Path], Launch], migrated: tuple[list[Path], Launch]
) -> None:
    scripts, ddp = migrated
    _assert_exited_cleanly(ddp, scripts)


@pytest.mark.e2e
@pytest.mark.parametrize("index", range(len(CASES)), ids=list(CASES))
def test_factory_loaders_split_the_training_set_between_the_ranks(
    original: tuple[list[Path], Launch], migrated: tuple[list[Path], Launch], index: int
) -> None:
    _, (train_size, train_drawn), (eval_size, eval_drawn), halved = list(CASES.values())[index]
    (befores, plain), (afters, ddp) = original, migrated
    before, after = befores[index], afters[index]
    _assert_ran(plain, before, 1)
    _assert_ran(ddp, after, 2)
    drawn = _drawn(plain, before, 0)
    assert drawn == {str(train_size): train_drawn, str(eval_size): eval_drawn}, drawn
    ranks = [_drawn(ddp, after, rank) for rank in (0, 1)]
    rank0, rank1 = (r[str(train_size)] for r in ranks)
    assert rank0 == rank1 == train_drawn // 2, (
        f"DataParallel drew {train_drawn} training samples; under torchrun rank 0 drew "
        f"{rank0} and rank 1 {rank1}, not a half each\n{ddp.report(after, 2)}"
    )
    # Evaluated in the entry, built in the library: every rank evaluates the whole set;
    # built and evaluated in the entry: each rank its half.
    per_rank = eval_drawn // 2 if halved else eval_drawn
    assert all(r[str(eval_size)] == per_rank for r in ranks), (drawn, ranks)


@pytest.mark.e2e
@pytest.mark.parametrize("index", range(len(CASES)), ids=list(CASES))
def test_factory_program_prints_on_rank_zero_only(
    original: tuple[list[Path], Launch], migrated: tuple[list[Path], Launch], index: int
) -> None:
    (befores, plain), (afters, ddp) = original, migrated
    before, after = befores[index], afters[index]
    _assert_ran(plain, before, 1)
    _assert_ran(ddp, after, 2)
    report = ddp.report(after, 2)
    assert not ddp.logs(after, 1), f"rank 1 printed; only rank 0 should\n{report}"
    assert ddp.logs(after, 0).splitlines() != [], report
    want = [line.split(" loss")[0] for line in plain.logs(before, 0).splitlines()]
    got = [line.split(" loss")[0] for line in ddp.logs(after, 0).splitlines()]
    assert [w.split(" accuracy")[0] for w in want] == [g.split(" accuracy")[0] for g in got], report


@pytest.mark.e2e
def test_answers_saved_by_one_run_function_equal_the_originals(
    original: tuple[list[Path], Launch], migrated: tuple[list[Path], Launch]
) -> None:
    """factory_flag_run_eval: the answers rank 0 saves cover the whole validation and test
    splits, in the original's order, with the original's values."""
    import torch

    index = list(CASES).index("factory_flag_run_eval")
    (befores, plain), (afters, ddp) = original, migrated
    before, after = befores[index], afters[index]
    _assert_ran(plain, before, 1)
    _assert_ran(ddp, after, 2)
    for name in ("results.pth", "test_answers.pth"):
        want = torch.load(plain._dir(before) / name)
        got = torch.load(ddp._dir(after) / name)
        assert got["idx"].tolist() == want["idx"].tolist() == list(range(16)), (name, got["idx"])
        assert torch.equal(got["answers"], want["answers"]), (name, want, got)


@pytest.mark.e2e
def test_loaders_handed_to_another_modules_loops_keep_the_original_figures(
    original: tuple[list[Path], Launch], migrated: tuple[list[Path], Launch]
) -> None:
    """loader_role_from_consumers: rank 0 prints the original's dev and held-out
    accuracies (each loader evaluated whole by the loops trainer.py runs over it), and the
    training set is split between the ranks (test above)."""
    index = list(CASES).index("loader_role_from_consumers")
    (befores, plain), (afters, ddp) = original, migrated
    before, after = befores[index], afters[index]
    _assert_ran(plain, before, 1)
    _assert_ran(ddp, after, 2)
    want = plain.logs(before, 0).splitlines()
    assert len(want) == 3 and all("accuracy" in line for line in want), want
    assert ddp.logs(after, 0).splitlines() == want, ddp.report(after, 2)
