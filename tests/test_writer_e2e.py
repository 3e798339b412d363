"""A SummaryWriter off rank 0 is a DdpNullWriter, end to end under torchrun x2 (issue 10).

Two programs from the real-world survey, each run by plain python (the DataParallel
original, a world of one) and, migrated, by torchrun with two CPU processes through
tests/e2e_driver.py (one launch for both):

- tests/program_fixtures/writer_base_class/ (yassouali/pytorch-segmentation@33434fa): the
  writer is an attribute made in a base class and used by a subclass in another module,
  passed to a helper, read (`file_writer.get_logdir()`, `log_dir`) and tested (`if
  self.writer:`). With None off rank 0, rank 1 crashed at its first use. The committed
  golden migration (expected/) is what runs, so the fixture and the run cannot drift apart.
- tests/e2e_writer/writer_log_dir.py (meetps/pytorch-semseg@801fb20): the writer created
  the run directory that every rank then writes into (a copied config, a log file).

tests/e2e_writer/fakes/ holds a stand-in tensorboardX (the test extras install no
tensorboard) that logs every call with the rank that made it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from e2e_driver import workdir_of

from dp2ddp import MigrateOptions, migrate_source
from dp2ddp.verify.toend import KNOWN_EXIT_ABORT

#: Several migrated scripts share one folder here: each self-contained (the single-file
#: form), as the runs are about what the passes do, not where the helpers live.
INLINE = MigrateOptions(inline_helpers=True)

pytestmark = pytest.mark.e2e

TESTS = Path(__file__).resolve().parent
DRIVER = TESTS / "e2e_driver.py"
FAKES = TESTS / "e2e_writer" / "fakes"
PROGRAM = TESTS / "program_fixtures" / "writer_base_class"
LOG_DIR_SCRIPT = TESTS / "e2e_writer" / "writer_log_dir.py"
#: A hang shows as this timeout (the scripts take seconds).
TIMEOUT_S = 240


@dataclass(frozen=True)
class Run:
    returncode: int
    console: str
    out: Path

    def folder(self, script: Path) -> Path:
        """Where the driver ran `script`: OUT/<its folder's name>/<its stem>."""
        return self.out / workdir_of(script)

    def finished(self, script: Path, rank: int) -> bool:
        status = self.folder(script) / f"rank{rank}.status.json"
        return status.exists() and '"ok": true' in status.read_text()

    def text(self, script: Path, name: str) -> str:
        path = self.folder(script) / name
        return path.read_text() if path.exists() else ""

    def report(self, script: Path, ranks: int) -> str:
        parts = [f"exit {self.returncode}"]
        for rank in range(ranks):
            for stream in ("status.json", "stdout", "stderr"):
                parts.append(
                    f"--- rank {rank} {stream}:\n{self.text(script, f'rank{rank}.{stream}')}"
                )
        parts.append(f"--- console:\n{self.console[-4000:]}")
        return "\n".join(parts)


