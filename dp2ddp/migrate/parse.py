"""Parsing a file's text: libcst's tree, and errors reported as Python reports them.

A leaf module (it imports no pass and no pipeline), so discovery and the program model can
report syntax errors without importing the migration engine; libcst itself is imported by
`parse` only, so a run that parses nothing never loads it (a no-op run stays instant).
"""

from __future__ import annotations

import ast
import warnings
from typing import TYPE_CHECKING

from dp2ddp.errors import InputError
from dp2ddp.migrate.deep import too_deep, usual_depth
from dp2ddp.migrate.reindent import refused_lines

if TYPE_CHECKING:
    import libcst as cst


def parse(source: str) -> cst.Module:
    """Parse `source`, turning a syntax error into a one-line InputError.

    The error is Python's own (`'(' was never closed` at the parenthesis), as `python` and
    editors report it: libcst's is where its parser gave up, often lines later, with a long
    "expected one of" list. libcst's is reported only when Python accepts the code.
    """
    deep = too_deep(source)
    if deep is not None:
        raise deep
    import libcst as cst  # here, not above: discovery reports syntax errors without libcst

    try:
        with usual_depth():  # deep nesting is for the passes, not for libcst's parser
            return cst.parse_module(source)
    except cst.ParserSyntaxError as exc:
        python = python_syntax_error(source)
        if python is not None:
            raise python from None
        refused = refused_lines(source)
        if refused:  # reindented() could not prove its rewrite: say where and why
            line = min(refused)
            message = (
                "cannot parse: this line's indentation mixes tabs and spaces in a way "
                "libcst's parser cannot read (it must begin with the enclosing block's "
                "indentation); valid Python: write it with the same characters as the "
                "enclosing block's"
            )
            raise InputError(message, line, 1) from None
        message = str(exc.message).strip().splitlines()[0] if exc.message else "invalid syntax"
        message = f"cannot parse: {message} (valid Python, but not to libcst's parser)"
        raise InputError(message, exc.raw_line, exc.raw_column + 1) from None
    except (RecursionError, MemoryError) as exc:  # pathological nesting
        raise InputError(f"cannot parse: {type(exc).__name__}") from None


def python_syntax_error(source: str) -> InputError | None:
    """Python's SyntaxError for `source` (message, line, 1-based column), or None if none."""
    try:
        with warnings.catch_warnings():  # SyntaxWarnings of code that is rejected anyway
            warnings.simplefilter("ignore")
            compile(source, "<source>", "exec", flags=ast.PyCF_ONLY_AST, dont_inherit=True)
    except SyntaxError as exc:  # IndentationError and TabError too
        line, col = exc.lineno, exc.offset
        if line is None and "\0" in source:  # "cannot contain null bytes": say where
            before = source[: source.index("\0")]
            line, col = before.count("\n") + 1, len(before) - before.rfind("\n")
        return InputError(exc.msg, line or 1, col or 1)
    except (ValueError, RecursionError, MemoryError):  # null bytes (some versions); nesting
        return None
    return None
