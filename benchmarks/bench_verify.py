"""What `dp2ddp verify` costs over running the two scripts yourself, side by side.

    python benchmarks/bench_verify.py [--repeat N] [--nproc W] [--epochs E] [--steps K]

Three timings of the same script pair (tests/verify_cases/mlp_dp.py, the DataParallel
original, and mlp_ddp.py, its migration), wall clock from the shell's point of view
(interpreter start-up included), interleaved round by round so that load on the machine
hits all of them alike, median of --repeat rounds:

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


def _bare(args: list[str], nproc: int, cwd: Path) -> float:
    start = time.perf_counter()
    original = subprocess.Popen(
        [sys.executable, str(ORIGINAL), *args], cwd=cwd, env=_env(), stdout=subprocess.DEVNULL
    )
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
    times: dict[str, list[float]] = {"bare": [], "to-end": [], "steps": []}
    with tempfile.TemporaryDirectory(prefix="bench-verify-") as tmp:
        cwd = Path(tmp)
        for round_ in range(ns.repeat):
            times["bare"].append(_bare(args, ns.nproc, cwd))
            times["to-end"].append(_verify(["--to-end"], args, ns.nproc, cwd))
            times["steps"].append(_verify(["--steps", str(ns.steps)], args, ns.nproc, cwd))
            print(
                f"round {round_ + 1}: "
                + ", ".join(f"{name} {values[-1]:.2f} s" for name, values in times.items()),
                flush=True,
            )
    median = {name: statistics.median(values) for name, values in times.items()}
    print(f"\nmedian of {ns.repeat} rounds (nproc {ns.nproc}, {ns.epochs} epochs of 6 steps):")
    for name, seconds in median.items():
        print(f"  {name:<7} {seconds:6.2f} s   {seconds / median['bare']:.2f}x bare")
    print(f"  os.cpu_count() = {os.cpu_count()}, load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
