"""What `migrate_source` is told about a file's place in a multi-module program.

`migrate_source(source, options, program=None)` migrates a single-file program (today's
behaviour, inline setup block). With a ProgramContext it migrates one module of a program
whose helpers live in a generated module: the DataParallel gate is the program's, not the
file's, and the setup names are imported instead of defined.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from dp2ddp.program.uniformity import ProgramUniformity

Role = Literal["entry", "library"]


@dataclass(frozen=True)
class ProgramContext:
    """One module's role in a program.

    role: "entry" calls ddp_setup() (first thing in main(), else after its imports);
        "library" never does: importing it must start no process group.
    has_dataparallel: the program-wide gate. Some module of the program wraps with
        DataParallel (or the program was migrated before), so every module's loaders,
        prints, saves and devices are migrated, not only those of the file that wraps.
    helpers_module: the import name of the generated helpers module (e.g. "_dp2ddp", or
        "pkg._dp2ddp" for an entry run as `python -m pkg.train`).
    uniform: the program's cross-module rank-independence facts (program/uniformity.py).
    """

    role: Role
    has_dataparallel: bool
    helpers_module: str
    #: Which values are the same on every rank across modules (a config object built in
    #: main.py from parse_args() and stored by a class of another module); None: unknown.
    uniform: ProgramUniformity | None = field(default=None, compare=False, hash=False)
