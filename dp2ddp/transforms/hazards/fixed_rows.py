"""Values that are no rows of the batch (stop 53 s4): a mean loss whose count depends on
its targets alone is every rank's where neither its input nor its targets are.

A weighted (or `ignore_index`) mean divides by a count its targets decide (DP043). FRAGE's
adversarial loss (ChengyueGongR/Frequency-Agnostic@cfb024a mos-lm/main.py:184, 266:
`adv_criterion(adv_hidden(model.encoder.weight), adv_targets)`, the targets one tensor
built before the loop from the command line, `[0] * adv_bias + [1] * (ntokens -
adv_bias)`) classifies the vocabulary's embedding rows, not the batch's: every rank divides
by the same count, DataParallel's, and DP043's "each rank averages over its own targets'
class weights" was false.

Proved through the def-use view's backward walk (flow/origins.py), never by a name: every
source of the value is a literal, a builtin, a function or class object, a module bound by
`import m` (FRAGE's `model = model.RNNModel(...)` reads the module `model`), or a call none of
whose arguments comes from the loader's batch (batch_pairing._from_data: an element of an
iteration over data, a slice of it), and no step of the walk cuts it from data. A
parameter, a name `from m import x` binds, an attribute never bound and anything the walk
cannot read are not proved (the batch may come that way)."""

from __future__ import annotations

import libcst as cst

from dp2ddp.flow import DefUse, origins
from dp2ddp.transforms.hazards.batch_pairing import from_data

#: Sources that hold no data: a literal, a builtin, a function or class object.
_PLAIN = frozenset({"constant", "global", "definition"})


def no_batch_rows(defs: DefUse, expr: cst.BaseExpression) -> bool:
    """`expr` is proved to hold no rows of the loader's batch (the module docstring)."""
    if from_data(defs, expr):
        return False
    for origin in origins(defs, expr):
        if origin.kind in _PLAIN:
            continue
        node = origin.node
        if origin.kind == "import" and isinstance(defs.parent(node), cst.Import):
            continue  # `import model`: a module object (`model.RNNModel(...)`'s receiver)
        if origin.kind != "call" or not isinstance(node, cst.Call):
            return False
        if any(from_data(defs, a.value) for a in node.args):
            return False  # `model(x)`: a call of the batch
    return True
