"""Reads of a loop's figure inside a function defined beside the loop (stop 48: `def
report(): print(total)` after `for xb, yb in loader: ...; total += loss.item()`, at module
scope, under `if __name__ == "__main__":`, or inside `main()`).

The figure rule (evaluation.py) and the mean-list proof (mean_lists.py) walk the loop's
function without entering the functions defined in it: a figure shown by one was neither
gathered nor said, and rank 0 printed its share silently. Such a function's read of a name
that no function inside the loop's function binds is the outer name (a closure's, or the
module's global), and it happens where the function runs: each read is placed at the lines
of the loop's function that name the function (a call, or the function handed on). A
function defined deeper (`def report(): def line(): print(total)`) runs where its outermost
def is named; a method of a class defined there where the class is named (`__init__`,
`__call__`) or where an attribute of the method's name is (`r.show()`). A name a nested
function binds from an outer figure (`s = total / 4`) holds that figure (`inner_figures`,
the def-use view's bindings). Read once per scope (`closures`)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import libcst as cst
from libcst.metadata import PositionProvider

from dp2ddp.flow import view
from dp2ddp.transforms._support.nodes import module_of, walk
from dp2ddp.transforms.data.figure_aliases import figure_aliases

if TYPE_CHECKING:
    from dp2ddp.transforms.data.evaluation import LoaderEvaluation

Closures = list[tuple[cst.FunctionDef, list[int]]]
_RUN_BY_CLASS = ("__init__", "__call__")


def closures(t: LoaderEvaluation, scope: cst.CSTNode) -> Closures:
    """The functions defined in `scope` (at any depth, methods of its classes among them),
    each with the lines of `scope` where it may run (empty: named nowhere there). Read once
    per scope."""
    cache: dict[cst.CSTNode, Closures] = t.__dict__.setdefault("_closures", {})
    if scope not in cache:
        cache[scope] = _closures(t, scope)
    return cache[scope]


def _closures(t: LoaderEvaluation, scope: cst.CSTNode) -> Closures:
    tops = [
        n
        for n in walk(scope, skip_scopes=True)
        if isinstance(n, (cst.FunctionDef, cst.ClassDef)) and n is not scope
    ]
    if not tops:
        return []
    names = {f.name.value for f in tops}
    methods = {
        m.name.value
        for c in tops
        if isinstance(c, cst.ClassDef)
        for m in c.body.body
        if isinstance(m, cst.FunctionDef)
    }
    lines: dict[str, list[int]] = {}
    attributes: dict[str, list[int]] = {}
    for node in walk(scope, skip_scopes=True):
        if not isinstance(node, cst.Name) or node.value not in names | methods:
            continue
        parent = t.parent(node)
        line = t.get_metadata(PositionProvider, node).start.line
        if isinstance(parent, cst.Attribute) and parent.attr is node:
            attributes.setdefault(node.value, []).append(line)
        elif not isinstance(parent, (cst.FunctionDef, cst.ClassDef)):
            lines.setdefault(node.value, []).append(line)
    found: Closures = []
    for top in tops:
        named = lines.get(top.name.value, [])
        if isinstance(top, cst.FunctionDef):
            found += [(f, named) for f in _functions(top)]
            continue
        for method in top.body.body:
            if isinstance(method, cst.FunctionDef):
                runs = named if method.name.value in _RUN_BY_CLASS else []
                runs = runs or attributes.get(method.name.value, [])
                found += [(f, runs) for f in _functions(method)]
    return found


def _functions(root: cst.FunctionDef) -> list[cst.FunctionDef]:
    """`root` and every def inside it (its classes' methods among them)."""
    return [n for n in walk(root) if isinstance(n, cst.FunctionDef)]


def outer_reads(
    t: LoaderEvaluation, function: cst.FunctionDef, name: str, scope: cst.CSTNode
) -> list[cst.Name] | None:
    """`function`'s own reads of `name` (not entering its defs), when each is the name of
    `scope` or the module (no function inside `scope` binds it: the def-use view's
    definitions); None where one is bound inside."""
    reads: list[cst.Name] = []
    for node in walk(function, skip_scopes=True):
        if not isinstance(node, cst.Name) or node.value != name:
            continue
        parent = t.parent(node)
        if isinstance(parent, cst.Attribute) and parent.attr is node:
            continue
        if isinstance(parent, cst.Arg) and parent.keyword is node:
            continue
        if isinstance(parent, (cst.FunctionDef, cst.ClassDef)) and parent.name is node:
            continue
        if bound_inside(t, scope, node):
            return None
        reads.append(node)
    return reads


def nested_shows(
    t: LoaderEvaluation, scope: cst.CSTNode
) -> Iterator[tuple[cst.Call, int, cst.FunctionDef]]:
    """Calls inside the functions defined in `scope` (`closures`), each with every line
    of `scope` where its function may run: where the call's reads take effect."""
    for function, lines in closures(t, scope):
        for node in walk(function.body, skip_scopes=True):
            if isinstance(node, cst.Call):
                for line in lines:
                    yield node, line, function


def bound_inside(t: LoaderEvaluation, scope: cst.CSTNode, name: cst.Name) -> bool:
    """`name`, read in a function defined in `scope`, is bound by a function inside
    `scope` (another variable than the loop's figure of that name)."""
    flow = view(module_of(scope, t))  # type: ignore[arg-type]
    own = flow.functions.get(scope)
    return any(flow.function_around(d.target) is not own for d in flow.definitions(name))


def inner_figures(
    t: LoaderEvaluation,
    scope: cst.CSTNode,
    function: cst.FunctionDef,
    outer: dict[str, set[str]],
) -> dict[str, set[str]]:
    """The names `function` reads that hold figures of `scope` (`outer`, its aliases): an
    outer name it does not bind, a name an enclosing def inside `scope` binds from one and
    `function` reads (`def report(): s = total; def line(): print(s)`: that def's own
    figures, followed outwards first; stop 49, silent before), and a name it binds from
    either (`s = total / 4`)."""
    source = {
        n.value: outer[n.value]
        for n in walk(function, skip_scopes=True)
        if isinstance(n, cst.Name) and n.value in outer and not bound_inside(t, scope, n)
    }
    enclosing = _enclosing_def(t, scope, function)
    if enclosing is not None:
        held_there = inner_figures(t, scope, enclosing, outer)
        flow = view(module_of(scope, t))  # type: ignore[arg-type]
        there = flow.functions.get(enclosing)
        for n in walk(function, skip_scopes=True):
            if not isinstance(n, cst.Name) or n.value not in held_there or n.value in source:
                continue
            found = flow.definitions(n)
            if found and all(flow.function_around(d.target) is there for d in found):
                source[n.value] = held_there[n.value]
    held = figure_aliases(function, set(source))
    return {
        name: set().union(*(source[f] for f in figures))
        for name, figures in held.items()
        if figures
    }


def _enclosing_def(
    t: LoaderEvaluation, scope: cst.CSTNode, function: cst.FunctionDef
) -> cst.FunctionDef | None:
    """The def `function` is defined in directly, where that def is inside `scope`."""
    node = t.parent(function)
    while node is not None and node is not scope:
        if isinstance(node, cst.FunctionDef):
            return node
        if isinstance(node, cst.ClassDef):
            return None  # a method: a class body's names are not the method's closure
        node = t.parent(node)
    return None
