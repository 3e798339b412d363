"""Regenerate each examples/<name>/train_ddp.py from its train.py and list dp2ddp's warnings.

    python examples/regenerate.py          # rewrite the migrated copies
    python examples/regenerate.py --check  # exit 1 if a committed copy is out of date

The committed train_ddp.py files are exactly what `dp2ddp migrate` writes, so a reader can
diff them against train.py; tests/test_examples.py fails when they drift from the codemod.
"""

import sys
from pathlib import Path

from dp2ddp import migrate_source

EXAMPLES = Path(__file__).resolve().parent


def main(check=False):
    stale = []
    for source in sorted(EXAMPLES.glob("*/train.py")):
        result = migrate_source(source.read_text(), filename="train.py")
        target = source.with_name("train_ddp.py")
        name = source.parent.name
        codes = ", ".join(sorted({d.code for d in result.diagnostics})) or "none"
        print(f"{name}: {len(result.changes)} changes, warnings: {codes}")
        for diagnostic in result.diagnostics:
            print(f"    {diagnostic.format(f'{name}/train.py')}")
        current = target.read_text() if target.exists() else None
        if current != result.code:
            stale.append(name)
            if not check:
                target.write_text(result.code)
    if stale:
        print(("out of date: " if check else "rewrote: ") + ", ".join(stale))
    return 1 if check and stale else 0


if __name__ == "__main__":
    sys.exit(main(check="--check" in sys.argv[1:]))
