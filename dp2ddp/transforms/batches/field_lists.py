"""A loader's batch that is a list of fields, not a tensor of rows (stop 59 s2; round 11
v3-C, takahikof/RIPT_SDMM@fca73d3's `teacher(pointsets[:2])` over a multi-crop collate,
and v4-C, China-LiuXiaopeng/BraTS-DMFNet@3194707's `x, target = data[:2]` over
`[torch.cat(v) for v in zip(*batch)]`): a constant slice of such a list picks fields
(views, crops, input and target), each of which holds this rank's rows, so it is no
position of the batch (DP047's constant slice, DP082's position read).

A list is known to hold the batch's fields where (1) a list comprehension moves each
element of the batch (`[t.to(device) for t in batch]`: the proof already reads each
element as this rank's rows, batches/beside.py `_not_moved`), or (2) the loop takes the
loader's item whole and the loader's `collate_fn=` is a function of the module (or a
method, by its name) each of whose returns is a list or tuple display or a list
comprehension. A slice after a field is picked (`batch[0][:2]`) is rows again."""

from __future__ import annotations

from collections.abc import Iterable

import libcst as cst

from dp2ddp.transforms._support.nodes import name_of, walk
from dp2ddp.transforms.analysis.device_moves import moved

_DISPLAYS = (cst.List, cst.Tuple, cst.ListComp)


def moved_elements(ancestors: Iterable[cst.CSTNode], moves: frozenset[str]) -> bool:
    """A node (of `ancestors`, innermost first) is in the element of a list comprehension
    that moves each element of what it iterates (`[t.to(device) for t in batch]`)."""
    below: cst.CSTNode | None = None
    for ancestor in ancestors:
        if isinstance(ancestor, (cst.BaseSmallStatement, cst.BaseCompoundStatement)):
            return False
        if isinstance(ancestor, cst.ListComp):
            return ancestor.elt is below and moving_comprehension(ancestor, moves)
        below = ancestor
    return False


def moving_comprehension(value: cst.BaseExpression, moves: frozenset[str]) -> bool:
    """`value` is `[f(t) for t in xs]` whose element moves `t` (device_moves.moved)."""
    if not isinstance(value, cst.ListComp) or value.for_in.inner_for_in is not None:
        return False
    return any(moved(value.elt, name, moves) for name in _names(value.for_in.target))


def whole_batch(loop: cst.For, taken: cst.Name) -> bool:
    """`taken` is the loop's whole item: `for batch in loader`, `for i, batch in
    enumerate(loader)`."""
    if loop.target is taken:
        return True
    target, source = loop.target, loop.iter
    return (
        isinstance(target, cst.Tuple)
        and len(target.elements) == 2
        and target.elements[1].value is taken
        and isinstance(source, cst.Call)
        and name_of(source.func) == "enumerate"
    )


def collate_returns_fields(module: cst.Module, loaders: Iterable[cst.CSTNode]) -> bool:
    """One of `loaders` (calls) has the one `collate_fn=` among them, and the module's
    functions of that name (a method by its attribute's name) all return fields."""
    collates = [
        arg.value
        for call in loaders
        if isinstance(call, cst.Call)
        for arg in call.args
        if arg.keyword is not None and arg.keyword.value == "collate_fn"
    ]
    if len(collates) != 1:
        return False
    collate = collates[0]
    name = (
        collate.value
        if isinstance(collate, cst.Name)
        else collate.attr.value
        if isinstance(collate, cst.Attribute)
        else ""
    )
    found = [n for n in walk(module) if isinstance(n, cst.FunctionDef) and n.name.value == name]
    return bool(found) and all(returns_fields(f) for f in found)


def returns_fields(function: cst.FunctionDef) -> bool:
    """Each `return` of `function` gives a list or tuple display, a list comprehension, or a
    name the function binds only to one of those (`views = [...]; return views`)."""
    inner = list(walk(function.body, skip_scopes=True))
    returned = [n.value for n in inner if isinstance(n, cst.Return)]
    if not returned:
        return False
    bound: dict[str, list[cst.BaseExpression | None]] = {}
    for node in inner:
        if isinstance(node, cst.Assign):
            for target in node.targets:
                if isinstance(target.target, cst.Name):
                    bound.setdefault(target.target.value, []).append(node.value)
        elif isinstance(node, (cst.AugAssign, cst.AnnAssign)) and isinstance(node.target, cst.Name):
            bound.setdefault(node.target.value, []).append(None)
    return all(
        isinstance(v, _DISPLAYS)
        or (
            isinstance(v, cst.Name)
            and bool(bound.get(v.value))
            and all(isinstance(b, _DISPLAYS) for b in bound[v.value])
        )
        for v in returned
    )


def _names(target: cst.BaseExpression) -> list[str]:
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [n for e in target.elements for n in _names(e.value)]
    return []
