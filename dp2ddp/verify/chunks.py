"""How the original emulates DataParallel's scatter over the migration's W devices.

On CPU the original is one process; DataParallel on W GPUs would split each batch in W
chunks, one per replica: so BatchNorm and dropout run per chunk there, and a norm that keeps
running statistics of its input (InstanceNorm with `track_running_stats`) keeps replica 0's,
of its chunk. On GPUs the original runs the real DataParallel over the same devices, which
already does so.
"""

from __future__ import annotations

from dataclasses import dataclass

from dp2ddp.verify.config import VerifyConfig


@dataclass(frozen=True)
class Chunks:
    """How the original emulates DataParallel's scatter over the migration's W devices."""

    batchnorm: int  # BatchNorm with batch statistics: per chunk (1: over the whole batch)
    dropout: int  # dropout masks drawn per chunk as the ranks draw them (0: as is)
    #: other norms' running statistics: replica 0's chunk's (1: the whole batch's)
    norms: int = 1


def replica_chunks(config: VerifyConfig, backend: str, nproc: int, migrated_source: str) -> Chunks:
    """BatchNorm stays whole-batch when the migration synchronises it (SyncBatchNorm) and
    when `--freeze-batchnorm` normalises it with its running statistics; neither changes
    the other norms' running statistics, kept per chunk (VITA-Group/DeblurGANv2@c16bd9f5's
    InstanceNorm under `--freeze-batchnorm`: "a buffer went apart first")."""
    if backend != "gloo" or nproc < 2:
        return Chunks(1, 0)
    synced = config.migrate_options.sync_batchnorm or "SyncBatchNorm" in migrated_source
    batchnorm = 1 if config.freeze_batchnorm or synced else nproc
    return Chunks(batchnorm, 0 if config.no_dropout else nproc, nproc)
