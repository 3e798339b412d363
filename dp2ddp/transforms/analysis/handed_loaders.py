"""Which loader a loop goes through when its function is handed the loader.

`def train(loader, model, ...): for i, (x, y) in enumerate(loader)`, called
`train(train_loader, ...)` (locuslab/smoothing@78a4d94's Gaussian-noise training, class v1-A
of stop 40): the loop's iterable is a parameter, and what it is bound to is read from the
module's def-use view (dp2ddp/flow: `call_sites`, the argument each call passes), not from a
scope analysis of its own. batch_noise.loops_over asks here where the loop's names are none
of the module's loaders.
"""

from __future__ import annotations

import libcst as cst

from dp2ddp.flow import DefUse, Function
from dp2ddp.flow.origins import argument_for
from dp2ddp.transforms._support.nodes import code_of, variables_under


def handed_loader(loop: cst.For, loaders: dict[str, str], flow: DefUse) -> str | None:
    """The global batch size of a loader the loop's function is handed: `def train(loader,
    ...): for i, (x, y) in enumerate(loader)`, called `train(train_loader, ...)`
    (locuslab/smoothing@78a4d94's Gaussian-noise training). Every call of the function in
    the module must pass a loader of `loaders` (or a parameter of its own function handed
    one the same way), all of one batch size; a function with no call here, a call that
    passes anything else, or loaders of two sizes: None (not shown)."""
    function = flow.function_around(loop)  # a loop is in no lambda: its def
    if function is None:
        return None
    names = {n.value for n in variables_under(loop.iter)}
    sizes = {_handed_size(function, name, loaders, flow, 3) for name in names}
    sizes.discard("")  # a name that is no parameter of the function (`enumerate`)
    return sizes.pop() if len(sizes) == 1 and None not in sizes else None


def _handed_size(
    function: Function, name: str, loaders: dict[str, str], flow: DefUse, depth: int
) -> str | None:
    """What `name` in `function` is handed by every call: a loader's batch size, "" where
    `name` is no parameter of `function`, None where not shown."""
    param = next((p for p in function.params if p.name.value == name), None)
    if param is None:
        return ""
    sites = flow.call_sites(function)
    if not sites or depth == 0:
        return None
    found: set[str | None] = set()
    for call in sites:
        argument = argument_for(call, function, param)
        if argument is None:
            return None
        size = loaders.get(code_of(argument))
        if size is None and isinstance(argument, cst.Name):
            outer = _parameter_of(argument, flow)
            if outer is not None:
                size = _handed_size(outer, argument.value, loaders, flow, depth - 1) or None
        found.add(size)
    return found.pop() if len(found) == 1 else None


def _parameter_of(name: cst.Name, flow: DefUse) -> Function | None:
    """The function whose parameter the argument `name` reads, by the def-use view's own
    lookup (Python's: through a lambda or a closure to the def that binds it); None where
    it reads no parameter."""
    for definition in flow.definitions(name):
        if definition.kind == "param":
            return flow.function_around(definition.target)
    return None
