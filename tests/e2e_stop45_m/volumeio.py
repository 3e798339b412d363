"""Stand-in for a library class whose objects save themselves to a path, as torchio's
ScalarImage does (`ScalarImage(tensor=x).save(path)`): dp2ddp knows no such library. Each
save appends the process's RANK and the first values to the file, so a test can see which
ranks wrote it (tests/fixtures/rank_zero_s50_v4_library_class_save)."""

from __future__ import annotations

import os
from typing import Any


class Volume:
    def __init__(self, tensor: Any) -> None:
        self.values = [round(float(v), 4) for v in tensor.flatten()[:3]]

    def save(self, path: str | None = None) -> None:
        if path is None:  # a save without a path: nothing written
            return
        with open(path, "a") as f:
            f.write(f"rank {os.environ.get('RANK', '-')}: {self.values}\n")
