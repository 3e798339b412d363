"""The model's output reduced over the batch: what it gives holds no rows to compare.

The proof follows the targets a model's output is compared with (`mse_loss(out, y)`,
`out - y`) so that they are cut as the input is. An operand built from the output by a
reduction over the batch dimension (`out.mean(0)`, `mu.sum(dim=0, keepdim=True)`,
`out.mean()`) is no longer the output's rows: what it meets is no target of the batch.
XiaLiPKU/EMANet@f09ffac train.py:129-135 (stop 62 v1-D): `loss, mu = self.net(image,
label)`, then `mu = mu.mean(dim=0, keepdim=True)` and `... += mu * (1 - momentum)`: the
momentum, from an imported settings module, was said to be a target the proof could not
split (a false DP047). A name counts as reduced where every binding of it that reaches the
use is such a reduction of a value (flow.reaching: the plain rebinding hides the call's).
"""

from __future__ import annotations

import libcst as cst

from dp2ddp.flow import DefUse

#: Tensor methods that reduce over the dimensions they are given (all of them when none).
_REDUCTIONS = frozenset(
    {"mean", "sum", "prod", "amax", "amin", "norm", "std", "var", "logsumexp", "nansum"}
)


def reduces_batch(node: cst.CSTNode | None) -> bool:
    """`x.mean()`, `x.mean(0)`, `x.sum(dim=0, keepdim=True)`, `x.sum((0, 1))`: a reduction
    method whose dimensions are none or start with the batch's (0)."""
    if not (
        isinstance(node, cst.Call)
        and isinstance(node.func, cst.Attribute)
        and node.func.attr.value in _REDUCTIONS
    ):
        return False
    dims = [a.value for a in node.args if a.keyword is None or a.keyword.value == "dim"]
    if not dims:
        return not any(a.keyword is not None and a.keyword.value == "axis" for a in node.args)
    first = dims[0]
    if isinstance(first, (cst.Tuple, cst.List)) and first.elements:
        first = first.elements[0].value
    return isinstance(first, cst.Integer) and first.value == "0"


def reduced_name(flow: DefUse, name: cst.Name) -> bool:
    """Every binding of `name` that reaches this use assigns a batch reduction."""
    found = flow.reaching(name)
    return bool(found) and all(
        d.kind == "assign" and not d.element and reduces_batch(d.value) for d in found
    )
