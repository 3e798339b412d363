"""The names a package's `__init__.py` gives its modules' functions (program hints).

`from .stream_metrics import StreamSegMetrics` in package `metrics`: the program calls
`metrics.StreamSegMetrics(...).to_str(...)`; `from .util import *` in package `lib`: it calls
`lib.make_summary(...)` (yandex-research/rtdl-revisiting-models@e3ed46c,
`print(f'[{part}]', lib.make_summary(metrics))`, which stayed on every rank). A fact found
under a function's own name (pure: program_hints._pure_of; printing:
program_hints._qualified_printers) holds under each of these names too.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable

#: The alias a star re-export's pair carries after the package's name: ("lib.*", "lib.util").
STAR = ".*"


def reexports_of(
    module: str, tree: ast.Module, is_package: bool, table: dict[str, str]
) -> tuple[tuple[str, str], ...]:
    """(alias, full name) of each re-export of package `module` (`table`: its imports, local
    name -> dotted name): ("metrics.StreamSegMetrics", "metrics.stream_metrics.StreamSegMetrics"),
    and ("lib.*", "lib.util") for `from .util import *`. A package's only: a module's own
    imports are what it uses, not names it offers (and an entry's would make each program's
    hints differ, so a shared library is migrated per program)."""
    if not module or not is_package:
        return ()
    found: list[tuple[str, str]] = []
    parts = module.split(".")
    for statement in tree.body:
        if not isinstance(statement, ast.ImportFrom):
            continue
        for alias in statement.names:
            if alias.name != "*":
                local = alias.asname or alias.name
                full = table.get(local)
                if full is not None and full != f"{module}.{local}":
                    found.append((f"{module}.{local}", full))
                continue
            base = statement.module or ""
            if statement.level:
                keep = len(parts) - statement.level + 1  # an __init__: level 1 is itself
                if keep < 0:
                    continue
                base = ".".join([*parts[:keep], *([base] if base else [])])
            if base and base != module:
                found.append((module + STAR, base))
    return tuple(found)


def reexported_names(
    names: Iterable[str], reexports: Iterable[tuple[str, str]], bound: frozenset[str]
) -> set[str]:
    """The names `reexports` (one package's, see reexports_of) give `names` and what is in
    them (a class's methods): "lib.make_summary" for "lib.util.make_summary" through
    ("lib.*", "lib.util"). A star brings only public names, and not one the package binds
    itself (`bound`: its own definition wins over the star's)."""
    names = list(names)
    found: set[str] = set()
    for alias, full in reexports:
        star = alias.endswith(STAR)
        for name in names:
            if name != full and not name.startswith(full + "."):
                continue
            tail = name[len(full) :]
            if not star:
                found.add(alias + tail)
                continue
            first = tail[1:].partition(".")[0]
            if tail and not first.startswith("_") and first not in bound:
                found.add(alias[: -len(STAR)] + tail)
    return found


def reexported_as(
    targets: set[str], packages: list[tuple[Iterable[tuple[str, str]], frozenset[str]]]
) -> dict[str, str]:
    """Each name the packages' re-exports (`packages`: each one's reexports_of and the names
    it binds) give one of `targets` -> that target (twice: a re-export of a re-export)."""
    found = {t: t for t in targets}
    for _ in range(2):
        for reexports, bound in packages:
            for name, full in list(found.items()):
                for alias in reexported_names([name], reexports, bound):
                    found.setdefault(alias, full)
    return {alias: full for alias, full in found.items() if alias != full}
