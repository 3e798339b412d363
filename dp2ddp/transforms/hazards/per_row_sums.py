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
    arguments are computed from (see the module's docstring): directly, or as a term of a
    sum bound to a name every later read of which is so divided or only read for its value
    (`loss_xy = F.mse_loss(..., reduction="sum")`, `loss = w * loss_xy + loss_obj`, then
    `loss = loss / float(batch_size)`, `batch_size = pred.size(0)`: round 23's
    motokimura/yolo_v1_pytorch@c3e60d7 loss.py, five false DP004s)."""
    sources = argument_sources(call, flow)
    return _divided(call, flow, parent, sources, 0)


def _divided(
    node: cst.CSTNode,
    flow: DefUse,
    parent: Callable[[cst.CSTNode], cst.CSTNode | None],
    sources: set[int],
    depth: int,
) -> bool:
    """`node`, as a factor or a term, reaches a division by its rows (`_rows_counted`)."""
    child, up = node, parent(node)
    while isinstance(up, cst.BinaryOperation) and isinstance(up.operator, _TERMS):
        child, up = up, parent(up)
    if isinstance(up, cst.BinaryOperation) and isinstance(up.operator, cst.Divide):
        return up.left is child and _rows_counted(up.right, flow, sources)
    if not (
        isinstance(up, cst.Assign)
        and up.value is child
        and len(up.targets) == 1
        and isinstance(up.targets[0].target, cst.Name)
        and depth < _DEPTH
    ):
        return False
    reads = _reads_of(flow, up.targets[0].target)
    return bool(reads) and all(
        _only_read(read, parent) or _divided(read, flow, parent, sources, depth + 1)
        for read in reads
    )


def _rows_counted(count: cst.BaseExpression, flow: DefUse, sources: set[int]) -> bool:
    """`count` is the row count of a tensor bound among `sources` (a name bound to one,
    `float(n)` of one)."""
    if (
        isinstance(count, cst.Call)
        and isinstance(count.func, cst.Name)
        and count.func.value in ("float", "int")
        and len(count.args) == 1
    ):
        count = count.args[0].value
    counts: list[cst.BaseExpression] = [count]
    if isinstance(count, cst.Name):  # `nB = output.data.size(0)` earlier (yolov3's)
        bindings = flow.reaching(count)
        if bindings and all(d.kind == "assign" and d.value is not None for d in bindings):
            counts = [d.value for d in bindings if d.value is not None]
    for counted in counts:
        rows = rows_of(counted)
        if rows is None:
            return False
        bound = {id(d.target) for d in flow.reaching(rows)}
        if not bound or not bound <= sources:
            return False
    return True


def _reads_of(flow: DefUse, target: cst.Name) -> list[cst.Name]:
    """The reads the binding of `target` reaches."""
    scope = flow.scope_of(target)
    return [
        use
        for use in flow.uses(scope, target.value)
        if any(d.target is target for d in flow.reaching(use))
    ]


def _only_read(name: cst.Name, parent: Callable[[cst.CSTNode], cst.CSTNode | None]) -> bool:
    """`name` is read for its value only, no graph: `loss_xy.item()`, `loss_xy.detach()`."""
    up = parent(name)
    return isinstance(up, cst.Attribute) and up.attr.value in _VALUE_READS


#: What a summed term may pass through on its way to the division: a factor, a term.
_TERMS = (cst.Multiply, cst.Add, cst.Subtract)
#: Reads of a loss that take its value, not its graph.
_VALUE_READS = frozenset({"item", "tolist", "detach", "data", "cpu"})


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
