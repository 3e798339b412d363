"""Reads of a loop's figure inside a function defined beside the loop (stop 48: `def
report(): print(total)` after `for xb, yb in loader: ...; total += loss.item()`, at module
scope, under `if __name__ == "__main__":`, or inside `main()`).

The figure rule (evaluation.py) and the mean-list proof (mean_lists.py) walk the loop's
function without entering the functions defined in it: a figure shown by one was neither
gathered nor said, and rank 0 printed its share silently. Such a function's read of a name
it does not bind itself is the outer name (a closure's, or the module's global), and it
happens where the function runs: each read is placed at the lines of the loop's function
that name the function (a call, or the function handed on). Functions defined deeper, and
classes, stay unread (the mean-list proof then gathers nothing)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import libcst as cst
from libcst.metadata import PositionProvider

from dp2ddp.flow import view
from dp2ddp.transforms._support.nodes import module_of, walk

if TYPE_CHECKING:
    from dp2ddp.transforms.data.evaluation import LoaderEvaluation


def closures(t: LoaderEvaluation, scope: cst.CSTNode) -> list[tuple[cst.FunctionDef, list[int]]]:
    """The functions defined in `scope` itself (not in another def of it), each with the
    lines of `scope` that name it (empty: named nowhere there)."""
    functions = [
        n
        for n in walk(scope, skip_scopes=True)
        if isinstance(n, cst.FunctionDef) and n is not scope
    ]
    if not functions:
        return []
    names = {f.name.value for f in functions}
    lines: dict[str, list[int]] = {}
    for node in walk(scope, skip_scopes=True):
        if isinstance(node, cst.Name) and node.value in names:
            if not isinstance(t.parent(node), cst.FunctionDef):
                line = t.get_metadata(PositionProvider, node).start.line
                lines.setdefault(node.value, []).append(line)
    return [(f, lines.get(f.name.value, [])) for f in functions]


def outer_reads(t: LoaderEvaluation, function: cst.FunctionDef, name: str) -> list[cst.Name] | None:
    """`function`'s reads of `name` (not entering its own defs), when each is the outer
    name (the def-use view finds no binding of it in `function`); None where `function`
    binds it itself or a def inside it names it."""
    flow = view(module_of(function, t))  # type: ignore[arg-type]
    own = flow.functions.get(function)
    found = [n for n in walk(function, skip_scopes=True) if isinstance(n, cst.Name)]
    if sum(1 for n in walk(function) if isinstance(n, cst.Name) and n.value == name) != sum(
        1 for n in found if n.value == name
    ):
        return None
    reads: list[cst.Name] = []
    for node in found:
        parent = t.parent(node)
        if node.value != name or isinstance(parent, cst.Attribute) and parent.attr is node:
            continue
        if isinstance(parent, cst.Arg) and parent.keyword is node:
            continue
        if any(flow.function_around(d.target) is own for d in flow.definitions(node)):
            return None
        reads.append(node)
    return reads


def nested_shows(
    t: LoaderEvaluation, scope: cst.CSTNode
) -> Iterator[tuple[cst.Call, int, cst.FunctionDef]]:
    """Calls inside the functions defined in `scope` (`closures`), each with every line
    of `scope` that names its function: where the call's reads take effect."""
    for function, lines in closures(t, scope):
        for node in walk(function.body, skip_scopes=True):
            if isinstance(node, cst.Call):
                for line in lines:
                    yield node, line, function


def bound_inside(t: LoaderEvaluation, function: cst.FunctionDef, name: cst.Name) -> bool:
    """`name`, read in `function`, is bound in `function` itself (another variable than
    the loop's figure of that name)."""
    flow = view(module_of(function, t))  # type: ignore[arg-type]
    own = flow.functions.get(function)
    return any(flow.function_around(d.target) is own for d in flow.definitions(name))
