"""Which loader a loop goes through when its function is handed the loader.

`def train(loader, model, ...): for i, (x, y) in enumerate(loader)`, called
`train(train_loader, ...)` (locuslab/smoothing@78a4d94's Gaussian-noise training, class v1-A
of stop 40): the loop's iterable is a parameter, and what it is bound to is read from the
module's def-use view (dp2ddp/flow: `call_sites`, the argument each call passes), not from a
scope analysis of its own. batch_noise.loops_over asks here where the loop's names are none
of the module's loaders.

Also a loader a function returns (`loader = make_loader()`; learn-GAN's `dataloader =
dataloader_init()` of utils.py, JamesHagerty1/learn-GAN@bfd7ee9, stop 55 class r2-B):
returned_loaders, for batch_noise.global_batch_sizes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import cast

import libcst as cst

from dp2ddp.flow import DefUse, Function
from dp2ddp.flow.origins import argument_for
from dp2ddp.result import LoaderExport
from dp2ddp.transforms._support.nodes import (
    code_of,
    nodes_of,
    target_names,
    variables_under,
    walk,
)

Matches = Callable[[cst.CSTNode, frozenset[str]], bool]


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


def returned_loaders(
    module: cst.Module, matches: Matches, factories: frozenset[str], made: frozenset[int]
) -> dict[str, bool]:
    """Bindings of a loader a function returns: `loader = make_loader()` of a top-level
    function of this module every `return` of which is a DataLoader call (or a name its
    body binds to one and only to one), or of one of `factories` (another module's, which
    that module shards) -> whether it is sharded: each of this module's function's loaders
    has the data pass's per-rank batch or DistributedSampler (after that pass; before it,
    none has), another module's always. A loop over a sharded one has this rank's batches.
    `made`: the ids of the module's DataLoader calls (none: no function returns a loader,
    and no body is walked)."""
    makers: dict[str, bool] = {}
    called = {  # only a function some `x = f()` binds is walked (the module's index)
        node.value.func.value
        for node in nodes_of(module, cst.Assign)
        if made and isinstance(node.value, cst.Call) and isinstance(node.value.func, cst.Name)
    }
    for statement in module.body:
        if (
            not isinstance(statement, cst.FunctionDef)
            or statement.decorators
            or statement.name.value not in called
        ):
            continue
        returns: list[cst.Return] = []
        calls: list[cst.Call] = []
        loaders: dict[str, bool] = {}
        for node in walk(statement.body, skip_scopes=True):  # once: returns and bindings
            if isinstance(node, cst.Return):
                returns.append(node)
            elif isinstance(node, cst.Assign):
                loader = id(node.value) in made
                if loader:
                    calls.append(cast(cst.Call, node.value))
                for assigned in node.targets:
                    for name in target_names(assigned.target):
                        loaders[name] = (
                            loaders.get(name, True) and loader and len(node.targets) == 1
                        )
        if returns and all(
            r.value is not None
            and (
                (isinstance(r.value, cst.Call) and id(r.value) in made)
                or (isinstance(r.value, cst.Name) and loaders.get(r.value.value, False))
            )
            for r in returns
        ):
            calls += [r.value for r in returns if isinstance(r.value, cst.Call)]
            makers[statement.name.value] = all(_sharded_call(c) for c in calls)
    found: dict[str, bool] = {}
    if not makers and not factories:
        return found  # no binding can hold a returned loader: the module is not walked
    for node in nodes_of(module, cst.Assign):
        call = node.value
        if len(node.targets) != 1 or not isinstance(call, cst.Call):
            continue
        target = node.targets[0].target
        if not isinstance(target, (cst.Name, cst.Attribute)):
            continue
        if isinstance(call.func, cst.Name) and call.func.value in makers:
            found[code_of(target)] = makers[call.func.value]
        elif factories and matches(call.func, factories):
            found[code_of(target)] = True
    return found


def returned_factories(exported: Iterable[LoaderExport]) -> list[str]:
    """Qualified names of other modules' functions that return, as their value itself, a
    training loader their module shards (ProgramLoaders.exported)."""
    return [
        f"{e.module}.{e.name}"
        for e in exported
        if e.function and e.position is None and e.module and not e.attribute and not e.via
    ]


def _sharded_call(call: cst.Call) -> bool:
    """A DataLoader call the data pass sharded (its per-rank batch, its sampler)."""
    text = code_of(call)
    return "ddp_per_rank_batch" in text or "DistributedSampler" in text or "DdpSamplerShard" in text
