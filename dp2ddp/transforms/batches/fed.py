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
from dp2ddp.transforms.analysis.fed_slots import SiteFeed, fed_slots, feeds_for, own_sites

if TYPE_CHECKING:
    from dp2ddp.transforms.batches import ShardBatches
    from dp2ddp.transforms.batches.proof import BatchProof


def fed_loader(t: ShardBatches, loop: cst.For, seen: list[cst.BaseExpression]) -> LoaderFeed | None:
    """What the program's call sites pass the value the loop iterates (a program fact,
    facts.LoaderFeed), where every value of it comes, over the module's def-use view
    (analysis/fed_slots.py), from parameters other modules hand a DataLoader: of a
    top-level function (`train(model, loader)`), of a method of a top-level class
    (`trainer.train_epoch(loader)`: "Trainer.train_epoch"), or of a constructor, stored on
    `self` and iterated in another method (`self.train_data`). Its batches' source is then
    known, not the unknown a split at the model call stands in for. Before, only a
    top-level function's parameter was asked: a method's parameter (round 24's Trainer
    handed the entry's sharded loader) was split again at the loop's top, each rank
    training on half its share, no word."""
    return _fed_of(t.state.loaders.fed, t._module, seen)


def _fed_of(
    feeds: tuple[LoaderFeed, ...], module: cst.Module | None, exprs: list[cst.BaseExpression]
) -> LoaderFeed | None:
    """The program's feeds of the first of `exprs` every value of which is a parameter
    other modules hand a loader (analysis/fed_slots.py), merged over its sites."""
    if not feeds or module is None:
        return None
    flow = view(module)
    for expr in exprs:
        if not isinstance(expr, (cst.Attribute, cst.Name)):
            continue
        slots = fed_slots(flow, expr)
        fed = feeds_for(feeds, slots) if slots else own_sites(flow, expr, feeds)
        if fed is not None:
            return fed
    return None


def plan_fed(t: ShardBatches, loop: cst.For, fed: LoaderFeed) -> bool:
    """A loop over a parameter the program's calls pass a sharded loader: its batches
    are this rank's share, not split again; where another call passes a whole one,
    DP077 names both (one function cannot split one and not the other)."""
    iterable = t.code(t._batch_source(loop.iter))
    sharded = ", ".join(fed.sharded)
    if isinstance(fed, SiteFeed):
        _said_own_sites(t, loop, fed, iterable)
        return True
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
    fed = _fed_of(t.state.loaders.fed, t._module, list(t._loop_sources(loop)))
    return fed is not None and bool(fed.sharded) and not fed.whole


def _said_own_sites(t: ShardBatches, loop: cst.For, fed: SiteFeed, iterable: str) -> None:
    """DP077 at each call of this module that hands the loop's function data no sampler
    shards, where other modules hand it a sharded loader (analysis/fed_slots.own_sites):
    the loop takes each batch as this rank's share (not split, right for those), so at this
    call every rank trains on every whole batch. Before, the function was judged by one
    kind of site alone: split again for the entry's sharded loader (each rank training on
    half its share), or left whole for its own module's data, no word either way."""
    sharded = ", ".join(fed.sharded)
    function = fed.function.rpartition(".")[2]
    for site in fed.own_whole:
        t.warn(
            site,
            "DP077",
            f"{t.code(site)} hands {function}() data no sampler shards, while {function}() "
            f"is handed a loader sharded at {sharded}: its loop over {iterable} takes each "
            "batch as this rank's share (not split), so at this call every rank trains on "
            "every whole batch; shard this data (a DistributedSampler) or split its batches",
        )
    t._warned.add(loop)
    t.record(loop, f"batches of {iterable} left as they come: sharded at {sharded}")
