"""Start the two runs: the original as one process, the migration through torchrun.

Each run is started in its own session with its output in a file, watched with a timeout;
a timed-out or cancelled run has its whole process tree ended (see `proctree`). On CPU the
two runs go concurrently (they share nothing); on GPUs one after the other, since both use
the same devices. When one run fails, the other is cancelled: the verdict is already known.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

import dp2ddp
from dp2ddp.verify.proctree import ProcessTree
from dp2ddp.verify.protocol import RunnerOptions

ORIGINAL = "original"
MIGRATED = "migrated"

#: Variables of an enclosing torchrun/SLURM-style launch that must not leak into the runs.
_LAUNCH_VARS = (
    "RANK", "LOCAL_RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE", "GROUP_RANK", "GROUP_WORLD_SIZE",
    "ROLE_RANK", "ROLE_WORLD_SIZE", "ROLE_NAME", "MASTER_ADDR", "MASTER_PORT",
    "TORCHELASTIC_RESTART_COUNT", "TORCHELASTIC_MAX_RESTARTS", "TORCHELASTIC_RUN_ID",
    "TORCHELASTIC_USE_AGENT_STORE", "TORCHELASTIC_ERROR_FILE",
)  # fmt: skip
_POLL = 0.1
_OBSERVE = 0.5
_EXIT_GRACE = 2.0
_LOG_TAIL = 4000


@dataclass(frozen=True)
class RunSpec:
    name: str
    argv: list[str]
    env: dict[str, str]
    cwd: Path
    log: Path
    timeout: float


@dataclass(frozen=True)
class RunResult:
    name: str
    returncode: int | None
    seconds: float
    timed_out: bool = False
    cancelled: bool = False
    log_tail: str = ""
    #: Every process had saved its results when the run was ended (a slow exit is no failure).
    complete: bool = False

    @property
    def ok(self) -> bool:
        if self.complete:
            return True
        return self.returncode == 0 and not self.timed_out and not self.cancelled


def run_env(base: Mapping[str, str], cuda_visible: str | None, cpu_threads: bool) -> dict[str, str]:
    """The environment of both runs: no outer launch, dp2ddp importable, same hashing."""
    env = {k: v for k, v in base.items() if k not in _LAUNCH_VARS}
    package_root = str(Path(dp2ddp.__file__).resolve().parent.parent)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (package_root, env.get("PYTHONPATH")) if p)
    env["PYTHONUNBUFFERED"] = "1"
    env.setdefault("PYTHONHASHSEED", "0")  # same set/dict order of strings in both runs
    if cpu_threads:
        env.setdefault("OMP_NUM_THREADS", "1")  # torchrun's default for its workers; both runs
    if cuda_visible is not None:
        env["CUDA_VISIBLE_DEVICES"] = cuda_visible
    return env


def original_argv(options: RunnerOptions, script: Path, args: tuple[str, ...]) -> list[str]:
    return [sys.executable, "-m", "dp2ddp.verify.runner", *options.argv(str(script), args)]


def torchrun_argv(
    options: RunnerOptions, script: Path, args: tuple[str, ...], nproc: int
) -> list[str]:
    return [
        sys.executable, "-m", "torch.distributed.run",
        "--standalone", "--nproc-per-node", str(nproc),
        "--max-restarts", "0", "--monitor-interval", "0.1",
        "-m", "dp2ddp.verify.runner", *options.argv(str(script), args),
    ]  # fmt: skip


@dataclass
class _Running:
    spec: RunSpec
    process: subprocess.Popen[bytes]
    tree: ProcessTree
    started: float
    observed: float = 0.0


def _start(spec: RunSpec) -> _Running:
    # stdin: an empty pipe, its writing end closed, so every read is at its end in every
    # process of the run. Not /dev/null: where that is a plain file (this project's test
    # machine had one, written by other processes) a rank read what they wrote, a line
    # (`{"epochs": 2}`) or null bytes, as its run directory's name (stop 49 g2).
    empty, writer = os.pipe()
    os.close(writer)
    try:
        with open(spec.log, "wb") as log:
            process = subprocess.Popen(
                spec.argv,
                cwd=spec.cwd,
                env=spec.env,
                stdin=empty,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
    finally:
        os.close(empty)
    return _Running(spec, process, ProcessTree(process), time.monotonic())


def _tail(path: Path) -> str:
    try:
        data = path.read_bytes()
    except OSError:
        return ""
    return data[-_LOG_TAIL:].decode("utf-8", "replace")


def run_all(
    specs: list[RunSpec],
    concurrent: bool,
    cancel_others: Callable[[RunResult], bool],
    complete: Callable[[RunSpec], bool],
    on_timeout: Callable[[RunSpec, ProcessTree], None] | None = None,
    on_event: Callable[[str, str], None] | None = None,
) -> dict[str, RunResult]:
    """Run `specs`; `cancel_others(result)` decides whether a finished run ends the rest.

    `complete(spec)` says whether all of a run's processes saved their results: such a run
    gets _EXIT_GRACE seconds to exit by itself (torchrun's shutdown is slow), then it ends.
    `on_timeout(spec, tree)` is called for a run that timed out, before its processes are
    ended (to collect their stacks). `on_event(event, name)` hears "started", "poll" (each
    poll of a running run) and "ended" (progress for the user).
    """
    event = on_event or (lambda what, name: None)
    pending = list(specs)
    running: list[_Running] = []
    results: dict[str, RunResult] = {}

    done_since: dict[str, float] = {}

    def finish(run: _Running, timed_out: bool = False, cancelled: bool = False) -> RunResult:
        seconds = time.monotonic() - run.started
        if timed_out and on_timeout is not None:
            run.tree.observe()
            on_timeout(run.spec, run.tree)
        if timed_out or cancelled or run.tree.alive():
            run.tree.kill()
        result = RunResult(
            run.spec.name,
            run.process.poll(),
            seconds,
            timed_out,
            cancelled,
            _tail(run.spec.log),
            complete=complete(run.spec),
        )
        results[run.spec.name] = result
        return result

    try:
        while pending or running:
            while pending and (concurrent or not running):
                running.append(_start(pending.pop(0)))
                event("started", running[-1].spec.name)
            time.sleep(_POLL)
            for run in list(running):
                event("poll", run.spec.name)
                now = time.monotonic()
                if now - run.observed >= _OBSERVE:
                    run.tree.observe()  # descendants, to end them even if orphaned later
                    run.observed = now
                if run.process.poll() is None and complete(run.spec):
                    done_since.setdefault(run.spec.name, now)
                lingering = now - done_since.get(run.spec.name, now) > _EXIT_GRACE
                expired = now - run.started > run.spec.timeout
                if run.process.poll() is None and not expired and not lingering:
                    continue
                running.remove(run)
                hung = run.process.poll() is None and not complete(run.spec)
                result = finish(run, timed_out=hung)
                event("ended", run.spec.name)
                if cancel_others(result):
                    for other in running:
                        finish(other, cancelled=True)
                    running.clear()
                    for spec in pending:
                        results[spec.name] = RunResult(spec.name, None, 0.0, cancelled=True)
                    pending.clear()
                    break
    finally:
        for run in running:  # interrupted (Ctrl-C): leave nothing behind
            run.tree.kill(grace=1.0)
    return results
