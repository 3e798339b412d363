"""The drawing functions of another module of the program (`module_draws`): read once a
module for the program model (program/told.py), with a text precheck (`_may_draw`) that
skips a module none of whose functions could call a draw. HelperDraws (draws.py) reads
the module as its own migration does."""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import replace

import libcst as cst
from libcst.codemod import CodemodContext

from dp2ddp.facts import HelperDraw as Draw
from dp2ddp.options import MigrateOptions
from dp2ddp.transforms._support import ast_nodes
from dp2ddp.transforms._support.ast_nodes import parse_python
from dp2ddp.transforms._support.base import MigrationState, MigrationTransform
from dp2ddp.transforms._support.names import INPLACE_RANDOM_FILLS
from dp2ddp.transforms._support.nodes import parsed_or_none
from dp2ddp.transforms.analysis.random_draws import RANDOM_DRAWS
from dp2ddp.transforms.hazards.draws import HelperDraws
from dp2ddp.transforms.hazards.generator_objects import GENERATOR_DRAWS


class _ExportDraws(MigrationTransform):
    """Reads a module of the program: which of its functions draw (it changes nothing)."""

    NAME = "draws"
    DESCRIPTION = "Find the module's functions that draw random numbers."

    def __init__(self, context: CodemodContext, state: MigrationState) -> None:
        super().__init__(context, state)
        self.found: dict[str, Draw] = {}
        self.text: str | None = None  # the module's source (module_draws)

    def visit_Module(self, node: cst.Module) -> bool:
        own = HelperDraws(node, self.qualified_names, self._position, self.parent, None, self.text)
        self.found = own.exported()
        return False


#: A module whose text has none of these draws nothing RANDOM_DRAWS names (not parsed):
#: numpy's and Python's draws go through a `random` module, torch's are named rand*...
#: (scikit-learn's LIBRARY_DRAWS by their own names).
_DRAW_WORDS = (
    "rand",
    "normal(",
    "bernoulli(",
    "multinomial(",
    "poisson(",
    "_split(",
    "shuffle(",
    "resample(",
    *(f"{fill}(" for fill in sorted(INPLACE_RANDOM_FILLS)),
)


def module_draws(
    import_name: str,
    path: str,
    source: str,
    parsed: Callable[[], cst.Module | None] | None = None,
) -> dict[str, Draw]:
    """The drawing functions of another module of the program, by the qualified name an
    importer resolves (`utils.mixup_data`), each located at `path`. A module that does not
    parse draws nothing here (its own migration reports the error). `parsed`: the module's
    tree as the program model keeps it (None: it does not parse), so that the module is
    parsed once for this and its own migration."""
    if "distributions" not in source and (
        not any(word in source for word in _DRAW_WORDS) or not _may_draw(source)
    ):
        return {}
    tree = parsed_or_none(source, parsed)
    if tree is None:
        return {}
    reader = _ExportDraws(CodemodContext(filename=path), MigrationState(MigrateOptions()))
    reader.text = source
    reader.transform_module(tree)
    return {
        f"{import_name}.{name}": replace(draw, path=draw.path or path)
        for name, draw in reader.found.items()
    }


#: The last part of each name in RANDOM_DRAWS (`randn`, `choice`, ...).
_DRAW_TAILS = frozenset(name.rsplit(".", 1)[1] for name in RANDOM_DRAWS)


def _may_draw(source: str) -> bool:
    """Whether some module-level function of `source` may call a draw of RANDOM_DRAWS, by
    Python's own parser (several times cheaper than libcst's parse and metadata).

    A drawing function (or method: class bodies are searched too) calls, itself or
    through the module's other module-level functions
    (their bodies are searched too), a callee whose qualified name is in RANDOM_DRAWS. An
    attribute's qualified name ends with its own name (`np.random.choice`), and a plain
    name resolves to a draw only as that draw's last name (`from torch import randn`, or a
    star import) or as a name an import binds to it (`from torch import randn as r`). So a
    module none of whose module-level functions holds a call spelled that way draws
    nothing here. (ast reads identifiers NFKC-normalised, libcst as written: ast can only
    see more such calls.) A text that does not parse is left to libcst."""
    try:
        tree = parse_python(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return True
    names = set(_DRAW_TAILS | GENERATOR_DRAWS | INPLACE_RANDOM_FILLS)
    for node in ast_nodes.listed(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update(
                alias.asname
                for alias in node.names
                if alias.asname and alias.name.rsplit(".", 1)[-1] in _DRAW_TAILS
            )
    for statement in tree.body:
        if not isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        for node in ast_nodes.walk(statement):
            if isinstance(node, ast.Call) and (
                (isinstance(node.func, ast.Name) and node.func.id in names)
                or (isinstance(node.func, ast.Attribute) and node.func.attr in names)
            ):
                return True
    return False
