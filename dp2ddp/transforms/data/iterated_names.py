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

A program's own wrapper is followed the same way: a function of the module that returns
its parameter, or a progress wrapper of it, on every path (imtiazziko/LaplacianShot@5de2612's
`warp_tqdm(data_loader)`: `tqdm.tqdm(data_loader, ...)` or `data_loader` as a flag says,
round 23). `for i, (x, y) in enumerate(warp_tqdm(train_loader))` iterates `train_loader`;
before, no loop over the factory's loaders was found, and its batch-sampler loader, built
for meta-training and for meta-validation, was sharded for both.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from dp2ddp.flow import DefUse, view
from dp2ddp.flow.origins import argument_for
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
        handed = _handed_through(view(t._module_node), expr) if isinstance(expr, cst.Call) else None
        if handed is not None:
            found += iterated_through_names(t, handed)
            continue
        inner = _wrapped(t, expr, 0) if isinstance(expr, cst.Name) else None
        found += inner if inner else [expr]
    return found


def _handed_through(flow: DefUse, call: cst.Call) -> cst.BaseExpression | None:
    """What `call` hands to a function of this module that returns it back, or a progress
    wrapper of it, on every path (`warp_tqdm(loader)`); None for any other call."""
    callees = flow.callees(call)
    if len(callees) != 1 or not callees[0].params or callees[0].yields:
        return None
    function = callees[0]
    param = function.params[0]
    if not function.returns or not all(
        _gives_back(flow, value, param.name.value, 0) for value in function.returns
    ):
        return None
    return argument_for(call, function, param)


def _gives_back(flow: DefUse, value: cst.BaseExpression, param: str, depth: int) -> bool:
    """`value` is the parameter `param`, a progress wrapper of it, or a name every binding
    of which is one of these."""
    if isinstance(value, cst.Call) and name_of(value.func) in ITER_WRAPPERS and value.args:
        inner = iterated(value)
        return len(inner) == 1 and _gives_back(flow, inner[0], param, depth)
    if not isinstance(value, cst.Name) or depth > _DEPTH:
        return False
    definitions = flow.reaching(value)
    if not definitions:
        return False
    for definition in definitions:
        if definition.kind == "param":
            if value.value != param:
                return False
        elif definition.element or definition.value is None:
            return False
        elif not _gives_back(flow, definition.value, param, depth + 1):
            return False
    return True


def _wrapped(t: ShardDataLoaders, name: cst.Name, depth: int) -> list[cst.BaseExpression] | None:
    """What every binding reaching `name` wraps, through wrappers and names bound to
    them; None where one binding is not a wrapper (nor a name leading to one)."""
    if depth > _DEPTH:
        return None
    definitions = view(t._module_node).reaching(name)
    if not definitions:
        return None
    found: list[cst.BaseExpression] = []
    flow = view(t._module_node)
    for definition in definitions:
        value = definition.value
        if definition.element or value is None:
            return None
        handed = _handed_through(flow, value) if isinstance(value, cst.Call) else None
        if handed is not None:  # `tqdm_loader = warp_tqdm(loader)`: what it hands on
            for inner in iterated(handed):
                deeper = _wrapped(t, inner, depth + 1) if isinstance(inner, cst.Name) else None
                found += deeper if deeper else [inner]
        elif isinstance(value, cst.Call) and name_of(value.func) in ITER_WRAPPERS and value.args:
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
