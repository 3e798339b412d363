"""A batch cut at a position the training loop moves: data, not a fixed sample batch.

BatchProof (proof.py) takes a value every rank computes whole and alike (a literal, a list
built of numbers: `[[float(i), ...] for i in range(n)]`) for the same value at every step:
a fixed batch (a debug or sample batch) stays whole, as DataParallel's average of it is
every rank's. But where the value is cut at an index each step of the training loop moves
(`for step in order: samples[step * n:(step + 1) * n]`, or `while` with `i += n`), the cut
is the step's batch of a dataset held in memory, which DataParallel scattered: left whole,
every rank trained on all of it, silently (found by helper f, stop 44; a `range` loop over
the same list was already split). These answer the two questions; the proof then splits
the batch where it enters the loop, as for any batch nobody split.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from dp2ddp.flow.defuse import DefUse
from dp2ddp.flow.origins import Origin
from dp2ddp.transforms._support.nodes import name_of
from dp2ddp.transforms.batches.loops import Step
from dp2ddp.transforms.batches.source_syntax import SIZE_BUILTIN, SIZE_METHODS, binding_of
from dp2ddp.transforms.batches.training_loops import _differentiated

if TYPE_CHECKING:
    from dp2ddp.transforms.batches.proof import BatchProof

#: Builtins and library calls whose result is a number or a size, not a batch: the calls
#: that read a size (source_syntax's, the one home: `len`, `size`, `dim`, `numel`; `dim`
#: since stop 61) and those that make or convert a number.
NUMBERS = frozenset({SIZE_BUILTIN, *SIZE_METHODS, "min", "max", "int", "float", "range", "item"})


def held_whole(origin: Origin) -> bool:
    """A source every rank holds whole (a literal, a number a call makes: `float(i)`,
    `range(16)`) reaching the value cut, as data, not as the index."""
    if origin.selects or not origin.cut:
        return False
    if origin.kind in ("constant", "global", "attribute"):
        return True
    node = origin.node
    return origin.kind == "call" and isinstance(node, cst.Call) and name_of(node.func) in NUMBERS


def moves_with(flow: DefUse, origin: Origin, loop: Step) -> bool:
    """The index (a selecting origin) reaches the value through a name each step of the
    training loop binds anew: the target of `loop` or of a loop inside it, or a name the
    loop adds to (`i += n`): the cut moves with the step."""
    for step in origin.path:
        node = step.node
        if not isinstance(node, cst.Name):
            continue
        parent = flow.parent(node)
        if isinstance(parent, cst.AugAssign) and parent.target is node:
            if _within(flow, parent, loop):
                return True
            continue
        if any(
            d.kind == "augassign" and _within(flow, d.statement, loop) for d in flow.reaching(node)
        ):
            # `start += BS` in the loop reaches this read (`idx[start:start + BS]`): the
            # walk keeps one path per source, and BS's may be the slice bound's (s62 s2)
            return True
        if not step.cut:
            continue
        bound = binding_of(flow, node)
        if isinstance(bound, cst.For) and (bound is loop or _within(flow, bound, loop)):
            return True
    return False


def fixed_sample(
    proof: BatchProof, flow: DefUse, call: cst.Call, loop: Step, origin: Origin
) -> bool:
    """A sample batch fixed before the training loop (issue 28: "fixed debug/sample
    batches stay whole"): the value `origin` gives `call` is built outside `loop` (every
    hop of its path but those in the call's statement, no function entered), so it is the
    same at every step, and what `call` returns reaches no backward of the loop (nor of a
    step helper it is handed to; the call in the loop's own function). Every rank
    computes the whole batch's outputs, DataParallel's gathered ones: no split, no DP047
    (marian42/shapegan@090a6a8's slice of `grid_points`, a grid built at module level from
    an imported resolution list, `RESOLUTIONS[ITERATION]`, stop 63 s3)."""
    statement = flow.statement_of(call)
    if origin.entered() or moves_with(flow, origin, loop):
        return False
    if flow.function_around(call) is not flow.function_around(loop):
        return False  # in a closure a step helper may run (`lambda idx: model(X[idx])`)
    if any(
        _within(flow, s.node, loop) and not _within(flow, s.node, statement) for s in origin.path
    ):
        return False
    return not proof._backpropagated(flow, call, loop) and not _differentiated(flow, call)


def _within(flow: DefUse, node: cst.CSTNode, ancestor: cst.CSTNode) -> bool:
    return any(a is ancestor for a in flow.ancestors(node))
