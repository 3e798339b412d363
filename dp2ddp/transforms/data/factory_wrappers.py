"""A function returning several loaders of one factory: `return train_loader, val_loader`,
each bound to a call of the module's loader factory (fartashf/vsepp@abe382f's
`data.get_loaders`, two calls of `get_loader_single`; class v3-H of stop 41).

Its importer unpacks them (`train_loader, val_loader = data.get_loaders(bs)`) and hands the
validation loader to another module's evaluation (`encode_data`, which fills arrays of the
dataset's size at each batch's ids). Before, the wrapper was not exported (its returns hold
calls, not DataLoaders), the factory's one DataLoader was sharded for both, and the
validation arrays were half zero, silently. Now, across the program:

* library side (export_wrappers): each item of the wrapper's returns that is a call of the
  exported factory is exported as a sharded loader at that position, as a factory's own
  tuple is; importers find their loops over it (set_epoch, figures).
* importer side (evaluation_slots): an item whose loops, here and in the modules it is
  handed to (handoffs.handed_on), all evaluate is told to the library as
  `module.wrapper#position` (state.evaluation_factories); handed on where no loop is proved
  to train or to evaluate it: DP084, sharded as before. An item an importer trains on is
  told too (`#position!`): one importer evaluating it cannot make it whole for all (DP084).
* library side again, told (told_slots): the factory takes `ddp_shard=True` and the
  wrapper's call at that item passes `ddp_shard=False` (DP015 there): the loader is built
  whole, as the original built it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import libcst as cst

from dp2ddp.result import LoaderExport
from dp2ddp.transforms._support.nodes import ModuleNodes, assigned_value, iterated, walk
from dp2ddp.transforms.data.handoffs import handed_on, handed_role

if TYPE_CHECKING:
    from dp2ddp.transforms.data.imported import LoaderImports, Origin

#: How a told item is spelled among state.evaluation_factories: `wrapper#position`; with
#: TRAINED after it, an item an importer trains on (never split, whoever evaluates it).
SLOT = "#"
TRAINED = "!"


def wrapper_slots(
    t: LoaderImports, wrapper: cst.FunctionDef, factory: str
) -> list[list[cst.Call]] | None:
    """The calls of `factory` (a top-level function of this module, by name) at each item
    of what `wrapper` returns, every return a tuple or list of the same length (an item
    that is not such a call: []); None where the returns are not all of that shape or no
    item is a call of the factory."""
    returns = [n for n in walk(wrapper.body, skip_scopes=True) if isinstance(n, cst.Return)]
    slots: list[list[cst.Call]] | None = None
    for node in returns:
        if not isinstance(node.value, (cst.Tuple, cst.List)):
            return None
        elements = node.value.elements
        if any(isinstance(e, cst.StarredElement) for e in elements):
            return None
        if slots is None:
            slots = [[] for _ in elements]
        if len(slots) != len(elements):
            return None
        for slot, element in zip(slots, elements, strict=True):
            slot += _calls_of(t, element.value, factory, wrapper)
    if not slots or not any(slots):
        return None
    return slots


def _calls_of(
    t: LoaderImports, value: cst.BaseExpression, factory: str, wrapper: cst.FunctionDef
) -> list[cst.Call]:
    """`value` as calls of `factory`: the call itself, or a name every binding of which in
    `wrapper` is one; [] for anything else."""
    if isinstance(value, cst.Call):
        return [value] if isinstance(value.func, cst.Name) and value.func.value == factory else []
    if not isinstance(value, cst.Name):
        return []
    found: list[cst.Call] = []
    for referent in t.referents(value):
        bound = assigned_value(referent.node, t)
        calls = _calls_of(t, bound, factory, wrapper) if isinstance(bound, cst.Call) else []
        if not calls:
            return []
        found += calls
    return found


def export_wrappers(t: LoaderImports, factory: cst.FunctionDef) -> None:
    """Export the items of the top-level functions of this module that return calls of
    `factory` (exported itself, its loader sharded) at each position of their tuples."""
    module = t.parent(factory)
    if not isinstance(module, cst.Module):
        return
    for wrapper in module.body:
        if not isinstance(wrapper, cst.FunctionDef) or wrapper is factory:
            continue
        slots = wrapper_slots(t, wrapper, factory.name.value)
        for position, calls in enumerate(slots or ()):
            export = LoaderExport(
                wrapper.name.value, True, position, len(slots or ()), via=factory.name.value
            )
            if calls and export not in t.state.exports:
                t.state.exports.append(export)


def told_slots(
    t: LoaderImports, module: cst.Module, told: tuple[str, ...]
) -> tuple[set[str], set[cst.Call]]:
    """For the items other modules evaluate (`wrapper#position` in `told`): the factories
    that take ddp_shard, and the wrappers' calls that pass False."""
    factories: set[str] = set()
    calls: set[cst.Call] = set()
    items = [name.partition(SLOT) for name in told if SLOT in name]
    if not items:
        return factories, calls
    functions = {s.name.value: s for s in module.body if isinstance(s, cst.FunctionDef)}
    trained = {name[: -len(TRAINED)] for name in told if name.endswith(TRAINED)}
    for name, _, position in items:
        wrapper = functions.get(name)
        if wrapper is None or not position.isdigit():
            continue
        for factory in functions:
            slots = wrapper_slots(t, wrapper, factory) if factory != name else None
            if slots is None or int(position) >= len(slots) or not slots[int(position)]:
                continue
            if f"{name}{SLOT}{position}" in trained:
                for call in slots[int(position)]:
                    t.warn(
                        call,
                        "DP084",
                        f"item {position} of {name}() is only evaluated by one importer and "
                        "trained on by another: sharded as training data (the evaluation "
                        "goes through this rank's share)",
                    )
                continue
            factories.add(factory)
            calls.update(slots[int(position)])
    return factories, calls


