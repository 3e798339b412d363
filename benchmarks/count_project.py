"""Load-independent cost of folder mode: instructions and Python calls of one run.

    python benchmarks/count_project.py [--shape half|mono|double|lines:N] [--code DIR]
                                       [--count instructions,calls] [--keep DIR]
                                       [--profile FILE] [--top N]

Seconds cannot show a 10% change on a shared machine (its speed varies 2x from minute to
minute); these two counts do not depend on the load:
- **instructions**: the machine instructions of the whole command (interpreter start and
  imports included; the code's byte code is compiled beforehand, so that no count includes
  compiling), `python -m dp2ddp migrate --check --diff -q --no-color --jobs 1 .` run under
  `valgrind --tool=cachegrind --cache-sim=no` (about 50x slower than a plain run), with
  PYTHONHASHSEED=0 so that two runs of the same code count alike.
- **calls**: cProfile's count of Python calls (and primitive calls, recursion excluded) of
  the same command run in one process, the main thread and the large-stack thread each file
  is migrated in (`migrate/deep.call_deep`) both profiled. `--profile FILE` keeps the merged
  statistics (pstats) to compare two versions function by function; `--top N` prints the N
  functions of largest cumulative time.

The shapes are bench_project.py's monorepo (half: 25 files, mono: 53, double: 103) and
`lines:N`, bench_size.py's single module of about N lines (the cost against file size).
`--code DIR` is the dp2ddp source tree to count (put first on PYTHONPATH: an older checkout
counts as it was); the shape's files are the same for every version. The command's stdout
and stderr digest is printed so that two versions' outputs can be compared at a glance.
Figures: docs/performance.md ("Stop 40").
"""

from __future__ import annotations

import argparse
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_project import MONOREPO, write_monorepo  # noqa: E402
from bench_size import module as size_module  # noqa: E402

COMMAND = ["migrate", "--check", "--diff", "-q", "--no-color", "--jobs", "1", "."]

#: Run in the child process of `calls`: profile the CLI in every thread, merge, dump.
CHILD = r"""
import cProfile, pstats, sys, threading
out = sys.argv[1]
profiles = []
run = threading.Thread.run
def profiled(self):
    profile = cProfile.Profile()
    profiles.append(profile)
    profile.enable()
    try:
        run(self)
    finally:
        profile.disable()
threading.Thread.run = profiled
from dp2ddp.cli import main
sys.argv = ["dp2ddp"] + sys.argv[2:]
profile = cProfile.Profile()
profiles.append(profile)
code = 0
profile.enable()
try:
    main()
except SystemExit as exc:
    code = exc.code if isinstance(exc.code, int) else 1
finally:
    profile.disable()
sys.stdout.flush()
stats = pstats.Stats(profiles[0])
for other in profiles[1:]:
    stats.add(other)
stats.dump_stats(out)
sys.stderr.write(f"\ncalls {stats.total_calls} {stats.prim_calls} exit {code}\n")
sys.exit(code)
"""


def write_shape(shape: str, folder: Path) -> None:
    """The shape's files under `folder` (emptied first)."""
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    if shape.startswith("lines:"):
        (folder / "big.py").write_text(size_module(int(shape.split(":", 1)[1])))
    else:
        write_monorepo(folder, *MONOREPO[shape])


def environment(code: Path) -> dict[str, str]:
    """The child's environment: `code` first on PYTHONPATH, hashing fixed."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(code)
    env["PYTHONHASHSEED"] = "0"
    return env


def digest(*texts: str) -> str:
    """A short digest of the command's output, to compare versions' outputs."""
    return hashlib.sha256("\0".join(texts).encode()).hexdigest()[:12]


def count_instructions(folder: Path, code: Path) -> tuple[int, int, str]:
    """(instructions, exit code, output digest) of the command under cachegrind."""
    with tempfile.TemporaryDirectory() as temp:
        log = Path(temp) / "valgrind.log"
        command = ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--branch-sim=no"]
        command += [f"--cachegrind-out-file={temp}/cg.out", f"--log-file={log}"]
        command += [sys.executable, "-m", "dp2ddp", *COMMAND]
        done = subprocess.run(
            command, cwd=folder, env=environment(code), capture_output=True, text=True
        )
        match = re.search(r"I\s+refs:\s+([\d,]+)", log.read_text())
        if match is None:
            sys.exit(f"no instruction count in valgrind's log:\n{log.read_text()}")
        count = int(match.group(1).replace(",", ""))
        return count, done.returncode, digest(done.stdout, done.stderr)


def count_calls(folder: Path, code: Path, profile: Path) -> tuple[int, int, int, str]:
    """(calls, primitive calls, exit code, output digest) of the command under cProfile;
    the merged statistics are written to `profile`."""
    command = [sys.executable, "-c", CHILD, str(profile.resolve()), *COMMAND]
    done = subprocess.run(
        command, cwd=folder, env=environment(code), capture_output=True, text=True
    )
    match = re.search(r"calls (\d+) (\d+) exit", done.stderr)
    if match is None:
        sys.exit(f"no call count:\n{done.stderr[-3000:]}")
    calls, primitive = int(match.group(1)), int(match.group(2))
    stderr = done.stderr[: match.start()].removesuffix("\n")
    return calls, primitive, done.returncode, digest(done.stdout, stderr)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shape", default="half", help="half, mono, double or lines:N")
    parser.add_argument("--code", type=Path, default=HERE.parent, help="dp2ddp source tree")
    parser.add_argument("--count", default="instructions,calls")
    parser.add_argument("--keep", type=Path, default=None, help="write the shape here")
    parser.add_argument("--profile", type=Path, default=None, help="keep the pstats here")
    parser.add_argument("--top", type=int, default=0, help="print the top N (cumulative)")
    args = parser.parse_args()
    counts = args.count.split(",")
    code = args.code.resolve()
    # byte code written first, so that no count includes compiling a module
    compiled = [sys.executable, "-m", "compileall", "-q", str(code / "dp2ddp")]
    subprocess.run(compiled, check=True, env=environment(code), stdout=subprocess.DEVNULL)
    with tempfile.TemporaryDirectory() as temp:
        folder = (args.keep or Path(temp)) / args.shape.replace(":", "_")
        write_shape(args.shape, folder)
        print(f"shape {args.shape}, code {code}", flush=True)
        if "calls" in counts:
            profile = args.profile or Path(temp) / "calls.prof"
            calls, primitive, exit_code, output = count_calls(folder, code, profile)
            print(f"calls {calls:,} primitive {primitive:,} exit {exit_code} output {output}")
            if args.top:
                import pstats

                pstats.Stats(str(profile)).sort_stats("cumulative").print_stats(args.top)
        if "instructions" in counts:
            instructions, exit_code, output = count_instructions(folder, code)
            print(f"instructions {instructions:,} exit {exit_code} output {output}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
