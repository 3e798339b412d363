"""`(X * WORLD_SIZE)` as the hazards pass writes a summed loss's backward, read back: a loss
scaled already (a migrated file, `--check`), and the loss under a scaler or a weight."""

from __future__ import annotations

import libcst as cst


def scaled_by_world_size(node: cst.BaseExpression) -> bool:
    """`(X * WORLD_SIZE)`, as this pass writes it, possibly inside `scaler.scale(...)` or a
    division: the loss was scaled already."""
    while True:
        if (
            isinstance(node, cst.BinaryOperation)
            and isinstance(node.operator, cst.Multiply)
            and isinstance(node.right, cst.Name)
            and node.right.value == "WORLD_SIZE"
        ):
            return True
        unscaled = _unscale_once(node)
        if unscaled is node:
            return False
        node = unscaled


def _unscale_once(node: cst.BaseExpression) -> cst.BaseExpression:
    """One layer of `scaler.scale(x)`, `x / k` or `x * w` -> `x` (else `node` itself)."""
    if (
        isinstance(node, cst.Call)
        and isinstance(node.func, cst.Attribute)
        and node.func.attr.value == "scale"
        and len(node.args) == 1
    ):
        return node.args[0].value
    if isinstance(node, cst.BinaryOperation) and isinstance(
        node.operator, (cst.Divide, cst.Multiply)
    ):
        return node.left
    return node


def unscale(node: cst.BaseExpression) -> cst.BaseExpression:
    """`scaler.scale(loss)`, `loss / accumulation` and `loss * w` -> `loss`."""
    while (unscaled := _unscale_once(node)) is not node:
        node = unscaled
    return node


def scaled_backward(call: cst.Call, autograd: bool) -> cst.Call:
    """`loss.backward(...)` as `(loss * WORLD_SIZE).backward(...)`, and
    `torch.autograd.backward(loss, ...)` (`autograd`) as
    `torch.autograd.backward(loss * WORLD_SIZE, ...)`: the hazards pass's scale of a loss
    summed on every term (hazards.losses)."""
    scale = cst.Name("WORLD_SIZE")
    func = call.func
    if isinstance(func, cst.Attribute) and func.attr.value == "backward" and not autograd:
        scaled = cst.BinaryOperation(
            left=_parenthesized(func.value), operator=cst.Multiply(), right=scale
        )
        return call.with_changes(
            func=func.with_changes(
                value=scaled.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
            )
        )
    first = call.args[0]
    scaled = cst.BinaryOperation(
        left=_parenthesized(first.value), operator=cst.Multiply(), right=scale
    )
    return call.with_changes(args=[first.with_changes(value=scaled), *call.args[1:]])


def _parenthesized(node: cst.BaseExpression) -> cst.BaseExpression:
    """`node` as the left operand of `*`: parenthesized unless it binds tighter already."""
    if node.lpar or isinstance(
        node, (cst.Name, cst.Attribute, cst.Call, cst.Subscript, cst.Integer, cst.Float)
    ):
        return node
    return node.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
