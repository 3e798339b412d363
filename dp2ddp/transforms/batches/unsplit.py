"""What a batch the proof leaves unsplit gets on each rank, as DP047 says it.

A batch reaching the model that the proof (batches/proof.py) cannot follow to a loader or a
split is not split where it comes from another module's code: there the data may already
be this rank's part, and a split would cut it again. DP047 says what each rank then gets:

* taken by another module's function from a loader it holds (`batches.get_batch()` of a
  loader class: ProgramHints.batch_fetchers): that module may shard its loader;
* drawn through an object built here from a loader this module shards (`train_iterator =
  Iterator(train_loader)`, `train_iterator.get()` of a class of another module): where the
  object gives that loader's batches each rank gets its part; what it really gives is not
  followed (shjo-april/PuzzleCAM@659b4c1 train_classification_with_puzzle.py:320, stop 52
  w1: said "every rank gets all of it" of a loader that is sharded);
* else every rank gets all of it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from dp2ddp.flow import DefUse, Origin, code, origins
from dp2ddp.transforms._support.names import DATALOADER
from dp2ddp.transforms._support.nodes import name_of
from dp2ddp.transforms.batches.loops import PER_RANK

if TYPE_CHECKING:
    from dp2ddp.transforms.batches.proof import BatchProof

#: The helpers the data pass wraps a program's own sampler in (data/batch_shard.py).
_SHARDS = ("DdpBatchShard", "DdpSamplerShard")


def sharded_here(loader: str) -> bool:
    """A DataLoader call as the data pass left it sharded: a distributed sampler, or the
    per-rank batch size."""
    return "DistributedSampler" in loader or PER_RANK in loader or "ddp_eval_sampler" in loader


def unsplit_effect(proof: BatchProof, flow: DefUse, origin: Origin) -> str:
    """What each rank gets of a batch from `origin` left unsplit (see the docstring)."""
    if fetched_elsewhere(proof, origin):
        return (
            "taken by another module's function from a loader it may shard: not split here "
            "(a second split cuts this rank's part again); where that loader is whole, every "
            "rank gets all of it"
        )
    drawn = _drawn_through(proof, flow, origin)
    if drawn is not None:
        receiver, built, loader = drawn
        return (
            f"{receiver} is {built}, an object given {loader}, which is sharded here: where "
            f"{code(origin.node)} gives that loader's batches, each rank gets its part (not "
            "split here: a second split would cut it again); what it gives is not followed: "
            "anything else, every rank gets all of it"
        )
    return "every rank gets all of it"


def fetched_elsewhere(proof: BatchProof, origin: Origin) -> bool:
    """A batch taken through a function of another module that returns `next()` of a
    loader it holds (`batches.get_batch()` of a loader class: ProgramHints.
    batch_fetchers), a walk that ends at the object's class (`Batches(4)`, not entered)
    or its import: that module may shard its loader, and a split here would cut this
    rank's part again (each rank training on a quarter: v2-B's fixture of stop 43);
    said (DP047), not split. The walk records the method call as the step `what`."""
    fetchers = proof.state.hints.batch_fetchers
    return (
        bool(fetchers)
        and origin.kind in ("import", "call")
        and any(
            step.what.endswith(")") and step.what.partition("(")[0].rpartition(".")[2] in fetchers
            for step in origin.path
        )
    )


def iterated_share(proof: BatchProof, flow: DefUse, origin: Origin) -> bool:
    """The batch is `recv.m()` where every binding of `recv` is a call of a class whose
    method `m` gives the batches of its constructor's k-th parameter (another module's
    class: ProgramHints.batch_fetchers' `Class.m@k`, analysis/per_rank.py), given as the
    k-th argument a DataLoader this module sharded: this rank's part, as the loader's own
    batches (stop 53 s3, PuzzleCAM's `Iterator(train_loader).get()`: DP047 said it)."""
    node, fetchers = origin.node, proof.state.hints.batch_fetchers
    if not (
        fetchers
        and isinstance(node, cst.Call)
        and isinstance(node.func, cst.Attribute)
        and isinstance(node.func.value, cst.Name)
    ):
        return False
    definitions = flow.reaching(node.func.value)
    for definition in definitions:
        built = definition.value
        if not isinstance(built, cst.Call) or definition.element:
            return False
        at = next(
            (
                i
                for i, a in enumerate(built.args)
                if a.keyword is None and not a.star and _sharded_loader(proof, flow, a.value)
            ),
            None,
        )
        if at is None or f"{name_of(built.func)}.{node.func.attr.value}@{at}" not in fetchers:
            return False
    return bool(definitions)


def _drawn_through(proof: BatchProof, flow: DefUse, origin: Origin) -> tuple[str, str, str] | None:
    """(receiver, its binding call, the loader) where the batch is a method's result or
    `next()` of an object each binding of which is a call given a loader the data pass
    sharded here: `train_iterator.get()` of
    `train_iterator = Iterator(train_loader)`."""
    node = origin.node
    if not isinstance(node, cst.Call):
        return None
    receiver: cst.BaseExpression | None = None
    if isinstance(node.func, cst.Attribute):
        receiver = node.func.value
    elif name_of(node.func) == "next" and node.args:
        receiver = node.args[0].value
    if not isinstance(receiver, cst.Name):
        return None
    definitions = flow.reaching(receiver)
    found: tuple[str, str, str] | None = None
    for definition in definitions:
        value = definition.value
        if (
            not isinstance(value, cst.Call)
            or definition.element
            or proof.matches(value.func, DATALOADER)
        ):
            return None
        loader = next((a.value for a in value.args if _sharded_loader(proof, flow, a.value)), None)
        if loader is None:
            return None
        found = found or (receiver.value, code(value), code(loader))
    return found


def _sharded_loader(proof: BatchProof, flow: DefUse, value: cst.BaseExpression) -> bool:
    """`value` is a DataLoader of this module that the data pass sharded."""
    for origin in origins(flow, value):
        node = origin.node
        if origin.selects or not isinstance(node, cst.Call):
            continue
        text = proof.code(node)
        if proof.matches(node.func, DATALOADER) and (
            sharded_here(text) or any(f"{shard}(" in text for shard in _SHARDS)
        ):
            return True
    return False
