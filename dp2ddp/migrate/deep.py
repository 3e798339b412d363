"""Room for deep syntax: one file's migration on a large stack, and the error when even
that is not enough.

libcst's visitors and printer, and the passes' walks, recurse once per level of the syntax
tree (two or three Python frames a level). An expression continued over 500 lines with `\\`
is a chain of 500 nested binary operations: past Python's default limit of 1,000 frames,
so the migration ended in a RecursionError traceback (issue 30). `call_deep` runs the work
in a thread with a 512 MiB stack (address space: only the pages touched are used) and a
recursion limit of 60,000 frames while it runs; a file deeper than that fails alone, with
`too deeply nested at line N` (`nesting_error`), exit 2 as any input error.
"""

from __future__ import annotations

import ast
import ctypes
import gc
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TypeVar

from dp2ddp.errors import InputError
from dp2ddp.options import MigrateOptions

_T = TypeVar("_T")


class FileTimeout(BaseException):
    """A file's migration ran past its time limit (`time_limit`). A BaseException, so the
    `except Exception` of the code it interrupts does not swallow it."""


#: Frames allowed while a migration runs in the large-stack thread.
RECURSION_LIMIT = 60_000
#: That thread's stack (bytes). CPython's C frames take well under 8 KiB a level.
STACK_BYTES = 512 * 1024 * 1024

_inside = threading.local()
_lock = threading.Lock()


def call_deep(work: Callable[[], _T]) -> _T:
    """`work()`, run with room for RECURSION_LIMIT frames; its exceptions are re-raised here.

    Nested calls run in place. Calls from several threads at once take turns (the limit is
    the interpreter's, not the thread's)."""
    if getattr(_inside, "active", False):
        return work()
    outcome: list[_T] = []
    failure: list[BaseException] = []

    def run() -> None:
        _inside.active = True
        _inside.limit = limit
        try:
            with fewer_collections():
                outcome.append(work())
        except BaseException as exc:  # handed to the caller's thread
            failure.append(exc)

    with _lock:
        limit = sys.getrecursionlimit()
        sys.setrecursionlimit(max(limit, RECURSION_LIMIT))
        try:
            thread = threading.Thread(target=run, name="dp2ddp-deep", daemon=True)
            previous_stack = threading.stack_size()
            try:
                threading.stack_size(STACK_BYTES)  # read when the thread starts
                thread.start()
            except (RuntimeError, ValueError, MemoryError):  # no large stack here
                started = False
            else:
                started = True
            finally:
                threading.stack_size(previous_stack)
            if not started:
                sys.setrecursionlimit(limit)
                return work()
            thread.join()
        finally:
            sys.setrecursionlimit(limit)
    if failure:
        raise failure[0]
    return outcome[0]


#: The collector's thresholds while a file is migrated (CPython's default: 700, 10, 10).
FEWER_COLLECTIONS = (100_000, 50, 1_000)


@contextmanager
def fewer_collections() -> Iterator[None]:
    """The cyclic garbage collector runs rarely while one file is migrated, as mypy's build
    does. A file's libcst trees are hundreds of thousands of live objects, nearly all freed
    by reference counting; each full collection walks all of them, so the collector's cost
    grew faster than the file (bench_size, 20k lines: 14.6 CPU s, 11.8 s without collections,
    same peak memory). The caller's thresholds come back afterwards."""
    before = gc.get_threshold()
    gc.set_threshold(*FEWER_COLLECTIONS)
    try:
        yield
    finally:
        gc.set_threshold(*before)


@contextmanager
def usual_depth() -> Iterator[None]:
    """The recursion limit of the caller of call_deep, for libcst's parser: given more room,
    it parses a long one-line expression in quadratic time (5,000 terms: 90 s) where with
    the usual limit it gives up within a second (a one-line "cannot parse" error)."""
    usual = getattr(_inside, "limit", None) if getattr(_inside, "active", False) else None
    if usual is None:
        yield
        return
    deep = sys.getrecursionlimit()
    sys.setrecursionlimit(usual)
    try:
        yield
    finally:
        sys.setrecursionlimit(deep)


