"""Which files this process opens for writing (`--to-end`: a file is written once, not once
per rank). Runs inside the user's processes.

Why an audit hook (`sys.addaudithook`, event "open") rather than patching `open`: the event is
raised inside CPython's own `open`, `io.open` and `os.open`, so it also sees the writers that
captured `open` before we could patch it (logging's FileHandler), `pathlib`, `numpy.save`,
`shutil.copy` and any alias the script made. It costs one Python call per file opened, nothing
per training step. Why not compare the run's folder before and after: every rank of a real
launch shares one working directory, so a file written by two ranks is still one file there.
`torch.save` to a path opens the file in C++ (no audit event), so it is wrapped as well. A C
extension that opens files by itself (safetensors, h5py) is not seen.

Two more things a rank must share with the others are recorded the same way (issue 29): the
directories it makes (audit event "os.mkdir", also raised by os.makedirs and pathlib) and
whether it read stdin (audit event "builtins.input", and sys.stdin's own read methods
through a thin wrapper): a rank other than rank 0 making a directory rank 0 did not is a
second run directory; a rank other than rank 0 reading stdin gets a line rank 0 did not (or
end of file, or waits at a terminal).

A file a process opens only to append to (`logging.FileHandler`'s default mode "a") is
written only if bytes went in: a rank other than rank 0 builds the same handler on the same
log file, and its logger (quieted off rank 0) writes no line (ZhengkunTian/rnn-transducer
@317ec9a: "`train.log` by ranks 0, 1" while rank 1 wrote nothing). So an append-only open
counts when this process's descriptor of the file moved past where it was opened, or, one
of its opens closed again, when the file changed since the first (any rank's bytes:
counted, as not told apart). Bytes still in a Python buffer when the script ends are not
seen (a file object flushed at exit only). Any other open for writing counts, as it may
truncate or overwrite.
"""

from __future__ import annotations

import functools
import os
import stat
import sys
from collections.abc import Callable
from typing import Any

#: Flags of an open that may write (os.open's flags; io.open reports them too).
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
#: Writes that are no output of the script: devices, bytecode, lock files, shared caches.
_IGNORED_PREFIXES = ("/dev/", "/proc/", "/sys/")
_IGNORED_PARTS = ("/__pycache__/", "/torchinductor_", "/.triton/", "/triton/cache/")
_IGNORED_SUFFIXES = (".pyc", ".lock")


def ignored_write(path: str, ignored_roots: tuple[str, ...]) -> bool:
    """Writes that say nothing about the script's outputs (absolute, normalised `path`)."""
    if path.startswith(_IGNORED_PREFIXES) or path.endswith(_IGNORED_SUFFIXES):
        return True
    if any(part in path for part in _IGNORED_PARTS):
        return True
    return any(
        path == root or path.startswith(root.rstrip(os.sep) + os.sep) for root in ignored_roots
    )


