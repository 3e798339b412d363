"""Batches of a loader another module hands to a function of this one (class J1).

`def train_model(model, db_gen, opt): for x, y in db_gen: model(x)`: alone, the loop's
source is a parameter, unknown, and its batches are split at the model call as
DataParallel scattered them. The program knows better (facts.LoaderFeed, from the data
pass's handoffs in the callers' modules): where every call site passes a loader the
migration shards, each batch is this rank's share already and a split would halve it
again; where one site passes a sharded loader and another a whole one, no single choice
is right, and DP077 names both sites. Whole loaders alone keep the split at the call.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from dp2ddp.facts import LoaderFeed
from dp2ddp.flow import view
from dp2ddp.transforms.analysis.fed_slots import fed_slots, feeds_for

if TYPE_CHECKING:
    from dp2ddp.transforms.batches import ShardBatches
    from dp2ddp.transforms.batches.proof import BatchProof


def fed_loader(t: ShardBatches, loop: cst.For, seen: list[cst.BaseExpression]) -> LoaderFeed | None:
    """What the program's call sites pass the parameter the loop iterates (a program
    fact, facts.LoaderFeed), where it iterates a parameter of a top-level function of
    this module that another module hands a DataLoader: its batches' source is then
    known, not the unknown a split at the model call stands in for."""
    feeds = t.state.loaders.fed
    if not feeds:
        return None
    function = next((f for f in t._functions.values() if t._inside(loop, f)), None)
    if function is None:
        return _stored_feed(t, feeds, seen)
    params = [*function.params.posonly_params, *function.params.params]
    names = {n.value for n in seen if isinstance(n, cst.Name)}
    found: LoaderFeed | None = None
    for feed in feeds:
        if feed.function != function.name.value:
            continue
        if feed.keyword is not None:
            name = feed.keyword
        elif feed.position is not None and feed.position < len(params):
            name = params[feed.position].name.value
        else:
            continue
        if name in names and any(
            isinstance(n, cst.Name) and n.value == name and _parameter_of(t, n, function)
            for n in seen
        ):
            found = (
                feed
                if found is None
                else LoaderFeed(
                    feed.function,
                    feed.position,
                    feed.keyword,
                    found.sharded + feed.sharded,
                    found.whole + feed.whole,
                )
            )
    return found if found is not None else _stored_feed(t, feeds, seen)


def _stored_feed(
    t: ShardBatches, feeds: tuple[LoaderFeed, ...], seen: list[cst.BaseExpression]
) -> LoaderFeed | None:
    """A loop over a value stored from a parameter the program's sites hand a loader
    (`self.train_data` of `Trainer(model, train_dataloader)`, iterated in another method:
    analysis/fed_slots.py), where no parameter of the loop's own function is the source."""
    if t._module is None:
        return None
    flow = view(t._module)
    for expr in seen:
        if not isinstance(expr, cst.Attribute):
            continue
        slots = fed_slots(flow, expr)
        fed = feeds_for(feeds, slots) if slots else None
        if fed is not None:
            return fed
    return None


def _parameter_of(t: ShardBatches, name: cst.Name, function: cst.FunctionDef) -> bool:
    """`name` reads the parameter of `function` (no other binding reaches it)."""
    referents = t.referents(name)
    return bool(referents) and all(
        isinstance(r.node, cst.Param) and t._inside(r.node, function) for r in referents
    )


def plan_fed(t: ShardBatches, loop: cst.For, fed: LoaderFeed) -> bool:
    """A loop over a parameter the program's calls pass a sharded loader: its batches
    are this rank's share, not split again; where another call passes a whole one,
    DP077 names both (one function cannot split one and not the other)."""
    iterable = t.code(t._batch_source(loop.iter))
    sharded = ", ".join(fed.sharded)
    if fed.whole:
        t.warn(
            loop,
            "DP077",
            f"{iterable} is a loader sharded at {sharded} (this rank's share) but "
            f"whole at {', '.join(fed.whole)}: its batches are not split at the model "
            "call, so the whole loader trains every rank on every batch",
        )
        t._warned.add(loop)
        return True
    t.record(
        loop,
        f"batches of {iterable} left as they come: every call of the function passes "
        f"a loader sharded there ({sharded}), each batch is this rank's share",
    )
    return True


def fed_share_loop(t: BatchProof, loop: cst.For | cst.While) -> bool:
    """The loop iterates a value every site of the program hands a loader sharded there
    (none whole), through a parameter or a value stored from one (analysis/fed_slots.py):
    its batches are this rank's share, proved as a loop over a loader of this module is
    (batches/beside.py), not taken for data nobody split."""
    feeds = t.state.loaders.fed
    if not feeds or t._module is None:
        return False
    flow = view(t._module)
    for expr in t._loop_sources(loop):
        if isinstance(expr, (cst.Attribute, cst.Name)):
            slots = fed_slots(flow, expr)
            fed = feeds_for(feeds, slots) if slots else None
            if fed is not None and fed.sharded and not fed.whole:
                return True
    return False
