"""What a chunk size divides: a count of the global batch's chunks, or a figure of this rank's.

analysis/chunk_sizes.py reads a configured chunk size per rank where it cuts or counts this
rank's batch (`ddp_per_rank_batch(sub)`). The same size may divide something else in the
loop: a configured size (`BATCH // sub`, the original's count of chunks, which keeps the
global size), or a figure of this rank's chunk (`loss.item() / sub`, a per-sample loss of a
summed one; MILVLG/mcan-vqa@6b165e9 printed it halved before stop 43, class v3-B of stop
42), which takes this rank's part too. What is neither proved is said (DP106). The
readings of expressions the two modules share live here too.
"""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst

from dp2ddp.transforms._support.base import MigrationTransform
from dp2ddp.transforms._support.nodes import name_of, walk

#: Operators whose right operand divides a count: with a global left operand the count is
#: the global one and the size keeps its global value.
COUNTING = (cst.FloorDivide, cst.Divide, cst.Modulo)
#: Builtins that keep a configured size configured (`int(BATCH) // MICRO`).
_NUMERIC = frozenset({"int", "float", "round", "max", "min", "abs"})


def divides(
    data: MigrationTransform,
    read: cst.CSTNode,
    batch: set[str],
    assigned: dict[str, list[cst.BaseExpression]],
) -> str | None:
    """What `read` divides as the right operand of `/`, `//` or `%` (None: it is no
    divisor). "figure": a value of this rank's batch, a size of it (`len(x) // chunk`) or
    a figure computed from it (`loss.item() / chunk`, a running sum of such): over this
    rank's chunk, so the size is this rank's part there too. "count": a configured size
    (names, attributes, numbers and arithmetic of them, `BATCH // MICRO`): the global
    batch's chunks counted, which keeps the global size. "unknown": neither proved."""
    parent = data.parent(read)
    if not (
        isinstance(parent, cst.BinaryOperation)
        and parent.right is read
        and isinstance(parent.operator, COUNTING)
    ):
        return None
    left = parent.left
    if sizes_read(left) or names_in(left) & batch:
        return "figure"
    for leaf in leaves(left):
        if isinstance(leaf, cst.Name) and any(sizes_read(v) for v in assigned.get(leaf.value, [])):
            return "figure"
    return "count" if configured(data, left) else "unknown"


def configured(data: MigrationTransform, expr: cst.BaseExpression) -> bool:
    """Names, attributes and numbers, in arithmetic or given to int(), float(), round(),
    max(), min(), abs() or math's functions: a size the program is configured with."""
    if isinstance(expr, (cst.Name, cst.Attribute, cst.Integer, cst.Float)):
        return True
    if isinstance(expr, cst.BinaryOperation):
        return configured(data, expr.left) and configured(data, expr.right)
    if isinstance(expr, cst.UnaryOperation):
        return configured(data, expr.expression)
    if isinstance(expr, cst.Call) and (
        name_of(expr.func) in _NUMERIC
        or any(q.startswith("math.") for q in data.qualified_names(expr.func))
    ):
        return all(not a.star and configured(data, a.value) for a in expr.args)
    return False


def folded_figures(body: list[cst.CSTNode], batch: set[str]) -> set[str]:
    """Names `body` folds values of the batch into (`total += loss.item()`, `total = total
    + loss.item()`): running figures of this rank's batch."""
    found: set[str] = set()
    for node in body:
        if isinstance(node, cst.AugAssign) and isinstance(node.target, cst.Name):
            if names_in(node.value) & batch:
                found.add(node.target.value)
        elif isinstance(node, cst.Assign) and len(node.targets) == 1:
            target = node.targets[0].target
            if (
                isinstance(target, cst.Name)
                and isinstance(node.value, cst.BinaryOperation)
                and target.value in names_in(node.value)
                and (names_in(node.value) - {target.value}) & batch
            ):
                found.add(target.value)
    return found


def names_in(expr: cst.CSTNode) -> set[str]:
    return {n.value for n in walk(expr) if isinstance(n, cst.Name)}


def sizes_read(expr: cst.CSTNode) -> bool:
    """Reads a size of a batch (`x.size(0)`, `len(x)`, `x.shape[0]`): per-rank already."""
    for node in walk(expr):
        if isinstance(node, cst.Call) and name_of(node.func) in ("len", "size"):
            return True
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
            if node.func.attr.value == "size":
                return True
        if isinstance(node, cst.Attribute) and node.attr.value == "shape":
            return True
    return False


def leaves(expr: cst.BaseExpression) -> Iterator[cst.BaseExpression]:
    """The operands of an arithmetic expression: names and attributes, not their parts."""
    if isinstance(expr, cst.BinaryOperation):
        yield from leaves(expr.left)
        yield from leaves(expr.right)
    elif isinstance(expr, cst.UnaryOperation):
        yield from leaves(expr.expression)
    elif isinstance(expr, (cst.Name, cst.Attribute)):
        yield expr
