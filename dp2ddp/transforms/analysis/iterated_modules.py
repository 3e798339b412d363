"""Modules whose parameters an optimizer takes one element of a sequence at a time (stop 48
class r2-A, AberHu/Knowledge-Distillation-Zoo@65470c8: `SGD(chain(snet.parameters(),
*[c.parameters() for c in criterionKD[1:]]))`, the VID regressors beside the wrapped
student). analysis/outside_parameters.py syncs each element after the optimizer's line:
`for c in criterionKD[1:]: ddp_sync_module(c)`, which reads the sequence again there, so
the sequence must give the same elements: no call in it, no name the line binds."""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from dp2ddp.transforms._support.nodes import walk

if TYPE_CHECKING:
    from dp2ddp.transforms._support.base import MigrationTransform


#: What may give other values when read again (a call may draw, build, or count).
_IMPURE = (cst.Call, cst.Await, cst.NamedExpr, cst.Lambda, cst.BaseComp, cst.DictComp)


def iterated(node: cst.Call, x: str, t: MigrationTransform) -> cst.CompFor | None:
    """The `for x in ITER` of the comprehension whose element reads `x.parameters()` at
    `node`, binding `x` itself: one `for`, no `if`, and no call, await, walrus, lambda or
    comprehension in ITER (read again after the line, it gives the same elements)."""
    if "." in x:
        return None
    current = t.parent(node)
    while current is not None and not isinstance(current, cst.BaseStatement):
        if isinstance(current, (cst.ListComp, cst.GeneratorExp, cst.SetComp)):
            each = current.for_in
            if (
                isinstance(each.target, cst.Name)
                and each.target.value == x
                and each.inner_for_in is None
                and not each.ifs
                and any(n is node for n in walk(current.elt))
                and not any(isinstance(n, _IMPURE) for n in walk(each.iter))
            ):
                return each
            return None
        current = t.parent(current)
    return None


def rebinds(line: cst.SimpleStatementLine, each: cst.CompFor) -> bool:
    """`line` assigns a name the sequence of `each` reads (read again after it, it would
    give other elements)."""
    bound = {
        n.value
        for stmt in line.body
        if isinstance(stmt, cst.Assign)
        for target in stmt.targets
        for n in walk(target.target)
        if isinstance(n, cst.Name)
    }
    return any(isinstance(n, cst.Name) and n.value in bound for n in walk(each.iter))
