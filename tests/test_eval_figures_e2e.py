"""Evaluation figures, end to end: what the migrated program prints under torchrun (2 CPU
processes, gloo) equals what the DataParallel original prints in one plain process.

Issue 10 item 4: a figure is a ratio of sums and counts accumulated over the evaluation
loop; reducing some terms over the ranks and not others prints it multiplied or divided by
the number of ranks (real-world: deep-text-recognition-benchmark printed norm_ED 0.12 for
0.06, and chose its best checkpoint on it). Both programs count their samples with
`length_of_data = length_of_data + batch_size` and divide after the loop:
- tests/fixtures/data_eval_accumulated_by_assignment: one file; the evaluation loader is
  sharded and every sum and count is summed over the ranks;
- tests/program_fixtures/eval_helper_imported: validation() in evaluate.py, reached by
  train.py's whole loader and by evaluate.py's own; nothing is reduced, both loaders stay
  whole (DP015).
- tests/program_fixtures/experiment_factory_early_stop (issues 28/29, the shape of
  zhouhaoyi/Informer2020@29f2a73): one method `_get_data(flag)` returns `(dataset, loader)`
  for training, validation and test; the validation mean decides early stopping through an
  EarlyStopping object of utils/tools.py, which saves the best checkpoint on rank 0 that
  train() reloads on every rank. Migrated before, every loader was sharded: each rank
  stopped on its own half's figure, and one waited in the next all-reduce forever; and
  rank 1 reloaded a checkpoint rank 0 had not finished (FileNotFoundError in the second
  experiment, whose only save is right before the reload; rank 0 saves slowly there).
- tests/program_fixtures/experiment_factory_other_module: the same experiment with the
  factory `data_provider(args, flag)` in data_provider/data_factory.py, which `_get_data`
  wraps (the layout of Informer2020's descendants): the flag is handed on to it.
- tests/fixtures/data_phase_loop_dict_comprehension (class E1, the shape of
  layumi/Person_reID_baseline_pytorch@82ff40f): both loaders from one dict comprehension,
  one `for phase in ["train", "val"]` loop for both, figures divided by a comprehension of
  the split sizes. Before, the loop was not found: rank 0 printed its halved sums, silently.
- tests/fixtures/data_eval_no_grad_inside_loop (class Q2, the shape of
  ming024/FastSpeech2@d4e79eb's evaluate.py): an evaluation function's `no_grad()` inside
  its loop (the caller switched `.eval()`), its sums in a list. Before, the loop was taken
  for training: its loader sharded, nothing summed, rank 0 printed its half, silently.
- tests/fixtures/data_eval_counter_progbar_figures (class E1 of stop 31, the shape of
  knazeri/edge-connect@3142579's eval()): a batch counter beside figures handed to the
  program's own progress bar. Before, the loader was sharded and the counter summed while
  the bar printed rank 0's half, silently; now the loader stays whole (DP015).
- tests/fixtures/data_shuffled_eval_never_trains (class H1 of stop 32): a loop over a
  shuffled loader that never backpropagates writes one file per sample: every file written.
- tests/fixtures/data_sample_generator_method (class S1 of stop 31, the shape of
  edge-connect's create_iterator/sample): a fixed sample batch drawn from a Dataset's own
  generator method that builds a DataLoader. Before, that loader was sharded and the saved
  samples held half the rows, silently; now it stays whole (its batches feed no training);
  tests/program_fixtures/sample_iterator_other_module: the same with the Dataset in another
  module (edge-connect's layout), told by the program how train.py uses the batches.
- tests/fixtures/data_eval_meters_in_list (class S2, fresh round 6): averaging objects
  updated through a list of them beside a sample count. Before, the loader was sharded,
  the count summed and rank 0 printed its half's averages, silently; now it stays whole.
The committed expected output is run (test_fixtures/test_programs prove it current). The
training loaders are sequential, so sharded training sees DataParallel's global batches
and the model, hence every figure, is the original's within float tolerance.
"""

from __future__ import annotations

import math
import re
import sys
from pathlib import Path

import pytest
from test_examples import Launch, _assert_exited_cleanly, _assert_ran, _launch

pytestmark = pytest.mark.e2e

