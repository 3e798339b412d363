"""Values proved numpy arrays (or numpy scalars): they carry no gradient, so no loss text
about backward() is true of them (stop 53).

An IoU metric of an evaluation module (`tp = ((pred & gt) & ~void).sum()` after `pred =
pred.astype(np.bool)`, then `prec = tp / (tp + fp + 1e-12)`: SimonVandenhende/Multi-Task-
Learning-PyTorch@ed3d9ac evaluation/jaccard.py:45-46) got DP071 "each rank divides its own
part's sum ... and DDP averages the ranks' gradients": no gradient ever reaches it.

Proved through the def-use view, never by a name: a call of `.astype(...)` or `.numpy()`
(a torch tensor has no `astype`, and `numpy()` returns an ndarray); a numpy constructor or
ufunc (`np.array`, `np.zeros`, `np.logical_not`, ...: each returns an ndarray or raises on
a tensor that requires grad; not `np.sum` or `np.mean`, which hand a tensor to its own
method and return a tensor); a reduction or reshaping method of such a value; an arithmetic
or bitwise operation whose operands are all such values or number literals; a name every
binding of which reaching the read is one.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

import libcst as cst

from dp2ddp.flow import DefUse

#: numpy functions that always return an ndarray (or raise on a tensor requiring grad):
#: constructors, ufuncs, and functions that convert their argument first
#: (`np.asanyarray(v)`: `np.diag(self.confusion_matrix).sum() / self.confusion_matrix
#: .sum()`, a pixel-accuracy metric, got DP071 in mtroym/pytorch.template@6af2caf's
#: deeplab-criterion.py, stop 63).
_MAKERS: Final = frozenset(
    f"numpy.{name}"
    for name in (
        "array asarray zeros ones empty full arange zeros_like ones_like empty_like "
        "logical_not logical_and logical_or logical_xor isclose equal not_equal "
        "asanyarray diag diagonal trace bincount concatenate stack vstack hstack unique "
        "histogram nansum nanmean"
    ).split()
)
#: Methods of an ndarray that return an ndarray or a numpy scalar.
_KEEPS: Final = frozenset(
    "sum mean max min prod any all copy reshape flatten ravel squeeze transpose".split()
)
_OPERATORS: Final = (
    cst.BitAnd,
    cst.BitOr,
    cst.BitXor,
    cst.Add,
    cst.Subtract,
    cst.Multiply,
    cst.Divide,
)


def numpy_value(
    expr: cst.BaseExpression,
    flow: DefUse,
    qualified: Callable[[cst.CSTNode], set[str]],
    depth: int = 0,
) -> bool:
    """`expr` is proved a numpy array or scalar (the module docstring)."""
    if depth > 8:
        return False
    if isinstance(expr, cst.Name):
        if flow.parent(expr) is None:
            return False
        found = flow.reaching(expr)
        return bool(found) and all(
            d.kind == "assign"
            and not d.element
            and d.value is not None
            and numpy_value(d.value, flow, qualified, depth + 1)
            for d in found
        )
    if isinstance(expr, cst.Call):
        func = expr.func
        if isinstance(func, cst.Attribute):
            if func.attr.value in ("astype", "numpy"):
                return True
            if func.attr.value in _KEEPS and numpy_value(func.value, flow, qualified, depth + 1):
                return True
        return bool(qualified(func) & _MAKERS)
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, _OPERATORS):
        sides = [s for s in (expr.left, expr.right) if not isinstance(s, (cst.Integer, cst.Float))]
        return bool(sides) and all(numpy_value(s, flow, qualified, depth + 1) for s in sides)
    if isinstance(expr, cst.UnaryOperation):
        return numpy_value(expr.expression, flow, qualified, depth + 1)
    return False
