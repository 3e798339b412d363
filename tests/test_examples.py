"""The bundled examples: committed migrations stay in sync with the codemod, and both the
DataParallel originals and their migrations really train.

Fast tests check that each examples/<name>/train_ddp.py is exactly what dp2ddp writes for
train.py today, compiles, is a fixed point, and that examples/README.md lists the warnings
dp2ddp gives. The `e2e` tests launch Python three times in all (each launch pays torch's
import and, for torchrun, the rendezvous): tests/e2e_driver.py runs every original and every
migration in one plain process (a world of one), then every migration under torchrun with
two CPU (gloo) processes, and one migrated script runs on its own as a plain script. They
check that every run exits cleanly, that rank 0 logs what DataParallel logged and rank 1
nothing, and that the two ranks draw about half of the samples each.
"""

from __future__ import annotations

import functools
import json
import os
import re
import signal
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest import ROOT
from e2e_driver import workdir_of

from dp2ddp import MigrationResult, migrate_source
from dp2ddp.migrate.line_length import line_length
from dp2ddp.options import MigrateOptions
from dp2ddp.verify.toend import KNOWN_EXIT_ABORT

EXAMPLES_DIR = ROOT / "examples"
DRIVER = Path(__file__).resolve().parent / "e2e_driver.py"
EXAMPLES = sorted(p.parent.name for p in EXAMPLES_DIR.glob("*/train.py"))
TIMEOUT_S = 420
#: Every example's last line starts with this, so a test can tell it finished.
FINAL = re.compile(r"^final\b")
_WARNING = re.compile(r"^\S.*:\d+: \w*Warning: ")
_NUMBER = re.compile(r"[-+]?\d+(?:\.\d+)?(?:e[-+]?\d+)?")
_DIST_ENV = (
    "RANK",
    "LOCAL_RANK",
    "WORLD_SIZE",
    "LOCAL_WORLD_SIZE",
    "MASTER_ADDR",
    "MASTER_PORT",
    "GROUP_RANK",
    "ROLE_RANK",
    "TORCHELASTIC_RUN_ID",
)


def _options(name: str) -> MigrateOptions:
    """The width `dp2ddp migrate` reads for the example in this clone (examples/regenerate.py)."""
    return MigrateOptions(line_length=line_length(str(EXAMPLES_DIR / name / "train.py")))


@functools.cache
def _migration(name: str) -> MigrationResult:
    """Migrating takes a moment: each example is migrated once per test session."""
    source = (EXAMPLES_DIR / name / "train.py").read_text()
    return migrate_source(source, _options(name), filename="train.py")


# -- fast: the committed migrations match the codemod ------------------------------------


def test_there_are_enough_examples() -> None:
    assert len(EXAMPLES) >= 7, EXAMPLES


@pytest.mark.parametrize("name", EXAMPLES)
def test_committed_migration_is_current(name: str) -> None:
    committed_path = EXAMPLES_DIR / name / "train_ddp.py"
    assert committed_path.exists(), f"run `python examples/regenerate.py` to create {name}"
    committed = committed_path.read_text()
    assert committed == _migration(name).code, (
        f"examples/{name}/train_ddp.py is stale: run `python examples/regenerate.py`"
    )
    compile(committed, str(committed_path), "exec")
    again = migrate_source(committed, _options(name), filename="train_ddp.py")
    assert again.code == committed, "migrating the migration changed it again"
    # The helpers it imports, beside it: only those it uses, as dp2ddp generates them.
    helpers_path = EXAMPLES_DIR / name / "_dp2ddp.py"
    assert helpers_path.read_text() == _migration(name).helpers_module, (
        f"examples/{name}/_dp2ddp.py is stale: run `python examples/regenerate.py`"
    )
    compile(helpers_path.read_text(), str(helpers_path), "exec")


@pytest.mark.parametrize("name", EXAMPLES)
def test_original_uses_dataparallel(name: str) -> None:
    source = (EXAMPLES_DIR / name / "train.py").read_text()
    compile(source, name, "exec")
    assert "DataParallel(" in source
    assert _migration(name).changed