TESTS = Path(__file__).resolve().parent
SINGLE = TESTS / "fixtures" / "data_eval_accumulated_by_assignment"
PROGRAM = TESTS / "program_fixtures" / "eval_helper_imported"
#: (original, migration) of each program
PROGRAMS = {
    "single_file": (SINGLE / "input.py", SINGLE / "expected.py"),
    "program": (PROGRAM / "input" / "train.py", PROGRAM / "expected" / "train.py"),
}
EXPERIMENT = TESTS / "program_fixtures" / "experiment_factory_early_stop"
FACTORY_ELSEWHERE = TESTS / "program_fixtures" / "experiment_factory_other_module"
#: (original, migration) of each experiment program
EXPERIMENTS = {
    "factory_method": (EXPERIMENT / "input" / "main.py", EXPERIMENT / "expected" / "main.py"),
    "factory_other_module": (
        FACTORY_ELSEWHERE / "input" / "main_exp.py",
        FACTORY_ELSEWHERE / "expected" / "main_exp.py",
    ),
}
#: One-file goldens of the same class (unseeded: run to the end on both ranks, not compared)
ONE_FILE = [
    TESTS / "fixtures" / name / "expected.py"
    for name in ("data_factory_method_tuple", "data_factory_wrapped_method")
]
PHASES = TESTS / "fixtures" / "data_phase_loop_dict_comprehension"
PHASE_LOOP = (PHASES / "input.py", PHASES / "expected.py")
PHASE_LINE = re.compile(r"^(?:train|val) Loss")
NO_GRAD_INSIDE = TESTS / "fixtures" / "data_eval_no_grad_inside_loop"
NO_GRAD_LOOP = (NO_GRAD_INSIDE / "input.py", NO_GRAD_INSIDE / "expected.py")
PROGBAR = TESTS / "fixtures" / "data_eval_counter_progbar_figures"
PROGBAR_LOOP = (PROGBAR / "input.py", PROGBAR / "expected.py")
METERS = TESTS / "fixtures" / "data_eval_meters_in_list"
METERS_LOOP = (METERS / "input.py", METERS / "expected.py")
SAMPLES = TESTS / "fixtures" / "data_sample_generator_method"
SAMPLES_ACROSS = TESTS / "program_fixtures" / "sample_iterator_other_module"
#: (original, migration) of each sample-iterator program: in one file, across modules
SAMPLE_ITERATORS = {
    "single_file": (SAMPLES / "input.py", SAMPLES / "expected.py"),
    "program": (SAMPLES_ACROSS / "input" / "train.py", SAMPLES_ACROSS / "expected" / "train.py"),
}
NEVER_TRAINS = TESTS / "fixtures" / "data_shuffled_eval_never_trains"
NEVER_TRAINS_LOOP = (NEVER_TRAINS / "input.py", NEVER_TRAINS / "expected.py")
_PAIRS = (
    *PROGRAMS.values(),
    *EXPERIMENTS.values(),
    PHASE_LOOP,
    NO_GRAD_LOOP,
    PROGBAR_LOOP,
    METERS_LOOP,
    *SAMPLE_ITERATORS.values(),
    NEVER_TRAINS_LOOP,
)
ORIGINALS = [o for o, _ in _PAIRS]
MIGRATIONS = [m for _, m in _PAIRS] + ONE_FILE
EXPERIMENT_LINE = re.compile(r"^(?:epoch \d+ vali |early stopping|rows |final )")
FIGURE_LINE = re.compile(r"^(?:epoch \d+ valid loss|best )")
NUMBER = re.compile(r"[-+]?\d+(?:\.\d+)?(?:e[-+]?\d+)?")


@pytest.fixture(scope="module")
def plain(tmp_path_factory: pytest.TempPathFactory) -> Launch:
    out_dir = tmp_path_factory.mktemp("figures_plain") / "out"
    return _launch([sys.executable], out_dir, ORIGINALS)


@pytest.fixture(scope="module")
def torchrun(tmp_path_factory: pytest.TempPathFactory) -> Launch:
    out_dir = tmp_path_factory.mktemp("figures_torchrun") / "out"
    prefix = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node=2"]
    return _launch(prefix, out_dir, MIGRATIONS)


def _figures(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if FIGURE_LINE.match(line)]


def _same_within_tolerance(original: str, migrated: str) -> bool:
    """The same words, and each number equal within float tolerance (the ranks sum their
    shares in another order than one process sums the whole)."""
    if NUMBER.sub("#", original) != NUMBER.sub("#", migrated):
        return False
    pairs = zip(NUMBER.findall(original), NUMBER.findall(migrated), strict=True)
    return all(math.isclose(float(a), float(b), rel_tol=1e-5, abs_tol=2e-6) for a, b in pairs)


