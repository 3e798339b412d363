"""Where the program's call sites hand a value a loop of this module iterates (stop 54, v2-B).

Other modules hand this module's functions loaders (facts.LoaderFeed, from their data passes'
hand-offs): `train(model, loader)`, `net._train_one_epoch(loader)`, and a class's constructor,
`Trainer(model, train_dataloader, val_dataloader)`. The batch and data passes asked only
whether a loop iterates a parameter of the function the loop is in. A constructor's
parameter is stored first (`self.train_data = train_data`) and iterated in another method
(`for step, (data, label) in enumerate(self.train_data)`): the loop's source looked unknown,
so the batch pass split each batch again at the loop's top while the caller's loader was
sharded already, and each rank trained on half its share (vpromise/2d-pose-pytorch@825aed0,
utils/Trainer.py:148, handed `train_dataloader` by train.py:47; x1's left class of stop 53).

`fed_slots(flow, expr)` follows `expr` over the module's def-use view (flow.origins: through
names, `self.x = ...` stores and the module's own call sites) to the parameters it may hold:
each as the hand-offs name its function (a top-level function by name, a method of a
top-level class as "Class.method", the constructor `__init__` as "Class"), its position
without the receiver, and its name. None where some value is not such a parameter: a
proof needs every value fed.
"""

from __future__ import annotations

import libcst as cst

from dp2ddp.facts import LoaderFeed
from dp2ddp.flow import DefUse, Function, origins

#: A slot a call site fills: (function as the program names it, position, parameter name).
Slot = tuple[str, int, str]


def fed_slots(flow: DefUse, expr: cst.BaseExpression) -> list[Slot] | None:
    """The parameters every value of `expr` comes from, as the hand-offs name them (see the
    module docstring); None where one value is not a parameter of such a function."""
    found = fed_params(flow, expr)
    return None if found is None else [slot for slot, _ in found]


def fed_params(flow: DefUse, expr: cst.BaseExpression) -> list[tuple[Slot, cst.Param]] | None:
    """`fed_slots` with each slot's parameter."""
    found = origins(flow, expr)
    if not found:
        return None
    slots: list[tuple[Slot, cst.Param]] = []
    for origin in found:
        if origin.kind != "parameter" or not isinstance(origin.node, cst.Param):
            return None
        slot = _slot(flow, origin.node)
        if slot is None:
            return None
        slots.append((slot, origin.node))
    return slots


def _slot(flow: DefUse, param: cst.Param) -> Slot | None:
    function = next((f for f in flow.functions.values() if any(p is param for p in f.params)), None)
    if function is None or not isinstance(function.node, cst.FunctionDef):
        return None
    index = next(i for i, p in enumerate(function.params) if p is param)
    key = _key(flow, function)
    if key is None:
        return None
    name, receiver = key
    if index < receiver:
        return None  # the receiver itself
    return name, index - receiver, param.name.value


def _key(flow: DefUse, function: Function) -> tuple[str, int] | None:
    """How the hand-offs name `function`, and how many leading parameters no site passes."""
    if function.owner is None:
        if isinstance(flow.parent(function.node), cst.Module):
            return function.name, 0
        return None
    if not isinstance(flow.parent(function.owner), cst.Module):
        return None
    receiver = 0 if function.self_name is None else 1
    if function.name == "__init__":
        return function.owner.name.value, receiver
    return f"{function.owner.name.value}.{function.name}", receiver


def feeds_for(feeds: tuple[LoaderFeed, ...], slots: list[Slot]) -> LoaderFeed | None:
    """The program's feeds of `slots`, merged (their sites together); None unless every slot
    is fed (a value no site hands a loader is no loader's share)."""
    found: LoaderFeed | None = None
    for function, position, name in slots:
        matched = [
            f
            for f in feeds
            if f.function == function
            and (f.keyword == name if f.keyword is not None else f.position == position)
        ]
        if not matched:
            return None
        for feed in matched:
            found = (
                feed
                if found is None
                else LoaderFeed(
                    found.function,
                    found.position,
                    found.keyword,
                    found.sharded + feed.sharded,
                    found.whole + feed.whole,
                )
            )
    return found


def fed_share(flow: DefUse, param: cst.CSTNode, feeds: tuple[LoaderFeed, ...]) -> bool:
    """`param` is a parameter every site of the program hands a loader sharded there (none
    whole): a value cut from it is this rank's share (the batch proof's origin)."""
    if not feeds or not isinstance(param, cst.Param):
        return False
    slot = _slot(flow, param)
    fed = feeds_for(feeds, [slot]) if slot is not None else None
    return fed is not None and bool(fed.sharded) and not fed.whole
