"""Benchmark: migrating a program of N modules vs migrating the same files one by one.

    python benchmarks/bench_program.py [--modules 50] [--repeat 3]

Generates two programs of N modules (an entry that imports N - 1 project modules, each
with a model, a DataLoader, prints and a `.cuda()`), in a temporary folder:
  every-wrap  each module wraps its model in DataParallel, so migrating the files one by
              one (today's per-file runner, `migrate_files`, one process) does the same
              transforms on every file as the program does;
  one-wrap    only one module wraps: the program migrates every module (the program-wide
              gate), the per-file runner parses only the one that wraps (and leaves the
              others' loaders and prints unmigrated). Its fair baseline is the per-file
              pipeline run with the gate open on each file (`migrate_source` with a
              ProgramFacts), which is the transform work without discovery and analysis.
Timings are in-process wall clock (best of --repeat), nothing is written. Target (issue 9):
program <= 2x one by one. Not a test: timings depend on the machine.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from dp2ddp import migrate_source
from dp2ddp.facts import ProgramFacts
from dp2ddp.migrate.discovery import discover
from dp2ddp.migrate.files import migrate_files
from dp2ddp.options import MigrateOptions
from dp2ddp.program.migrate import plan_programs

MODULE = '''"""Module {index}: a model, its data and a helper that reports."""

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class Net{index}(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 2))

    def forward(self, x):
        return self.body(x)


def build_{index}():
    model = Net{index}().cuda()
{wrap}    return model


def loader_{index}(batch_size):
    data = TensorDataset(torch.randn(64, 8), torch.randint(0, 2, (64,)))
    return DataLoader(data, batch_size=batch_size, shuffle=True)


def train_{index}(model, loader, epochs):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(epochs):
        for x, y in loader:
            x, y = x.cuda(), y.cuda()
            optimizer.zero_grad()
            loss = nn.functional.cross_entropy(model(x), y)
            loss.backward()
            optimizer.step()
        print(f"module {index} epoch {{epoch}} loss {{loss.item():.4f}}")
    torch.save(model.state_dict(), "model_{index}.pt")
'''
WRAP = "    if torch.cuda.device_count() > 1:\n        model = nn.DataParallel(model)\n"


def generate(folder: Path, modules: int, every_wrap: bool) -> Path:
    folder.mkdir(parents=True)
    names = [f"part_{i:02d}" for i in range(modules - 1)]
    for index, name in enumerate(names):
        wrap = WRAP if every_wrap or index == 0 else ""
        (folder / f"{name}.py").write_text(MODULE.format(index=index, wrap=wrap))
    lines = [f"import {name}\n" for name in names]
    lines += ["\n\ndef main():\n"]
    for index, name in enumerate(names):
        lines.append(
            f"    {name}.train_{index}({name}.build_{index}(), {name}.loader_{index}(16), 1)\n"
        )
    lines += ['\n\nif __name__ == "__main__":\n', "    main()\n"]
    entry = folder / "train.py"
    entry.write_text("".join(lines))
    return entry


def best(action: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return min(times)


def measure(label: str, entry: Path, options: MigrateOptions, repeat: int) -> None:
    files = sorted(str(p) for p in entry.parent.glob("*.py"))
    targets = discover(files)
    plan = plan_programs([str(entry)], options)
    assert not [o for o in plan.outcomes if o.status == "failed"], plan.outcomes
    changed = len(plan.changed_paths())
    program = best(lambda: plan_programs([str(entry)], options), repeat)
    per_file = best(lambda: migrate_files(targets, options, jobs=1), repeat)
    texts = [(f, Path(f).read_text()) for f in files]
    context = ProgramFacts("library", True, "_dp2ddp")

    def gate_open() -> None:
        for name, text in texts:
            migrate_source(text, options, filename=name, program=context)

    forced = best(gate_open, repeat)
    print(f"{label}: program {program:.2f} s ({changed} files changed)")
    print(f"  one by one, per-file runner:     {per_file:.2f} s -> {program / per_file:.2f}x")
    print(f"  one by one, per-file, gate open: {forced:.2f} s -> {program / forced:.2f}x")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--modules", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    options = MigrateOptions()
    print(f"python {platform.python_version()}, {os.cpu_count()} cores, {args.modules} modules")
    with tempfile.TemporaryDirectory() as temp:
        for every_wrap in (True, False):
            label = "every-wrap" if every_wrap else "one-wrap"
            entry = generate(Path(temp) / label, args.modules, every_wrap)
            measure(label, entry, options, args.repeat)
    return 0


if __name__ == "__main__":
    sys.exit(main())