def _readme_warnings() -> dict[str, set[str]]:
    """`| [name](name/train.py) | scenario | DP001, DP002 |` rows of examples/README.md."""
    rows: dict[str, set[str]] = {}
    for line in (EXAMPLES_DIR / "README.md").read_text().splitlines():
        match = re.match(r"\|\s*\[`?([\w-]+)`?\]\([\w-]+/train\.py\)\s*\|.*\|([^|]*)\|\s*$", line)
        if match:
            rows[match.group(1)] = set(re.findall(r"DP\d{3}", match.group(2)))
    return rows


def test_readme_lists_each_example_and_its_warnings() -> None:
    rows = _readme_warnings()
    assert sorted(rows) == EXAMPLES
    for name in EXAMPLES:
        produced = {d.code for d in _migration(name).diagnostics}
        assert rows[name] == produced, f"examples/README.md row for {name}: warnings {produced}"


def test_warning_filter_keeps_log_lines() -> None:
    stderr = (
        "INFO - __main__ - step 8: loss 0.6922\n"
        "/x/train_ddp.py:12: UserWarning: batch_size=7 does not divide\n"
        "  warnings.warn(\n"
        "WARNING - __main__ - device: cpu\n"
    )
    assert _without_warnings(stderr) == (
        "INFO - __main__ - step 8: loss 0.6922\nWARNING - __main__ - device: cpu\n"
    )


# -- end to end ------------------------------------------------------------------------


@dataclass(frozen=True)
class Launch:
    """One driver launch: its command, exit status, console output and per-script outputs."""

    command: list[str]
    returncode: int
    console: str
    out_dir: Path

    def status(self, script: Path, rank: int) -> dict[str, object] | None:
        path = self._dir(script) / f"rank{rank}.status.json"
        return json.loads(path.read_text()) if path.exists() else None

    def stdout(self, script: Path, rank: int) -> str:
        path = self._dir(script) / f"rank{rank}.stdout"
        return path.read_text() if path.exists() else ""

    def stderr(self, script: Path, rank: int) -> str:
        path = self._dir(script) / f"rank{rank}.stderr"
        return path.read_text() if path.exists() else ""

    def logs(self, script: Path, rank: int) -> str:
        """What the script printed and logged: stdout, then stderr less Python's warnings."""
        return self.stdout(script, rank) + _without_warnings(self.stderr(script, rank))

    def _dir(self, script: Path) -> Path:
        return self.out_dir / workdir_of(script)

    def report(self, script: Path, ranks: int) -> str:
        """Everything a reader needs when an example failed."""
        parts = [f"$ {' '.join(self.command)}  (exit {self.returncode})"]
        for rank in range(ranks):
            parts.append(f"--- rank {rank} status: {self.status(script, rank)}")
            parts.append(f"--- rank {rank} stdout:\n{self.stdout(script, rank)}")
            parts.append(f"--- rank {rank} stderr:\n{_tail(self.stderr(script, rank))}")
        parts.append(f"--- launcher console (tail):\n{_tail(self.console)}")
        return "\n".join(parts)


def _without_warnings(text: str) -> str:
    """Drop `file:line: SomeWarning: message` and the source line `warnings` prints under it."""
    kept: list[str] = []
    in_warning = False
    for line in text.splitlines(keepends=True):
        if _WARNING.match(line):
            in_warning = True
        elif not (in_warning and line[:1].isspace()):
            in_warning = False
            kept.append(line)
    return "".join(kept)


def _tail(text: str, chars: int = 6000) -> str:
    return text if len(text) <= chars else "...\n" + text[-chars:]


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in _DIST_ENV}
    env["OMP_NUM_THREADS"] = "1"  # two processes on a small machine: no thread oversubscription
    env["PYTHONUNBUFFERED"] = "1"
    return env


