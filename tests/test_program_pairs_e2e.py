"""Program fixtures end to end, each original against its committed migration: the
originals (input/) in ONE plain process, the committed migrations (expected/, which
tests/test_programs.py keeps equal to what `dp2ddp migrate` makes of input/) in ONE torchrun
launch of two CPU (gloo) processes, all through tests/e2e_driver.py, each program from a copy
of its folder. Stop 45 folded four files of one plain run and one launch each into this one
(each start costs imports of torch: docs/testing.md, "Suite time"):
test_factory_figures_e2e, test_loader_factory_e2e, test_own_batches_e2e and
test_output_paths_e2e; every check they made is here, in four parts below.

A new program of this kind joins ENTRIES (through its part's table), not a launch of its own.

## The factory figures (was test_factory_figures_e2e.py)

Classes v3-A, v3-B, v3-H (helper v3), v2-E and v2-C (helper v2) of the stop-41 validation
round and v3-B of stop 42's (docs/real-world.md), end to end: the originals (program
fixtures' input/) in a plain process, the committed migrations (expected/, which
tests/test_programs.py keeps equal to what `dp2ddp migrate` makes of input/) under torchrun
with two CPU (gloo) processes, through tests/e2e_driver.py.

figures_handed_loader_other_module (v3-A, hengyuan-hu/bottom-up-attention-vqa@3925206): the
entry hands its sharded loader to train() of train.py, whose epoch figures are sums over the
batches divided by the dataset's size, written by the program's own Logger. Before: rank 0
wrote its own half (train_loss 0.4006 for the original's 0.7691), no DP030. Now the sums are
reduced over the ranks in train.py, and rank 0 writes the original's lines.

factory_loader_per_branch (v3-B, thuml/Time-Series-Library@4e938a1's data_provider): one
DataLoader per branch of the factory, called through an experiment method for train, val and
test (the validation set two equal batches: its mean of batch means does not depend on its
shuffled order). Before: all three sharded as training data (the factory was not exported),
rank 0 printed the validation mean of its half and "test shape: (6, 1)" of 12, no warning.
Now the val and test calls pass ddp_shard=False (DP015) and every rank evaluates the whole
split; the training set is one global batch per epoch, so the weights, and every printed
figure, are the original's.

factory_sampler_eval_splits (v2-E, songyingxin/Bert-TextClassification@284b632's
convert_features_to_tensors): one factory of another module for train, dev and test, its
DataLoader with a sampler of its own (`sampler=RandomSampler(...)`, sharded by
DdpSamplerShard), the split choosing only `drop_last`. Before: every loader sharded, rank 0
printed dev and test counts of its half (3 of 6, 5 of 10), no warning. Now the factory is
exported as any training loader's, the dev and test calls pass ddp_shard=False (DP015), and
every rank counts all of dev and test.

factory_fixed_sample_batch (v2-C, akanimax/pro_gan_pytorch@6206613's sample grid): a fixed
batch taken once with `next(iter(make_loader(dataset, 8)))` from another module's factory.
Before: the factory's sharded loader gave rank 0 half the batch (the grid 4 rows of 8), no
warning. Now that call passes ddp_shard=False and the grid holds the original's 8 rows.

factory_tuple_eval_other_module (v3-H, fartashf/vsepp@abe382f's get_loaders): a function
returning two loaders of one factory (`train_loader, val_loader = loaders.pair(8)`), the
validation loader handed on to a third module that fills an array of the dataset's size at
each batch's indices. Before: both sharded, half the rows left zero on each rank, rank 0's
score another. Now the factory's call for that item passes ddp_shard=False (DP015) and no
row is left zero.

chunk_size_divided_figure (v3-B of stop 42, MILVLG/mcan-vqa@6b165e9's gradient accumulation):
each batch of a sharded loader cut into sub-batches of `sub = bs // accu`, the printed
per-sample loss `loss.item() / sub` of a summed loss. Before: the slices took this rank's
part of `sub`, the divisor did not, and rank 0 printed half the original's figure, no
warning. Now the divisor is `ddp_per_rank_batch(sub)` too (every sample alike: the
original's lines), the weights the original's.

Stop 43 (helper f), the loader leftovers of stop 42's round:

batch_mark_loader_class (v2-B, ruotianluo/ImageCaptioning.pytorch@4c48a33's epoch mark): the
training loop counts its epochs and leaves on the wrap mark the sampler puts in the batch's
items, the batch taken through another module's loader class. Before: only the rank whose
part held the marked item counted the epoch; rank 0 left after 5 steps, rank 1 died in the
next all-reduce ("Connection closed by peer"). Now the mark is read over the ranks
(`ddp_any_rank`): both ranks take the original's 5 steps.

loader_class_keyed_splits (found with v2-E of stop 42): a loader class keeping its loaders in
dicts keyed by split name. Before: `batches.get_batch("train")` was not followed to its
(sharded) loader and the batch was split again at the model call, each rank training on a
quarter of the global batch. Now no second split; the validation loader stays whole (DP015).

## The loader factories (was test_loader_factory_e2e.py)

A loader factory in a sibling module, end to end (program fixture package_script_factory).

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

## The own batch source (was test_own_batches_e2e.py)

A batch source of the program's own named like torch's loader, end to end (class v2-A of
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

## The output paths (was test_output_paths_e2e.py)

Output paths of a program's own modules, end to end (issue 28 item 4): what the migrated
program prints under torchrun (2 CPU processes, gloo) against what the DataParallel original
prints in one plain process. One plain launch and one torchrun launch run both programs.

- tests/program_fixtures/star_reexported_helper_print (yandex-research/
  rtdl-revisiting-models@e3ed46c's `print(f'[{part}]', lib.make_summary(metrics))`, `lib`
  re-exporting util by `from .util import *`): the pure helper's print is guarded, so rank 0
  prints the original's metric lines once and rank 1 none (before, each line twice). The
  prints calling a helper that steps a scheduler or that the package redefines impurely
  stay on every rank (the work they do is needed there): printed by both ranks, as said.
- tests/program_fixtures/figures_through_helper_module_attribute (wouterkool/
  attention-learn-to-route@c9abf41's `utils/log_utils.log_values`): the running figures
  handed to printing helpers called through their module are DP030 (stated in the golden's
  warnings, checked here too) and printed by rank 0 alone; the per-batch figure printed by
  the helper is rank 0's share of the batch (4 rows of the original's 8), exactly as
  `print(loss.item())` of the batch is: guarded, not warned.
- tests/program_fixtures/figures_through_imported_progbar (knazeri/edge-connect@3142579's
  Progbar of another module, `progbar.add(n, values=logs)` keeping running means): DP030 at
  the call (before stop 32: none); rank 0 alone prints, its share (8 of the 16 samples).
"""

