"""Shard DataLoaders with DistributedSampler and keep batch-size semantics."""

from __future__ import annotations

from dp2ddp.transforms.base import MigrationTransform


class ShardDataLoaders(MigrationTransform):
    NAME = "data"
    DESCRIPTION = "Shard DataLoaders with DistributedSampler and keep batch-size semantics."