def _run(command: list[str], cwd: Path, timeout: float = TIMEOUT_S) -> tuple[int, str]:
    """Run in a new session so a timeout also kills torchrun's worker processes."""
    proc = subprocess.Popen(
        command,
        cwd=cwd,
        env=_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    try:
        output, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        output, _ = proc.communicate()
        return -9, f"{output}\n[timed out after {timeout}s]"
    return proc.returncode, output


def _launch(prefix: list[str], out_dir: Path, scripts: list[Path]) -> Launch:
    command = [*prefix, str(DRIVER), str(out_dir), *map(str, scripts)]
    returncode, console = _run(command, cwd=out_dir.parent)
    return Launch(command, returncode, console, out_dir)


def _originals() -> list[Path]:
    return [EXAMPLES_DIR / name / "train.py" for name in EXAMPLES]


def _migrations() -> list[Path]:
    return [EXAMPLES_DIR / name / "train_ddp.py" for name in EXAMPLES]


@pytest.fixture(scope="module")
def plain_launch(tmp_path_factory: pytest.TempPathFactory) -> Launch:
    """Originals, then migrations, all in one plain `python` process (a world of one)."""
    out_dir = tmp_path_factory.mktemp("plain") / "out"
    return _launch([sys.executable], out_dir, _originals() + _migrations())


@pytest.fixture(scope="module")
def torchrun_launch(tmp_path_factory: pytest.TempPathFactory) -> Launch:
    """Every migration inside the same two torchrun worker processes (gloo on CPU)."""
    out_dir = tmp_path_factory.mktemp("torchrun") / "out"
    prefix = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node=2"]
    return _launch(prefix, out_dir, _migrations())


def _mask(text: str) -> Counter[str]:
    """Lines with every number replaced: losses differ between runs, the log lines must not."""
    return Counter(_NUMBER.sub("#", line.rstrip()) for line in text.splitlines() if line.strip())


def _assert_ran(launch: Launch, script: Path, ranks: int) -> None:
    for rank in range(ranks):
        status = launch.status(script, rank)
        if status is None:
            pytest.fail(
                f"{script.parent.name}/{script.name} did not run on rank {rank} (an earlier "
                f"script failed or the launch died)\n" + launch.report(script, ranks)
            )
        if not status["ok"]:
            pytest.fail(
                f"{script.parent.name}/{script.name} failed on rank {rank}\n"
                + launch.report(script, ranks)
            )


def _assert_logs_like_original(original: str, migrated: str, report: str) -> None:
    """Each log line of the DataParallel run appears as often in the migration's rank 0."""
    finals = [line for line in migrated.splitlines() if FINAL.match(line)]
    assert len(finals) == 1, f"expected one `final ...` line on rank 0, got {finals}\n{report}"
    want, got = _mask(original), _mask(migrated)
    wrong = {line: (count, got[line]) for line, count in want.items() if got[line] != count}
    assert not wrong, (
        "log lines (numbers masked) whose count differs, as (original, migrated): "
        f"{wrong}\n{report}"
    )


@pytest.mark.e2e
@pytest.mark.parametrize("name", EXAMPLES)
def test_original_trains_with_dataparallel(plain_launch: Launch, name: str) -> None:
    script = EXAMPLES_DIR / name / "train.py"
    _assert_ran(plain_launch, script, 1)
    finals = [line for line in plain_launch.logs(script, 0).splitlines() if FINAL.match(line)]
    assert len(finals) == 1, plain_launch.report(script, 1)


@pytest.mark.e2e
@pytest.mark.parametrize("name", EXAMPLES)
def test_migration_trains_in_a_world_of_one(plain_launch: Launch, name: str) -> None:
    original, migrated = EXAMPLES_DIR / name / "train.py", EXAMPLES_DIR / name / "train_ddp.py"
    _assert_ran(plain_launch, original, 1)
    _assert_ran(plain_launch, migrated, 1)
    _assert_logs_like_original(
        plain_launch.logs(original, 0),
        plain_launch.logs(migrated, 0),
        plain_launch.report(migrated, 1),
    )


@pytest.mark.e2e
@pytest.mark.parametrize("name", EXAMPLES)
def test_migration_trains_under_torchrun(
    plain_launch: Launch, torchrun_launch: Launch, name: str
) -> None:
    original, migrated = EXAMPLES_DIR / name / "train.py", EXAMPLES_DIR / name / "train_ddp.py"
    _assert_ran(torchrun_launch, migrated, 2)
    report = torchrun_launch.report(migrated, 2)
    if torchrun_launch.logs(migrated, 1):
        pytest.fail(f"rank 1 printed or logged; only rank 0 should\n{report}")
    _assert_ran(plain_launch, original, 1)
    _assert_logs_like_original(
        plain_launch.logs(original, 0), torchrun_launch.logs(migrated, 0), report
    )


def _indices(launch: Launch, script: Path, rank: int) -> int:
    status = launch.status(script, rank) or {}
    count = status.get("indices")
    if count is None:
        pytest.skip("this torch has no DataLoader iterator hook to count samples with")
    assert isinstance(count, int)
    return count


#: Evaluation sets every rank draws whole: their figures cannot all be summed over the ranks
#: (DP015), so the loader stays unsharded (examples/README.md says why for each).
UNSHARDED_EVALUATION = {"loss_in_forward": 256}


@pytest.mark.e2e
@pytest.mark.parametrize("name", EXAMPLES)
def test_migration_shares_the_data_out(
    plain_launch: Launch, torchrun_launch: Launch, name: str
) -> None:
    """A world of one draws what DataParallel drew; two ranks draw about half of it each."""
    original, migrated = EXAMPLES_DIR / name / "train.py", EXAMPLES_DIR / name / "train_ddp.py"
    _assert_ran(plain_launch, original, 1)
    _assert_ran(plain_launch, migrated, 1)
    _assert_ran(torchrun_launch, migrated, 2)
    drawn = _indices(plain_launch, original, 0)
    assert drawn > 0
    assert _indices(plain_launch, migrated, 0) == drawn, "a world of one drew different data"
    rank0, rank1 = _indices(torchrun_launch, migrated, 0), _indices(torchrun_launch, migrated, 1)
    slack = max(8, drawn // 20)  # DistributedSampler pads; drop_last drops per rank
    drawn += UNSHARDED_EVALUATION.get(name, 0)  # the second rank draws it too
    assert abs(rank0 + rank1 - drawn) <= slack and abs(rank0 - rank1) <= slack, (
        f"DataParallel drew {drawn} samples; under torchrun rank 0 drew {rank0} and rank 1 "
        f"{rank1}, not a half each"
    )


def _assert_exited_cleanly(launch: Launch, scripts: list[Path], ranks: int = 2) -> None:
    """Exit 0; or torch 2.13's known abort at process exit (about one CPU launch in ten),
    forgiven only when every script finished on every rank and torchrun reports exactly it."""
    if launch.returncode != 0:
        console = launch.console
        assert KNOWN_EXIT_ABORT in console and "exitcode  : -6" in console, _tail(console)
        for script in scripts:
            _assert_ran(launch, script, ranks)


@pytest.mark.e2e
def test_torchrun_launch_exits_cleanly(torchrun_launch: Launch) -> None:
    _assert_exited_cleanly(torchrun_launch, _migrations())


@pytest.mark.e2e
def test_migrated_script_runs_as_a_plain_script(tmp_path: Path) -> None:
    """No driver: `python train_ddp.py --epochs 1` joins a world of one and exits 0."""
    script = EXAMPLES_DIR / "cnn_trainer" / "train_ddp.py"
    returncode, output = _run([sys.executable, str(script), "--epochs", "1"], cwd=tmp_path)
    assert returncode == 0, output
    assert sum(bool(FINAL.match(line)) for line in output.splitlines()) == 1, output
    assert (tmp_path / "cnn_checkpoint.pt").exists(), output
