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

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import cast

import libcst as cst

from dp2ddp.flow import DefUse, Function
from dp2ddp.flow.origins import argument_for
from dp2ddp.result import LoaderExport
from dp2ddp.transforms._support.names import SHARD_FLAG
from dp2ddp.transforms._support.nodes import (
    code_of,
    nodes_of,
    target_names,
    variables_under,
    walk,
)

Matches = Callable[[cst.CSTNode, frozenset[str]], bool]
#: Another module's loader factory, by qualified name -> the places of its sharded loader
#: in what it returns (returned_factories).
FactorySlots = Mapping[str, frozenset[tuple[int | None, int | None]]]


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
    module: cst.Module, matches: Matches, factories: FactorySlots, made: frozenset[int]
) -> dict[str, bool]:
    """Bindings of a loader a function returns: `loader = make_loader()` of a top-level
    function of this module every `return` of which is a DataLoader call (or a name its
    body binds to one and only to one), or of one of `factories` (another module's, which
    that module shards) -> whether it is sharded: each of this module's function's loaders
    has the data pass's per-rank batch or DistributedSampler (after that pass; before it,
    none has), another module's always. A loop over a sharded one has this rank's batches.
    `made`: the ids of the module's DataLoader calls (none: no function returns a loader,
    and no body is walked). Also an item of a tuple unpacked from a call: tuple_loaders."""
    found = tuple_loaders(module, matches, factories)
    wholes = frozenset(name for name, slots in factories.items() if (None, None) in slots)
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
    if not makers and not wholes:
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
        elif wholes and matches(call.func, wholes):
            found[code_of(target)] = True
    return found


def returned_factories(exported: Iterable[LoaderExport]) -> FactorySlots:
    """Other modules' functions that return a training loader their module shards
    (ProgramLoaders.exported), by qualified name -> where in what they return: (None,
    None) the value itself; (position, arity) an item of the tuple (`return data_set,
    data_loader`), a loader's own export only, not one decided by a branch of its own
    (LoaderExport.branched: its picks are the data pass's)."""
    found: dict[str, set[tuple[int | None, int | None]]] = {}
    for e in exported:
        if not e.function or not e.module or e.attribute or e.via:
            continue
        if e.position is not None and (e.branched or not e.loader_itself):
            continue
        for name in e.full_names:  # re-exported names too (stop 65 v2-A)
            found.setdefault(name, set()).add((e.position, e.arity))
    return {name: frozenset(slots) for name, slots in found.items()}


def _sharded_call(call: cst.Call) -> bool:
    """A DataLoader call the data pass sharded (its per-rank batch, its sampler)."""
    text = code_of(call)
    return "ddp_per_rank_batch" in text or "DistributedSampler" in text or "DdpSamplerShard" in text


Slot = tuple[int | None, int | None]


def tuple_loaders(module: cst.Module, matches: Matches, factories: FactorySlots) -> dict[str, bool]:
    """Items unpacked from a call that hold another module's sharded loader: `train_data,
    train_loader = data_provider(args, "train")` of a factory exported at position 1 of 2
    (`return data_set, data_loader`), or through a function or a method of this module
    returning that factory's items (`self._get_data(flag)`: the experiment frameworks
    descended from zhouhaoyi/Informer2020@29f2a73; luodhhh/ModernTCN@56a9a2c's imputation
    mask, class v2-D of stop 56) -> whether sharded: not where the call passes
    `ddp_shard=False` (after the data pass: an evaluation call, its loader built whole;
    data/factory_sites.py). A binding also made whole elsewhere is not sharded."""
    slotted = {
        name: tuple_slots
        for name, slots in factories.items()
        if (tuple_slots := frozenset(s for s in slots if s[0] is not None))
    }
    if not slotted:
        return {}

    def factory_slots(call: cst.Call) -> frozenset[Slot]:
        held: set[Slot] = set()
        for name, slots in slotted.items():
            if matches(call.func, frozenset({name})):
                held |= slots
        return frozenset(held)

    wrappers: dict[tuple[str, str], frozenset[Slot]] = {}
    for statement in module.body:
        if isinstance(statement, cst.FunctionDef):
            wrappers[("", statement.name.value)] = _wrapper_slots(statement, factory_slots)
        elif isinstance(statement, cst.ClassDef):
            for method in statement.body.body:
                if isinstance(method, cst.FunctionDef):
                    key = (statement.name.value, method.name.value)
                    wrappers[key] = _wrapper_slots(method, factory_slots)
    found: dict[str, bool] = {}
    for statement in module.body:
        owner = statement.name.value if isinstance(statement, cst.ClassDef) else ""
        for node in walk(statement):
            if not isinstance(node, cst.Assign) or len(node.targets) != 1:
                continue
            target, call = node.targets[0].target, node.value
            if not isinstance(target, (cst.Tuple, cst.List)) or not isinstance(call, cst.Call):
                continue
            slots = factory_slots(call) | _called_wrapper(call, owner, wrappers)
            sharded = not _built_whole(call)
            arity = len(target.elements)
            for position, element in enumerate(target.elements):
                item = element.value
                if (position, arity) not in slots or isinstance(element, cst.StarredElement):
                    continue
                if isinstance(item, (cst.Name, cst.Attribute)):
                    binding = code_of(item)
                    found[binding] = found.get(binding, sharded) and sharded
    return found


