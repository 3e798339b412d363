"""What a `for` loop iterates, through the names bound to progress wrappers of it.

`with tqdm(enumerate(loader)) as t: for _, (x, y) in t` (or `t = tqdm(loader)`) iterates
`loader`, which is then the receiver of set_epoch and the source the loop's figures are
this rank's share of. A name may be bound on several paths: anibali's stacked-hourglass
trainers (P0lyFish/pose-estimation@b68693e stacked_hourglass/train.py:35-44) say
`iterable = enumerate(train_loader)`, then under `if not quiet:` `progress = tqdm(iterable,
...)` and `iterable = progress`. The loop reads either binding; both wrap the loader. Only
one binding was followed, one hop: the loop's loader was not found, so a loader handed to
the function was not followed either (DP084, DP011), and its training figures, rank 0's
share, were not said (stop 54 v2-A). Here every binding that reaches the loop's name
(flow.reaching over the module's def-use view) is followed through wrappers and names bound
to wrappers; where one leads to something else (a DataLoader built here, a parameter, a
call), the name stays what the loop iterates, as before.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from dp2ddp.flow import view
from dp2ddp.transforms._support.nodes import ITER_WRAPPERS, iterated, name_of

if TYPE_CHECKING:
    from dp2ddp.transforms.data import ShardDataLoaders

#: Names followed through at most this many bindings.
_DEPTH = 4


def iterated_through_names(
    t: ShardDataLoaders, loop_iter: cst.BaseExpression
) -> list[cst.BaseExpression]:
    """What a `for` over `loop_iter` iterates (see the module docstring)."""
    found: list[cst.BaseExpression] = []
    for expr in iterated(loop_iter):
        inner = _wrapped(t, expr, 0) if isinstance(expr, cst.Name) else None
        found += inner if inner else [expr]
    return found


def _wrapped(t: ShardDataLoaders, name: cst.Name, depth: int) -> list[cst.BaseExpression] | None:
    """What every binding reaching `name` wraps, through wrappers and names bound to
    them; None where one binding is not a wrapper (nor a name leading to one)."""
    if depth > _DEPTH:
        return None
    definitions = view(t._module_node).reaching(name)
    if not definitions:
        return None
    found: list[cst.BaseExpression] = []
    for definition in definitions:
        value = definition.value
        if definition.element or value is None:
            return None
        if isinstance(value, cst.Call) and name_of(value.func) in ITER_WRAPPERS and value.args:
            for inner in iterated(value):
                deeper = _wrapped(t, inner, depth + 1) if isinstance(inner, cst.Name) else None
                found += deeper if deeper else [inner]
        elif isinstance(value, cst.Name):
            deeper = _wrapped(t, value, depth + 1)
            if deeper is None:
                return None
            found += deeper
        else:
            return None
    unique: list[cst.BaseExpression] = []
    for expr in found:
        if not any(expr is seen for seen in unique):
            unique.append(expr)
    return unique
