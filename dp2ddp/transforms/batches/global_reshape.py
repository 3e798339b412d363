"""DP085 where the batch proof splits a loop's batch: outputs reshaped by a global count.

Where the proof finds no loader behind a loop's batch and splits it where the loop takes it
(`batch = ddp_shard_batch(batch)`), each rank's model sees its part. Code after the model
call that reshapes what the model returned by a count set outside the loop
(`emb.reshape(opt.episodes_per_batch, n_support, -1)`, stop 34, M1: MetaOptNet) was written
for the whole batch: under the split the shapes no longer fit (a crash at the first step),
or fit by accident and mix samples. No rewrite is proved right (the count may also size
something that is not the batch), so the reshape is said: DP085, as for a tensor shaped by
the global batch size in a loop whose loader was not followed.
"""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from dp2ddp.transforms._support.nodes import calls_model, walk

_RESHAPES = frozenset({"reshape", "view"})


def global_reshapes(
    body: cst.CSTNode, wrapped: set[str], code: Callable[[cst.CSTNode], str]
) -> list[tuple[cst.Call, str]]:
    """The reshapes in `body` of a value computed from a wrapped model's output whose first
    size is a name or attribute the loop does not bind, each with its message."""
    outputs: set[str] = set()
    bound: set[str] = set()
    found: list[tuple[cst.Call, str]] = []
    for node in walk(body):
        if isinstance(node, cst.Assign):
            targets = [t.target for t in node.targets]
            bound.update(code(t) for t in targets)
            reads = list(walk(node.value))
            if any(isinstance(n, cst.Call) and calls_model(n, wrapped) for n in reads) or any(
                isinstance(n, (cst.Name, cst.Attribute)) and code(n) in outputs for n in reads
            ):
                outputs.update(code(t) for t in targets if isinstance(t, (cst.Name, cst.Attribute)))
        elif (
            isinstance(node, cst.Call)
            and isinstance(node.func, cst.Attribute)
            and node.func.attr.value in _RESHAPES
            and node.args
            and node.args[0].keyword is None
        ):
            receiver = node.func.value
            derived = (
                calls_model(receiver, wrapped)
                if isinstance(receiver, cst.Call)
                else code(receiver) in outputs
            )
            first = node.args[0].value
            if (
                derived
                and isinstance(first, (cst.Name, cst.Attribute))
                and code(first) not in bound
            ):
                found.append(
                    (
                        node,
                        f"{code(receiver)}.{node.func.attr.value}({code(first)}, ...) reshapes "
                        f"the wrapped model's output by {code(first)}, a count set outside the "
                        "loop, whose batch is now split where the loop takes it: each rank's "
                        "output holds its part only",
                    )
                )
    return found
