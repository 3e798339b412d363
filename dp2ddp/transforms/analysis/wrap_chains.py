"""Calls chained on a DataParallel wrap (`DataParallel(m).cuda()`, `DataParallel(m).half()`).

A move (`.cuda()`, `.to(device)`) is dropped: the wrapped module is on DEVICE already. A cast
of the floating-point parameters (`.half()`, `.double()`, `.to(torch.float16)`) goes on the
module, before the wrap: DataParallel replicates its module at each forward, so a cast of
the wrapper was a cast of the model; DDP builds its gradient buckets for the parameters'
dtype when it is made, and a cast after that leaves them unreduced, so each rank steps on its
own gradients and the ranks drift apart, in silence (round 26, NVIDIA/flownet2-pytorch@bce69c8
`DataParallel(model).cuda().half()` on its fp16 path; the class fixture's weights differ).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import libcst as cst

from dp2ddp.transforms._support.nodes import unmoved

if TYPE_CHECKING:
    from dp2ddp.transforms._support.base import MigrationTransform

#: Casts of a module's floating-point parameters.
_CASTS = frozenset({"half", "float", "double", "bfloat16"})
#: torch's floating-point dtypes a `.to(...)` cast names.
_DTYPES = frozenset(
    f"torch.{d}" for d in "half float16 float float32 double float64 bfloat16".split()
)


def casts(call: cst.Call, names: Callable[[cst.CSTNode], set[str]]) -> bool:
    """`call` casts floating-point parameters: `.half()`, `.double()`..., or `.to(...)`
    with a floating dtype among its arguments (`.to(torch.float16)`, `.to(d, dtype=...)`)."""
    func = call.func
    if not isinstance(func, cst.Attribute):
        return False
    if func.attr.value in _CASTS:
        return True
    return func.attr.value == "to" and any(names(a.value) & _DTYPES for a in call.args)


def chained_on_wrap(
    t: MigrationTransform, original: cst.Call, updated: cst.Call, frozen: str
) -> cst.BaseExpression:
    """`updated` (`original.func` an attribute of a wrap call, the wrap migrated in
    `updated`) with a cast moved into the wrapped module or a move dropped; else as it is.
    `frozen`: the call that unfreezes a wrap (outside_parameters.FROZEN), not the wrap."""
    func = updated.func
    if not isinstance(func, cst.Attribute) or not isinstance(original.func, cst.Attribute):
        return updated
    name = func.attr.value
    if casts(original, t.qualified_names):
        wrap = unmoved(func.value)  # `DP(m).cpu().half()`: the wrap under the other calls
        if not (
            isinstance(wrap, cst.Call)
            and isinstance(wrap.func, cst.Name)
            and wrap.func.value != frozen
            and wrap.args
            and wrap.args[0].keyword is None
        ):
            return updated
        cast = cst.Call(func=cst.Attribute(wrap.args[0].value, func.attr), args=updated.args)
        t.record(original, f"moved .{name}() onto the module, before the wrap")
        moved = wrap.with_changes(args=[wrap.args[0].with_changes(value=cast), *wrap.args[1:]])
        chain = moved if func.value is wrap else func.value.deep_replace(wrap, moved)
        assert isinstance(chain, cst.BaseExpression)
        return chain.with_changes(lpar=updated.lpar, rpar=updated.rpar)
    if name in ("cuda", "to"):
        t.record(original, f"dropped .{name}() chained on the wrapper")
        return func.value
    return updated
