"""How much a reviewer reads: the size of the migration of every bundled example.

    python benchmarks/diff_size.py [--entry-max 40] [--total-max 200]

For each example (examples/<name>/train.py -> train_ddp.py, and each examples/project_*/
original/ -> migrated/) it prints the lines the migration adds to the entry, the lines it
adds to the program's other modules, the size of the generated helpers module `_dp2ddp.py`
(all of it is new), and their total. Lines added are the `+` lines of a unified diff without
context, so a re-wrapped or re-indented line counts as added. The targets (issue 31's
done-when, "for a small script"): the entry's diff adds at most --entry-max lines and all
files together at most --total-max. Exit 1 when an example misses one.

It reads the committed migrated copies: `python examples/regenerate.py --check` (and
tests/test_examples.py) keep them exactly what `dp2ddp migrate` writes. Not a test: the
targets are the issue's, not a guarantee.
"""

from __future__ import annotations

import argparse
import difflib
import sys
from dataclasses import dataclass
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
HELPERS = "_dp2ddp.py"
#: The entry of each multi-module example (examples/README.md names them).
PROJECT_ENTRIES = {
    "project_classifier": "train.py",
    "project_importlib_task": "main.py",
    "project_init_paths": "tools/train.py",
    "project_script_module": "fit.py",
    "project_trainer_package": "run.py",
}


@dataclass(frozen=True)
class Size:
    name: str
    entry: int
    others: int
    helpers: int

    @property
    def total(self) -> int:
        return self.entry + self.others + self.helpers


def added(before: str, after: str) -> int:
    """The `+` lines of a unified diff of `before` and `after` (no context lines)."""
    diff = difflib.unified_diff(before.splitlines(), after.splitlines(), n=0, lineterm="")
    return sum(1 for line in diff if line.startswith("+") and not line.startswith("+++"))


def lines(path: Path) -> int:
    return len(path.read_text().splitlines()) if path.exists() else 0


def script(folder: Path) -> Size:
    entry = added((folder / "train.py").read_text(), (folder / "train_ddp.py").read_text())
    return Size(folder.name, entry, 0, lines(folder / HELPERS))


def project(folder: Path) -> Size:
    original, migrated = folder / "original", folder / "migrated"
    entry_path = PROJECT_ENTRIES.get(folder.name)
    if entry_path is None or not (original / entry_path).is_file():
        raise SystemExit(f"{folder.name}: entry unknown; add it to PROJECT_ENTRIES")
    entry = others = helpers = 0
    for path in sorted(migrated.rglob("*.py")):
        relative = path.relative_to(migrated)
        if "__pycache__" in relative.parts:
            continue
        if relative.name == HELPERS and not (original / relative).exists():
            helpers += lines(path)
            continue
        before = original / relative
        count = added(before.read_text() if before.exists() else "", path.read_text())
        if relative.as_posix() == entry_path:
            entry = count
        else:
            others += count
    return Size(folder.name, entry, others, helpers)


def sizes() -> list[Size]:
    found = [script(p.parent) for p in sorted(EXAMPLES.glob("*/train_ddp.py"))]
    found += [project(p.parent) for p in sorted(EXAMPLES.glob("project_*/migrated"))]
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entry-max", type=int, default=40)
    parser.add_argument("--total-max", type=int, default=200)
    args = parser.parse_args()
    missed = 0
    header = f"{'example':<26}{'entry +':>8}{'others +':>9}{'helpers':>8}{'total':>7}  target"
    print(header)
    for size in sizes():
        misses = []
        if size.entry > args.entry_max:
            misses.append(f"entry > {args.entry_max}")
        if size.total > args.total_max:
            misses.append(f"total > {args.total_max}")
        missed += bool(misses)
        verdict = "; ".join(misses) or "ok"
        print(
            f"{size.name:<26}{size.entry:>8}{size.others:>9}{size.helpers:>8}{size.total:>7}"
            f"  {verdict}"
        )
    print(f"{missed} example(s) miss a target" if missed else "every example meets the targets")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
