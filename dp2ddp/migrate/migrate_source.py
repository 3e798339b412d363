"""`migrate_source`: the pure string-in, string-out core (no file I/O, no printing)."""

from __future__ import annotations

import libcst as cst
from libcst.codemod import CodemodContext

from dp2ddp.facts import ProgramFacts
from dp2ddp.migrate.deep import call_deep, nesting_error
from dp2ddp.migrate.linemap import LineMap
from dp2ddp.migrate.parse import parse
from dp2ddp.migrate.pipeline import CHECKS_ONLY, PIPELINE
from dp2ddp.migrate.tidy import tidy
from dp2ddp.options import MigrateOptions
from dp2ddp.result import Change, Diagnostic, MigrationResult
from dp2ddp.transforms._support.base import MigrationState, RawReport


def migrate_source(
    source: str,
    options: MigrateOptions | None = None,
    *,
    filename: str | None = None,
    program: ProgramFacts | None = None,
) -> MigrationResult:
    """Migrate one file's text from DataParallel to DDP.

    Raises InputError when `source` is not valid Python. Returns the source unchanged
    (byte for byte) when it has nothing dp2ddp migrates. `program`: what the file's program
    tells it (dp2ddp/facts.py: its role, the program-wide gate, hints, helpers that draw,
    loaders); None: a single file.
    """
    try:
        return call_deep(
            lambda: migrate_parsed(
                parse(source), source, options, filename=filename, program=program
            )
        )
    except RecursionError:  # deeper than call_deep's room (migrate/deep.py)
        raise nesting_error(source) from None


def migrate_parsed(
    module: cst.Module,
    source: str,
    options: MigrateOptions | None = None,
    *,
    filename: str | None = None,
    program: ProgramFacts | None = None,
) -> MigrationResult:
    """`migrate_source` on a tree already parsed from `source` (the project model parses
    a module once, to find DataParallel, and migrates that tree)."""
    options = options or MigrateOptions()
    state = MigrationState(options=options, facts=program or ProgramFacts())
    code = source
    line_map = LineMap()
    warnings: list[Diagnostic] = []
    changes: list[Change] = []
    for transform_class in PIPELINE:
        if not transform_class.triggered(code, state):
            continue
        if state.checks_only and transform_class not in CHECKS_ONLY:
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
        # A pass that changed nothing hands back the tree it was given (copy-on-write
        # visiting, transforms/_support/visiting.py): no code to generate and compare.
        if new_module is not module:
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
    factories = tuple(state.evaluation_factories) if code != source else ()
    return MigrationResult(source, code, tuple(warnings), tuple(changes), exports, factories)


def _remap(reports: list[RawReport], line_map: LineMap) -> list[Diagnostic]:
    return [
        Diagnostic(
            line_map(r.line), r.col, r.code, r.message, tuple(_remap(list(r.places), line_map))
        )
        for r in reports
    ]
