"""What `dp2ddp migrate --check` costs on files without DataParallel (the pre-commit case).

    python benchmarks/bench_noop.py [--repeat N] [--files F]

Whole processes, timed from the outside (interpreter start-up included), interleaved round
by round so that load on the machine hits all of them alike; the median over --repeat
rounds of each, wall clock and CPU time (user + system; on a shared machine the wall clock
swings with the load, CPU time much less):

  python+click   `python -c "import click"`: the floor of any click command line.
  one file       `dp2ddp migrate --check noop.py`: a file with no DataParallel. Target:
                 <= 0.2 s (issue 31): the text pre-check answers before libcst and the
                 passes are imported (tests/test_noop_imports.py checks the structure).
  folder         `dp2ddp migrate --check FOLDER` on --files such files.
  --jobs 1       `dp2ddp migrate --check --jobs 1 FILE...` on the same files named one by
                 one, as the pre-commit hook runs it.
  ruff           `ruff check --no-cache FOLDER`, when ruff is installed: a yardstick.

Not a test: timings depend on the machine and its load.
"""

from __future__ import annotations

import argparse
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

NOOP = '''"""A module without DataParallel."""

import os

import torch
from torch import nn


class Net(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(4, 2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc(x)


def main() -> None:
    model = Net()
    print(os.getcwd(), model(torch.ones(1, 4)))


if __name__ == "__main__":
    main()
'''


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _time(command: list[str], cwd: Path) -> tuple[float, float]:
    """(wall, cpu) seconds of one run of `command`."""
    cpu, start = _cpu(), time.perf_counter()
    done = subprocess.run(command, cwd=cwd, capture_output=True, check=False)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} exited {done.returncode}: {done.stderr!r}")
    return elapsed, _cpu() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--files", type=int, default=50)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "project"
        folder.mkdir()
        names = [f"module_{i}.py" for i in range(args.files)]
        for name in names:
            (folder / name).write_text(NOOP)
        dp2ddp = [sys.executable, "-m", "dp2ddp", "migrate", "--check"]
        commands = {
            "python+click": [sys.executable, "-c", "import click"],
            "one file": [*dp2ddp, names[0]],
            f"folder ({args.files} files)": [*dp2ddp, "."],
            f"--jobs 1 ({args.files} files named)": [*dp2ddp, "--jobs", "1", *names],
        }
        ruff = shutil.which("ruff")
        if ruff is not None:
            commands[f"ruff check ({args.files} files)"] = [ruff, "check", "--no-cache", "."]
        times: dict[str, list[tuple[float, float]]] = {name: [] for name in commands}
        for command in commands.values():  # warm the file cache and the imports
            _time(command, folder)
        for _ in range(args.repeat):
            for name, command in commands.items():
                times[name].append(_time(command, folder))
    print(f"seconds per process, median of {args.repeat} runs (min-max):")
    print(f"  {'':34} {'wall':>20}  {'cpu':>20}")
    for name, found in times.items():
        print(f"  {name:34} {_figures([w for w, _ in found])}  {_figures([c for _, c in found])}")


def _figures(values: list[float]) -> str:
    return f"{statistics.median(values):6.3f} ({min(values):.3f}-{max(values):.3f})"


if __name__ == "__main__":
    main()
