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
