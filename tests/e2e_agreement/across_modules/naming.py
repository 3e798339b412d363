"""Run names (issue 29: a per-rank value across a module boundary)."""

import os
import time


def run_name(prefix):
    if os.environ.get("RANK", "0") == os.environ.get("E2E_SLOW_RANK"):
        time.sleep(1.1)  # this rank reads the clock late
    return f"{prefix}-{time.strftime('%Y%m%d-%H%M%S')}"