from __future__ import annotations

import math
import re
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from test_examples import Launch, _assert_exited_cleanly, _assert_ran, _launch

PROGRAMS = Path(__file__).resolve().parent / "program_fixtures"

# -- the factory figures' programs (stop 41, 42, 43) -------------------------------------------
#: fixture -> entry
FIGURE_CASES = {
    "figures_handed_loader_other_module": "main.py",
    "factory_loader_per_branch": "run.py",
    "factory_sampler_eval_splits": "train.py",
    "factory_fixed_sample_batch": "train.py",
    "factory_tuple_eval_other_module": "train.py",
    "chunk_size_divided_figure": "train.py",
    "batch_mark_loader_class": "train.py",
    "loader_class_keyed_splits": "train.py",
}

# -- the loader factories' programs ------------------------------------------------------------
#: fixture -> (entry, {dataset size: samples the original draws}), training then evaluation,
#: and whether each rank evaluates half of the evaluation set (else all of it).
FACTORY_CASES: dict[str, tuple[str, tuple[int, int], tuple[int, int], bool]] = {
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

# -- the output paths' programs ----------------------------------------------------------------
SUMMARY = PROGRAMS / "star_reexported_helper_print"
LOGGER = PROGRAMS / "figures_through_helper_module_attribute"
PROGBAR = PROGRAMS / "figures_through_imported_progbar"
#: name -> the program's fixture and entry
OUTPUT_CASES = {
    "summary": (SUMMARY, "main.py"),
    "logger": (LOGGER, "train.py"),
    "progbar": (PROGBAR, "fit.py"),
}
METRIC_LINE = re.compile(r"^\[(?:val  |test )\] score = ")
NUMBER = re.compile(r"[-+]?\d+(?:\.\d+)?(?:e[-+]?\d+)?")

# -- the own batch source ----------------------------------------------------------------------
OWN_BATCHES = "own_batch_class_named_loader"

#: every program of the launches -> its entry, in launch order
ENTRIES = {
    **FIGURE_CASES,
    **{name: entry for name, (entry, _, _, _) in FACTORY_CASES.items()},
    OWN_BATCHES: "train.py",
    **{fixture.name: entry for fixture, entry in OUTPUT_CASES.values()},
}


@dataclass(frozen=True)
class Runs:
    """One launch of every program's copy: the copies' entries by fixture, and the launch."""

    scripts: dict[str, Path]
    launch: Launch


def _copy(kind: str, root: Path) -> dict[str, Path]:
    """Each fixture's tree under `root`/<fixture> (runs write __pycache__ and checkpoints)."""
    scripts = {}
    for name, entry in ENTRIES.items():
        tree = root / name
        shutil.copytree(PROGRAMS / name / kind, tree, ignore=shutil.ignore_patterns("__pycache__"))
        scripts[name] = tree / entry
    return scripts


@pytest.fixture(scope="module")
def plain(tmp_path_factory: pytest.TempPathFactory) -> Runs:
    """The originals (input/), in one plain process."""
    root = tmp_path_factory.mktemp("pairs_input")
    scripts = _copy("input", root)
    return Runs(scripts, _launch([sys.executable], root / "out", list(scripts.values())))


@pytest.fixture(scope="module")
def ddp(tmp_path_factory: pytest.TempPathFactory) -> Runs:
    """The committed migrations (expected/), in one torchrun launch of two processes."""
    root = tmp_path_factory.mktemp("pairs_expected")
    scripts = _copy("expected", root)
    prefix = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node=2"]
    return Runs(scripts, _launch(prefix, root / "out", list(scripts.values())))


@pytest.mark.e2e
def test_torchrun_exits_cleanly(ddp: Runs) -> None:
    _assert_exited_cleanly(ddp.launch, list(ddp.scripts.values()))


# -- the factory figures -------------------------------------------------------------------------
@pytest.mark.e2e
@pytest.mark.parametrize("name", FIGURE_CASES)
def test_rank_zero_prints_the_originals_figures(plain: Runs, ddp: Runs, name: str) -> None:
    before, after = plain.scripts[name], ddp.scripts[name]
    _assert_ran(plain.launch, before, 1)
    _assert_ran(ddp.launch, after, 2)
    report = ddp.launch.report(after, 2)
    assert not ddp.launch.logs(after, 1), f"rank 1 printed; only rank 0 should\n{report}"
    want = plain.launch.logs(before, 0).splitlines()
    assert want, plain.launch.report(before, 1)
    assert ddp.launch.logs(after, 0).splitlines() == want, report
    digests = [ddp.launch.status(after, rank)["digest"] for rank in (0, 1)]  # type: ignore[index]
    assert digests[0] == digests[1] == plain.launch.status(before, 0)["digest"], digests  # type: ignore[index]


# -- the loader factories ------------------------------------------------------------------------
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
@pytest.mark.parametrize("name", FACTORY_CASES)
def test_factory_loaders_split_the_training_set_between_the_ranks(
    plain: Runs, ddp: Runs, name: str
) -> None:
    _, (train_size, train_drawn), (eval_size, eval_drawn), halved = FACTORY_CASES[name]
    before, after = plain.scripts[name], ddp.scripts[name]
    _assert_ran(plain.launch, before, 1)
    _assert_ran(ddp.launch, after, 2)
    drawn = _drawn(plain.launch, before, 0)
    assert drawn == {str(train_size): train_drawn, str(eval_size): eval_drawn}, drawn
    ranks = [_drawn(ddp.launch, after, rank) for rank in (0, 1)]
    rank0, rank1 = (r[str(train_size)] for r in ranks)
    assert rank0 == rank1 == train_drawn // 2, (
        f"DataParallel drew {train_drawn} training samples; under torchrun rank 0 drew "
        f"{rank0} and rank 1 {rank1}, not a half each\n{ddp.launch.report(after, 2)}"
    )
    # Evaluated in the entry, built in the library: every rank evaluates the whole set;
    # built and evaluated in the entry: each rank its half.
    per_rank = eval_drawn // 2 if halved else eval_drawn
    assert all(r[str(eval_size)] == per_rank for r in ranks), (drawn, ranks)


