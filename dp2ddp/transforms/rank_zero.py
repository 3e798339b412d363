"""Print, log, save and track experiments on rank 0 only."""

from __future__ import annotations

from dp2ddp.transforms.base import MigrationTransform


class RankZeroOnly(MigrationTransform):
    NAME = "rank_zero"
    DESCRIPTION = "Print, log, save and track experiments on rank 0 only."
