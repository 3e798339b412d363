"""A summed loss divided by the rows it sums: a per-row mean, whose scale DDP keeps.

alinlab/cs-kd@b447f25 train.py (KDLoss): `self.kl_div(log_p, q) * (T ** 2) / input.size(0)`
with `self.kl_div = nn.KLDivLoss(reduction='sum')`, `log_p = torch.log_softmax(input / T,
dim=1)`. DP004 said "loss reduced with sum", false: the sum over the batch's rows is divided
by their count, a mean per row. DataParallel's loss was the whole batch's sum over its B rows;
each rank's is its share's sum over its B / WORLD_SIZE rows, and DDP's average of the ranks'
equal-sized means is DataParallel's mean: nothing to scale, nothing to say.

Proved on the def-use view, for a loss call that reduces with a sum (a torch.nn.functional
call with `reduction='sum'`, a loss object built so): the call, multiplied by anything
(`* T ** 2`, the same factor on every rank), is the dividend of a division whose divisor is
the row count of a tensor (`t.size(0)`, `t.shape[0]`, `len(t)`) every binding of which that
reaches the division is among the bindings the call's arguments are computed from (followed
back through the view's reaching definitions: `log_p` from `input`). A divisor of another
count (`/ n_tokens`, `/ 4`) is not this: its loss stays said as before (DP004, whose text
already names a division by a count)."""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from dp2ddp.flow import DefUse
from dp2ddp.transforms._support.nodes import walk

#: how many bindings back an argument is followed to the tensors it is computed from
_DEPTH = 8


def divided_by_its_rows(
    call: cst.Call, flow: DefUse, parent: Callable[[cst.CSTNode], cst.CSTNode | None]
) -> bool:
    """`call` (a summed loss), times any factor, is divided by the row count of a tensor its
    arguments are computed from (see the module's docstring)."""
    child: cst.CSTNode = call
    node = parent(child)
    while isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Multiply):
        child, node = node, parent(node)
    if not (
        isinstance(node, cst.BinaryOperation)
        and isinstance(node.operator, cst.Divide)
        and node.left is child
    ):
        return False
    counts: list[cst.BaseExpression] = [node.right]
    if isinstance(node.right, cst.Name):  # `nB = output.data.size(0)` earlier (yolov3's)
        bindings = flow.reaching(node.right)
        if bindings and all(d.kind == "assign" and d.value is not None for d in bindings):
            counts = [d.value for d in bindings if d.value is not None]
    sources: set[int] | None = None
    for count in counts:
        rows = rows_of(count)
        if rows is None:
            return False
        bound = {id(d.target) for d in flow.reaching(rows)}
        sources = argument_sources(call, flow) if sources is None else sources
        if not bound or not bound <= sources:
            return False
    return True


def rows_of(expr: cst.BaseExpression) -> cst.Name | None:
    """`t` of `t.size(0)`, `t.shape[0]`, `t.size()[0]`, `len(t)`, and of `t.data.size(0)`,
    also times a number (`x.size()[0] * 2`: hellloxiaotian/ADNet@6debc33's summed MSE over
    2N, round 21's false DP004); else None."""
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Multiply):
        numbers = (cst.Integer, cst.Float)
        if isinstance(expr.right, numbers):
            return rows_of(expr.left)
        return rows_of(expr.right) if isinstance(expr.left, numbers) else None
    expr = _undata(expr)
    if isinstance(expr, cst.Call):
        func, args = expr.func, expr.args
        if isinstance(func, cst.Name) and func.value == "len" and len(args) == 1:
            value = args[0].value
            return value if isinstance(value, cst.Name) and not args[0].star else None
        if (
            isinstance(func, cst.Attribute)
            and func.attr.value == "size"
            and isinstance(func.value, cst.Name)
            and len(args) == 1
            and _zero(args[0].value)
        ):
            return func.value
        return None
    if isinstance(expr, cst.Subscript) and len(expr.slice) == 1:
        index = expr.slice[0].slice
        value = expr.value
        if isinstance(value, cst.Call) and not value.args:  # `t.size()[0]`
            value = value.func if isinstance(value.func, cst.Attribute) else value
            if not (isinstance(value, cst.Attribute) and value.attr.value == "size"):
                return None
        elif not (isinstance(value, cst.Attribute) and value.attr.value == "shape"):
            return None
        zero = isinstance(index, cst.Index) and _zero(index.value)
        if zero and isinstance(value.value, cst.Name):
            return value.value
    return None


def _undata(expr: cst.BaseExpression) -> cst.BaseExpression:
    """`t.size(0)` for `t.data.size(0)`, `t.shape[0]` for `t.data.shape[0]`: the same rows."""
    if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute):
        inner = expr.func.value
        if isinstance(inner, cst.Attribute) and inner.attr.value == "data":
            return expr.with_changes(func=expr.func.with_changes(value=inner.value))
    if isinstance(expr, cst.Subscript) and isinstance(expr.value, cst.Attribute):
        inner = expr.value.value
        if isinstance(inner, cst.Attribute) and inner.attr.value == "data":
            return expr.with_changes(value=expr.value.with_changes(value=inner.value))
    return expr


def _zero(expr: cst.BaseExpression) -> bool:
    return isinstance(expr, cst.Integer) and expr.evaluated_value == 0


def argument_sources(call: cst.Call, flow: DefUse) -> set[int]:
    """The bindings (their targets' ids) the call's arguments are computed from, followed
    back `_DEPTH` bindings through the view's reaching definitions."""
    found: set[int] = set()
    todo: list[tuple[cst.CSTNode, int]] = [(a.value, 0) for a in call.args]
    while todo:
        expr, depth = todo.pop()
        for name in walk(expr):
            if not isinstance(name, cst.Name):
                continue
            for definition in flow.reaching(name):
                if id(definition.target) in found:
                    continue
                found.add(id(definition.target))
                if definition.value is not None and depth < _DEPTH:
                    todo.append((definition.value, depth + 1))
    return found
