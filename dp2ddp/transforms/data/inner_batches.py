"""Feeds of a running figure that read an inner loop's batches, not the loop's, for DP030.

meetps/pytorch-semseg@801fb20 train.py:127-169: the training loop (`for (images, labels) in
trainloader`) binds `outputs = model(images)`; every few steps a validation loop nested in
it (`for images_val, labels_val in valloader`, unsharded) binds `outputs = model(images_val)`
again and feeds `val_loss_meter.update(val_loss.item())` with `val_loss = loss_fn(outputs,
labels_val)`. The running-figure rule (evaluation._running_objects) reads "computed from the
batches" by name (loop_takers.batch_derived: `val_loss` reads `outputs`, a name the training
loop binds from its batch) and took the validation meter for the training loader's share:
DP030 twice, false (every rank evaluates the whole validation set, as DP015 says).

Here the feed is asked through the def-use view instead (flow.origins, reaching
definitions): its value comes from an inner loop's batch and from no element of this loop's
own target, and every source is known. Then it is the inner loop's figure, left to that
loop's own loader (sharded: its loop is checked; whole: the original's figure). Only for a
`for` loop with a `for` loop nested in its body: elsewhere the names' answer stands.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from dp2ddp.flow import origins, view
from dp2ddp.transforms._support.nodes import walk

if TYPE_CHECKING:
    from dp2ddp.transforms.data.evaluation import LoaderEvaluation


def inner_batches_only(t: LoaderEvaluation, loop: cst.For | cst.While, feed: cst.Call) -> bool:
    """`feed`'s arguments come from the batches of a `for` loop nested in `loop` and not from
    `loop`'s own target (the module docstring)."""
    if not isinstance(loop, cst.For):
        return False
    inner = [
        node
        for node in walk(loop.body, skip_scopes=True)
        if isinstance(node, cst.For) and node is not loop
    ]
    if not inner:
        return False
    own = {id(n) for n in walk(loop.target)}
    theirs = {id(n) for other in inner for n in walk(other.target)}
    flow = view(t._module_node)
    through_inner = False
    for arg in feed.args:
        for origin in origins(flow, arg.value):
            if origin.kind == "unknown":
                return False
            steps = {id(step.node) for step in origin.path} | {id(origin.node)}
            if steps & own:
                return False
            through_inner = through_inner or bool(steps & theirs)
    return through_inner