#: Levels of syntax nesting a file may have (a chain of 1,000 `+` on one line is 1,000 levels):
#: libcst parses a long chain in quadratic time (5,000 terms: over a minute).
MAX_NESTING = 1_000


def too_deep(source: str) -> InputError | None:
    """`too deeply nested at line N` when `source` nests deeper than MAX_NESTING, else None.

    Only files with a physical line of MAX_NESTING characters, or many `\\` continuations,
    can (a nesting level takes at least one character, and Python allows 200 open brackets,
    100 indentation levels): the others cost one scan of the text."""
    if max(map(len, source.splitlines()), default=0) < MAX_NESTING and (
        source.count("\\\n") < MAX_NESTING // 4
    ):
        return None
    deepest = _deepest(source, MAX_NESTING)
    if deepest is None or deepest[0] <= MAX_NESTING:
        return None
    return InputError(f"too deeply nested at line {deepest[1]}", deepest[1])


#: A file nested no deeper than this (levels of Python's tree) cannot use up
#: RECURSION_LIMIT frames: a RecursionError on it is a dp2ddp bug, not the file's depth.
SHALLOW_LEVELS = 300


def nesting_error(source: str) -> InputError:
    """The one-line error for a file nested deeper than the migration can follow: at the
    line of its deepest node (by an iterative walk of Python's own tree). A shallow file
    (a recursion without end in a pass: RAFT's `while flag:` loop in stop 34 was reported
    as "too deeply nested at line 169") gets an internal error that says so instead."""
    deepest = _deepest(source)
    line = deepest[1] if deepest is not None else 1
    if deepest is not None and deepest[0] <= SHALLOW_LEVELS:
        return InputError(
            f"internal error: the migration recursed without end, though the file nests only "
            f"{deepest[0]} levels (please report this bug)",
            1,
        )
    return InputError(f"too deeply nested at line {line}", line)


def _deepest(source: str, stop: int | None = None) -> tuple[int, int] | None:
    """(depth, line) of the deepest node of Python's tree of `source` (the first line at
    that depth), or of the first node deeper than `stop`; None when Python cannot parse it."""
    try:
        tree = call_deep(lambda: ast.parse(source))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    best_depth, best_line = 0, 1
    stack: list[tuple[ast.AST, int]] = [(tree, 0)]
    while stack:
        node, depth = stack.pop()
        line = getattr(node, "lineno", None)
        if line is not None and (depth, -line) > (best_depth, -best_line):
            best_depth, best_line = depth, line
            if stop is not None and depth > stop:
                break
        stack.extend((child, depth + 1) for child in ast.iter_child_nodes(node))
    return best_depth, best_line


@contextmanager
def time_limit(seconds: float | None) -> Iterator[None]:
    """Raise FileTimeout in this thread when the body runs longer than `seconds` (None: no
    limit). The exception arrives at the next Python instruction: a long call into C (a
    regular expression, libcst's native parser) finishes first."""
    if not seconds:
        yield
        return
    target = ctypes.c_ulong(threading.get_ident())
    lock = threading.Lock()
    state = {"done": False, "fired": False}

    def fire() -> None:
        with lock:
            if not state["done"]:
                state["fired"] = True
                ctypes.pythonapi.PyThreadState_SetAsyncExc(target, ctypes.py_object(FileTimeout))

    timer = threading.Timer(seconds, fire)
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        timer.cancel()
        with lock:
            state["done"] = True
            fired = state["fired"]
        if fired:  # delivered, or still pending: clear it and raise it here, once
            ctypes.pythonapi.PyThreadState_SetAsyncExc(target, None)
            raise FileTimeout


def timeout_error(options: MigrateOptions) -> InputError:
    """The one-line error of a file whose migration ran past options.file_timeout."""
    return InputError(
        f"stopped after {options.file_timeout:g} s, the per-file limit "
        "(--file-timeout, file-timeout in [tool.dp2ddp]); the file is left as it was"
    )
