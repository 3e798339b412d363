"""Indentation Python reads but libcst's parser does not: re-indented, proved, and said.

CPython reads a line's indentation as a column (a tab moves to the next multiple of 8) and
only asks that tabs and spaces agree on which lines are deeper. libcst's tokenizer asks
more: a block's indentation must begin with the text of the enclosing block's, and every
statement of a block must begin with the block's text (it keeps the text to print it
back). `    \\t    ` (column 12) inside a block indented by 8 spaces is valid Python that
libcst refuses (jalola/improved-wgan-pytorch@2a3d3d5, stop 43's v2-A): the whole file was
refused, with the error at 1:1.

`reindented` finds the statements libcst would refuse and writes their indentation again,
as the enclosing block's text followed by spaces up to the column Python reads, keeping
every other byte (other lines, continuation lines, comments, strings). The result is used
only if Python's tree of it equals the original's (`ast.dump`): the program is proved the
same. The migration says so in DP110, naming the lines; a file with nothing to migrate is
left as it was, byte for byte.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
import warnings
from dataclasses import dataclass, replace

from dp2ddp.codes import title
from dp2ddp.result import Diagnostic, MigrationResult

#: Only a file whose indentation mixes tabs and spaces, or holds a form feed, can be refused.
_TAB_LED = re.compile(r"^ *\t", re.M)
_SPACE_LED = re.compile(r"^\t* ", re.M)
_FORM_FEED_LED = re.compile(r"^[ \t]*\f", re.M)


@dataclass(frozen=True)
class Reindented:
    """A text libcst reads, proved the same program as the original."""

    text: str
    #: The lines (1-based) whose indentation was written again.
    lines: tuple[int, ...]


def may_be_refused(source: str) -> bool:
    """Whether libcst may refuse `source`'s indentation: a cheap scan of the text."""
    if "\t" not in source and "\f" not in source:
        return False
    if _FORM_FEED_LED.search(source):
        return True
    return bool(_TAB_LED.search(source) and _SPACE_LED.search(source))


def refused_lines(source: str) -> dict[int, str]:
    """Each statement line whose indentation libcst refuses -> the indentation it gets
    instead. Empty when there is none, or when Python cannot read `source` (its own
    error is reported then)."""
    if "\r" in source or not may_be_refused(source):  # CR line ends: passed as they are
        return {}
    try:
        starts = _statement_starts(source)
    except (SyntaxError, tokenize.TokenError, ValueError, RecursionError, MemoryError):
        return {}
    fixed: dict[int, str] = {}
    # (the block's indentation as written, as it is written now, its column)
    blocks: list[tuple[str, str, int]] = [("", "", 0)]
    for line, written in starts:
        col = column(written)
        while len(blocks) > 1 and col < blocks[-1][2]:
            blocks.pop()
        old, new, level = blocks[-1]
        if col > level:  # a block opens: its text must begin with the enclosing block's
            now = written if new == old and written.startswith(old) else new + " " * (col - level)
            blocks.append((written, now, col))
        else:  # a statement of the block: its text must be the block's
            now = written if new == old and written == old else new
        if now != written:
            fixed[line] = now
    return fixed


def reindented(source: str) -> Reindented | None:
    """`source` with the indentation libcst refuses written again (see the module's
    docstring), or None when nothing needs it or the rewrite cannot be proved the same
    program."""
    fixed = refused_lines(source)
    if not fixed:
        return None
    lines = source.split("\n")  # Python's lines (str.splitlines also splits at \f)
    for number, indent in fixed.items():
        text = lines[number - 1]
        body = text.lstrip(" \t\f")
        lines[number - 1] = indent + body
    text = "\n".join(lines)
    if not _same_program(source, text):
        return None
    return Reindented(text, tuple(sorted(fixed)))


def said(result: MigrationResult, original: str, lines: tuple[int, ...]) -> MigrationResult:
    """The migration of a re-indented text as the file's: from `original` (the text as
    read), with DP110 naming the re-indented `lines` where the file changes; unchanged
    (`original` kept byte for byte) where the migration changed nothing."""
    if not lines:
        return result
    if not result.changed:
        return replace(result, source=original, code=original)
    note = Diagnostic(
        lines[0],
        1,
        "DP110",
        f"{title('DP110')}: {_lines(lines)} re-indented as "
        "Python reads it (the enclosing block's indentation, then spaces to the same "
        "column); Python's tree of the file is unchanged",
    )
    diagnostics = sorted((*result.diagnostics, note), key=lambda d: (d.line, d.col, d.code))
    return replace(result, source=original, diagnostics=tuple(diagnostics))


def _lines(lines: tuple[int, ...]) -> str:
    """`lines` as ranges, e.g. "lines 14, 20-25", "line 14"."""
    spans: list[tuple[int, int]] = []
    for line in lines:
        if spans and spans[-1][1] == line - 1:
            spans[-1] = (spans[-1][0], line)
        else:
            spans.append((line, line))
    if len(lines) == 1:
        return f"line {lines[0]}"
    return "lines " + ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in spans)


def column(indent: str) -> int:
    """The column Python's tokenizer reads `indent` as (a tab to the next multiple of 8, a
    form feed back to 0), as libcst's does."""
    col = 0
    for char in indent:
        if char == "\t":
            col = (col // 8 + 1) * 8
        elif char == "\f":
            col = 0
        else:
            col += 1
    return col


def _statement_starts(source: str) -> list[tuple[int, str]]:
    """(line, indentation) of each logical line: the whitespace before its first token.
    Lines inside brackets, strings or after a backslash are not statements' starts."""
    starts: list[tuple[int, str]] = []
    at_start = True
    skipped = {tokenize.NL, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT}
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type in skipped or token.type == tokenize.ENDMARKER:
            continue
        if at_start:
            starts.append((token.start[0], token.line[: token.start[1]]))
            at_start = False
        if token.type == tokenize.NEWLINE:
            at_start = True
    return starts


def _same_program(before: str, after: str) -> bool:
    """Python's trees of the two texts are equal (positions aside: columns moved)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ast.dump(ast.parse(before)) == ast.dump(ast.parse(after))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
