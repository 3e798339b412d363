"""Regenerate each examples/<name>/train_ddp.py (and the _dp2ddp.py helpers module it
imports, beside it) from its train.py and list dp2ddp's warnings.

    python examples/regenerate.py          # rewrite the migrated copies
    python examples/regenerate.py --check  # exit 1 if a committed copy is out of date

The committed train_ddp.py files are exactly what `dp2ddp migrate` writes, so a reader can
diff them against train.py; tests/test_examples.py fails when they drift from the codemod.
Multi-module programs (examples/project_*/) hold the project in original/ and what
`dp2ddp migrate .` makes of that folder in migrated/ (tests/test_program_examples.py).

Width: the examples are files of this repository, written to its 100 columns, so they are
migrated at the width `dp2ddp migrate` reads for them in a clone (migrate/line_length.py:
this repository's `[tool.ruff] line-length = 100`), not at the 88 of a project without
settings; tests/test_lint_clean.py checks the 88-column case on copies of them.
"""

import contextlib
import os
import shutil
import sys
import tempfile
from pathlib import Path

from dp2ddp import migrate_source
from dp2ddp.migrate.line_length import line_length
from dp2ddp.options import MigrateOptions
from dp2ddp.program.folder import plan_paths
from dp2ddp.program.write import write_plan

EXAMPLES = Path(__file__).resolve().parent


def options_for(path):
    """The options `dp2ddp migrate` uses in this clone for the file at `path`, or for the
    files of the folder `path`: the width the CLI reads for them (a project is migrated in
    a copy elsewhere, where the settings above it are not found, so it is read here)."""
    path = Path(path)
    return MigrateOptions(line_length=line_length(str(path / "_.py" if path.is_dir() else path)))


def project_tree(folder):
    """{relative path: text} of a project folder (caches left out)."""
    return {
        p.relative_to(folder).as_posix(): p.read_text()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and "__pycache__" not in p.parts
    }


def migrate_project(original):
    """(migrated tree, warning lines) of `dp2ddp migrate .` run in a copy of `original`."""
    with tempfile.TemporaryDirectory() as temp:
        work = Path(temp) / "project"
        shutil.copytree(original, work, ignore=shutil.ignore_patterns("__pycache__"))
        old = os.getcwd()
        os.chdir(work)
        try:
            plan = plan_paths(["."], (), options_for(original))
            write_plan(plan)
        finally:
            os.chdir(old)
        warnings = [
            d.format(o.path)
            for o in plan.outcomes
            if o.result is not None
            for d in o.result.diagnostics
        ]
        return project_tree(work), warnings


def regenerate_projects(check):
    stale = []
    for original in sorted(EXAMPLES.glob("project_*/original")):
        name = original.parent.name
        tree, warnings = migrate_project(original)
        codes = ", ".join(sorted({w.split()[1] for w in warnings})) or "none"
        print(f"{name}: {sum(1 for _ in tree)} files, warnings: {codes}")
        for line in warnings:
            print(f"    {name}/{line}")
        migrated = original.parent / "migrated"
        if not migrated.is_dir() or project_tree(migrated) != tree:
            stale.append(name)
            if not check:
                with contextlib.suppress(FileNotFoundError):
                    shutil.rmtree(migrated)
                for path, text in tree.items():
                    target = migrated / path
                    target.parent.mkdir(parents=True, exist_ok=True)
                    target.write_text(text)
    return stale


def main(check=False):
    stale = []
    for source in sorted(EXAMPLES.glob("*/train.py")):
        result = migrate_source(source.read_text(), options_for(source), filename="train.py")
        target = source.with_name("train_ddp.py")
        name = source.parent.name
        codes = ", ".join(sorted({d.code for d in result.diagnostics})) or "none"
        print(f"{name}: {len(result.changes)} changes, warnings: {codes}")
        for diagnostic in result.diagnostics:
            print(f"    {diagnostic.format(f'{name}/train.py')}")
        helpers = source.with_name("_dp2ddp.py")
        current = target.read_text() if target.exists() else None
        current_helpers = helpers.read_text() if helpers.exists() else None
        if current != result.code or current_helpers != result.helpers_module:
            stale.append(name)
            if not check:
                target.write_text(result.code)
                helpers.write_text(result.helpers_module)
    stale += regenerate_projects(check)
    if stale:
        print(("out of date: " if check else "rewrote: ") + ", ".join(stale))
    return 1 if check and stale else 0


if __name__ == "__main__":
    sys.exit(main(check="--check" in sys.argv[1:]))
