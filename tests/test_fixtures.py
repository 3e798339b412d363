"""Golden fixtures, discovered by directory (torchfix-style).

tests/fixtures/<case>/input.py      the DataParallel script
tests/fixtures/<case>/expected.py   the migration; absent = the input must stay unchanged
tests/fixtures/<case>/warnings.txt  optional: expected `line:col CODE` lines, in order
tests/fixtures/<case>/options.json  optional: MigrateOptions fields

Regenerate expectations after a deliberate change with DP2DDP_UPDATE_GOLDEN=1.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from dp2ddp import MigrateOptions, migrate_source

FIXTURES = Path(__file__).parent / "fixtures"
CASES = sorted(p.name for p in FIXTURES.iterdir() if (p / "input.py").is_file())
UPDATE = os.environ.get("DP2DDP_UPDATE_GOLDEN") == "1"


def _options(case: Path) -> MigrateOptions:
    path = case / "options.json"
    return MigrateOptions(**json.loads(path.read_text())) if path.exists() else MigrateOptions()


def _warnings(result_diagnostics: tuple) -> str:  # type: ignore[type-arg]
    return "".join(f"{d.line}:{d.col} {d.code}\n" for d in result_diagnostics)


@pytest.mark.parametrize("name", CASES)
def test_fixture(name: str) -> None:
    case = FIXTURES / name
    source = (case / "input.py").read_text()
    options = _options(case)
    result = migrate_source(source, options, filename="train.py")
    expected_path = case / "expected.py"
    warnings_path = case / "warnings.txt"
    if UPDATE:
        if result.changed:
            expected_path.write_text(result.code)
        if result.diagnostics or warnings_path.exists():
            warnings_path.write_text(_warnings(result.diagnostics))
    if expected_path.exists():
        expected = expected_path.read_text()
        assert result.code == expected
        compile(expected, str(expected_path), "exec")
        again = migrate_source(expected, options, filename="train.py")
        assert again.code == expected, "expected output is not a fixed point"
    else:
        assert result.code == source, "no-op fixture changed"
    if warnings_path.exists():
        assert _warnings(result.diagnostics) == warnings_path.read_text()
