"""Warn about what DDP changes and dp2ddp cannot convert safely."""

from __future__ import annotations

from dp2ddp.transforms.base import MigrationTransform


class FlagHazards(MigrationTransform):
    NAME = "hazards"
    DESCRIPTION = "Warn about what DDP changes and dp2ddp cannot convert safely."
