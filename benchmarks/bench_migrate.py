"""Benchmark and safety run of `dp2ddp migrate` over PyTorch's own installed sources.

    python benchmarks/bench_migrate.py [--root DIR] [--jobs N] [--no-safety] [--audit-precheck]

Timings (wall clock, interpreter start included, best of --repeat):
  tree      `dp2ddp migrate --check -q ROOT`            every *.py file of the tree
  dp-files  `dp2ddp migrate --check -q FILE...`         only the files mentioning DataParallel
  floor     libcst.parse_module(text).code in one process, no transform, on the dp-files:
            what merely reading those files with libcst costs. Target: tree < floor.

Safety (default on): migrate a copy of the tree in place, then check that nothing failed,
only files using DataParallel changed, every changed file compiles and is a fixed point
(`--check` on the result exits 0, and migrate_source returns it unchanged).
--audit-precheck also runs migrate_source on every file the pre-check skips (slow: parses
the whole tree) and checks none of them would have changed.
Exits non-zero when a safety check fails. Not a test: timings depend on the machine.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import platform
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import libcst as cst

from dp2ddp import migrate_source
from dp2ddp.migrate.discovery import discover
from dp2ddp.migrate.files import default_jobs
from dp2ddp.migrate.precheck import may_use_dataparallel


def torch_root() -> Path:
    spec = importlib.util.find_spec("torch")
    if spec is None or not spec.submodule_search_locations:
        sys.exit("torch is not installed; pass --root")
    return Path(next(iter(spec.submodule_search_locations)))


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def cli(args: list[str], jobs: int) -> tuple[float, subprocess.CompletedProcess[str]]:
    timed, done = timed_cli(args, jobs)
    return timed[0], done


def timed_cli(
    args: list[str], jobs: int
) -> tuple[tuple[float, float], subprocess.CompletedProcess[str]]:
    """(wall seconds, CPU seconds of the command and its workers), and the result."""
    command = [sys.executable, "-m", "dp2ddp", "migrate", "--jobs", str(jobs), *args]
    cpu, start = _children_cpu(), time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    return (time.perf_counter() - start, _children_cpu() - cpu), done


def best(times: list[tuple[float, float]]) -> tuple[float, float]:
    return min(t[0] for t in times), min(t[1] for t in times)


def floor_seconds(texts: list[str]) -> tuple[float, float]:
    cpu, start = time.process_time(), time.perf_counter()
    for text in texts:
        cst.parse_module(text).code  # noqa: B018 - the round trip is the measured work
    return time.perf_counter() - start, time.process_time() - cpu


def row(name: str, files: int, lines: int, timing: tuple[float, float], floor: float) -> str:
    seconds, cpu = timing
    return (
        f"| {name} | {files} | {lines:,} | {seconds:.2f} | {cpu:.2f} | {files / seconds:,.0f} | "
        f"{lines / seconds:,.0f} | {seconds / floor:.2f} |"
    )


def _unchanged_by_migrate(path: str) -> tuple[str, bool, str]:
    text = Path(path).read_text(encoding="utf-8")
    try:
        return path, migrate_source(text, filename=path).code == text, ""
    except Exception as exc:  # report, keep auditing
        return path, False, f"{type(exc).__name__}: {exc}"


def safety(root: Path, jobs: int, audit: bool) -> list[str]:
    problems: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "torch"
        shutil.copytree(root, copy, ignore=shutil.ignore_patterns("__pycache__", "*.so*"))
        files = [Path(t.path) for t in discover([str(copy)])]
        before = {p: p.read_bytes() for p in files}
        seconds, done = cli(["-q", str(copy)], jobs)
        print(f"in-place run over a copy: {seconds:.2f} s, exit {done.returncode}")
        if done.returncode != 0:
            problems.append(f"in-place run exited {done.returncode}: {done.stderr[-2000:]}")
        if "Traceback" in done.stderr:
            problems.append("a traceback was printed")
        changed = [p for p, data in before.items() if p.read_bytes() != data]
        print(f"changed files: {len(changed)}")
        for path in changed:
            old, new = before[path].decode("utf-8"), path.read_text(encoding="utf-8")
            print(f"  {path.relative_to(copy)}")
            if not may_use_dataparallel(old):
                problems.append(f"{path}: changed without using DataParallel")
            try:
                compile(new, str(path), "exec")
            except SyntaxError as exc:
                problems.append(f"{path}: migrated code does not compile: {exc}")
            if migrate_source(new, filename=str(path)).code != new:
                problems.append(f"{path}: not a fixed point")
        seconds, again = cli(["--check", "-q", str(copy)], jobs)
        print(f"--check over the migrated copy: {seconds:.2f} s, exit {again.returncode}")
        if again.returncode != 0:
            problems.append(f"second run is not a no-op (exit {again.returncode})")
        if audit:
            skipped = [
                str(p) for p, data in before.items() if not may_use_dataparallel(data.decode())
            ]
            print(f"auditing the pre-check on {len(skipped)} skipped files ...")
            start = time.perf_counter()
            with ProcessPoolExecutor(jobs) as pool:
                for path, same, error in pool.map(_unchanged_by_migrate, skipped, chunksize=8):
                    if not same:
                        problems.append(
                            f"{path}: skipped by the pre-check but {error or 'changes'}"
                        )
            print(f"audit: {time.perf_counter() - start:.1f} s")
    return problems


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", type=Path, help="tree to migrate (default: installed torch)")
    parser.add_argument("--jobs", type=int, default=default_jobs())
    parser.add_argument("--repeat", type=int, default=3, help="timing runs; the best counts")
    parser.add_argument("--no-safety", action="store_true")
    parser.add_argument("--audit-precheck", action="store_true")
    args = parser.parse_args()
    root: Path = args.root or torch_root()

    files = [Path(t.path) for t in discover([str(root)])]
    texts = {p: p.read_text(encoding="utf-8", errors="replace") for p in files}
    lines = sum(t.count("\n") for t in texts.values())
    dp_files = [p for p, t in texts.items() if "DataParallel" in t]
    dp_lines = sum(texts[p].count("\n") for p in dp_files)
    candidates = sum(may_use_dataparallel(t) for t in texts.values())
    print(
        f"{platform.python_implementation()} {platform.python_version()}, {os.cpu_count()} "
        f"cores, --jobs {args.jobs}; tree {root}"
    )
    print(
        f"{len(files)} files, {lines:,} lines; {len(dp_files)} mention DataParallel; "
        f"{candidates} pass the pre-check and are parsed"
    )

    floor = best([floor_seconds([texts[p] for p in dp_files]) for _ in range(args.repeat)])
    tree_runs, dp_runs = [], []
    for _ in range(args.repeat):
        timing, done = timed_cli(["--check", "-q", str(root)], args.jobs)
        assert done.returncode in (0, 1), done.stderr
        tree_runs.append(timing)
        timing, done = timed_cli(["--check", "-q", *map(str, dp_files)], args.jobs)
        assert done.returncode in (0, 1), done.stderr
        dp_runs.append(timing)
    tree, dp = best(tree_runs), best(dp_runs)

    print()
    print("| run | files | lines | wall s | CPU s | files/s | lines/s | wall / floor |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    print(row("`migrate --check` whole tree", len(files), lines, tree, floor[0]))
    print(row("`migrate --check` DataParallel files", len(dp_files), dp_lines, dp, floor[0]))
    name = "floor: libcst parse + print, DataParallel files"
    print(row(name, len(dp_files), dp_lines, floor, floor[0]))
    verdict = "meets" if tree[0] < floor[0] else "misses"
    print(f"\nwhole tree {tree[0]:.2f} s vs floor {floor[0]:.2f} s: {verdict} the target")
    print("(CPU s: the command and its worker processes, user + system)\n")

    if args.no_safety:
        return 0
    problems = safety(root, args.jobs, args.audit_precheck)
    for problem in problems:
        print(f"SAFETY: {problem}")
    print("safety checks: " + ("all passed" if not problems else f"{len(problems)} failed"))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
