"""Migrate many files: read and pre-check them here, parse the candidates on every core.

Reading, decoding and the text pre-check are cheap and run in this process; only files that
may use DataParallel are parsed, each once, in a process pool when there are enough of them
to pay for starting one. Outcomes come back in input order whatever order workers finish in.
A file is written (atomically) only after its migration succeeded, re-encoded to the same
bytes convention, and, when the input compiled, compiled too; anything else leaves it alone.
Nothing here raises for a bad file: every problem becomes a "failed" FileOutcome.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from dp2ddp.errors import InputError, error_line, one_line
from dp2ddp.facts import ProgramFacts
from dp2ddp.migrate.atomic import write_atomic
from dp2ddp.migrate.deep import FileTimeout, call_deep, nesting_error, time_limit, timeout_error
from dp2ddp.migrate.discovery import Target, describe_os_error
from dp2ddp.migrate.line_length import line_length
from dp2ddp.migrate.precheck import may_use_dataparallel
from dp2ddp.migrate.reindent import said
from dp2ddp.migrate.sourcefile import SourceFile, decode
from dp2ddp.options import MigrateOptions
from dp2ddp.result import FileOutcome, MigrationResult

if TYPE_CHECKING:  # the engine (libcst, every pass) loads only when a file is migrated
    import multiprocessing.context
    from concurrent.futures import Future, ProcessPoolExecutor

    import libcst as cst

#: Candidate text (characters) below which a pool costs more than it saves. Forked workers
#: start in milliseconds; spawned ones import libcst and dp2ddp first (about half a second).
POOL_MIN_CHARS_FORK = 20_000
POOL_MIN_CHARS_SPAWN = 300_000

Progress = Callable[[int], None]
#: Receives the path and new bytes of each migrated file (e.g. write_atomic); may raise OSError.
Sink = Callable[[str, bytes], None]
#: (inode, size, mtime) of a file when it was read.
_Stamp = tuple[int, int, int]


@dataclass(frozen=True)
class _Task:
    index: int
    path: str
    text: str
    options: MigrateOptions
    program: ProgramFacts | None = None  # program mode, in this process
    parsed: cst.Module | None = None  # only in this process (program mode), never pickled


@dataclass(frozen=True)
class _Done:
    index: int
    result: MigrationResult | None
    error: str | None


def default_jobs() -> int:
    """Cores this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def migrate_files(
    targets: Sequence[Target],
    options: MigrateOptions,
    *,
    jobs: int | None = None,
    sink: Sink | None = None,
    progress: Progress | None = None,
) -> list[FileOutcome]:
    """Migrate every target; `sink` gets each changed file's bytes. Outcomes in input order."""
    advance = progress or (lambda n: None)
    outcomes: list[FileOutcome | None] = [None] * len(targets)
    sources: dict[int, tuple[SourceFile, _Stamp]] = {}
    tasks: list[_Task] = []
    pending_progress = 0
    for index, target in enumerate(targets):
        prepared = _prepare(target)
        if isinstance(prepared, FileOutcome):
            outcomes[index] = prepared
        elif may_use_dataparallel(prepared[0].text):
            sources[index] = prepared
            tasks.append(
                _Task(index, target.path, prepared[0].text, for_file(options, target.path))
            )
            continue
        else:  # cannot use DataParallel: unchanged without parsing
            text = prepared[0].original or prepared[0].text
            outcomes[index] = FileOutcome(target.path, "unchanged", MigrationResult(text, text))
        pending_progress += 1
        if pending_progress >= 64:
            advance(pending_progress)
            pending_progress = 0
    advance(pending_progress)

    for done in _run(tasks, jobs or default_jobs()):
        path = targets[done.index].path
        source, stamp = sources.pop(done.index)
        guarded = None if sink is None else _unless_changed(sink, stamp)
        outcomes[done.index] = _finish(path, source, done, guarded)
        advance(1)
    assert all(o is not None for o in outcomes)
    return [o for o in outcomes if o is not None]


