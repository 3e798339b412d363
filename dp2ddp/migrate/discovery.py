"""Turn the paths given on the command line into the list of files to migrate.

Directories are walked recursively for `*.py`, in sorted order so runs are reproducible,
skipping version-control, virtual-environment, cache and build folders, and what the
folder's .gitignore excludes (dp2ddp/gitignore.py; a file named explicitly is still taken).
Symbolic links to folders are not followed (no loops, no escaping the tree); links to files
are. A file reached twice (given twice, or through a link) is listed once, so two workers
never write it at once.
Paths that cannot be used become targets carrying a one-line error instead of stopping the run.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fnmatch import fnmatchcase

from dp2ddp.errors import InputError
from dp2ddp.gitignore import Ignored, ignored_under

#: Folder names never walked into (a folder named explicitly on the command line still is).
SKIPPED_DIRS = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        ".venv",
        "venv",
        "__pycache__",
        "build",
        "dist",
        ".tox",
        ".nox",
        ".eggs",
        "node_modules",
        "site-packages",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
    }
)


@dataclass(frozen=True)
class Target:
    """One file to migrate, or a path that failed before reading (then `error` is set)."""

    path: str
    error: str | None = None
    #: Named on the command line (rather than found by walking a folder).
    explicit: bool = False


def describe_os_error(exc: OSError) -> str:
    """A short lower-case reason for an OSError, without the path (the caller prints it)."""
    if exc.errno == errno.ENOENT:
        return "no such file or directory"
    if exc.errno == errno.ELOOP:
        return "symbolic link loop (too many levels of symbolic links)"
    reason = exc.strerror or type(exc).__name__
    return reason[:1].lower() + reason[1:]


def failed(path: str, message: str, *, explicit: bool = False) -> Target:
    return Target(path, InputError(message).format(path), explicit)


def discover(
    paths: Sequence[str],
    exclude: Sequence[str] = (),
    suffix: str = ".py",
    skipped: list[str] | None = None,
) -> list[Target]:
    """Targets for `paths` in order: files as given, folders walked for `suffix` files,
    without what their .gitignore excludes (appended to `skipped`: folders and `suffix`
    files). Never raises OSError."""
    patterns = [p.rstrip("/") or p for p in exclude]
    targets: list[Target] = []
    seen: set[str] = set()
    for path in paths:
        for target in _expand(path, patterns, suffix, [] if skipped is None else skipped):
            if target.error is None:
                real = os.path.realpath(target.path)
                if real in seen:
                    continue
                seen.add(real)
            targets.append(target)
    return targets


def _expand(
    path: str, patterns: Sequence[str], suffix: str, skipped: list[str]
) -> Iterable[Target]:
    try:
        mode = os.stat(path).st_mode
    except OSError as exc:
        yield failed(path, describe_os_error(exc), explicit=True)
        return
    if stat.S_ISDIR(mode):
        walk = _Walk(patterns, suffix, ignored_under(path), skipped)
        yield from walk(path, "")
    elif stat.S_ISREG(mode):
        yield Target(path, explicit=True)  # named explicitly: always processed
    else:
        yield failed(path, "not a regular file", explicit=True)


@dataclass(frozen=True)
class _Walk:
    patterns: Sequence[str]
    suffix: str
    ignored: Ignored
    skipped: list[str]

    def __call__(self, folder: str, relative: str) -> Iterable[Target]:
        try:
            with os.scandir(folder) as scan:
                entries = sorted(scan, key=lambda e: e.name)
        except OSError as exc:
            yield failed(folder, f"cannot list folder: {describe_os_error(exc)}")
            return
        for entry in entries:
            rel = f"{relative}/{entry.name}" if relative else entry.name
            # "./a.py" reads better as "a.py" (and names the same file).
            path = entry.name if folder == os.curdir else entry.path
            if _excluded(entry.name, rel, path, self.patterns):
                continue
            try:
                if entry.is_dir(follow_symlinks=False):
                    if entry.name not in SKIPPED_DIRS and not is_virtualenv(entry.path):
                        if path in self.ignored:
                            self.skipped.append(path + "/")
                            continue
                        yield from self(path, rel)
                elif entry.name.endswith(self.suffix):
                    if path in self.ignored:
                        self.skipped.append(path)
                    elif entry.is_file():  # follows a link to a file
                        yield Target(path)
                    elif entry.is_symlink():
                        os.stat(path)  # a link to a folder: not followed; else raises
            except OSError as exc:  # dangling link, link loop, entry vanished
                yield failed(path, describe_os_error(exc))


def is_virtualenv(folder: str) -> bool:
    """A folder holding pyvenv.cfg is a virtual environment: never project code."""
    return os.path.isfile(os.path.join(folder, "pyvenv.cfg"))


def _excluded(name: str, rel: str, full: str, patterns: Sequence[str]) -> bool:
    """A pattern matches the entry's name, its path below the walked folder, or its full path."""
    full = full.replace(os.sep, "/")
    return any(
        fnmatchcase(name, p) or fnmatchcase(rel, p) or fnmatchcase(full, p) for p in patterns
    )