def _launch(prefix: list[str], root: Path, scripts: list[Path]) -> Run:
    out = root / "out"
    env = {k: v for k, v in os.environ.items() if k not in ("RANK", "WORLD_SIZE", "LOCAL_RANK")}
    env.update(OMP_NUM_THREADS="1", PYTHONUNBUFFERED="1")
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(FAKES), env.get("PYTHONPATH")]))
    command = [*prefix, str(DRIVER), str(out), *map(str, scripts)]
    proc = subprocess.Popen(
        command,
        cwd=root,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    try:
        console, _ = proc.communicate(timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, 9)
        console, _ = proc.communicate()
        return Run(-9, f"{console}\n[timed out after {TIMEOUT_S}s: a hang]", out)
    return Run(proc.returncode, console, out)


def _scripts(root: Path, migrated: bool) -> list[Path]:
    """The program (its golden migration, or its input) and the single script (migrated
    now, or as it is), copied under root so nothing is written into tests/."""
    program = root / ("expected" if migrated else "input")
    shutil.copytree(PROGRAM / program.name, program)
    single = root / "scripts" / LOG_DIR_SCRIPT.name
    single.parent.mkdir()
    source = LOG_DIR_SCRIPT.read_text()
    if migrated:
        result = migrate_source(source, INLINE, filename=single.name)
        assert result.changed
        assert not result.diagnostics  # the random run id is rank 0's (run_dir.py)
        source = result.code
    single.write_text(source)
    return [program / "train.py", single]


@pytest.fixture(scope="module")
def original(tmp_path_factory: pytest.TempPathFactory) -> tuple[Run, list[Path]]:
    root = tmp_path_factory.mktemp("original")
    scripts = _scripts(root, migrated=False)
    return _launch([sys.executable], root, scripts), scripts


@pytest.fixture(scope="module")
def migrated(tmp_path_factory: pytest.TempPathFactory) -> tuple[Run, list[Path]]:
    root = tmp_path_factory.mktemp("torchrun")
    scripts = _scripts(root, migrated=True)
    prefix = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node=2"]
    return _launch(prefix, root, scripts), scripts


def _assert_finished(run: Run, script: Path, ranks: int) -> None:
    for rank in range(ranks):
        assert run.finished(script, rank), f"{script} rank {rank}\n{run.report(script, ranks)}"


def test_both_ranks_run_to_the_end(
    original: tuple[Run, list[Path]], migrated: tuple[Run, list[Path]]
) -> None:
    """Every script finished on both ranks; the launch exited 0, or aborted at exit with
    torch's known CPU message after that (the driver's status files say they finished)."""
    run, scripts = migrated
    for script in scripts:
        _assert_finished(original[0], original[1][scripts.index(script)], 1)
        _assert_finished(run, script, 2)
    if run.returncode != 0:
        assert KNOWN_EXIT_ABORT in run.console, run.console[-4000:]


def test_writer_in_a_base_class_logs_once(
    original: tuple[Run, list[Path]], migrated: tuple[Run, list[Path]]
) -> None:
    """Rank 0 wrote exactly the events and log lines DataParallel wrote; rank 1, whose
    writer is a DdpNullWriter used by the subclass in another module, wrote and printed
    nothing, and found the log directory for its log file."""
    run, scripts = migrated
    program = scripts[0]
    _assert_finished(run, program, 2)
    want = (original[0].folder(original[1][0]) / "saved" / "runs").resolve()
    got = run.folder(program) / "saved" / "runs"
    events = (got / "events.txt").read_text()
    assert events == (want / "events.txt").read_text()
    assert {line.split()[0] for line in events.splitlines()} == {"rank0"}
    assert (got / "train.log").read_text() == (want / "train.log").read_text()
    summary = (run.folder(program) / "saved" / "summary" / "events.txt").read_text()
    assert summary == "rank0 created\nrank0 text status done\nrank0 closed\n"
    assert run.text(program, "rank1.stdout") == ""
    assert run.text(program, "rank0.stdout").count("epoch") == 2


def test_directory_the_writer_created_exists_on_every_rank(
    migrated: tuple[Run, list[Path]],
) -> None:
    """The run directory is named by an unseeded random draw, rank 0's on every rank
    (ddp_rank0_value; DP033 said so before): one directory, holding rank 0's events and
    the copied config; rank 1's DdpNullWriter made the same one, so its log file opened
    there instead of crashing, and no events of rank 1 went there."""
    run, scripts = migrated
    single = scripts[1]
    _assert_finished(run, single, 2)
    runs = sorted((run.folder(single) / "runs").iterdir())
    assert len(runs) == 1, runs
    with_events = [d for d in runs if (d / "events.txt").exists()]
    assert len(with_events) == 1, runs
    events = (with_events[0] / "events.txt").read_text()
    assert events.splitlines() == [
        "rank0 created",
        "rank0 scalar loss 0",
        "rank0 scalar loss 1",
        "rank0 closed",
    ]
    assert (with_events[0] / "config.yml").read_text() == "lr: 0.1\n"
    assert all((d / "run.log").exists() for d in runs)
    assert run.text(single, "rank1.stdout") == ""
