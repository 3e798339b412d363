"""The parts of one sampled batch bound together outside the training loop (stop 55, v4-E,
rlevin03/generals-ai@4704bad: `states, actions, rewards, next_states, dones, indices,
weights = self.replay_buffer.sample(self.batch_size, beta)` in a train-step method the
collection loop calls).

No statement of the loop binds that batch, so the proof split `states` where it meets the
model (`self.q_network(ddp_shard_batch(states))`) and left the parts bound beside it whole:
the output of this rank's rows was gathered by all the actions (a size mismatch on both
ranks), compared with all the rewards. The parts are one batch, sample by sample, as the
loop-bound `xb, yb = X[i:i + n], Y[i:i + n]` is: they are split together after the binding.

A part then handed to a method of the program's own objects (`self.replay_buffer.
update_priorities(indices, priorities)`) carries this rank's samples only: what that method
writes per sample (a replay memory's priorities) each rank writes for its share alone, into
state every rank holds a copy of, where DataParallel's one process wrote every sample's.
That is said (DP189), not proved: the copies drift apart, and draws weighted by them no
longer agree between the ranks."""

from __future__ import annotations

import libcst as cst

from dp2ddp.flow import DefUse, Origin, code, origins
from dp2ddp.transforms._support.nodes import target_names, walk
from dp2ddp.transforms.batches.source_syntax import binding_of


def sampled_tuple(flow: DefUse, origin: Origin) -> cst.Assign | None:
    """The `a, b, c = source(...)` on the batch's path binding two or more plain names
    from one call: the parts of one sampled batch."""
    for node in (step.node for step in origin.path):
        if not isinstance(node, cst.Name):
            continue
        small = binding_of(flow, node)
        if (
            isinstance(small, cst.Assign)
            and len(small.targets) == 1
            and isinstance(small.targets[0].target, cst.Tuple)
            and isinstance(small.value, cst.Call)
            and len(target_names(small.targets[0].target)) > 1
            and all(isinstance(e.value, cst.Name) for e in small.targets[0].target.elements)
        ):
            return small
    return None


def handed_on(flow: DefUse, assign: cst.Assign, models: set[str]) -> list[tuple[cst.Call, str]]:
    """The calls of a method of an object of the program (`self.memory.update(idx, p)`)
    in the binding's scope, after it, given one of the parts as an argument: not the
    wrapped models, not torch's, numpy's or a tensor's own methods."""
    names = target_names(assign.targets[0].target)
    found: list[tuple[cst.Call, str]] = []
    for node in walk(flow.scope_of(assign)):
        if not isinstance(node, cst.Call) or not isinstance(node.func, cst.Attribute):
            continue
        receiver = code(node.func.value)
        if code(node.func) in models or node.func.attr.value in {m.split(".")[-1] for m in models}:
            continue  # the wrapped model itself: `self.q_network(states)`
        if receiver in models or receiver.split(".")[0] in _LIBRARIES:
            continue
        if receiver in names:  # a method of the part itself: `actions.unsqueeze(1)`
            continue
        if _loss_object(flow, node.func):
            continue  # `self.criterion(out, label)`: a loss writes nothing per sample
        given = [
            a.value.value
            for a in node.args
            if isinstance(a.value, cst.Name) and a.value.value in names
        ]
        if given:
            found.append((node, given[0]))
    return found


_LIBRARIES = frozenset({"torch", "np", "numpy", "F", "nn", "math", "random"})


def _loss_object(flow: DefUse, func: cst.BaseExpression) -> bool:
    """`func` holds only loss objects (`self.criterion_cls = nn.CrossEntropyLoss()`, a class
    of the program named `...Loss`): a call computes a loss, it stores nothing per sample
    (round 12 v2-C, eeyhsong/EEG-Conformer@9ae149b: DP189 at `self.criterion_cls(outputs,
    label)`)."""
    found = [o for o in origins(flow, func) if not o.selects]
    return bool(found) and all(
        o.kind in ("call", "instance")
        and isinstance(o.node, cst.Call)
        and code(o.node.func).rsplit(".", 1)[-1].endswith("Loss")
        for o in found
    )
