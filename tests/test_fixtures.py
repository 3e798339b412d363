"""Golden fixtures, discovered by directory (torchfix-style).

tests/fixtures/<case>/input.py      the DataParallel script
tests/fixtures/<case>/expected.py   the migration; absent = the input must stay unchanged
tests/fixtures/<case>/warnings.txt  the expected `line:col CODE message` lines, in order;
                                    required (an empty file: no warning)
tests/fixtures/<case>/options.json  optional: MigrateOptions fields
tests/fixtures/<case>/expected_helpers.py  the generated helpers module, for a case whose
                                    options.json sets "inline_helpers": false

The harness migrates in the single-file form (inline_helpers) unless options.json says
otherwise: a golden then shows the whole program a pass's rewrite makes, helpers included,
compiles and runs on its own (the e2e tests run some under torchrun), and docs/transforms.md
shows its diff with the setup block collapsed. The default form, helpers apart in a
generated module, differs only in where those helpers live (transforms/process_group.py):
the split_* fixtures pin it, with their expected_helpers.py.

Regenerate expectations after a deliberate change with DP2DDP_UPDATE_GOLDEN=1.
"""

from __future__ import annotations

import json
import os
from dataclasses import replace
from pathlib import Path

import pytest
from conftest import FIXTURES, fixture_cases, warning_lines

from dp2ddp import MigrateOptions, MigrationResult, migrate_source
from dp2ddp.migrate.deep import FileTimeout, call_deep, time_limit
from dp2ddp.migrate.markers import SAID_ONCE, with_markers
from dp2ddp.program.folder import plan_paths

CASES = fixture_cases()
UPDATE = os.environ.get("DP2DDP_UPDATE_GOLDEN") == "1"
#: Seconds one fixture's migration may take. Each takes about a second; a pass whose cost
#: grows exponentially with a fixture's shape (stop 73: a batch rebound from itself, minutes)
#: fails here by name, not as the suite's 30-minute backstop or CI's time limit.
LIMIT_S = 60


def _migrated(source: str, options: MigrateOptions, name: str) -> MigrationResult:
    """migrate_source(source), stopped after LIMIT_S (migrate/deep.time_limit, as the CLI's
    --file-timeout stops a file)."""

    def work() -> MigrationResult:
        with time_limit(LIMIT_S):
            return migrate_source(source, options, filename="train.py")

    try:
        return call_deep(work)
    except FileTimeout:
        pytest.fail(f"{name}: migrate ran past {LIMIT_S} s (a pass's cost out of bounds)")


def _options(case: Path) -> MigrateOptions:
    path = case / "options.json"
    fields = {"inline_helpers": True, **(json.loads(path.read_text()) if path.exists() else {})}
    return MigrateOptions(**fields)


def _checked(source: str, options: MigrateOptions, folder: Path) -> set[str]:
    """The codes `dp2ddp migrate --check` reports on `source` migrated (as train.py, in the
    form that imports its helpers: a program migrated before, which the passes analyse
    again): the passes' warnings about it and its `# dp2ddp:` markers."""
    path = folder / "train.py"
    migrated = migrate_source(source, options, filename="train.py")
    path.write_text(migrated.code)
    if migrated.helpers_module:
        (folder / "_dp2ddp.py").write_text(migrated.helpers_module)
    outcomes = with_markers(plan_paths([str(path)], (), options).outcomes)
    return {d.code for o in outcomes if o.result is not None for d in o.result.diagnostics}


@pytest.mark.parametrize("name", CASES)
def test_fixture(name: str, tmp_path: Path) -> None:
    case = FIXTURES / name
    source = (case / "input.py").read_text()
    options = _options(case)
    result = _migrated(source, options, name)
    expected_path = case / "expected.py"
    warnings_path = case / "warnings.txt"
    helpers_path = case / "expected_helpers.py"
    if UPDATE:
        if result.changed:
            expected_path.write_text(result.code)
        if result.helpers_module:
            helpers_path.write_text(result.helpers_module)
        warnings_path.write_text(warning_lines(result.diagnostics))
    if options.inline_helpers:
        assert not result.helpers_module, "the single-file form imports no helpers module"
    elif result.changed:
        assert result.helpers_module == helpers_path.read_text()
        compile(result.helpers_module, str(helpers_path), "exec")
    if expected_path.exists():
        expected = expected_path.read_text()
        assert result.code == expected
        compile(expected, str(expected_path), "exec")
        again = migrate_source(expected, options, filename="train.py")
        assert again.code == expected, "expected output is not a fixed point"
        if result.diagnostics:
            modular = (
                options if not options.inline_helpers else replace(options, inline_helpers=False)
            )
            said = {d.code for d in result.diagnostics} - SAID_ONCE
            checked = _checked(source, modular, tmp_path)
            lost = said - checked
            assert not lost, f"--check on the migrated file loses {sorted(lost)}: add to MARKED"
            # a fixed point: nothing dp2ddp inserted reads as a new hazard (stop 48 v3-G)
            # DP076 (code reached through sys.path) answers from the test process's import
            # state, which other tests in the same worker change (the library stand-in
            # tokenlib.py of model_wrap_library_model): not a fact of the migrated text
            gained = checked - {d.code for d in result.diagnostics} - {"DP076"}
            assert not gained, f"--check on the migrated file gains {sorted(gained)}"
    else:
        assert result.code == source, "no-op fixture changed"
    assert warnings_path.is_file(), f"{name} has no warnings.txt (write an empty one for none)"
    assert warning_lines(result.diagnostics) == warnings_path.read_text()
