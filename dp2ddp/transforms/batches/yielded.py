"""A batch taken from another module's function that yields its sharded loader's batches.

`x, label = itr.__next__()` where `itr = lib.get_iter(n)` and lib.py's data pass proved every
item `get_iter` yields one batch of a loader it shards (LoaderExport.yields, data/
batch_yielders.py): the walk (dp2ddp/flow `origins`) stops at the call, another module's,
and the batch was taken for data nobody split and cut again (`ddp_shard_batch`): each rank
trained on a quarter of DataParallel's batch, without a word (x1's repro of stop 53). It is
this rank's share as the loader's own batches: no second cut. Only the element itself (one
part taken after the call: `next()`, `.__next__()`, a `for` target; none for a function
returning a batch): a slice of it is a part of the share, proved or said as before.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from dp2ddp.flow import Origin, origins, view
from dp2ddp.result import LoaderExport
from dp2ddp.transforms._support.names import DATALOADER
from dp2ddp.transforms.batches.loops import PER_RANK

if TYPE_CHECKING:
    from dp2ddp.transforms.batches.proof import BatchProof


def sharded_here(loader: str) -> bool:
    """A DataLoader call as the data pass left it sharded: a distributed sampler, or the
    per-rank batch size."""
    return "DistributedSampler" in loader or PER_RANK in loader or "ddp_eval_sampler" in loader


def yielded_share(proof: BatchProof, origin: Origin) -> bool:
    """The walk ends at a call of another module's function exported as yielding (one part
    taken on the way: the item) or returning (none) its sharded loaders' batches."""
    node = origin.node
    if origin.kind != "call" or not isinstance(node, cst.Call):
        return False
    exported = [e for e in proof.state.loaders.exported if e.yields]
    if not exported:
        return False
    built = proof._call_origin(node, None, None)
    for export in exported:
        if proof._is_exported(built, (LoaderExport(export.name, True, module=export.module),)):
            cuts = sum(step.cut for step in origin.path)
            return cuts == (1 if export.yields == "yields" else 0)
    return False


def from_sharded_loader(
    proof: BatchProof, module: cst.Module | None, value: cst.BaseExpression
) -> bool:
    """The batch `value` gives flows from a DataLoader the data pass sharded, through a
    generator or helper of this module (rosinality/glow-pytorch@97081ff: `sample_data()`
    builds its own DataLoader and yields `next(loader)`), or of another module's exported
    as yielding its sharded loader's batches (`next(itr)` of `itr = lib.get_iter(n)`): it
    is this rank's share already, and a second split would halve it again (each rank
    trained on 2 of the original's 8, in silence)."""
    if module is None:
        return False
    return any(
        not origin.selects
        and (
            isinstance(origin.node, cst.Call)
            and proof.matches(origin.node.func, DATALOADER)
            and sharded_here(proof.code(origin.node))
            or yielded_share(proof, origin)
        )
        for origin in origins(view(module), value)
    )