def test_torchrun_launch_exits_cleanly(torchrun: Launch) -> None:
    _assert_exited_cleanly(torchrun, MIGRATIONS)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_printed_figures_equal_the_originals(plain: Launch, torchrun: Launch, name: str) -> None:
    original, migrated = PROGRAMS[name]
    _assert_ran(plain, original, 1)
    _assert_ran(torchrun, migrated, 2)
    report = torchrun.report(migrated, 2)
    want = _figures(plain.stdout(original, 0))
    got = _figures(torchrun.stdout(migrated, 0))
    assert len(want) == 4, plain.report(original, 1)  # three epochs and the best figure
    assert len(got) == len(want), f"{want}\n{got}\n{report}"
    wrong = [(a, b) for a, b in zip(want, got, strict=True) if not _same_within_tolerance(a, b)]
    assert not wrong, f"printed figures differ, as (original, migrated): {wrong}\n{report}"
    assert not _figures(torchrun.stdout(migrated, 1)), f"rank 1 printed figures\n{report}"


def test_phase_loop_figures_equal_the_originals(plain: Launch, torchrun: Launch) -> None:
    """Both phases' epoch figures (train and val, two epochs), summed over the ranks."""
    original, migrated = PHASE_LOOP
    _assert_ran(plain, original, 1)
    _assert_ran(torchrun, migrated, 2)
    report = torchrun.report(migrated, 2)
    want = [line for line in plain.stdout(original, 0).splitlines() if PHASE_LINE.match(line)]
    got = [line for line in torchrun.stdout(migrated, 0).splitlines() if PHASE_LINE.match(line)]
    assert len(want) == 4, plain.report(original, 1)
    assert len(got) == len(want), f"{want}\n{got}\n{report}"
    wrong = [(a, b) for a, b in zip(want, got, strict=True) if not _same_within_tolerance(a, b)]
    assert not wrong, f"printed figures differ, as (original, migrated): {wrong}\n{report}"
    assert not torchrun.stdout(migrated, 1).strip(), f"rank 1 printed\n{report}"


def test_no_grad_inside_loop_figures_equal_the_originals(plain: Launch, torchrun: Launch) -> None:
    """Class Q2: both epochs' validation figures are the whole set's, printed by rank 0."""
    original, migrated = NO_GRAD_LOOP
    _assert_ran(plain, original, 1)
    _assert_ran(torchrun, migrated, 2)
    report = torchrun.report(migrated, 2)
    want = _figures(plain.stdout(original, 0))
    got = _figures(torchrun.stdout(migrated, 0))
    assert len(want) == 2, plain.report(original, 1)
    assert len(got) == len(want), f"{want}\n{got}\n{report}"
    wrong = [(a, b) for a, b in zip(want, got, strict=True) if not _same_within_tolerance(a, b)]
    assert not wrong, f"printed figures differ, as (original, migrated): {wrong}\n{report}"
    assert not _figures(torchrun.stdout(migrated, 1)), f"rank 1 printed figures\n{report}"


def test_progress_bar_figures_beside_a_batch_counter_are_the_originals(
    plain: Launch, torchrun: Launch
) -> None:
    """Class E1 of stop 31: the bar's lines (seen/total, the counter's and the error's
    running means) of both evaluations are the whole set's, printed by rank 0 only."""
    original, migrated = PROGBAR_LOOP
    _assert_ran(plain, original, 1)
    _assert_ran(torchrun, migrated, 2)
    report = torchrun.report(migrated, 2)
    want = [s for s in plain.stdout(original, 0).splitlines() if s.startswith("valid ")]
    got = [s for s in torchrun.stdout(migrated, 0).splitlines() if s.startswith("valid ")]
    assert len(want) == 4 and want[-1].startswith("valid 8/8 "), plain.report(original, 1)
    assert len(got) == len(want), f"{want}\n{got}\n{report}"
    wrong = [(a, b) for a, b in zip(want, got, strict=True) if not _same_within_tolerance(a, b)]
    assert not wrong, f"printed figures differ, as (original, migrated): {wrong}\n{report}"
    assert not torchrun.stdout(migrated, 1).strip(), f"rank 1 printed\n{report}"


def test_meters_updated_through_a_list_print_the_originals(plain: Launch, torchrun: Launch) -> None:
    """Class S2: the evaluation averages fed through a list of meters are the original's,
    printed by rank 0 only (the loader stays whole)."""
    original, migrated = METERS_LOOP
    _assert_ran(plain, original, 1)
    _assert_ran(torchrun, migrated, 2)
    report = torchrun.report(migrated, 2)
    want = [s for s in plain.stdout(original, 0).splitlines() if s.startswith("valid ")]
    got = [s for s in torchrun.stdout(migrated, 0).splitlines() if s.startswith("valid ")]
    assert len(want) == 2 and want[-1].endswith(" n 8"), plain.report(original, 1)
    assert len(got) == len(want), f"{want}\n{got}\n{report}"
    wrong = [(a, b) for a, b in zip(want, got, strict=True) if not _same_within_tolerance(a, b)]
    assert not wrong, f"printed figures differ, as (original, migrated): {wrong}\n{report}"
    assert not torchrun.stdout(migrated, 1).strip(), f"rank 1 printed\n{report}"