class WriteLog:
    """The absolute paths this process opened for writing, in first-write order."""

    def __init__(self, ignored_roots: tuple[str, ...]) -> None:
        cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        self.ignored_roots = tuple(os.path.abspath(r) for r in (*ignored_roots, cache))
        self.paths: dict[str, None] = {}
        #: Paths opened append-only: the file's (size, mtime_ns) at each such open, None
        #: where it did not exist yet; `overwritten`: the paths opened any other way.
        self.appended: dict[str, list[tuple[int, int] | None]] = {}
        self.overwritten: set[str] = set()
        #: Directories this process made (asked to make: an existing one counts), in order.
        self.directories: dict[str, None] = {}
        #: Reads of stdin by this process (input(), sys.stdin.read/readline/readlines/iter).
        self.stdin_reads = 0

    def record(self, path: object, flags: int | None = None) -> None:
        """A file opened for writing (`flags`: the open's, None for a write of its own, such
        as torch.save)."""
        if not isinstance(path, str | bytes | os.PathLike):  # a file descriptor, ...
            return
        name = os.fsdecode(os.fspath(path))
        absolute = os.path.abspath(name)
        if absolute in self.overwritten or ignored_write(absolute, self.ignored_roots):
            return
        self.paths.setdefault(absolute, None)
        if flags is not None and flags & os.O_APPEND and not flags & os.O_TRUNC:
            self.appended.setdefault(absolute, []).append(_state(absolute))
        else:
            self.overwritten.add(absolute)

    def outputs(self) -> list[str]:
        """The written files that still exist (a temporary file removed again is no output),
        not those only opened to append to that got no byte from this process. A directory
        is no file written: `tempfile.TemporaryFile(dir=d)` opens `d` itself for writing
        (O_TMPFILE: a file without a name, gone at close), as numba does to test that a
        cache folder is writable (adiyoss/GCommandsPytorch@af9ccfd through librosa: "files
        written by more than one rank: /tmp, librosa/__pycache__ by ranks 0, 1")."""
        return [
            path
            for path in self.paths
            if os.path.lexists(path) and not os.path.isdir(path) and self.wrote(path)
        ]

    def wrote(self, path: str) -> bool:
        """This process wrote into `path` (see the module's docstring)."""
        if path in self.overwritten or path not in self.appended:
            return True
        opened = self.appended[path]
        positions = _positions(path)
        if positions is None:  # not told (no /proc): counted
            return True
        # where an unwritten descriptor stands: where it was opened
        unmoved = {0, *(state[0] for state in opened if state is not None)}
        if any(position not in unmoved for position in positions):
            return True
        if len(positions) >= len(opened):  # every open still open, none moved
            return False
        now = _state(path)  # one closed again: the file changed since the first open
        return now != opened[0] and not (opened[0] is None and now is not None and not now[0])

    def made_directories(self) -> list[str]:
        """The directories this process made that still exist."""
        return [path for path in self.directories if os.path.isdir(path)]

    def _audit(self, event: str, args: tuple[Any, ...]) -> None:
        if event == "open" and len(args) == 3 and isinstance(args[2], int):
            if args[2] & _WRITE_FLAGS and not _fails_exclusive(args[0], args[2]):
                self.record(args[0], args[2])
        elif event == "os.mkdir" and args and isinstance(args[0], str | bytes | os.PathLike):
            path = os.path.abspath(os.fsdecode(os.fspath(args[0])))
            if not ignored_write(path, self.ignored_roots):
                self.directories[path] = None
        elif event == "builtins.input":
            self.stdin_reads += 1

    def install(self) -> None:
        sys.addaudithook(self._audit)
        if sys.stdin is not None:
            sys.stdin = _CountedStdin(sys.stdin, self)
        import torch

        native: Callable[..., Any] = torch.save

        @functools.wraps(native)
        def save(obj: object, f: Any, *args: Any, **kwargs: Any) -> Any:
            if isinstance(f, str | bytes | os.PathLike):
                self.record(f)
            return native(obj, f, *args, **kwargs)

        torch.save = save
        torch.serialization.save = save


def _fails_exclusive(path: object, flags: int) -> bool:
    """An exclusive create (`open(p, "x")`: O_CREAT | O_EXCL) of a file that exists: it
    raises FileExistsError and writes nothing. The audit event comes before the open, so
    such an attempt was counted as a write (round 30, James-Teng/SRGAN@5fe7359: "files
    written by more than one rank: task_record/register_list.csv", which rank 1 only
    failed to create)."""
    exclusive = os.O_CREAT | os.O_EXCL
    if flags & exclusive != exclusive or not isinstance(path, str | bytes | os.PathLike):
        return False
    return os.path.lexists(os.fsdecode(os.fspath(path)))


def _state(path: str) -> tuple[int, int] | None:
    """The file's size and modification time, None where it does not exist."""
    try:
        found = os.stat(path)
    except OSError:
        return None
    return found.st_size, found.st_mtime_ns


def _positions(path: str) -> list[int] | None:
    """Where each of this process's open descriptors of the file `path` stands; None where
    the open descriptors cannot be listed (no /proc)."""
    try:
        wanted = os.stat(path)
        descriptors = os.listdir("/proc/self/fd")
    except OSError:
        return None
    positions = []
    for name in descriptors:
        try:
            found = os.fstat(int(name))
            if stat.S_ISREG(found.st_mode) and (found.st_dev, found.st_ino) == (
                wanted.st_dev,
                wanted.st_ino,
            ):
                positions.append(os.lseek(int(name), 0, os.SEEK_CUR))
        except (OSError, ValueError):
            continue
    return positions


class _CountedStdin:
    """sys.stdin, counting the reads made through its methods (input() is counted by its
    audit event; it reads through sys.stdin only when that is not the terminal, so both
    counts are taken, and a read counts at least once)."""

    def __init__(self, stream: Any, log: WriteLog) -> None:
        self._stream = stream
        self._log = log

    def _count(self) -> None:
        self._log.stdin_reads += 1

    def read(self, *args: Any) -> Any:
        self._count()
        return self._stream.read(*args)

    def readline(self, *args: Any) -> Any:
        self._count()
        return self._stream.readline(*args)

    def readlines(self, *args: Any) -> Any:
        self._count()
        return self._stream.readlines(*args)

    def __iter__(self) -> Any:
        self._count()
        return iter(self._stream)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)
