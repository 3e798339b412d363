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


@dataclass(frozen=True)
class ProgramHints:
    """What the program's other modules tell one module's rank-0 pass.

    Found with `ast` over every module of the program (see
    dp2ddp/transforms/rank_zero/program_hints.py), also for an entry migrated as a single
    file: a function in `config.py` that nothing else migrates still decides whether
    `print(cf.learning_rate(lr, epoch))` may be guarded.

    pure: qualified names ("config.learning_rate") of project functions that are safe to
        skip on ranks other than 0, so a print calling them can be guarded.
    unused: names of this module's top-level functions that no module of the program
        refers to (a model file's demo `test()`): dead code for this program, left as
        written.
    imported: the module is one the program imports, so its `if __name__ == "__main__":`
        block never runs in this program: it is left as written too.
    logs: some module of the program imports `logging`, so ddp_setup() quiets it off
        rank 0 (rank_zero/quiet_logging.py), also when the entry itself does not log.
    scatter_dims: the `dim` of every DataParallel wrap of the program, as written: a module
        that iterates batches without wrapping splits them along it (transforms/batches.py).
    """

    pure: frozenset[str] = frozenset()
    unused: frozenset[str] = frozenset()
    imported: bool = False
    logs: bool = False
    scatter_dims: frozenset[str] = frozenset()


@dataclass(frozen=True)
class HelperDraw:
    """A function of the project that draws random numbers: its first draw, `what` at `line`
    (of `path`, when the function lives in another module than the file migrated).

    Found in each module of a program before its files are migrated, so that a training loop
    that calls `mixup_data()` imported from utils.py gets DP006 (transforms/hazards/draws.py).
    """

    helper: str
    what: str
    line: int
    path: str | None = None

    def describe(self) -> str:
        where = f"{self.path}:{self.line}" if self.path else f"line {self.line}"
        return f"{self.helper}() draws {self.what} at {where}"


@dataclass(frozen=True)
class LoaderExport:
    """A training loader a library module sharded without finding its epoch loop, as the
    modules importing it reach it, so that their epoch loop can call its set_epoch.

    function: `name` is a top-level function returning the loader, at `position` of the
    tuple or list of `arity` items it returns (position None: the value returned itself);
    else `name` is a module-level name bound to the loader.
    module: the library's import name (set by program/migrate.py; the data pass that finds
    the loader does not know it).
    """

    name: str
    function: bool
    position: int | None = None
    arity: int | None = None
    module: str = ""


@dataclass(frozen=True)
class ProgramLoaders:
    """What the data pass of one module is told about the loaders of the rest of its program.

    exported: training loaders its libraries sharded (LoaderExport): where this module
        iterates one inside an epoch loop, it calls the loader's sampler's set_epoch there.
    unfollowed: (import name, path) of project modules that build a DataLoader but that
        discovery could not follow (Program.unfollowed): a training loop over a loader they
        return gets DP027, never silence.
    """

    exported: tuple[LoaderExport, ...] = field(default=())
    unfollowed: tuple[tuple[str, str], ...] = field(default=())
