"""A progress bar on stderr for long runs, shown only when a person is watching (a tty)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TextIO

import click

from dp2ddp.migrate.files import Progress

#: Below this many files a run is short enough that a bar is only noise.
MIN_FILES = 20


def wanted(stream: TextIO, total: int, quiet: bool) -> bool:
    """A bar is drawn for many files on an interactive stderr, never when quiet or piped."""
    if quiet or total < MIN_FILES:
        return False
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


@contextmanager
def progress_bar(stream: TextIO, total: int, quiet: bool) -> Iterator[Progress | None]:
    """Yield an `advance(n)` callback drawing on `stream`, or None when no bar is wanted."""
    if not wanted(stream, total, quiet):
        yield None
        return
    with click.progressbar(
        length=total, label="Migrating", file=stream, show_pos=True, width=30
    ) as bar:
        yield bar.update
