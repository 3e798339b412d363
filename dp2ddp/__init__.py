"""dp2ddp: move PyTorch DataParallel training scripts onto torchrun-ready DDP.

The public names load lazily: `dp2ddp.verify`'s runner executes inside the user's training
processes and must not pay for importing libcst there.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

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

_LOCATIONS = {
    "migrate_source": "dp2ddp.migrate.migrate_source",
    "InputError": "dp2ddp.errors",
    "MigrateOptions": "dp2ddp.options",
    "Change": "dp2ddp.result",
    "Diagnostic": "dp2ddp.result",
    "MigrationResult": "dp2ddp.result",
}

if TYPE_CHECKING:
    from dp2ddp.errors import InputError
    from dp2ddp.migrate.migrate_source import migrate_source
    from dp2ddp.options import MigrateOptions
    from dp2ddp.result import Change, Diagnostic, MigrationResult


def __getattr__(name: str) -> Any:
    if name in _LOCATIONS:
        import importlib

        return getattr(importlib.import_module(_LOCATIONS[name]), name)
    raise AttributeError(f"module 'dp2ddp' has no attribute {name!r}")
