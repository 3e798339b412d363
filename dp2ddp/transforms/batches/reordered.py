"""A batch whose axes move between where it is bound and the wrapped model's call.

A hand-batchified language model keeps its data time-major (`batchify` -> (T, N)), cuts
each step's rows with `get_batch()` and transposes them batch-first just before the call
(`data = data.t()`, then `net(data)`: locuslab/trellisnet@ec1de0a's shape, round 34). The
split placed where the batch is bound cut dim 0 there, the time steps: each rank trained on
half of every sequence, not on half of the samples, with no warning. DataParallel scattered
dim 0 of what the model was handed. Where the path from the binding to the call moves an
axis (`.t()`, `.T`, `.transpose()`, `.permute()`, `.swapaxes()`, `.movedim()`), the batch is
split at the call instead (batches/proof.py `_split_at_call`), as the scatter did.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

import libcst as cst

from dp2ddp.flow import DefUse
from dp2ddp.flow.origins import Step
from dp2ddp.transforms._support.nodes import walk
from dp2ddp.transforms.batches.source_syntax import binding_of

#: Methods that move a tensor's axes.
_MOVES: Final = frozenset({"t", "transpose", "permute", "swapaxes", "swapdims", "movedim"})


def moved_receiver(node: cst.CSTNode) -> cst.BaseExpression | None:
    """What `node` moves the axes of (`x` of `x.t()`, `x.T`, `x.permute(1, 0)`), or None
    where it moves none: the one reading of an axis move for the three questions below."""
    if isinstance(node, cst.Attribute) and node.attr.value == "T":
        return node.value
    if (
        isinstance(node, cst.Call)
        and isinstance(node.func, cst.Attribute)
        and node.func.attr.value in _MOVES
    ):
        return node.func.value
    return None


def reordered(steps: Sequence[Step]) -> bool:
    """Some step of `steps` (a path's hops after the binding) moves the value's axes."""
    return any(moved_receiver(step.node) is not None for step in steps)


def axes_moved(loop: cst.For | cst.While, names: set[str]) -> bool:
    """Some statement of the loop's body moves the axes of one of `names` (the batch it
    binds): `data = data.t()`, `x, y = x.t(), y.t()`, or a call handed `x.transpose(0, 1)`."""
    return any(
        isinstance(receiver := moved_receiver(node), cst.Name) and receiver.value in names
        for node in walk(loop.body)
    )


def moves_axes(value: cst.BaseExpression) -> bool:
    """`value` (a binding's) moves a tensor's axes somewhere in it (`x.t()`, `(a.T, b.T)`)."""
    return any(moved_receiver(node) is not None for node in walk(value))


def moved_later(flow: DefUse, later: Sequence[Step], binding: cst.Assign) -> bool:
    """The hops of a batch's path after `binding` (where it enters the loop) move its axes:
    a call on the path (`model(x.t())`) or a later binding of it (`x, y = x.t(), y.t()`)."""
    if reordered(later):
        return True
    for step in later:
        if isinstance(step.node, cst.Name):
            bound = binding_of(flow, step.node)
            if isinstance(bound, cst.Assign) and bound is not binding and moves_axes(bound.value):
                return True
    return False
