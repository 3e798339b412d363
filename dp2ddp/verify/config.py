"""What one `dp2ddp verify` run compares, and with which tolerances."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from dp2ddp.options import MigrateOptions

Backend = Literal["auto", "gloo", "nccl"]

#: Optimizer steps compared by default: enough to see momentum and a second batch,
#: few enough that the check takes seconds.
DEFAULT_STEPS = 3
#: Relative tolerance on each parameter's update (RMS of the difference over RMS of the
#: original's update). float32 gradients summed in another order differ by ~1e-6 relative;
#: a wrong migration differs by 1e-1 or more.
DEFAULT_RTOL = 1e-4
#: Absolute tolerance on the RMS difference of an update (parameter units).
DEFAULT_ATOL = 1e-8
#: Seconds each run (the original, then the torchrun launch) may take.
DEFAULT_TIMEOUT = 300.0
#: Seed of every RNG in the original and in rank 0 (other ranks: alignment.process_seed),
#: and base seed of the aligned sampler order.
DEFAULT_SEED = 1234


@dataclass(frozen=True)
class VerifyConfig:
    """One verification: ORIGINAL against MIGRATED (or ORIGINAL migrated in memory)."""

    original: Path
    migrated: Path | None = None
    nproc: int | None = None
    steps: int = DEFAULT_STEPS
    backend: Backend = "auto"
    rtol: float = DEFAULT_RTOL
    atol: float = DEFAULT_ATOL
    timeout: float = DEFAULT_TIMEOUT
    script_args: tuple[str, ...] = ()
    migrate_options: MigrateOptions = field(default_factory=MigrateOptions)
    #: Check-only neutralisers of randomness that cannot be aligned across process counts.
    no_dropout: bool = False
    freeze_batchnorm: bool = False
    #: Dropout that cannot be aligned with DataParallel's chunks still draws (not off).
    keep_dropout: bool = False
    seed: int = DEFAULT_SEED
    #: After the compared steps, run both scripts to their natural end and check the exits,
    #: the output printed once and the files written once.
    to_end: bool = False
    #: Working directory of both runs (default: the current one, as when you launch them).
    cwd: Path | None = None
    #: Parent of the temporary directory (default: the system's); for tests.
    temp_root: Path | None = None
    #: Globs of project paths linked into verify's copy instead of copied (as .gitignore'd).
    exclude: tuple[str, ...] = ()
    #: Told what verify is doing as it goes (the command prints it to stderr).
    progress: Callable[[str], None] | None = field(default=None, compare=False)


def torch_seed(seed: int) -> int:
    """The 64-bit seed torch gets for `seed`: like the one torch picks itself in a plain
    `python` run (a random 64-bit value), so `torch.initial_seed()` is at least 2**32 and the
    common `np.random.seed(torch.initial_seed() // 2**32 - 1)` (or `% 2**32`) gets a seed
    numpy accepts. A small seed made that -1 and crashed the original under verify alone
    (saoyan/generativeskinlesion@d0df9c0: "Seed must be between 0 and 2**32 - 1", V10)."""
    digest = hashlib.blake2b(f"{seed}:torch".encode(), digest_size=8).digest()
    low = int.from_bytes(digest, "little")
    return (1 << 62) | (low & ((1 << 62) - 1))
