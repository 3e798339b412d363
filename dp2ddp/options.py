"""Options that change what the codemod writes and reports (shared by `migrate` and `verify`)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class MigrateOptions:
    """How to migrate.

    per_process_batch: keep each DataLoader's batch_size as the per-process batch
        (the global batch then grows with the world size). The default keeps
        DataParallel's meaning: batch_size is the global batch, split across ranks.
    sync_batchnorm: convert BatchNorm layers with SyncBatchNorm (takes effect on CUDA only).
    keep_summed_loss: leave losses summed over the batch as written (warned, DP004). The
        default multiplies them by WORLD_SIZE where they are backpropagated, so the updates
        stay DataParallel's (DDP averages gradients over the processes).
    ignore: warning codes never reported (--ignore, `ignore` in [tool.dp2ddp]). The passes
        do not read it: the reports are filtered after the migration (migrate/suppress.py),
        together with the `# noqa: DPxxx` comments.
    file_timeout: seconds one file's migration may take (--file-timeout, `file-timeout` in
        [tool.dp2ddp]); past that the file fails alone (migrate/deep.py). None: no limit.
        Changes nothing that is written, so it takes no part in comparisons.
    """

    per_process_batch: bool = False
    sync_batchnorm: bool = False
    keep_summed_loss: bool = False
    ignore: frozenset[str] = field(default_factory=frozenset)
    file_timeout: float | None = field(default=None, compare=False)


#: The default of --file-timeout (seconds): generous, a file that takes longer is a bug.
DEFAULT_FILE_TIMEOUT = 300