@pytest.mark.parametrize("name", sorted(SAMPLE_ITERATORS))
def test_sample_batch_of_a_generator_method_is_the_originals(
    plain: Launch, torchrun: Launch, name: str
) -> None:
    """Class S1 of stop 31: each epoch's sample outputs hold the original's 4 rows (their
    sum the original's), printed (and saved) by rank 0 only; also where the generator is
    another module's (the program tells it how its batches are used)."""
    original, migrated = SAMPLE_ITERATORS[name]
    _assert_ran(plain, original, 1)
    _assert_ran(torchrun, migrated, 2)
    report = torchrun.report(migrated, 2)
    want = [s for s in plain.stdout(original, 0).splitlines() if s.startswith("sample ")]
    got = [s for s in torchrun.stdout(migrated, 0).splitlines() if s.startswith("sample ")]
    assert len(want) == 2 and " rows 4 " in want[0], plain.report(original, 1)
    assert len(got) == len(want), f"{want}\n{got}\n{report}"
    wrong = [(a, b) for a, b in zip(want, got, strict=True) if not _same_within_tolerance(a, b)]
    assert not wrong, f"sample outputs differ, as (original, migrated): {wrong}\n{report}"
    assert not torchrun.stdout(migrated, 1).strip(), f"rank 1 printed\n{report}"


@pytest.mark.parametrize("name", sorted(EXPERIMENTS))
def test_experiment_ranks_stop_together_and_reload_the_finished_checkpoint(
    plain: Launch, torchrun: Launch, name: str
) -> None:
    """Both ranks ran both experiments to the end (no rank left waiting, no early reload),
    stopped at the original's epoch and hold the same reloaded model and whole-set test
    figures: every rank's digest (stop epoch, test rows, test mse, reloaded weights, per
    experiment) equals the DataParallel run's, and rank 0 printed the original's lines."""
    original, migrated = EXPERIMENTS[name]
    _assert_ran(plain, original, 1)
    _assert_ran(torchrun, migrated, 2)
    report = torchrun.report(migrated, 2)
    want = plain.status(original, 0)
    assert want is not None and isinstance(want["digest"], list), plain.report(original, 1)
    assert want["digest"][:2] == [4, 8], want  # the first experiment stops early
    for rank in (0, 1):
        got = torchrun.status(migrated, rank)
        assert got is not None and isinstance(got["digest"], list), report
        pairs = zip(want["digest"], got["digest"], strict=True)
        assert all(math.isclose(a, b, rel_tol=1e-5, abs_tol=1e-5) for a, b in pairs), (
            f"rank {rank}: {got['digest']} != {want['digest']}\n{report}"
        )
    lines = [
        line.strip()
        for line in plain.stdout(original, 0).splitlines()
        if EXPERIMENT_LINE.match(line)
    ]
    printed = [
        line.strip()
        for line in torchrun.stdout(migrated, 0).splitlines()
        if EXPERIMENT_LINE.match(line)
    ]
    assert len(printed) == len(lines) and all(
        _same_within_tolerance(a, b) for a, b in zip(lines, printed, strict=True)
    ), f"{lines}\n{printed}\n{report}"
    assert not torchrun.stdout(migrated, 1).strip(), report


@pytest.mark.parametrize("script", ONE_FILE, ids=[p.parent.name for p in ONE_FILE])
def test_one_file_experiments_run_to_the_end_on_both_ranks(torchrun: Launch, script: Path) -> None:
    """The goldens' evaluation loaders built whole on every rank, early stopping decided
    alike and the reload behind its barrier: both ranks finish, rank 0 reports all 8 test
    rows."""
    _assert_ran(torchrun, script, 2)
    assert "rows 8 " in torchrun.stdout(script, 0), torchrun.report(script, 2)


def test_per_sample_files_of_a_shuffled_loop_that_never_trains_are_all_written(
    plain: Launch, torchrun: Launch
) -> None:
    """Class H1 of stop 32: the 12 files (2 epochs x 6 samples) the original writes are all
    written; sharded as training data, rank 0 wrote its 6 only."""
    original, migrated = NEVER_TRAINS_LOOP
    _assert_ran(plain, original, 1)
    _assert_ran(torchrun, migrated, 2)
    assert "files 12" in plain.stdout(original, 0), plain.report(original, 1)
    assert "files 12" in torchrun.stdout(migrated, 0), torchrun.report(migrated, 2)
