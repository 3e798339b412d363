"""A set of strings returned through the program's modules: set_returns.py's fact, joined.

set_returns.py reads one module: its functions returning a set of strings, through its own
functions' calls. A program hands the set on through a module of its own as often: the
entry's `labels = utils.get_labels()` where utils.py's `get_labels` returns
`label_io.read_set(path)` and label_io.py builds the set from the file's lines (stop 53 s1's
left, the shape of hertz-pj/BERT-BiLSTM-CRF-NER-pytorch@b1f70a7's processor over a reader):
each rank numbered the labels in its own hash order, and the fact of utils.py said nothing.

`program_set_returns` joins the facts: over the modules whose text names a function some
module's fact lists (each module read once, its parsed tree reused), set_returns.py is asked
again with `linked`: a call of another module's function (through the caller's imports:
`label_io.read_set(p)`, `from label_io import read_set`, `label_io.Reader().labels()`) is a
set of strings where that function is listed. A module a call names and not yet read is read
then (once). A function so proved is listed in turn ("module.f"), and the modules naming it
are read in the next round. A function returning a set through a chain of more than _HOPS
modules' functions is "f+" (set_orders.py says it: DP178); one returning another module's
"f?" is "f?" too (DP167).
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from typing import TYPE_CHECKING, Final

from dp2ddp.transforms._support.ast_nodes import import_table, resolved_name
from dp2ddp.transforms._support.identifiers import mentions
from dp2ddp.transforms.rank_zero.set_returns import set_returns

if TYPE_CHECKING:  # discovery imports the migration pipeline, which imports this module
    from dp2ddp.program.discovery import ProgramModule

#: How many modules' functions a set is followed through (the one building it is the first).
_HOPS: Final = 3


def program_set_returns(
    modules: Sequence[ProgramModule], own: Sequence[frozenset[str]]
) -> frozenset[str]:
    """ "module.f" / "module.Class.f" (and "?", "+") of the functions of the program's
    modules but the entry (`modules[0]`: no module calls it) returning a set of strings,
    `own`: each module's set_returns read alone."""
    hops: dict[str, int] = {}  # qualified name, with its mark -> modules followed
    for module, found in zip(modules[1:], own[1:], strict=True):
        if module.name:
            hops.update((f"{module.name}.{f}", 1) for f in found)
    if not hops:
        return frozenset()
    by_name = {m.name: m for m in modules[1:] if m.name}
    done: set[str] = set()

    def read(module: ProgramModule) -> None:
        done.add(module.name)  # once, and a recursion proves nothing
        tree = module.passing_tree()
        table = import_table(tree, module.name, module.is_package)
        deepest = 0

        def linked(func: ast.expr) -> str:
            nonlocal deepest
            target = resolved_name(func, table)
            if not target and isinstance(func, ast.Attribute) and isinstance(func.value, ast.Call):
                made = resolved_name(func.value.func, table)  # `label_io.Reader().labels()`
                target = f"{made}.{func.attr}" if made else ""
            if not target or target.startswith(f"{module.name}."):
                return ""
            owner = _owner(target, by_name)
            if owner is not None and owner not in done and not _known(target, hops):
                read(by_name[owner])
            kind = _known(target, hops)
            if kind == "str":
                if hops[target] >= _HOPS:
                    return "far"
                deepest = max(deepest, hops[target])
            return kind

        found = set_returns(tree, linked)
        for name in found:
            qualified = f"{module.name}.{name}"
            if not _known(qualified.rstrip("?+~"), hops):
                hops[qualified] = deepest + 1

    fresh = set(hops)
    while fresh:
        names = {q.rstrip("?+~").rpartition(".")[2] for q in fresh}
        before = set(hops)
        for module in by_name.values():
            if module.name not in done and mentions(module.source.text, *names):
                read(module)
        fresh = set(hops) - before
    return frozenset(hops)


def _owner(target: str, modules: dict[str, ProgramModule]) -> str | None:
    """The program module `target` ("pkg.mod.f", "mod.Class.f") is a function of."""
    parts = target.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        name = ".".join(parts[:cut])
        if name in modules:
            return name
    return None


def _known(target: str, hops: dict[str, int]) -> str:
    if target in hops:
        return "str"
    if f"{target}?" in hops:
        return "maybe"
    return "far" if f"{target}+" in hops else ""
