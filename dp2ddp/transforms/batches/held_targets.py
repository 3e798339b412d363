"""Targets built once before a loop over a sharded loader, sized by the loader's batch size
(`real_label = torch.ones(cfg.batch_size, 1)` compared with `netD(x)` at every step).

DataParallel gathered the model's output of the whole batch, so a target of the global batch
size matched it. Sharded, the output holds this rank's part of the batch and the held target
still the global size: the loss raises on every rank ("Using a target size that is different
to the input size"), or, where it broadcasts, compares the wrong rows, and the migration said
nothing (stop 66, issue 28: nashory/pggan-pytorch@070cc23's real and fake labels; the lost
first session of stop 66 said it with a warning, this one proves it). A tensor factory of a
library whose size along dim 0 is the batch size the data pass gave the loader per rank (the
argument of its `ddp_per_rank_batch(...)`, directly or through a name bound once to it),
built outside the loop and compared there with the output of a model call given the loader's
batch, takes this rank's part: `torch.ones(ddp_per_rank_batch(cfg.batch_size), 1)`, the rows
of DataParallel's target each rank's output meets. A constant fill (ones, zeros, full, empty)
is the same in every part, so the part is the global target's rows.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from dp2ddp.flow import DefUse, origins
from dp2ddp.transforms._support.nodes import name_of, walk
from dp2ddp.transforms.batches.loops import PER_RANK
from dp2ddp.transforms.batches.source_syntax import per_dim_args

if TYPE_CHECKING:
    from dp2ddp.transforms.batches.proof import BatchProof

#: Factories whose every element is the same: a part of the global tensor is the tensor of
#: the part's size.
_CONSTANT_FILLS = frozenset({"ones", "zeros", "full", "empty"})


def per_rank_held_targets(
    proof: BatchProof, flow: DefUse, call: cst.Call, loop: cst.For | cst.While
) -> None:
    """Each target of `call` held before `loop` and sized by the loader's global batch size
    takes this rank's part (see the module docstring)."""
    sizes = _loader_sizes(proof)
    if not sizes:
        return
    inside = {id(n) for n in walk(loop)}
    for value in proof._targets(flow, call, loop):
        for origin in origins(flow, value):
            factory = origin.node
            if (
                origin.cut
                or origin.entered()
                or not isinstance(factory, cst.Call)
                or not isinstance(factory.func, cst.Attribute)
                or name_of(factory.func) not in _CONSTANT_FILLS
                or id(factory) in inside
            ):
                continue
            dims = per_dim_args(factory)
            if not dims or not _global_size(proof, flow, dims[0], sizes):
                continue
            size = dims[0]
            proof._take_per_rank(
                size,
                f"{proof.code(factory)} is compared with {proof.code(call)}, which holds this "
                f"rank's part of the loader's batch: {PER_RANK}({proof.code(size)}) rows, "
                "the part of DataParallel's target this rank's output meets",
            )


def _loader_sizes(proof: BatchProof) -> set[str]:
    """The global batch sizes the data pass gave this module's DataLoaders per rank."""
    sizes: set[str] = set()
    for loader in proof._loader_calls:
        for arg in loader.args:
            given = arg.value
            if (
                arg.keyword is not None
                and arg.keyword.value == "batch_size"
                and isinstance(given, cst.Call)
                and name_of(given.func) == PER_RANK
                and given.args
            ):
                sizes.add(proof.code(given.args[0].value))
    return sizes


def _global_size(
    proof: BatchProof, flow: DefUse, size: cst.BaseExpression, sizes: set[str]
) -> bool:
    """`size` is one of `sizes`, spelled so or a name bound once to it."""
    if proof.code(size) in sizes:
        return True
    if not isinstance(size, cst.Name):
        return False
    bound = flow.definitions(size)
    return (
        len(bound) == 1
        and bound[0].kind == "assign"
        and bound[0].value is not None
        and proof.code(bound[0].value) in sizes
    )
