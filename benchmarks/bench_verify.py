"""What `dp2ddp verify` costs over running the two scripts yourself, side by side.

    python benchmarks/bench_verify.py [--repeat N] [--nproc W] [--epochs E] [--steps K]

Three timings of the same script pair (tests/verify_cases/mlp_dp.py, the DataParallel
original, and mlp_ddp.py, its migration), wall clock from the shell's point of view
(interpreter start-up included), interleaved round by round so that load on the machine
hits all of them alike; for each, also the CPU time (user + system) of every process it
started. The ratios are the median over --repeat rounds of each round's ratio to that
round's bare runs (on a shared machine the wall clock swings from round to round; CPU time
much less):

  bare      `python mlp_dp.py ARGS` and `torchrun --standalone --nproc-per-node W mlp_ddp.py
            ARGS`, started together (verify also runs them concurrently on CPU): the time until
            both have ended.
  to-end    `dp2ddp verify mlp_dp.py mlp_ddp.py --to-end -- ARGS`: the same two runs to their
            end, instrumented, then judged. Target: to-end <= 1.2 x bare.
  steps     `dp2ddp verify mlp_dp.py mlp_ddp.py --steps K -- ARGS`: the default mode, which
            stops both runs at step K (so it may cost less than bare).

Not a test: timings depend on the machine and its load.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CASES = ROOT / "tests" / "verify_cases"
ORIGINAL = CASES / "mlp_dp.py"
MIGRATED = CASES / "mlp_ddp.py"


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env.setdefault("OMP_NUM_THREADS", "1")  # what verify and torchrun give the runs on CPU
    env["CUDA_VISIBLE_DEVICES"] = ""
    return env


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _bare(args: list[str], nproc: int, cwd: Path) -> float:
    start = time.perf_counter()
    original = subprocess.Popen(
        [sys.executable, str(ORIGINAL), *args],
        cwd=cwd, env=_env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    migrated = subprocess.Popen(
        [sys.executable, "-m", "torch.distributed.run", "--standalone",
         "--nproc-per-node", str(nproc), str(MIGRATED), *args],
        cwd=cwd, env=_env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    codes = (original.wait(), migrated.wait())
    seconds = time.perf_counter() - start
    if codes != (0, 0):
        sys.exit(f"bare runs failed: exit codes {codes}")
    return seconds


def _verify(flags: list[str], args: list[str], nproc: int, cwd: Path) -> float:
    command = [
        sys.executable, "-m", "dp2ddp", "verify", str(ORIGINAL), str(MIGRATED),
        "--nproc", str(nproc), "--backend", "gloo", *flags, "--", *args,
    ]  # fmt: skip
    start = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, env=_env(), capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"verify failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--nproc", type=int, default=2)
    parser.add_argument("--epochs", type=int, default=2, help="of the scripts (6 steps each)")
    parser.add_argument("--steps", type=int, default=3)
    ns = parser.parse_args()
    args = ["--epochs", str(ns.epochs)]
    names = ("bare", "to-end", "steps")
    wall: dict[str, list[float]] = {name: [] for name in names}
    cpu: dict[str, list[float]] = {name: [] for name in names}
    runs = {
        "bare": lambda cwd: _bare(args, ns.nproc, cwd),
        "to-end": lambda cwd: _verify(["--to-end"], args, ns.nproc, cwd),
        "steps": lambda cwd: _verify(["--steps", str(ns.steps)], args, ns.nproc, cwd),
    }
    with tempfile.TemporaryDirectory(prefix="bench-verify-") as tmp:
        cwd = Path(tmp)
        for round_ in range(ns.repeat):
            for name in names:
                before = _children_cpu()
                wall[name].append(runs[name](cwd))
                cpu[name].append(_children_cpu() - before)
            print(
                f"round {round_ + 1}: "
                + ", ".join(
                    f"{name} {wall[name][-1]:.2f} s (cpu {cpu[name][-1]:.2f} s)" for name in names
                ),
                flush=True,
            )
    print(f"\n{ns.repeat} rounds (nproc {ns.nproc}, {ns.epochs} epochs of 6 steps), medians:")
    for name in names:
        wall_ratio = statistics.median(w / b for w, b in zip(wall[name], wall["bare"], strict=True))
        cpu_ratio = statistics.median(c / b for c, b in zip(cpu[name], cpu["bare"], strict=True))
        print(
            f"  {name:<7} wall {statistics.median(wall[name]):6.2f} s ({wall_ratio:.2f}x bare)"
            f"   cpu {statistics.median(cpu[name]):6.2f} s ({cpu_ratio:.2f}x bare)"
        )
    print(f"  os.cpu_count() = {os.cpu_count()}, load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
