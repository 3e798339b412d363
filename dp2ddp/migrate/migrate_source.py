"""`migrate_source`: the pure string-in, string-out core (no file I/O, no printing)."""

from __future__ import annotations

import ast
import warnings
from collections.abc import Mapping

import libcst as cst
from libcst.codemod import CodemodContext

from dp2ddp.errors import InputError
from dp2ddp.migrate.linemap import LineMap
from dp2ddp.migrate.pipeline import PIPELINE
from dp2ddp.migrate.tidy import tidy
from dp2ddp.options import MigrateOptions
from dp2ddp.program.context import HelperDraw, ProgramContext, ProgramHints, ProgramLoaders
from dp2ddp.result import Change, Diagnostic, MigrationResult
from dp2ddp.transforms._support.base import MigrationState, RawReport


def parse(source: str) -> cst.Module:
    """Parse `source`, turning a syntax error into a one-line InputError.

    The error is Python's own (`'(' was never closed` at the parenthesis), as `python` and
    editors report it: libcst's is where its parser gave up, often lines later, with a long
    "expected one of" list. libcst's is reported only when Python accepts the code.
    """
    try:
        return cst.parse_module(source)
    except cst.ParserSyntaxError as exc:
        python = python_syntax_error(source)
        if python is not None:
            raise python from None
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


def migrate_source(
    source: str,
    options: MigrateOptions | None = None,
    *,
    filename: str | None = None,
    program: ProgramContext | None = None,
    parsed: cst.Module | None = None,
    hints: ProgramHints | None = None,
    random_helpers: Mapping[str, HelperDraw] | None = None,
    loaders: ProgramLoaders | None = None,
) -> MigrationResult:
    """Migrate one file's text from DataParallel to DDP.

    Raises InputError when `source` is not valid Python. Returns the source unchanged
    (byte for byte) when it has nothing dp2ddp migrates. `program` migrates the file as a
    module of a multi-module program (see dp2ddp/program/context.py); None: a single file.
    `parsed` is `source` already parsed (program analysis parsed it to find DataParallel).
    `hints`: what the program's other modules tell this one (program mode; see
    ProgramHints). `random_helpers`: the program's functions in other modules that draw
    random numbers. `loaders`: what the rest of the program tells the data pass
    (ProgramLoaders: loaders sharded in other modules, modules discovery could not follow).
    """
    options = options or MigrateOptions()
    module = parse(source) if parsed is None else parsed
    state = MigrationState(
        options=options,
        program=program,
        random_helpers=random_helpers or {},
        loaders=loaders or ProgramLoaders(),
    )
    if hints is not None:
        state.hints = hints
    code = source
    line_map = LineMap()
    warnings: list[Diagnostic] = []
    changes: list[Change] = []
    for transform_class in PIPELINE:
        if not transform_class.triggered(code, state):
            continue
        seen_warnings, seen_changes = len(state.warnings), len(state.changes)
        # A fresh context per pass: libcst re-runs the import visitors of every import a
        # context has ever scheduled, so a shared one would redo that work in each pass.
        context = CodemodContext(filename=filename)
        state.text = code
        new_module = transform_class(context, state).transform_module(module)
        warnings.extend(_remap(state.warnings[seen_warnings:], line_map))
        changes.extend(
            Change(r.code, d.line, r.message)
            for r, d in zip(
                state.changes[seen_changes:],
                _remap(state.changes[seen_changes:], line_map),
                strict=True,
            )
        )
        new_code = new_module.code
        if new_code != code:
            line_map = line_map.then(code, new_code)
            code = new_code
            module = new_module
        elif not new_module.deep_equals(module):
            module = new_module
        # else the pass left the tree as it was: keep the same object, so the next pass
        # reuses its metadata (state.metadata) instead of resolving it again.
        if state.skip or not state.has_dataparallel:
            break  # every later pass only acts on DataParallel uses
    if state.skip or not state.has_dataparallel:
        # Nothing was migrated: keep the input byte for byte, report only why.
        code = source
        changes = []
    else:
        code = tidy(source, code)  # imports in isort's places, new long lines wrapped
    warnings.sort(key=lambda d: (d.line, d.col, d.code))
    exports = tuple(state.exports) if code != source else ()
    return MigrationResult(source, code, tuple(warnings), tuple(changes), exports)


def _remap(reports: list[RawReport], line_map: LineMap) -> list[Diagnostic]:
    return [Diagnostic(line_map(r.line), r.col, r.code, r.message) for r in reports]
