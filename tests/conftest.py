"""Shared test helpers: the golden-fixture root and the harness that runs one pass alone.

Golden fixtures live in tests/fixtures/<case>/ (see test_fixtures.py for the layout); a case's
name starts with the NAME of the transform its author tests (`data_`, `rank_zero_`, ...).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import libcst as cst
from libcst.codemod import CodemodContext

from dp2ddp.options import MigrateOptions
from dp2ddp.result import Diagnostic
from dp2ddp.transforms._support.base import MigrationState, MigrationTransform

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"


def fixture_cases(prefix: str = "", *, migrated: bool = False) -> list[str]:
    """Names of the golden fixtures starting with `prefix` (only those with an expected.py
    when `migrated`), sorted."""
    return sorted(
        p.name
        for p in FIXTURES.iterdir()
        if p.name.startswith(prefix)
        and (p / "input.py").is_file()
        and (not migrated or (p / "expected.py").is_file())
    )


def warning_lines(diagnostics: Iterable[Diagnostic]) -> str:
    """The warnings.txt text for `diagnostics`: one `line:col CODE message` line each."""
    return "".join(f"{d.line}:{d.col} {d.code} {d.message}\n" for d in diagnostics)


def codes_in(warnings_txt: str) -> list[str]:
    """The codes of a warnings.txt text, in order."""
    return [line.split()[1] for line in warnings_txt.splitlines() if line.strip()]


def run_pass(
    transform: type[MigrationTransform],
    source: str,
    options: MigrateOptions | None = None,
) -> tuple[str, MigrationState]:
    """Run one pass alone on `source`, as if the file used DataParallel (what the pipeline
    guarantees before any pass after detect runs); returns the code and the state."""
    state = MigrationState(options=options or MigrateOptions(), has_dataparallel=True)
    module = transform(CodemodContext(), state).transform_module(cst.parse_module(source))
    return module.code, state