@pytest.mark.e2e
@pytest.mark.parametrize("name", FACTORY_CASES)
def test_factory_program_prints_on_rank_zero_only(plain: Runs, ddp: Runs, name: str) -> None:
    before, after = plain.scripts[name], ddp.scripts[name]
    _assert_ran(plain.launch, before, 1)
    _assert_ran(ddp.launch, after, 2)
    report = ddp.launch.report(after, 2)
    assert not ddp.launch.logs(after, 1), f"rank 1 printed; only rank 0 should\n{report}"
    assert ddp.launch.logs(after, 0).splitlines() != [], report
    want = [line.split(" loss")[0] for line in plain.launch.logs(before, 0).splitlines()]
    got = [line.split(" loss")[0] for line in ddp.launch.logs(after, 0).splitlines()]
    assert [w.split(" accuracy")[0] for w in want] == [g.split(" accuracy")[0] for g in got], report


@pytest.mark.e2e
def test_answers_saved_by_one_run_function_equal_the_originals(plain: Runs, ddp: Runs) -> None:
    """factory_flag_run_eval: the answers rank 0 saves cover the whole validation and test
    splits, in the original's order, with the original's values."""
    import torch

    before, after = plain.scripts["factory_flag_run_eval"], ddp.scripts["factory_flag_run_eval"]
    _assert_ran(plain.launch, before, 1)
    _assert_ran(ddp.launch, after, 2)
    for name in ("results.pth", "test_answers.pth"):
        want = torch.load(plain.launch._dir(before) / name)
        got = torch.load(ddp.launch._dir(after) / name)
        assert got["idx"].tolist() == want["idx"].tolist() == list(range(16)), (name, got["idx"])
        assert torch.equal(got["answers"], want["answers"]), (name, want, got)


