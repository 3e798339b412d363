"""Does `migrate --check` still fail on a migrated file whose migration warned?

    python benchmarks/check_after_migrate.py [-k SUBSTRING] [--markdown]

For every golden fixture (tests/fixtures/) whose migration warns: copy its input.py into a
temporary folder as train.py, run `dp2ddp migrate train.py` (with the fixture's options),
then `dp2ddp migrate --check train.py` on what it wrote. The table lists, per fixture, the
codes the migration reported, the codes `--check` reports on the migrated file, the codes
lost, and `--check`'s exit code. The rule (docs/ci.md): every warning the migration
printed fails `--check` until it is resolved or silenced, so every row should exit 1 with
no code lost. Exit 1 when a row does not. Not a test (it runs ~100 migrations): run it
after changing a pass's warnings.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
from pathlib import Path

from click.testing import CliRunner

from dp2ddp.cli import main

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"
_FLAGS = {
    "inline_helpers": "--inline-helpers",
    "keep_summed_loss": "--keep-summed-loss",
    "per_process_batch": "--per-process-batch",
    "sync_batchnorm": "--sync-batchnorm",
}
_WARNING = re.compile(r"^[^\s:]+:\d+:\d+: (DP\d+) ", re.M)


def flags(case: Path) -> list[str]:
    path = case / "options.json"
    fields = json.loads(path.read_text()) if path.exists() else {}
    return [_FLAGS[key] for key, on in fields.items() if on and key in _FLAGS]


def codes(output: str) -> list[str]:
    return sorted(set(_WARNING.findall(output)))


def run(case: Path) -> tuple[list[str], list[str], int]:
    runner = CliRunner()
    with tempfile.TemporaryDirectory() as folder:
        script = Path(folder) / "train.py"
        script.write_text((case / "input.py").read_text())
        first = runner.invoke(main, ["migrate", str(script), "--isolated", *flags(case)])
        check = runner.invoke(main, ["migrate", "--check", str(script), "--isolated", *flags(case)])
    return codes(first.output), codes(check.output), check.exit_code


def main_(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-k", default="", help="only fixtures whose name contains this")
    args = parser.parse_args(argv)
    bad = 0
    rows = 0
    lost_by_code: dict[str, int] = {}
    print(f"{'fixture':44} {'warned':24} {'--check after':24} {'lost':16} exit")
    for case in sorted(FIXTURES.iterdir()):
        warnings = case / "warnings.txt"
        if args.k not in case.name or not warnings.is_file() or not warnings.read_text().strip():
            continue
        warned, after, code = run(case)
        lost = [c for c in warned if c not in after]
        for c in lost:
            lost_by_code[c] = lost_by_code.get(c, 0) + 1
        rows += 1
        bad += bool(lost) or code != 1
        row = [",".join(warned), ",".join(after), ",".join(lost)]
        print(f"{case.name:44} {row[0]:24} {row[1]:24} {row[2]:16} {code}")
    print(f"\n{rows} fixtures warn; {bad} lose a code or pass --check after migration.")
    if lost_by_code:
        print("lost: " + ", ".join(f"{c} x{n}" for c, n in sorted(lost_by_code.items())))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main_())