def evaluation_slots(
    t: LoaderImports, nodes: ModuleNodes, exported: tuple[LoaderExport, ...]
) -> set[tuple[cst.Call, int]]:
    """The items of calls here of another module's wrapper (exports at a position) that
    build evaluation loaders: every loop over the item, here or where it is handed to,
    evaluates. Each is told to the library (`module.wrapper#position`); an item handed on
    where no loop is proved to train or to evaluate it gets DP084 (sharded as before)."""
    found: set[tuple[cst.Call, int]] = set()
    wrapped = [e for e in exported if e.via and e.position is not None and e.arity]
    if not wrapped:
        return found
    #: (call, position) -> the kinds of the loops here over that item
    kinds: dict[tuple[cst.Call, int], set[str]] = {}
    for loop in nodes.of(cst.For):
        for expr in iterated(loop.iter):
            for source in t._origins(expr, (), 0):
                if source.call is not None and source.position is not None:
                    kind = t._factory_sites._kind(loop, source.path)
                    kinds.setdefault((source.call, source.position), set()).add(kind)
    for call in nodes.of(cst.Call):
        for export in wrapped:
            position = export.position
            assert position is not None
            origin: Origin = t._call_origin(call, position, export.arity)
            if not t._is_exported(origin, (export,)):
                continue
            here = kinds.get((call, position), set())
            at = f"item {position} of {t.code(call.func)}()"
            handed = handed_on(t, _holds(t, call, position))
            role = handed_role(handed) if handed else "evaluates" if here else None
            told = f"{export.module}.{export.name}{SLOT}{position}"
            if "train" in here or role == "trains":
                # trained here: an importer that only evaluates it must not split it alone
                if told + TRAINED not in t.state.evaluation_factories:
                    t.state.evaluation_factories.append(told + TRAINED)
                continue
            if here - {"eval"}:
                continue  # not proved to evaluate here
            if role != "evaluates":
                if handed and role is None:
                    where = "; ".join(f"{h.text()} at line {t.line_of(h.site)}" for h in handed)
                    t.warn(
                        call,
                        "DP084",
                        f"the loader at {at} is handed to {where}: not proved to train "
                        "or to evaluate there; sharded as training data",
                    )
                continue
            found.add((call, position))
            if told not in t.state.evaluation_factories:
                t.state.evaluation_factories.append(told)
            t.record(
                call,
                f"the loader at {at} is only evaluated: {export.module} builds it whole "
                "(ddp_shard=False at its factory's call there, DP015)",
            )
    return found


def _holds(t: LoaderImports, call: cst.Call, position: int) -> Callable[[cst.BaseExpression], bool]:
    """Whether a value is the item `position` of what `call` returns (handoffs.handed_on)."""

    def holds(value: cst.BaseExpression) -> bool:
        return any(o.call is call and o.position == position for o in t._origins(value, (), 0))

    return holds
