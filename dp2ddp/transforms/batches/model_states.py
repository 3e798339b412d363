"""State a wrapped model's own method builds (`decoder.module.init_hiddens(hp.batch_size)`),
going into the model with this rank's part of the batch.

DataParallel scattered every tensor a call of the wrap was given, the recurrent state too:
each replica got its chunk of the state beside its chunk of the batch. Under DDP each rank
is given its part of the batch, so the state must be built for that part. Where the model's
class is this module's, the proof follows the method into its factory (`torch.zeros(B, h)`:
per_rank_state). Where it is another module's (dummy-ai/tacotron-pytorch@2d99b60:
`AttnDecoder.init_hiddens` in modules/decoder.py, called in train.py's step), the flow
walked through the call as through any library call, and the state came out "the same at
every step": every rank built the global batch's state and raised at the decoder ("Input
batch size 2 doesn't match hidden0 batch size 4"), without a word.

Proved: an argument of the method that is the batch size this pass already takes per rank
in the module (the argument of a `ddp_per_rank_batch(...)` it wrote: the loader's
batch_size, another state's size) is given per rank too, as the factory's size would be.
Otherwise it is said (DP047): the state is not proved this rank's part.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from dp2ddp.flow import DefUse, Origin
from dp2ddp.flow.origins import argument_for
from dp2ddp.transforms._support.nodes import name_of, walk
from dp2ddp.transforms.batches.loops import PER_RANK

if TYPE_CHECKING:
    from dp2ddp.transforms.batches.proof import BatchProof

#: Methods of a module that are no state it builds for a batch.
_NOT_STATE = frozenset(
    {"forward", "parameters", "named_parameters", "state_dict", "modules", "children"}
    | {"buffers", "to", "cuda", "cpu", "train", "eval", "type", "float", "double", "half"}
)


def model_method(proof: BatchProof, found: list[Origin], wrapped: set[str]) -> cst.Call | None:
    """The call of a wrapped model's own method (through `.module` or not) on the flow of
    `found` to a model call's input, other than forward and the nn.Module API."""
    receivers = wrapped | {f"{w}.module" for w in wrapped}
    for origin in found:
        if _method_call(proof, origin.node, receivers):
            assert isinstance(origin.node, cst.Call)
            return origin.node  # the call itself (another module's method: a source)
        for step in origin.path:  # a method's hop is its receiver (`decoder.module`)
            method = proof.parent(step.node)
            call = proof.parent(method) if isinstance(method, cst.Attribute) else None
            if (
                isinstance(method, cst.Attribute)
                and method.value is step.node
                and isinstance(call, cst.Call)
                and call.func is method
                and method.attr.value not in _NOT_STATE
                and proof.code(step.node) in receivers
            ):
                return call
    return None


def _method_call(proof: BatchProof, node: cst.CSTNode, receivers: set[str]) -> bool:
    return (
        isinstance(node, cst.Call)
        and isinstance(node.func, cst.Attribute)
        and node.func.attr.value not in _NOT_STATE
        and proof.code(node.func.value) in receivers
    )


def from_method(proof: BatchProof, origin: Origin, call: cst.Call) -> bool:
    """`origin` reaches the value through `call` (model_method's): the call itself, or its
    receiver or an argument on the way into it."""
    if origin.node is call:
        return True
    inside = {id(n) for n in walk(call)}
    return any(id(step.node) in inside for step in origin.path)


def per_rank_states(proof: BatchProof, calls: list[cst.Call], model_call: cst.Call) -> None:
    """Each of `calls` (model_method's) given the batch size the pass takes per rank
    elsewhere in the module: that argument per rank; else DP047 (the module docstring)."""
    sizes = {
        proof.code(swapped.args[0].value)
        for swapped in proof._swap.values()
        if isinstance(swapped, cst.Call) and name_of(swapped.func) == PER_RANK and swapped.args
    }
    for call in calls:
        given = [a.value for a in call.args if not a.star and proof.code(a.value) in sizes]
        if not given:
            proof._unproved.add("DP047")
            proof.warn(
                model_call,
                "DP047",
                f"{proof.code(call)} builds state that goes into {proof.code(model_call)} "
                "with this rank's part of the batch: its size is not proved this rank's part "
                "(the method is another module's; give it this rank's batch size, "
                f"{PER_RANK}(size))",
            )
            continue
        for size in given:
            proof._take_per_rank(
                size,
                f"{proof.code(size)} sizes the state {proof.code(call)} builds for "
                f"{proof.code(model_call.func)}() with this rank's part of the batch: "
                f"{PER_RANK}({proof.code(size)}), as the batch size it sizes elsewhere",
            )


def per_rank_state(proof: BatchProof, flow: DefUse, origin: Origin, model_call: cst.Call) -> None:
    """State sized by the batch (`model.init_hidden(bsz)` -> `torch.zeros(1, bsz, h)`)
    going into a model whose batch is split: the size takes this rank's part,
    `ddp_per_rank_batch(B)`, where the loop's code gives it (the argument of the call
    the flow came through, so a helper that also builds evaluation state is not
    changed), else at the factory."""
    factory = origin.node
    assert isinstance(factory, cst.Call)
    size = proof._sized_along_dim(factory)
    if size is None:
        return
    expr: cst.BaseExpression = size
    for entered in reversed(origin.entered()):
        if not isinstance(expr, cst.Name):
            break
        param = [
            d.target
            for d in flow.definitions(expr)
            if d.kind == "param" and isinstance(d.target, cst.Param)
        ]
        if not param:
            break
        argument = None
        for callee in flow.callees(entered):
            if param[0] in callee.params:
                argument = argument_for(entered, callee, param[0])
        if argument is None:
            break
        expr = argument
    proof._take_per_rank(
        expr,
        f"{proof.code(expr)} sizes state that goes into {proof.code(model_call.func)}() with "
        f"this rank's part of the batch: {PER_RANK}({proof.code(expr)}) along dim "
        f"{proof._dim} ({origin.flow(proof.input_position)})",
    )
