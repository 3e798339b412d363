"""Output paths of a program's own modules, end to end (issue 28 item 4): what the migrated
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
import sys
from pathlib import Path

import pytest
from test_examples import Launch, _assert_exited_cleanly, _assert_ran, _launch

pytestmark = pytest.mark.e2e

PROGRAMS = Path(__file__).resolve().parent / "program_fixtures"
SUMMARY = PROGRAMS / "star_reexported_helper_print"
LOGGER = PROGRAMS / "figures_through_helper_module_attribute"
PROGBAR = PROGRAMS / "figures_through_imported_progbar"
#: (original, migration) of each program
CASES = {
    "summary": (SUMMARY / "input" / "main.py", SUMMARY / "expected" / "main.py"),
    "logger": (LOGGER / "input" / "train.py", LOGGER / "expected" / "train.py"),
    "progbar": (PROGBAR / "input" / "fit.py", PROGBAR / "expected" / "fit.py"),
}
METRIC_LINE = re.compile(r"^\[(?:val  |test )\] score = ")
NUMBER = re.compile(r"[-+]?\d+(?:\.\d+)?(?:e[-+]?\d+)?")


@pytest.fixture(scope="module")
def plain(tmp_path_factory: pytest.TempPathFactory) -> Launch:
    out_dir = tmp_path_factory.mktemp("output_paths_plain") / "out"
    return _launch([sys.executable], out_dir, [o for o, _ in CASES.values()])


@pytest.fixture(scope="module")
def torchrun(tmp_path_factory: pytest.TempPathFactory) -> Launch:
    out_dir = tmp_path_factory.mktemp("output_paths_torchrun") / "out"
    prefix = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node=2"]
    return _launch(prefix, out_dir, [m for _, m in CASES.values()])


def _lines(text: str, pattern: re.Pattern[str]) -> list[str]:
    return [line.strip() for line in text.splitlines() if pattern.match(line)]


def _same_within_tolerance(original: str, migrated: str) -> bool:
    if NUMBER.sub("#", original) != NUMBER.sub("#", migrated):
        return False
    pairs = zip(NUMBER.findall(original), NUMBER.findall(migrated), strict=True)
    return all(math.isclose(float(a), float(b), rel_tol=1e-5, abs_tol=2e-6) for a, b in pairs)


def test_torchrun_launch_exits_cleanly(torchrun: Launch) -> None:
    _assert_exited_cleanly(torchrun, [m for _, m in CASES.values()])


def test_a_pure_helpers_print_is_rank_0s_alone(plain: Launch, torchrun: Launch) -> None:
    original, migrated = CASES["summary"]
    _assert_ran(plain, original, 1)
    _assert_ran(torchrun, migrated, 2)
    report = torchrun.report(migrated, 2)
    want = _lines(plain.stdout(original, 0), METRIC_LINE)
    got = _lines(torchrun.stdout(migrated, 0), METRIC_LINE)
    assert len(want) == 2, plain.report(original, 1)
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


def test_running_figures_through_a_module_helper_are_warned_and_printed_once(
    plain: Launch, torchrun: Launch
) -> None:
    original, migrated = CASES["logger"]
    _assert_ran(plain, original, 1)
    _assert_ran(torchrun, migrated, 2)
    report = torchrun.report(migrated, 2)
    source = original.read_text().splitlines()  # warnings name the input's lines
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
    want = _lines(plain.stdout(original, 0), epoch)
    got = _lines(torchrun.stdout(migrated, 0), epoch)
    assert len(want) == len(got) == 2, f"{want}\n{got}\n{report}"
    # DP030 said it: rank 0 shows the figure of its own 8 rows of the original's 16.
    assert all(line.endswith("over 16 rows") for line in want), want
    assert all(line.endswith("over 8 rows") for line in got), f"{got}\n{report}"
    # The per-batch figure: rank 0's 4 rows of each batch of 8, as print(loss.item()) shows.
    step = re.compile(r"^step: \d, avg_cost: ")
    assert [line.rsplit(" ", 1)[1] for line in _lines(plain.stdout(original, 0), step)] == ["8"] * 4
    assert [line.rsplit(" ", 1)[1] for line in _lines(torchrun.stdout(migrated, 0), step)] == [
        "4"
    ] * 4, report
    assert not torchrun.stdout(migrated, 1).strip(), f"rank 1 printed\n{report}"


def test_running_means_of_an_imported_progress_bar_are_warned_and_printed_once(
    plain: Launch, torchrun: Launch
) -> None:
    original, migrated = CASES["progbar"]
    _assert_ran(plain, original, 1)
    _assert_ran(torchrun, migrated, 2)
    report = torchrun.report(migrated, 2)
    source = original.read_text().splitlines()
    warned = [
        source[int(line.split(":")[1]) - 1].strip()
        for line in (PROGBAR / "warnings.txt").read_text().splitlines()
        if " DP030 " in line
    ]
    assert warned == ['progbar.add(len(x), values=[("loss", loss.item())])'], warned
    line = re.compile(r"^\d+/16 - loss: ")
    want = [text.split(" ")[0] for text in _lines(plain.stdout(original, 0), line)]
    got = [text.split(" ")[0] for text in _lines(torchrun.stdout(migrated, 0), line)]
    assert want == ["4/16", "8/16", "12/16", "16/16"], plain.report(original, 1)
    # DP030 said it: rank 0's running means are over its own 8 samples of the 16.
    assert got == ["2/16", "4/16", "6/16", "8/16"], f"{got}\n{report}"
    assert not torchrun.stdout(migrated, 1).strip(), f"rank 1 printed\n{report}"
