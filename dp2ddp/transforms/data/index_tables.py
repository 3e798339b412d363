"""A table of the whole dataset filled by sample index in a pass over a sharded loader (DP105).

yukimasano/self-label@3891e37 (v1-D of stop 44): a pseudo-label pass `for x, idx in loader:
PS[idx] = F.softmax(model(x), 1)` over the training loader, then the table read whole
(normalised over all samples by Sinkhorn-Knopp, its argmax the labels). Under DataParallel
one process filled every row; sharded, each rank fills the rows of its own samples and the
others keep their zeros: the solver divided by them (NaN, a crash on every rank), and a table
with fewer rows read would have given each rank other labels, with no warning.

Proved here: the subscript that is written holds a value the loop takes from the loader's
batch (a `for` target, not an `enumerate` counter, or a name bound from one by indexing,
an attribute or a conversion: `idx = batch[2].cuda()`), the table is a name bound outside
the loop, and the function (or module) reads it after the loop. Said, not rewritten: making
it whole needs each sample written once (DistributedSampler repeats samples to even the
ranks out, so an all_reduce-sum of a zero-initialised table would double those rows) or an
all_gather of indices and rows; a table the program already reduces or gathers after the
loop (`dist.all_reduce(PS)`) is left alone.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst
from libcst.metadata import PositionProvider

from dp2ddp.transforms._support.nodes import (
    bound_names,
    enclosing_function,
    name_of,
    variables_under,
    walk,
)

if TYPE_CHECKING:
    from dp2ddp.transforms.data import ShardDataLoaders

#: Calls after the loop that make a table whole on every rank (the program's own fix).
_WHOLE_MAKERS = ("all_reduce", "all_gather", "all_gather_into_tensor", "broadcast")
#: Methods that keep a batch element's values (a conversion or a move).
_KEEPING = frozenset({"to", "cuda", "cpu", "long", "int", "numpy", "tolist", "view", "flatten"})


def said_index_tables(t: ShardDataLoaders, loop: cst.For | cst.While) -> None:
    """DP105 for each table `loop` (over a sharded loader) fills by the batch's indices."""
    if not isinstance(loop, cst.For):
        return
    batch = _batch_elements(loop)
    if not batch:
        return
    bound_here = {
        n.value
        for node in walk(loop.body, skip_scopes=True)
        if isinstance(node, (cst.Assign, cst.For))
        for target in (
            [a.target for a in node.targets] if isinstance(node, cst.Assign) else [node.target]
        )
        for n in bound_names(target)
    }
    end = t.get_metadata(PositionProvider, loop).end.line
    scope: cst.CSTNode = enclosing_function(loop, t) or t._module_node
    for node in walk(loop.body, skip_scopes=True):
        if isinstance(node, cst.Assign):
            targets = [a.target for a in node.targets]
        elif isinstance(node, cst.AugAssign):
            targets = [node.target]
        else:
            continue
        for target in targets:
            if not isinstance(target, cst.Subscript) or not isinstance(target.value, cst.Name):
                continue
            table = target.value.value
            read = {n.value for e in target.slice for n in variables_under(e)}
            if table in bound_here or not read & batch:
                continue
            after = _read_after(t, scope, table, end)
            if after is None:
                continue
            line = t.input_position(loop)[0]
            t.warn(
                node,
                "DP105",
                f"`{t.code(target)}` fills {table} by the indices of this rank's samples "
                f"in the pass over a sharded loader (the loop at line {line}): the "
                f"rows of the other ranks' samples keep what they held, and {table} is read "
                f"whole after the loop (line {after}), different on each rank",
            )


def _batch_elements(loop: cst.For) -> set[str]:
    """The names holding parts of the loader's batch in `loop`: its target (past an
    `enumerate` counter), and names bound in the body from one by indexing, an attribute or
    a keeping method (`idx = batch[2].cuda()`)."""
    target = loop.target
    if name_of(loop.iter.func if isinstance(loop.iter, cst.Call) else loop.iter) == "enumerate":
        if not isinstance(target, cst.Tuple) or len(target.elements) < 2:
            return set()
        target = cst.Tuple(target.elements[1:])
    found = {n.value for n in bound_names(target)}
    assigns = [
        (node.targets[0].target, node.value)
        for node in walk(loop.body, skip_scopes=True)
        if isinstance(node, cst.Assign) and len(node.targets) == 1
    ]
    grown = True
    while grown:
        grown = False
        for bound, value in assigns:
            names = {n.value for n in bound_names(bound)}
            if names - found and _kept(value) in found:
                found |= names
                grown = True
    return found


def _kept(value: cst.BaseExpression) -> str | None:
    """The name whose values `value` keeps: `b` of `b[2]`, `b.idx`, `b.cuda()`, `b[0].long()`."""
    while True:
        if isinstance(value, cst.Name):
            return value.value
        if isinstance(value, (cst.Subscript, cst.Attribute)):
            value = value.value
        elif (
            isinstance(value, cst.Call)
            and isinstance(value.func, cst.Attribute)
            and value.func.attr.value in _KEEPING
        ):
            value = value.func.value
        else:
            return None


def _read_after(t: ShardDataLoaders, scope: cst.CSTNode, table: str, end: int) -> int | None:
    """The line of the first read of `table` after line `end` in `scope`, or None (also
    where a call there reduces or gathers it: the program makes it whole itself)."""
    first = None
    for node in walk(scope, skip_scopes=True):
        if isinstance(node, cst.Call) and name_of(node.func) in _WHOLE_MAKERS:
            if any(isinstance(n, cst.Name) and n.value == table for n in walk(node)):
                if t.get_metadata(PositionProvider, node).start.line > end:
                    return None
        if isinstance(node, cst.Name) and node.value == table:
            line = t.get_metadata(PositionProvider, node).start.line
            if line > end and (first is None or line < first):
                first = line
    return t.state.line_map(first) if first is not None else None
