"""Cost against file size: `migrate_source` on generated modules of growing length.

    python benchmarks/bench_size.py [--lines 1000,5000,20000,50000] [--repeat N]

Each module holds many small functions and classes and one DataParallel wrap (the shape of
a generated or vendored module a real repository carries). For each size it prints the
best CPU seconds of --repeat runs of libcst's parse + print of the file (the floor: no
migration can cost less) and of `migrate_source`, and their ratio. The target (issue 30):
at most 3x the floor at every size, and a ratio that stays flat as the size grows (cost
linear in size). Not a test: timings depend on the machine; docs/performance.md has figures.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import libcst as cst

from dp2ddp import migrate_source

HEAD = "import torch\nimport torch.nn as nn\n\n\n"
WRAP = "model = Net()\nmodel = nn.DataParallel(model)\n"


def module(lines: int) -> str:
    """A module of about `lines` lines: functions and classes in turn, then the wrap."""
    parts = [HEAD]
    count = 0
    i = 0
    while count < lines:
        if i % 4 == 3:
            parts.append(
                f"class Block{i}(nn.Module):\n"
                f"    def __init__(self):\n"
                f"        super().__init__()\n"
                f"        self.fc = nn.Linear({i % 7 + 1}, 2)\n\n"
                f"    def forward(self, x):\n"
                f"        return self.fc(x) * {i}\n\n\n"
            )
            count += 10
        else:
            parts.append(
                f"def f{i}(x, y=None):\n"
                f"    if y is None:\n"
                f"        y = x + {i}\n"
                f"    return [v * 2 for v in (x, y)]\n\n\n"
            )
            count += 6
        i += 1
    parts.append("class Net(nn.Module):\n    pass\n\n\n" + WRAP)
    return "".join(parts)


def best(run: Callable[[], object], repeat: int) -> float:
    """Best CPU seconds of `repeat` runs (CPU time: steadier than wall on a shared machine)."""
    times = []
    for _ in range(repeat):
        start = time.process_time()
        run()
        times.append(time.process_time() - start)
    return min(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", default="1000,5000,20000,50000")
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
    migrate_source(module(100))  # warm imports and template caches
    print(f"{'lines':>7}{'floor s':>10}{'migrate s':>11}{'ratio':>8}{'s / 1k lines':>14}")
    for lines in (int(n) for n in args.lines.split(",")):
        source = module(lines)
        real = source.count("\n")
        floor = best(lambda s=source: cst.parse_module(s).code, args.repeat)
        result = migrate_source(source)
        assert "DistributedDataParallel" in result.code, "the wrap was not migrated"
        cost = best(lambda s=source: migrate_source(s), args.repeat)
        print(
            f"{real:>7}{floor:>10.2f}{cost:>11.2f}{cost / floor:>8.2f}{cost / real * 1000:>14.3f}",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
