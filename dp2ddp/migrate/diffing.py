"""Unified diffs for `migrate --diff`, optionally coloured (red removals, green additions)."""

from __future__ import annotations

import difflib

import click

_NO_NEWLINE = "\\ No newline at end of file\n"


def unified_diff(before: str, after: str, path: str) -> str:
    """A unified diff of one file that `patch -p0` applies ("" if equal)."""
    lines = difflib.unified_diff(
        _lines(before),
        _lines(after),
        fromfile=f"{path}\t(original)",
        tofile=f"{path}\t(migrated)",
    )
    return "".join(lines)


def _lines(text: str) -> list[str]:
    """Lines split on "\\n" only (str.splitlines would also split at form feeds)."""
    if not text:
        return []
    lines = [line + "\n" for line in text.split("\n")]
    if lines[-1] == "\n":
        lines.pop()  # the text ended with a newline
    else:
        lines[-1] += _NO_NEWLINE  # as diff(1) marks a missing final newline
    return lines


def colorize(diff: str) -> str:
    """ANSI colours for one file's unified diff: bold headers, cyan hunks, red -, green +."""
    out: list[str] = []
    for number, line in enumerate(diff.split("\n")):
        if number < 2 and line.startswith(("--- ", "+++ ")):
            line = click.style(line, bold=True)
        elif line.startswith("@@"):
            line = click.style(line, fg="cyan")
        elif line.startswith("-"):
            line = click.style(line, fg="red")
        elif line.startswith("+"):
            line = click.style(line, fg="green")
        out.append(line)
    return "\n".join(out)