def migrate_bytes(
    path: str, data: bytes, options: MigrateOptions
) -> tuple[FileOutcome, bytes | None]:
    """Migrate one file's bytes in this process: (outcome, new bytes if it changed)."""
    try:
        source = decode(data)
    except InputError as exc:
        return FileOutcome(path, "failed", error=exc.format(path)), None
    return migrate_decoded(path, source, options)


def migrate_decoded(
    path: str,
    source: SourceFile,
    options: MigrateOptions,
    program: ProgramFacts | None = None,
    parsed: cst.Module | None = None,
) -> tuple[FileOutcome, bytes | None]:
    """Migrate one decoded file in this process, alone or as a module of a program
    (`program`: what the rest of the program tells it, see migrate_source; `parsed`: its
    text already parsed)."""
    gate_open = program is not None and program.role is not None and program.has_dataparallel
    if not gate_open and not may_use_dataparallel(source.text):
        text = source.original or source.text
        return FileOutcome(path, "unchanged", MigrationResult(text, text)), None
    done = _work(_Task(0, path, source.text, for_file(options, path), program, parsed))
    new: list[bytes] = []
    outcome = _finish(path, source, done, lambda _path, data: new.append(data))
    return outcome, (new[0] if new else None)


def for_file(options: MigrateOptions, path: str) -> MigrateOptions:
    """`options` with the line length of the project `path` belongs to, unless one is set."""
    if options.line_length is not None:
        return options
    return replace(options, line_length=line_length(path))


def write_in_place(path: str, data: bytes) -> None:
    """The default sink: replace the file atomically."""
    write_atomic(path, data)


# -- steps ----------------------------------------------------------------------------------
def _prepare(target: Target) -> tuple[SourceFile, _Stamp] | FileOutcome:
    if target.error is not None:
        return FileOutcome(target.path, "failed", error=target.error)
    try:
        with open(target.path, "rb") as handle:
            data = handle.read()
            stamp = _stamp(os.fstat(handle.fileno()))
    except OSError as exc:
        message = f"cannot read: {describe_os_error(exc)}"
        return FileOutcome(target.path, "failed", error=InputError(message).format(target.path))
    try:
        return decode(data), stamp
    except InputError as exc:
        return FileOutcome(target.path, "failed", error=exc.format(target.path))


def _stamp(st: os.stat_result) -> _Stamp:
    return (st.st_ino, st.st_size, st.st_mtime_ns)


def _unless_changed(sink: Sink, stamp: _Stamp) -> Sink:
    """Refuse to write over a file that was edited while it was being migrated."""

    def write(path: str, data: bytes) -> None:
        if _stamp(os.stat(path)) != stamp:
            raise OSError(0, "the file changed on disk during the run; run again")
        sink(path, data)

    return write


def _work(task: _Task) -> _Done:
    """Migrate one text (in a worker). Never raises for a bad file."""
    return call_deep(lambda: _work_deep(task))


def _work_deep(task: _Task) -> _Done:
    """_work, with room for deep syntax and within the time limit (see migrate/deep.py)."""
    try:
        with time_limit(task.options.file_timeout):
            return _work_limited(task)
    except FileTimeout:
        return _Done(task.index, None, timeout_error(task.options).format(task.path))


def _work_limited(task: _Task) -> _Done:
    from dp2ddp.migrate.migrate_source import migrate_parsed, migrate_source
    from dp2ddp.migrate.parse import parse

    try:
        if task.program is None and task.parsed is None:
            result = migrate_source(task.text, task.options, filename=task.path)
        else:
            tree = parse(task.text) if task.parsed is None else task.parsed
            result = migrate_parsed(
                tree, task.text, task.options, filename=task.path, program=task.program
            )
    except InputError as exc:
        return _Done(task.index, None, exc.format(task.path))
    except RecursionError:
        return _Done(task.index, None, nesting_error(task.text).format(task.path))
    except Exception as exc:  # a dp2ddp bug must not stop the run or touch the file
        return _Done(task.index, None, _internal_error(task.path, exc))
    if result.changed:
        problem = _compile_problem(result.code, task.path)
        if problem is not None and _compile_problem(task.text, task.path) is None:
            message = f"internal error: the migrated code does not compile ({problem})"
            return _Done(task.index, None, one_line(error_line(task.path, message)))
    return _Done(task.index, result, None)


