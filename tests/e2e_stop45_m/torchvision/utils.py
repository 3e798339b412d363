"""Stand-in for torchvision.utils.save_image: writes the grid's row count and sum as text
(stop 50 s1: rank 0's grid against the original's). Under torchrun rank 0 writes 0.5 s late,
so a rank that reads the file back with no barrier between comes first (stop 55 v2-C)."""

import os
import time
from typing import Any


def save_image(tensor: Any, fp: str, **kwargs: Any) -> None:
    if os.environ.get("RANK") == "0" and os.environ.get("WORLD_SIZE", "1") != "1":
        time.sleep(0.5)
    with open(fp, "w") as f:
        f.write(f"rows {tensor.shape[0]} sum {float(tensor.sum()):.3f}\n")
