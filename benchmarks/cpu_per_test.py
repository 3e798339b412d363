"""CPU seconds per test and per file: a pytest plugin, and the summary of what it wrote.

    CPU_PER_TEST=out/run PYTHONPATH=benchmarks python -m pytest -p cpu_per_test tests/x.py
    python benchmarks/cpu_per_test.py out/run.*

The plugin writes one JSON line per test to `$CPU_PER_TEST.<worker>` (`main` without xdist):
user + system seconds of the pytest process and of every child it waited for
(`resource.getrusage`), and the wall seconds, around the test's whole run protocol (set-up,
call, tear-down: a module fixture's cost shows in the first test that takes it). The CPU
seconds are the steadier figure on a shared machine (docs/testing.md, "Stop 57" to "Stop
62"); a child that is killed rather than waited for is not counted. The summary prints
each file's tests, CPU and wall seconds, costliest first, and the slowest tests. Not a
test: figures depend on the machine.
"""

from __future__ import annotations

import json
import os
import resource
import sys
import time
from collections import Counter
from collections.abc import Generator
from typing import IO, Any

import pytest

_out: list[IO[str]] = []


def _cpu() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def pytest_configure(config: pytest.Config) -> None:
    path = os.environ.get("CPU_PER_TEST")
    if path:
        worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
        _out.append(open(f"{path}.{worker}", "a"))  # noqa: SIM115  # closed at unconfigure


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Generator[None]:
    cpu, wall = _cpu(), time.time()
    yield
    for out in _out:
        record = {"id": item.nodeid, "cpu": _cpu() - cpu, "wall": time.time() - wall}
        out.write(json.dumps(record) + "\n")
        out.flush()


def pytest_unconfigure(config: pytest.Config) -> None:
    while _out:
        _out.pop().close()


def summary(paths: list[str], slowest: int = 15) -> str:
    cpu: Counter[str] = Counter()
    wall: Counter[str] = Counter()
    tests: Counter[str] = Counter()
    records: list[dict[str, Any]] = []
    for path in paths:
        with open(path) as lines:
            records += [json.loads(line) for line in lines]
    for record in records:
        file = record["id"].split("::")[0]
        cpu[file] += record["cpu"]
        wall[file] += record["wall"]
        tests[file] += 1
    rows = [
        f"{f:60s} {tests[f]:6d} tests {c:9.1f} CPU s {wall[f]:9.1f} wall s"
        for f, c in cpu.most_common()
    ]
    records.sort(key=lambda record: -record["cpu"])
    rows += [f"  {r['cpu']:8.1f} {r['wall']:8.1f}  {r['id']}" for r in records[:slowest]]
    return "\n".join(rows)


if __name__ == "__main__":
    print(summary(sys.argv[1:]))