@pytest.mark.e2e
def test_loaders_handed_to_another_modules_loops_keep_the_original_figures(
    plain: Runs, ddp: Runs
) -> None:
    """loader_role_from_consumers: rank 0 prints the original's dev and held-out
    accuracies (each loader evaluated whole by the loops trainer.py runs over it), and the
    training set is split between the ranks (test above)."""
    name = "loader_role_from_consumers"
    before, after = plain.scripts[name], ddp.scripts[name]
    _assert_ran(plain.launch, before, 1)
    _assert_ran(ddp.launch, after, 2)
    want = plain.launch.logs(before, 0).splitlines()
    assert len(want) == 3 and all("accuracy" in line for line in want), want
    assert ddp.launch.logs(after, 0).splitlines() == want, ddp.launch.report(after, 2)


# -- the own batch source ------------------------------------------------------------------------
def _line(launch: Launch, script: Path, start: str) -> str:
    found = [line for line in launch.logs(script, 0).splitlines() if line.startswith(start)]
    assert len(found) == 1, launch.report(script, 2)
    return found[0]


@pytest.mark.e2e
def test_each_rank_trains_its_half_of_the_own_batches(plain: Runs, ddp: Runs) -> None:
    before, after = plain.scripts[OWN_BATCHES], ddp.scripts[OWN_BATCHES]
    _assert_ran(plain.launch, before, 1)
    _assert_exited_cleanly(ddp.launch, [after])
    _assert_ran(ddp.launch, after, 2)
    assert _line(plain.launch, before, "rows seen") == "rows seen 32"
    assert _line(ddp.launch, after, "rows seen") == "rows seen 16", ddp.launch.report(after, 2)
    assert _line(ddp.launch, after, "final weight") == _line(plain.launch, before, "final weight")
    assert not ddp.launch.logs(after, 1), ddp.launch.report(after, 2)


# -- the output paths ----------------------------------------------------------------------------
def _lines(text: str, pattern: re.Pattern[str]) -> list[str]:
    return [line.strip() for line in text.splitlines() if pattern.match(line)]


def _same_within_tolerance(original: str, migrated: str) -> bool:
    if NUMBER.sub("#", original) != NUMBER.sub("#", migrated):
        return False
    pairs = zip(NUMBER.findall(original), NUMBER.findall(migrated), strict=True)
    return all(math.isclose(float(a), float(b), rel_tol=1e-5, abs_tol=2e-6) for a, b in pairs)


def _pair(plain: Runs, ddp: Runs, case: str) -> tuple[Launch, Path, Launch, Path]:
    """The original's run and copy, then the migration's, of OUTPUT_CASES[case]."""
    name = OUTPUT_CASES[case][0].name
    return plain.launch, plain.scripts[name], ddp.launch, ddp.scripts[name]


