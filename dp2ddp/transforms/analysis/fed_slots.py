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

from collections.abc import Iterable
from dataclasses import dataclass

import libcst as cst

from dp2ddp.facts import LoaderFeed
from dp2ddp.flow import DefUse, Function, origins
from dp2ddp.flow.origins import argument_for
from dp2ddp.transforms._support.nodes import iterated

#: A slot a call site fills: (function as the program names it, position, parameter name).
Slot = tuple[str, int, str]
#: What a DataLoader call left sharded spells (the data pass's own edits, or a migration
#: before this one): a distributed or evaluation sampler, or the per-rank batch size.
SHARDED_SPELLINGS = ("DistributedSampler", "ddp_per_rank_batch", "ddp_eval_sampler")


@dataclass(frozen=True)
class SiteFeed(LoaderFeed):
    """A feed of a function that its own module calls too (`own_sites`): `own_whole`, the
    calls of this module that hand it data no sampler shards."""

    own_whole: tuple[cst.Call, ...] = ()


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


def fed_share_loops(
    flow: DefUse, loops: Iterable[cst.For], feeds: tuple[LoaderFeed, ...]
) -> frozenset[cst.For]:
    """The `loops` through a value every site of the program hands a loader sharded there
    (none whole): `for batch in data` in `GAN.train(self, data, ...)`, handed `data =
    get_data_loader(...)` by the entry. Their batches are this rank's share, and noise
    drawn for one is drawn for it (shared_draws: the global batch's rows on rank 0's
    stream, this rank's kept), as in a loop over a sharded loader of the module."""
    if not feeds:
        return frozenset()
    found: set[cst.For] = set()
    for loop in loops:
        values = iterated(loop.iter)
        slots = [fed_slots(flow, value) for value in values]
        fed = [feeds_for(feeds, s) if s is not None else None for s in slots]
        if values and all(f is not None and f.sharded and not f.whole for f in fed):
            found.add(loop)
    return frozenset(found)


def fed_share(flow: DefUse, param: cst.CSTNode, feeds: tuple[LoaderFeed, ...]) -> bool:
    """`param` is a parameter every site of the program hands a loader sharded there (none
    whole): a value cut from it is this rank's share (the batch proof's origin)."""
    if not feeds or not isinstance(param, cst.Param):
        return False
    slot = _slot(flow, param)
    fed = feeds_for(feeds, [slot]) if slot is not None else None
    return fed is not None and bool(fed.sharded) and not fed.whole


def own_sites(
    flow: DefUse, expr: cst.BaseExpression, feeds: tuple[LoaderFeed, ...]
) -> SiteFeed | None:
    """The feed of `expr`, a parameter of a function other modules hand a loader sharded
    there, which its own module calls as well (`self.train_epoch(batches)` beside the
    entry's `trainer.train_epoch(loader)`): origins() follows the module's own calls only,
    so fed_slots saw no parameter and the function was judged by its own sites alone. Each
    own site is judged here: a loader this module shards, or a parameter every site of the
    program hands a sharded loader, is this rank's share; anything else is whole
    (`own_whole`). None where `expr` is not such a parameter or its own sites all shard."""
    if not isinstance(expr, cst.Name):
        return None
    found = [d for d in flow.reaching(expr)]
    if not found or any(d.kind != "param" or not isinstance(d.target, cst.Param) for d in found):
        return None
    params = {id(d.target): d.target for d in found}
    if len(params) != 1:
        return None
    (param,) = params.values()
    assert isinstance(param, cst.Param)
    slot = _slot(flow, param)
    fed = feeds_for(feeds, [slot]) if slot is not None else None
    function = flow.function_around(param)
    if fed is None or not fed.sharded or function is None:
        return None
    whole = tuple(
        site
        for site in flow.call_sites(function)
        if not _sharded_argument(flow, argument_for(site, function, param), feeds)
    )
    if not whole:
        return None
    return SiteFeed(fed.function, fed.position, fed.keyword, fed.sharded, fed.whole, (), whole)


def _sharded_argument(
    flow: DefUse, value: cst.BaseExpression | None, feeds: tuple[LoaderFeed, ...]
) -> bool:
    """`value` is this rank's share: every origin a DataLoader call spelled sharded, or a
    parameter every site hands a sharded loader (a method handing on what it is given)."""
    if value is None:
        return True  # the site passes nothing there: not this slot's data
    slots = fed_slots(flow, value)
    if slots:
        fed = feeds_for(feeds, slots)
        return fed is not None and bool(fed.sharded) and not fed.whole
    found = origins(flow, value)
    return bool(found) and all(
        o.kind == "call"
        and isinstance(o.node, cst.Call)
        and any(s in _code(o.node) for s in SHARDED_SPELLINGS)
        for o in found
    )


def _code(node: cst.CSTNode) -> str:
    return cst.Module([]).code_for_node(node)
