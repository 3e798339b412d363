"""Peak memory and time of one epoch's indices, per sampler dp2ddp can insert.

    python benchmarks/bench_sampler_memory.py [--size N] [--world W] [--rank R] [--shuffled]

For a dataset of --size samples (default 79,000,000, the dataset of issue 10, item 9) and rank
--rank of --world processes, each sampler runs in a fresh child process, which reports:

* peak RSS above the process's high-water mark before the sampler was built (the child has
  already imported torch, so this is what the sampler itself costs);
* the time to the first index (what a DataLoader waits before its first batch);
* the time to draw every index of the rank (the sampler alone, no data loading).

Samplers: torch's DistributedSampler(shuffle=False) (what a shuffle=False training loader got
before), DdpDistributedSampler(shuffle=False) from templates/helpers/distributed_sampler.py.j2
(what it gets now), ddp_eval_sampler (evaluation loaders), and with --shuffled also
DistributedSampler(shuffle=True), which lists its permutation by nature. Not a test: the
figures depend on the machine; docs/performance.md records them.
"""

from __future__ import annotations

import argparse
import collections
import itertools
import json
import resource
import subprocess
import sys
import time
import warnings
from collections.abc import Callable
from typing import Any

CASES = {
    "DistributedSampler(shuffle=False)": "before: a training loader with shuffle=False",
    "DdpDistributedSampler(shuffle=False)": "after: the same loader",
    "ddp_eval_sampler": "evaluation loaders (unchanged, a range)",
    "DistributedSampler(shuffle=True)": "shuffled training loaders (unchanged)",
}


class Sized:
    """A dataset that only has a length: all a sampler looks at."""

    def __init__(self, size: int) -> None:
        self.size = size

    def __len__(self) -> int:
        return self.size


def factory(case: str, world: int, rank: int) -> Callable[[Sized], Any]:
    """How to build the sampler; dp2ddp's come from the same templates a migrated script's
    header is rendered from."""
    from torch.utils.data import DistributedSampler

    from dp2ddp.templating import render

    if case.startswith("DistributedSampler"):
        shuffle = case.endswith("(shuffle=True)")
        return lambda data: DistributedSampler(data, world, rank, shuffle=shuffle)
    namespace: dict[str, Any] = {
        "DistributedSampler": DistributedSampler,
        "itertools": itertools,
        "RANK": rank,
        "WORLD_SIZE": world,
        "warnings": warnings,
    }
    if case == "ddp_eval_sampler":
        exec(render("helpers/eval_sampler.py.j2"), namespace)
        return namespace["ddp_eval_sampler"]  # type: ignore[no-any-return]
    exec(render("helpers/distributed_sampler.py.j2"), namespace)
    return lambda data: namespace["DdpDistributedSampler"](data, world, rank, shuffle=False)


def measure(case: str, size: int, world: int, rank: int) -> dict[str, float]:
    """Runs in the child: one sampler, one epoch of indices."""
    build = factory(case, world, rank)  # imports torch and dp2ddp before the baseline

    def peak_mib() -> float:
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux

    baseline = peak_mib()
    start = time.perf_counter()
    sampler = build(Sized(size))
    indices = iter(sampler)
    next(indices)
    first = time.perf_counter() - start
    collections.deque(indices, maxlen=0)  # draw the rest, at C speed, keeping none
    total = time.perf_counter() - start
    return {
        "peak_mib": peak_mib() - baseline,
        "first_s": first,
        "epoch_s": total,
        "indices": len(sampler),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=79_000_000)
    parser.add_argument("--world", type=int, default=2)
    parser.add_argument("--rank", type=int, default=0)
    parser.add_argument("--shuffled", action="store_true", help="also the shuffled sampler")
    parser.add_argument("--case", help=argparse.SUPPRESS)  # the child's one sampler
    args = parser.parse_args()
    if args.case:
        print(json.dumps(measure(args.case, args.size, args.world, args.rank)))
        return 0
    cases = [c for c in CASES if args.shuffled or not c.endswith("(shuffle=True)")]
    print(f"len(dataset) = {args.size:,}, rank {args.rank} of {args.world}")
    print(f"{'sampler':<38}{'peak MiB':>10}{'first ms':>10}{'epoch s':>10}{'indices':>13}  note")
    for case in cases:
        command = [sys.executable, __file__, "--case", case]
        command += ["--size", str(args.size), "--world", str(args.world), "--rank", str(args.rank)]
        child = subprocess.run(command, capture_output=True, text=True, check=False)
        if child.returncode:
            print(f"{case:<38} failed: {child.stderr.strip().splitlines()[-1:]}")
            continue
        r = json.loads(child.stdout)
        print(
            f"{case:<38}{r['peak_mib']:>10.1f}{r['first_s'] * 1000:>10.1f}{r['epoch_s']:>10.2f}"
            f"{int(r['indices']):>13,}  {CASES[case]}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