def _called_wrapper(
    call: cst.Call, owner: str, wrappers: dict[tuple[str, str], frozenset[Slot]]
) -> frozenset[Slot]:
    """The slots of the module's function (`f(...)`) or of a method of `owner`, the class
    the call is in (`self.f(...)`), that `call` runs."""
    func = call.func
    if isinstance(func, cst.Name):
        return wrappers.get(("", func.value), frozenset())
    if (
        owner
        and isinstance(func, cst.Attribute)
        and isinstance(func.value, cst.Name)
        and func.value.value == "self"
    ):
        return wrappers.get((owner, func.attr.value), frozenset())
    return frozenset()


def _wrapper_slots(
    function: cst.FunctionDef, factory_slots: Callable[[cst.Call], frozenset[Slot]]
) -> frozenset[Slot]:
    """Where every `return` of `function` holds a factory's sharded loader: the factory's
    call itself (its slots), or a tuple whose item is a name the body binds only by
    unpacking that item of a factory's call (`data_set, data_loader = data_provider(...)`;
    `return data_set, data_loader`)."""
    only: dict[str, bool] = {}  # name -> bound only to a factory's sharded item
    returns: list[cst.Return] = []
    for node in walk(function.body, skip_scopes=True):
        if isinstance(node, cst.Return):
            returns.append(node)
        elif isinstance(node, cst.Assign):
            held = (
                factory_slots(node.value)
                if isinstance(node.value, cst.Call) and not _built_whole(node.value)
                else frozenset()
            )
            for assigned in node.targets:
                target = assigned.target
                if not isinstance(target, (cst.Tuple, cst.List)) or len(node.targets) != 1:
                    held = frozenset()  # `a = b = f(...)`, `x = f(...)`: not an item
                    items: Sequence[cst.BaseElement] = [cst.Element(target)]
                else:
                    items = target.elements
                for position, element in enumerate(items):
                    ok = (position, len(items)) in held and isinstance(element.value, cst.Name)
                    for name in target_names(element.value):
                        only[name] = only.get(name, True) and ok
        elif isinstance(node, (cst.AugAssign, cst.AnnAssign, cst.For)):
            for name in target_names(node.target):
                only[name] = False
    slots: frozenset[Slot] | None = None
    for node in returns:
        value = node.value
        if isinstance(value, cst.Call):
            held = frozenset() if _built_whole(value) else factory_slots(value)
        elif isinstance(value, cst.Tuple) and not any(
            isinstance(e, cst.StarredElement) for e in value.elements
        ):
            arity = len(value.elements)
            held = frozenset(
                (position, arity)
                for position, element in enumerate(value.elements)
                if isinstance(element.value, cst.Name) and only.get(element.value.value, False)
            )
        else:
            held = frozenset()
        slots = held if slots is None else slots & held
    return slots or frozenset()


def _built_whole(call: cst.Call) -> bool:
    """The call passes `ddp_shard=False`: the data pass's evaluation call of a factory of
    training and evaluation loaders, built whole."""
    return any(
        arg.keyword is not None
        and arg.keyword.value == SHARD_FLAG
        and isinstance(arg.value, cst.Name)
        and arg.value.value == "False"
        for arg in call.args
    )
