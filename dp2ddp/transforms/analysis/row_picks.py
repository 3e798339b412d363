"""Draws that pick the batch's rows: a permutation of them, or positions among them.

`perm = torch.randperm(x.size(0)); x[perm]` (MixUp, CutMix) and `j = torch.randint(0,
x.size(0), (x.size(0),)); x[j]` (MixUp with replacement, random pairing: round 26 rc) draw
the same kind of value: positions in the batch, whose rows the program then takes. Under
DataParallel the positions were the whole global batch's (a sample's partner could be any
sample of it); under DDP each rank's loop indexes only its own share. A permutation is
never noise; a `torch.randint` is noise (a diffusion step, labels) unless its values index
the batch's rows, and then it is not drawn as the global batch's noise
(`ddp_draw_share` would hand each rank positions of the global batch, out of range of its
share or pairing within it, silently: batch_noise.is_batch_noise's callers ask here first)
and is said as a permutation is: DP006 at the draw (hazards/scopes.rows_permuted), DP147
where the indexed rows are mixed on the way to the wrapped model (hazards/permuted_rows.py).
"""

from __future__ import annotations

import libcst as cst

from dp2ddp.flow import DefUse, origins
from dp2ddp.transforms._support.nodes import name_of

#: Draws of a permutation of n (the rows' new order).
PERMUTATIONS = frozenset({"torch.randperm", "numpy.random.permutation"})
#: Draws of values that are positions among rows where they index a batch (`x[j]`).
POSITION_DRAWS = frozenset({"torch.randint"})
#: Draws that may pick a batch's rows: a permutation, or positions drawn with replacement.
ROW_PICKS = PERMUTATIONS | POSITION_DRAWS
#: Methods (and torch functions) taking rows by an index tensor along a dimension.
_ROW_TAKERS = frozenset({"index_select", "gather"})
#: Methods that move or cast an index and keep its values (`j.to(device)`, `j.long()`).
_KEEPS = frozenset({"to", "cuda", "cpu", "long", "int", "detach", "clone"})


def picks_rows(defs: DefUse | None, call: cst.Call, names: set[str]) -> bool:
    """`call` (a draw with qualified `names`) picks rows: a permutation, or a position
    draw whose value (through the names it is bound to, moved or cast) is the first index
    of a subscript (`x[j]`, `x[j, :, a:b]`) or the index of `index_select`/`gather` along
    dimension 0, of a batch (`_batch`: not `levels[step]`, a table a noise level is looked
    up in, which is noise for the batch's rows)."""
    if names & PERMUTATIONS:
        return True
    if not names & POSITION_DRAWS or defs is None:
        return False
    return _indexes_rows(defs, call, 0)


def rows_among(call: cst.Call) -> cst.BaseExpression | None:
    """The count of rows a row-picking draw picks among, as written: `torch.randperm(n)`'s
    and `np.random.permutation(n)`'s `n`, `torch.randint(low, high, size)`'s (or
    `torch.randint(high, size)`'s) `high`; None where it is not written positionally."""
    positional = [a.value for a in call.args if a.keyword is None and not a.star]
    if not positional or call.args[0].keyword is not None or call.args[0].star:
        return None
    if name_of(call.func) != "randint":
        return positional[0]
    sized = any(a.keyword is not None and a.keyword.value == "size" for a in call.args)
    return (positional[: len(positional) - (0 if sized else 1)] or positional)[-1]


def _indexes_rows(defs: DefUse, value: cst.BaseExpression, depth: int) -> bool:
    node: cst.CSTNode = value
    parent = defs.parent(node)
    while (  # `torch.randint(...).to(device)`: the same positions
        isinstance(parent, cst.Attribute)
        and parent.value is node
        and parent.attr.value in _KEEPS
        and isinstance(defs.parent(parent), cst.Call)
    ):
        node = defs.parent(parent)  # type: ignore[assignment]
        parent = defs.parent(node)
    if parent is None:
        return False
    if _first_index(defs, node) or _row_taker_index(defs, node):
        return True
    if depth >= 3 or not isinstance(parent, cst.Assign) or parent.value is not node:
        return False
    names = [t.target for t in parent.targets if isinstance(t.target, cst.Name)]
    return any(
        _indexes_rows(defs, use, depth + 1)
        for name in names
        for use in defs.uses(defs.scope_of(name), name.value)
    )


def _first_index(defs: DefUse, node: cst.CSTNode) -> bool:
    """`node` is the first index of a subscript: `x[node]`, `x[node, a:b]`."""
    index = defs.parent(node)
    element = defs.parent(index) if isinstance(index, cst.Index) else None
    subscript = defs.parent(element) if isinstance(element, cst.SubscriptElement) else None
    return (
        isinstance(subscript, cst.Subscript)
        and subscript.slice[0] is element
        and _batch(defs, subscript.value)
    )


def _row_taker_index(defs: DefUse, node: cst.CSTNode) -> bool:
    """`x.index_select(0, node)`, `torch.index_select(x, 0, node)`, `x.gather(0, node)`."""
    arg = defs.parent(node)
    call = defs.parent(arg) if isinstance(arg, cst.Arg) else None
    if not isinstance(call, cst.Call) or not isinstance(call.func, cst.Attribute):
        return False
    if call.func.attr.value not in _ROW_TAKERS:
        return False
    args = [a.value for a in call.args]
    method = not (isinstance(call.func.value, cst.Name) and call.func.value.value == "torch")
    rest = args if method else args[1:]
    return (
        len(rest) >= 2
        and rest[1] is node
        and isinstance(rest[0], cst.Integer)
        and rest[0].evaluated_value == 0
        and _batch(defs, call.func.value if method else args[0])
    )


def _batch(defs: DefUse, value: cst.BaseExpression) -> bool:
    """`value` is a batch: some flow into it takes a part of data (an element of an
    iteration, `for x, y in loader`, `next(it)`, or a slice), not only an entry of a
    container (`loaders["src"]`) (the flow's cut steps, as hazards/batch_pairing reads
    them)."""
    for origin in origins(defs, value):
        for step in origin.path:
            parent = defs.parent(step.node)
            entry = (
                isinstance(parent, cst.Subscript)
                and parent.value is step.node
                and not any(isinstance(s.slice, cst.Slice) for s in parent.slice)
            )
            if step.cut and not entry:
                return True
    return False
