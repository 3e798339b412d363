"""Time `migrate_source` (the in-process core, no CLI, no I/O) on each examples/*/train.py.

    python benchmarks/bench_core.py [--repeat N] [--profile FILE]

Prints, per example and in total, the best of --repeat runs in wall-clock and CPU time
(CPU time is the steadier figure on a shared machine). --profile FILE prints the top of a
cProfile of one run of that file instead. Not a test: timings depend on the machine.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import sys
import time
from pathlib import Path

from dp2ddp import migrate_source

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def best_of(source: str, repeat: int) -> tuple[float, float]:
    """Best wall-clock and best CPU seconds of `repeat` runs of migrate_source."""
    walls, cpus = [], []
    for _ in range(repeat):
        wall, cpu = time.perf_counter(), time.process_time()
        migrate_source(source, filename="train.py")
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    return min(walls), min(cpus)


def profile(path: Path, top: int) -> None:
    source = path.read_text()
    migrate_source(source)  # warm imports and caches
    profiler = cProfile.Profile()
    profiler.runcall(migrate_source, source, filename="train.py")
    stats = pstats.Stats(profiler)
    stats.sort_stats("cumulative").print_stats(top)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--profile", type=Path, help="profile one run of this file")
    parser.add_argument("--top", type=int, default=40, help="rows of the profile to print")
    args = parser.parse_args()
    if args.profile:
        profile(args.profile, args.top)
        return 0
    files = sorted(EXAMPLES.glob("*/train.py"))
    migrate_source(files[0].read_text())  # warm imports and template caches
    total_wall = total_cpu = 0.0
    print(f"{'example':<20}{'lines':>6}{'wall s':>9}{'cpu s':>9}")
    for path in files:
        source = path.read_text()
        wall, cpu = best_of(source, args.repeat)
        total_wall += wall
        total_cpu += cpu
        lines = source.count("\n")
        print(f"{path.parent.name:<20}{lines:>6}{wall:>9.3f}{cpu:>9.3f}")
    print(f"{'total':<20}{'':>6}{total_wall:>9.3f}{total_cpu:>9.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