def _finish(path: str, source: SourceFile, done: _Done, sink: Sink | None) -> FileOutcome:
    if done.result is None:
        return FileOutcome(path, "failed", error=done.error)
    result = said(done.result, source.original, source.reindented)
    if not result.changed:
        return FileOutcome(path, "unchanged", result)
    try:
        data = source.encode(result.code)
    except InputError as exc:
        return FileOutcome(path, "failed", result, exc.format(path))
    if sink is not None:
        try:
            sink(path, data)
        except OSError as exc:
            message = f"cannot write: {describe_os_error(exc)}"
            return FileOutcome(path, "failed", result, InputError(message).format(path))
    return FileOutcome(path, "migrated", result)


def _compile_problem(code: str, path: str) -> str | None:
    try:
        compile(code, path, "exec", dont_inherit=True)
    except (SyntaxError, ValueError) as exc:
        line = getattr(exc, "lineno", None)
        return f"line {line}: {exc}" if line else str(exc)
    except (RecursionError, MemoryError) as exc:
        return type(exc).__name__
    return None


def _internal_error(path: str, exc: BaseException) -> str:
    message = f"internal error: {type(exc).__name__}: {exc} (please report this bug)"
    return one_line(error_line(path, message))


# -- scheduling -----------------------------------------------------------------------------
def _run(tasks: list[_Task], jobs: int) -> Iterator[_Done]:
    workers = min(jobs, len(tasks))
    context = _pool_context()
    forked = context.get_start_method() == "fork"
    threshold = POOL_MIN_CHARS_FORK if forked else POOL_MIN_CHARS_SPAWN
    if workers < 2 or sum(len(t.text) for t in tasks) < threshold:
        for task in tasks:
            yield _work(task)
        return
    yield from _run_pool(tasks, workers, context)


def _run_pool(
    tasks: list[_Task], workers: int, context: multiprocessing.context.BaseContext
) -> Iterator[_Done]:
    # Largest first: the slowest files start early, so no core idles at the end.
    ordered = sorted(tasks, key=lambda t: len(t.text), reverse=True)
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

    import dp2ddp.migrate.migrate_source  # noqa: F401  (loaded before forking: workers inherit it)

    executor = ProcessPoolExecutor(workers, mp_context=context, initializer=_ignore_sigint)
    try:
        futures: dict[Future[_Done], _Task] = {executor.submit(_work, t): t for t in ordered}
        pending = set(futures)
        while pending:
            finished, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in finished:
                yield _collect(future, futures[future])
    except BaseException:  # Ctrl-C, or the caller stopped early: do not wait for workers
        _stop_workers(executor)
        raise
    executor.shutdown(wait=True)


def _ignore_sigint() -> None:
    """Workers leave Ctrl-C to the parent, which stops them (they never write files)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _stop_workers(executor: ProcessPoolExecutor) -> None:
    terminate = getattr(executor, "terminate_workers", None)  # Python >= 3.14
    if terminate is None:
        for process in list(getattr(executor, "_processes", {}).values()):
            process.terminate()
    else:
        terminate()
    executor.shutdown(wait=False, cancel_futures=True)


def _collect(future: Future[_Done], task: _Task) -> _Done:
    from concurrent.futures.process import BrokenProcessPool

    try:
        return future.result()
    except BrokenProcessPool:  # a worker died (killed, out of memory): fail its files only
        message = "internal error: the worker process migrating this file died"
        return _Done(task.index, None, error_line(task.path, message))


def _pool_context() -> multiprocessing.context.BaseContext:
    """fork on Linux when single-threaded (workers inherit the imported codemod), else default.
    multiprocessing and concurrent.futures are imported here, when files are migrated: a
    run with nothing to migrate (the pre-commit case) does without them."""
    import multiprocessing

    if sys.platform == "linux" and threading.active_count() == 1:
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context()