@pytest.mark.e2e
def test_a_pure_helpers_print_is_rank_0s_alone(plain: Runs, ddp: Runs) -> None:
    plain_run, original, torchrun, migrated = _pair(plain, ddp, "summary")
    _assert_ran(plain_run, original, 1)
    _assert_ran(torchrun, migrated, 2)
    report = torchrun.report(migrated, 2)
    want = _lines(plain_run.stdout(original, 0), METRIC_LINE)
    got = _lines(torchrun.stdout(migrated, 0), METRIC_LINE)
    assert len(want) == 2, plain_run.report(original, 1)
    assert len(got) == 2 and all(
        _same_within_tolerance(a, b) for a, b in zip(want, got, strict=True)
    ), f"{want}\n{got}\n{report}"
    rank1 = torchrun.stdout(migrated, 1)
    assert not _lines(rank1, METRIC_LINE), f"rank 1 printed the metric lines\n{report}"
    # The helpers that do work every rank needs run on every rank (ddp_print evaluates its
    # arguments there) and their lines are printed once, by rank 0.
    rank0 = torchrun.stdout(migrated, 0)
    assert re.search(r"^lr ", rank0, re.M) and re.search(r"^DONE$", rank0, re.M), report
    assert not re.search(r"^lr ", rank1, re.M) and not re.search(r"^DONE$", rank1, re.M), report


@pytest.mark.e2e
def test_running_figures_through_a_module_helper_are_warned_and_printed_once(
    plain: Runs, ddp: Runs
) -> None:
    plain_run, original, torchrun, migrated = _pair(plain, ddp, "logger")
    _assert_ran(plain_run, original, 1)
    _assert_ran(torchrun, migrated, 2)
    report = torchrun.report(migrated, 2)
    source = (LOGGER / "input" / "train.py").read_text().splitlines()  # warnings name its lines
    warned = {
        source[int(line.split(":")[1]) - 1].strip()
        for line in (LOGGER / "warnings.txt").read_text().splitlines()
        if " DP030 " in line
    }
    assert warned == {
        "utils.log_running(step, total / seen)",
        "log_utils.log_epoch(epoch, total, seen)",
    }, warned
    epoch = re.compile(r"^epoch \d: mean cost ")
    want = _lines(plain_run.stdout(original, 0), epoch)
    got = _lines(torchrun.stdout(migrated, 0), epoch)
    assert len(want) == len(got) == 2, f"{want}\n{got}\n{report}"
    # DP030 said it: rank 0 shows the figure of its own 8 rows of the original's 16.
    assert all(line.endswith("over 16 rows") for line in want), want
    assert all(line.endswith("over 8 rows") for line in got), f"{got}\n{report}"
    # The per-batch figure: rank 0's 4 rows of each batch of 8, as print(loss.item()) shows.
    step = re.compile(r"^step: \d, avg_cost: ")
    assert [line.rsplit(" ", 1)[1] for line in _lines(plain_run.stdout(original, 0), step)] == [
        "8"
    ] * 4
    assert [line.rsplit(" ", 1)[1] for line in _lines(torchrun.stdout(migrated, 0), step)] == [
        "4"
    ] * 4, report
    assert not torchrun.stdout(migrated, 1).strip(), f"rank 1 printed\n{report}"


@pytest.mark.e2e
def test_running_means_of_an_imported_progress_bar_are_warned_and_printed_once(
    plain: Runs, ddp: Runs
) -> None:
    plain_run, original, torchrun, migrated = _pair(plain, ddp, "progbar")
    _assert_ran(plain_run, original, 1)
    _assert_ran(torchrun, migrated, 2)
    report = torchrun.report(migrated, 2)
    source = (PROGBAR / "input" / "fit.py").read_text().splitlines()
    warned = [
        source[int(line.split(":")[1]) - 1].strip()
        for line in (PROGBAR / "warnings.txt").read_text().splitlines()
        if " DP030 " in line
    ]
    assert warned == ['progbar.add(len(x), values=[("loss", loss.item())])'], warned
    line = re.compile(r"^\d+/16 - loss: ")
    want = [text.split(" ")[0] for text in _lines(plain_run.stdout(original, 0), line)]
    got = [text.split(" ")[0] for text in _lines(torchrun.stdout(migrated, 0), line)]
    assert want == ["4/16", "8/16", "12/16", "16/16"], plain_run.report(original, 1)
    # DP030 said it: rank 0's running means are over its own 8 samples of the 16.
    assert got == ["2/16", "4/16", "6/16", "8/16"], f"{got}\n{report}"
    assert not torchrun.stdout(migrated, 1).strip(), f"rank 1 printed\n{report}"
