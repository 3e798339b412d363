"""Stand-in for a slow tokenizer library: each call takes 0.15 s, and its load takes 1.2 s
on rank 1 (RANK=1), no time elsewhere: a rank comes late to what follows, as one does on
a busy machine (tests/fixtures/rank_zero_s51_w2_cache_built_when_absent: rank 1's cache
test then runs while rank 0 is still writing the cache it tokenizes into)."""

from __future__ import annotations

import os
import time
from collections.abc import Callable


def tokenize(line: str) -> list[str]:
    time.sleep(0.15)
    return line.split()


def load() -> Callable[[str], list[str]]:
    if os.environ.get("RANK") == "1":
        time.sleep(1.2)
    return tokenize
