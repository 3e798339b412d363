"""A table held beyond a loop's own names, filled at the indices of a sharded batch (DP028/DP105).

index_tables.py reads the plain shape: `for x, idx in loader: table[idx] = ...`, the table a
name of the loop's function. A memory bank is as often held by an object and written by a
method the loop calls (`self.update_bank(feat, idx)`: `self.bank[idx] = feat`), or by
`index_copy_`, with the batch taken by `next(it)` (issue 28's round 19, KovenYu/MAR@8600316:
its memory bank kept rank 0's samples' rows on rank 0 only, unsaid). Under DataParallel one
process wrote the rows of every sample of the batch; sharded, each rank writes the rows of
its own samples, and the other rows keep what they held: the tables differ between the ranks
and from the original's.

Proved over the module's def-use view (dp2ddp/flow), not a spelling: each write in the loop
or in a function of this module it calls (a few calls deep) whose table is not a local name
of that function and whose index's origins reach the sharded loader's own `DataLoader(...)`
call (through parameters, `next(it)`, attributes: flow.origins). Said, not gathered: the
gather would be a collective per step in code the loop only calls (index_tables.py makes the
plain shape whole where it proves it). DP028 where the pass itself reads the table (a loss
against the bank: each step trains on rows only this rank's samples changed), else DP105.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from dp2ddp.flow import DefUse, Origin, origins, view
from dp2ddp.transforms._support.nodes import name_of, walk
from dp2ddp.transforms.data.filled_tables import KEEPING

if TYPE_CHECKING:
    from dp2ddp.transforms.data import ShardDataLoaders
    from dp2ddp.transforms.data.plan import Loader

#: Tensor methods writing rows at an index: (method, the index's position).
_INDEX_WRITES = {"index_copy_": 1, "index_add_": 1, "index_fill_": 1, "index_put_": 0}
#: How many calls deep the writes are looked for from the loop.
_DEPTH = 3
_SAID = frozenset({"DP028", "DP105", "DP142"})
#: Calls an index keeps the batch's values through (conversions, iteration).
_PASSING = KEEPING | {"next", "iter", "enumerate", "zip", "tqdm", "list", "tuple", "squeeze"}
#: Expressions that compute a new value.
_COMPUTED = (
    cst.BinaryOperation,
    cst.UnaryOperation,
    cst.Comparison,
    cst.BooleanOperation,
    cst.FormattedString,
)


def said_held_tables(t: ShardDataLoaders, loader: Loader, loop: cst.For | cst.While) -> None:
    """DP028/DP105 at each write of a held table at this rank's samples' indices in `loop`
    (a pass over `loader`, sharded) or in the functions it calls (module docstring)."""
    flow = view(t._module_node)
    bodies = [(body, _writes(body)) for body in _bodies(flow, loop)]  # each walked once
    written = {id(table) for _, writes in bodies for _, table, _ in writes}
    said = {(r.line, r.col) for r in t.state.warnings if r.code in _SAID}
    for body, writes in bodies:
        for write, table, index in writes:
            if isinstance(table, cst.Name) and body is loop.body:
                continue  # a name the loop writes itself: index_tables.py's (made whole)
            position = t._position(write)
            if position in said:
                continue
            if not any(o.node is loader.call and _kept(o) for o in origins(flow, index)):
                continue
            text = t.code(table)
            read = _read_in(t, [body for body, _ in bodies], written, text, write)
            start = t.input_position(loop)[0]
            shown = t.code(write).strip().splitlines()[0][:70]
            said.add(position)
            if read is not None:
                t.warn(
                    write,
                    "DP028",
                    f"`{shown}` changes {text} at the rows this rank's batch names in the "
                    f"pass over a sharded loader (the loop at line {start}), and the pass "
                    f"reads {text} back (line {read}): each later step trains on rows only "
                    f"this rank's samples changed, where DataParallel's one process changed "
                    f"them with the whole batch; {text} differs between the ranks and from "
                    "the original",
                )
            else:
                t.warn(
                    write,
                    "DP105",
                    f"`{shown}` fills {text} by the indices of this rank's samples in the "
                    f"pass over a sharded loader (the loop at line {start}): the rows of the "
                    f"other ranks' samples keep what they held, different on each rank; not "
                    f"made whole: {text} is held beyond the loop's own names",
                )


def _kept(origin: Origin) -> bool:
    """Every hop from the loader to the index keeps the batch's values (unpacking, an
    element, an attribute, a conversion: `idx = batch[2].cuda()`), none computes with them
    (a loss of the batch, `("loss", loss.item())` a logger is handed: no sample index)."""
    for step in origin.path:
        node = step.node
        if node is origin.node:
            continue  # the loader itself
        if isinstance(node, _COMPUTED):
            return False
        if isinstance(node, cst.Call) and name_of(node.func) not in _PASSING:
            return False
    return True


def _bodies(flow: DefUse, loop: cst.For | cst.While) -> list[cst.CSTNode]:
    """The loop's body and the bodies of this module's functions it calls, `_DEPTH` deep."""
    found: list[cst.CSTNode] = [loop.body]
    # the loop's own function is no callee of it: the view resolves a method by its name
    # (`self.model.train()` in a `train` method), and a batch rebound each step is no table
    own = flow.function_around(loop)
    seen: set[cst.CSTNode] = set() if own is None else {own.node}
    todo = [(loop.body, 0)]
    while todo:
        body, depth = todo.pop()
        if depth >= _DEPTH:
            continue
        for node in walk(body, skip_scopes=True):
            if not isinstance(node, cst.Call):
                continue
            for callee in flow.callees(node):
                function = callee.node
                if function in seen or not isinstance(function, cst.FunctionDef):
                    continue
                seen.add(function)
                found.append(function.body)
                todo.append((function.body, depth + 1))
    return found


def _writes(
    body: cst.CSTNode,
) -> list[tuple[cst.CSTNode, cst.BaseExpression, cst.BaseExpression]]:
    """(statement or call, table, index) of each write at an index in `body`: `t[i] = v`,
    `t[i] += v`, `t.index_copy_(0, i, v)` and the like; one index only."""
    found: list[tuple[cst.CSTNode, cst.BaseExpression, cst.BaseExpression]] = []
    for node in walk(body, skip_scopes=True):
        targets: list[cst.BaseExpression] = []
        if isinstance(node, cst.Assign):
            targets = [a.target for a in node.targets]
        elif isinstance(node, cst.AugAssign):
            targets = [node.target]
        elif (
            isinstance(node, cst.Call)
            and isinstance(node.func, cst.Attribute)
            and node.func.attr.value in _INDEX_WRITES
        ):
            position = _INDEX_WRITES[node.func.attr.value]
            given = [a.value for a in node.args if a.keyword is None]
            if len(given) > position:
                found.append((node, node.func.value, given[position]))
            continue
        for target in targets:
            if (
                isinstance(target, cst.Subscript)
                and len(target.slice) == 1
                and isinstance(target.slice[0].slice, cst.Index)
                and isinstance(target.value, (cst.Name, cst.Attribute))
            ):
                found.append((node, target.value, target.slice[0].slice.value))
    return found


def _read_in(
    t: ShardDataLoaders,
    bodies: list[cst.CSTNode],
    written: set[int],
    text: str,
    write: cst.CSTNode,
) -> int | None:
    """The line of a read of `text` (the table's spelling) in the pass other than as the
    target of a write (`written`: the ids of every write's table): the pass reads the rows
    back."""
    for body in bodies:
        for node in walk(body, skip_scopes=True):
            if (
                isinstance(node, (cst.Name, cst.Attribute))
                and id(node) not in written
                and t.code(node) == text
                and node is not write
            ):
                return t.input_position(node)[0]
    return None
