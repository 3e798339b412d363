"""Where a library module of a package finds the generated helpers module.

The generated module lies beside the entry (`_dp2ddp.py` in the entry's folder), which
`from _dp2ddp import ...` reaches only while that folder is on sys.path: the entry's own
run. A library module of a package imported from another folder (torch-rechub@5a73b2e:
`examples/ranking/run_criteo.py` puts the repository root on sys.path and imports
`torch_rechub.trainers.ctr_trainer`) is imported by every other entry and user of the
library too, from folders where the entry's `_dp2ddp` is not found (ModuleNotFoundError).
Such a module imports its helpers from a generated module inside its top-level package,
`torch_rechub._dp2ddp` (torch_rechub/_dp2ddp.py): whoever imports the module imported that
package first, from wherever they run. A module imported from the entry's own folder
(`models.net` beside main.py) keeps the module beside the entry, and so does a program
run as `python -m pkg.train` (its helpers are `pkg._dp2ddp` already).

A top-level module of a folder that is no package, put on sys.path by the entry
(`sys.path.insert(0, "../lib")`, `from trainer import fit`: stop 48), is imported as
`trainer` by every entry that puts that folder on sys.path, and its `from _dp2ddp import`
then finds a `_dp2ddp` on sys.path only beside the entry that was migrated. Such a folder
gets a generated module of its own (`path_root`), lib/_dp2ddp.py, holding every helper the
program uses, the same as the one beside the entry: whichever of the two a process
imports first as `_dp2ddp` (the order of sys.path decides) serves both the entry and the
library, and an entry in another folder that imports the library finds the library's.
"""

from __future__ import annotations

import os

from dp2ddp.facts import GENERATED_MODULE
from dp2ddp.program.discovery import Program, ProgramModule


def package_home(program: Program, module: ProgramModule) -> tuple[str, str, str] | None:
    """(import name, folder, folder as shown) of the generated module `module` imports its
    helpers from when that is its top-level package's; None: the one beside the entry."""
    if program.module_entry is not None or module.real == program.entry.real:
        return None
    parts = module.name.split(".")
    if len(parts) < 2 or not all(p.isidentifier() for p in parts):
        return None
    up = len(parts) - (0 if module.is_package else 1)
    real, shown = os.path.dirname(module.real), os.path.dirname(module.path)
    for _ in range(up - 1):
        real, shown = os.path.dirname(real), os.path.dirname(shown)
    if os.path.basename(real) != parts[0]:
        return None  # not laid out as its name says (a path hook, a symbolic link)
    if os.path.dirname(real) == os.path.dirname(program.entry.real):
        return None
    return f"{parts[0]}.{GENERATED_MODULE}", real, shown


def path_root(program: Program, module: ProgramModule) -> tuple[str, str] | None:
    """(folder, folder as shown) of `module` when it is a top-level module (no package) of
    a folder other than the entry's: a folder put on sys.path; None otherwise."""
    if program.module_entry is not None or module.real == program.entry.real:
        return None
    if "." in module.name or module.is_package:
        return None
    real = os.path.dirname(module.real)
    if real == os.path.dirname(program.entry.real):
        return None
    return real, os.path.dirname(module.path)
