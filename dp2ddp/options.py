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
    inline_helpers: put the setup block and the helpers into the migrated file itself (the
        single-file form: one self-contained script). The default imports them from a
        generated module beside the entry, `_dp2ddp.py` (transforms/_support/runtime.py),
        so the entry's diff holds only the edits a reviewer must judge; the result carries
        that module's text (MigrationResult.helpers_module). A program of several modules
        always imports them.
    ignore: warning codes never reported (--ignore, `ignore` in [tool.dp2ddp]). The passes
        do not read it: the reports are filtered after the migration (migrate/suppress.py),
        together with the `# noqa: DPxxx` comments.
    line_length: the width of the lines dp2ddp writes or re-wraps (migrate/tidy.py). None:
        the project's, read from its ruff, black, flake8 or editorconfig settings nearest
        to the file (migrate/line_length.py; `migrate_source` alone, with no file: 88).
    file_timeout: seconds one file's migration may take (--file-timeout, `file-timeout` in
        [tool.dp2ddp]); past that the file fails alone (migrate/deep.py). None: no limit.
        Changes nothing that is written, so it takes no part in comparisons.
    """

    per_process_batch: bool = False
    sync_batchnorm: bool = False
    keep_summed_loss: bool = False
    inline_helpers: bool = False
    ignore: frozenset[str] = field(default_factory=frozenset)
    line_length: int | None = None
    file_timeout: float | None = field(default=None, compare=False)


#: The default of --file-timeout (seconds): generous, a file that takes longer is a bug.
DEFAULT_FILE_TIMEOUT = 300
