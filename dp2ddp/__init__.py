"""dp2ddp: move PyTorch DataParallel training scripts onto torchrun-ready DDP."""

from dp2ddp.api import migrate_source
from dp2ddp.errors import InputError
from dp2ddp.options import MigrateOptions
from dp2ddp.result import Change, Diagnostic, MigrationResult

__version__ = "0.1.0"

__all__ = [
    "Change",
    "Diagnostic",
    "InputError",
    "MigrateOptions",
    "MigrationResult",
    "migrate_source",
    "__version__",
]
