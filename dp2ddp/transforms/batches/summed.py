"""Which summed losses keep the hazards pass's WORLD_SIZE scale: decided per backward.

The hazards pass turns `loss.backward()` of a loss summed over the batch into
`(loss * WORLD_SIZE).backward()`: each rank sums its part of the global batch, DDP averages
the ranks' gradients, and WORLD_SIZE times that average is the gradient of DataParallel's
sum over the whole batch. That is right only where the batch the loss sums is this rank's
part. The proof (proof.py) gives each wrapped model call in a training loop a verdict:

* split: every input the model is given is this rank's part (a sharded loader's batch, a
  split of this pass, one made before) and the targets follow it;
* whole: every input is computed in full, alike on every rank (a constant, a fixed batch
  drawn once before the loop, `base * 2` recomputed at each step; no model output, no
  parameter or import the module cannot follow): every rank sums the same batch, its
  gradient is DataParallel's, and so is DDP's average of the equal gradients. A draw of
  numpy's or Python's stream that the program does not seed alike (analysis/
  seeded_streams.py) is whole on each rank but not alike: apart.

Each scaled backward follows its loss back (dp2ddp/flow `origins`, through the module's
functions and library calls such as the criterion) to the wrapped model calls it comes
from: all split, the scale stays; all whole and alike, the scale is taken back and the
change says why (no warning: proved); any whole call drawn apart, or whole and split calls
in one loss (no one factor is DataParallel's for both), or a call the proof did not settle
in a module with a batch not proved split (DP037, DP047), or a loss followed to no model
call in a module with such batches: taken back with DP004 saying which. Before (stop 43's
lead fix) the take-back was module-wide: a module training on a fixed debug batch lost the
scale of its split batches too (half of DataParallel's gradient there), and DP004 was said
where every rank summed the same whole batch and the update was already right.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from dp2ddp.flow import DefUse, Origin, origins, view
from dp2ddp.transforms._support.names import SCALED_LOSS
from dp2ddp.transforms._support.nodes import ModuleNodes, calls_model, name_of
from dp2ddp.transforms.analysis.seeded_streams import alike_streams, stream_of
from dp2ddp.transforms.batches.loops import SAME_RANDOM, SHARD
from dp2ddp.transforms.batches.source_syntax import filled_later

if TYPE_CHECKING:
    from dp2ddp.transforms.batches.proof import BatchProof

#: Source kinds every rank computes alike in full (a literal, a function or class, a
#: module-level name bound by nothing the walk could follow further).
_ALIKE_KINDS = frozenset({"constant", "definition", "global"})


def whole_verdict(proof: BatchProof, flow: DefUse, call: cst.Call, wrapped: set[str]) -> str | None:
    """`call` is given no part of a split batch (the proof found none): "" where every
    input's sources are computed in full and alike on every rank, a reason where one is a
    draw each rank makes apart, None where a source is not proved whole (a model output,
    a parameter, an import, an attribute, a list filled elsewhere)."""

    def stop(other: cst.Call) -> bool:
        return calls_model(other, wrapped)

    apart = ""
    for value in (a.value for a in call.args):
        for origin in origins(flow, value, stop):
            node = origin.node
            if origin.kind in _ALIKE_KINDS and not filled_later(node) and not origin.cut:
                continue  # (a part cut from a constant list by a loop's index: not proved)
            if origin.kind != "call" or not isinstance(node, cst.Call):
                return None
            if stop(node) or name_of(node.func).startswith("ddp_") or proof._is_loader(node):
                return None
            if not origin.selects and proof._from_output(flow, origin, stop):
                return None
            apart = apart or _drawn_apart(proof, flow, node)
    return apart


def settle_migrated(proof: BatchProof, flow: DefUse, call: cst.Call, wrapped: set[str]) -> None:
    """A model call in a loop this pass split before (a migrated module, `--check`): split
    where an input comes through `ddp_shard_batch` or no whole verdict is found, else whole
    (whole_verdict), so that a loss summing a split and a whole batch is said again
    (DP004) on the migrated file. Before (stop 44) every call of such a loop was taken as
    split and `--check` passed the file its migration had warned about."""

    def stop(other: cst.Call) -> bool:
        return calls_model(other, wrapped)

    whole = whole_verdict(proof, flow, call, wrapped) if call.args else None
    if whole is not None and not any(
        name_of(n.func) == SHARD
        for value in (a.value for a in call.args)
        for origin in origins(flow, value, stop)
        for n in _path_calls(origin)
    ):
        proof._whole_calls[call] = whole
    else:
        proof._split_calls.add(call)


def _runs_on_every_rank(flow: DefUse, statement: cst.CSTNode) -> bool:
    """`statement` is in its function's (or the module's) body, under no condition, loop,
    `try` or `with`: where the function runs, every rank runs it."""
    for above in flow.ancestors(statement):
        if isinstance(above, (cst.FunctionDef, cst.Module)):
            return True
        if not isinstance(above, cst.IndentedBlock):
            return False
    return False


def _path_calls(origin: Origin) -> list[cst.Call]:
    """The calls a flow went through or came from."""
    nodes = [origin.node, *(step.node for step in origin.path)]
    return [n for n in nodes if isinstance(n, cst.Call)]


def _drawn_apart(proof: BatchProof, flow: DefUse, node: cst.Call) -> str:
    """A reason where `node` draws from numpy's or Python's stream and the program does not
    seed it alike on every rank (torch's stream starts alike in every process); else "".

    Such a draw of a whole batch (`fixed = torch.from_numpy(np.random.rand(4, 3))` before
    the loop) is run inside `with ddp_same_random():` where its statement is one every rank
    runs (not under a condition, a loop or a `try` of its function: the helper exchanges
    rank 0's generator state): every rank takes rank 0's draw, the batch is alike, as
    DataParallel's one draw was (stop 45; before, each rank trained a batch of its own,
    silently with a mean loss). A draw inside that block already (a migrated module) is
    alike. Elsewhere DP112 says it, whatever the loss (a mean loss says nothing else).
    """
    stream = stream_of(proof.qualified_names(node.func))
    if stream not in ("numpy", "random"):
        return ""
    module = proof._module
    alike = alike_streams(
        proof.state.facts.seeded_streams, lambda: module.code if module is not None else ""
    )
    if stream in alike:
        return ""
    statement = flow.statement_of(node)
    if not proof._outside_same_random(statement) or statement in proof._same_random:
        return ""
    if _runs_on_every_rank(flow, statement):
        proof._draw_alike_at(
            statement,
            f"{proof.code(node)} draws a whole batch every rank trains on: drawn alike on "
            f"every rank ({SAME_RANDOM}), as DataParallel's one draw",
        )
        return ""
    proof.warn(
        node,
        "DP112",
        f"{proof.code(node)} draws from {stream}'s stream, which the program does not seed "
        "alike on every rank, and its statement is not one every rank runs "
        f"(under a condition, a loop, a `try` or a `with`): not shared with {SAME_RANDOM}()",
    )
    return (
        f"{proof.code(node)} at line {proof._position(node)[0]}: {stream}'s stream is not "
        "seeded alike on every rank"
    )


def keep_summed_losses(proof: BatchProof, nodes: ModuleNodes) -> None:
    """Per `(loss * WORLD_SIZE).backward()`: keep, take back, or take back and say DP004
    (the module docstring), by the verdicts of the model calls `loss` comes from."""
    scaled = [
        n
        for n in nodes.of(cst.Call)
        if isinstance(n.func, cst.Attribute)
        and n.func.attr.value == "backward"
        and isinstance(n.func.value, cst.BinaryOperation)
        and isinstance(n.func.value.operator, cst.Multiply)
        and isinstance(n.func.value.right, cst.Name)
        and n.func.value.right.value == "WORLD_SIZE"
    ]
    receivers = {id(n.func.value) for n in scaled if isinstance(n.func, cst.Attribute)}
    terms = [n for n in nodes.of(cst.BinaryOperation) if id(n) not in receivers and _scaled_term(n)]
    if not (scaled or terms) or proof._module is None:
        return
    flow = view(proof._module)
    wrapped = set(proof._models)
    for call in scaled:
        assert isinstance(call.func, cst.Attribute)
        product = call.func.value
        assert isinstance(product, cst.BinaryOperation)
        why = _unscaled_because(proof, flow, product.left, wrapped)
        if why is None:
            continue  # every batch it sums is this rank's part: the scale stays
        _take_back(proof, call, product, *why)
    for product in terms:  # a batch sum of a mixed loss scaled alone (hazards.summed_terms)
        why = _unscaled_because(proof, flow, product.left, wrapped)
        if why is not None:
            code = proof.code(product.left)
            proof._swap[product] = product.left
            proof.state.withdrawn.add(f"{SCALED_LOSS} term {code} by WORLD_SIZE")
            if why[1]:
                proof.warn(product, "DP004", f"{code} {why[0]}: left unscaled")
            else:
                proof.record(product, f"left the summed term {code} unscaled: {why[0]}")


def _scaled_term(node: cst.BinaryOperation) -> bool:
    """`(x.sum() * WORLD_SIZE)` / `(torch.sum(x) * WORLD_SIZE)`, as hazards.summed_terms
    writes a batch sum among a loss's terms."""
    left, right = node.left, node.right
    return (
        bool(node.lpar)
        and isinstance(node.operator, cst.Multiply)
        and isinstance(right, cst.Name)
        and right.value == "WORLD_SIZE"
        and isinstance(left, cst.Call)
        and name_of(left.func) == "sum"
    )


def _unscaled_because(
    proof: BatchProof, flow: DefUse, loss: cst.BaseExpression, wrapped: set[str]
) -> tuple[str, bool] | None:
    """None: keep the scale. Else (why, said): why the scale goes (DP004's text after the
    loss, or the change's reason), and whether it is said (not proved right unscaled)."""
    found = [
        o.node
        for o in origins(flow, loss, lambda c: calls_model(c, wrapped))
        if isinstance(o.node, cst.Call) and calls_model(o.node, wrapped)
    ]
    calls = list(dict.fromkeys(found))
    split = [c for c in calls if c in proof._split_calls]
    whole = [c for c in calls if c in proof._whole_calls]
    other = [c for c in calls if c not in proof._split_calls and c not in proof._whole_calls]
    if calls and not other and not whole:
        return None
    if calls and not other and not split:
        apart = [proof._whole_calls[c] for c in whole if proof._whole_calls[c]]
        if apart:
            return (
                f"is summed over a whole batch of `{proof.code(whole[0])}` that each rank "
                f"draws apart ({apart[0]})",
                True,
            )
        return (
            f"`{proof.code(whole[0])}` at line {proof._position(whole[0])[0]} is given the "
            "same whole batch on every rank: the ranks' gradients are DataParallel's, and "
            "so is DDP's average of them",
            False,
        )
    if whole and split:
        return (
            f"sums batches split over the ranks (`{proof.code(split[0])}` at line "
            f"{proof._position(split[0])[0]}) and one every rank takes whole "
            f"(`{proof.code(whole[0])}` at line {proof._position(whole[0])[0]}): no one "
            "factor gives DataParallel's gradient for both",
            True,
        )
    unproved = "is summed over a batch not proved split over the ranks"
    if proof._unproved:
        return f"{unproved} ({', '.join(sorted(proof._unproved))} in this module)", True
    if proof._whole_calls and not calls:
        return f"{unproved} (followed to no call of the wrapped model in this module)", True
    return None  # the proof settled no call of it, and every batch of the module is split


def _take_back(
    proof: BatchProof, call: cst.Call, product: cst.BinaryOperation, why: str, said: bool
) -> None:
    """`(loss * WORLD_SIZE).backward()` back to `loss.backward()`; the hazards pass's
    record of this scale withdrawn; DP004 where the unscaled loss is not proved right."""
    assert isinstance(call.func, cst.Attribute)
    loss = product.left
    withdrawn = f"{SCALED_LOSS} {proof.code(loss)} by WORLD_SIZE"
    if isinstance(loss, (cst.Name, cst.Attribute, cst.Call, cst.Subscript)):
        loss = loss.with_changes(lpar=[], rpar=[])
    elif not loss.lpar:
        loss = loss.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    proof._swap[call] = call.with_changes(func=call.func.with_changes(value=loss))
    proof.state.withdrawn.add(withdrawn)
    if said:
        proof.warn(call, "DP004", f"{proof.code(loss)} {why}: left unscaled")
    else:
        proof.record(call, f"left the summed loss {proof.code(loss)} unscaled: {why}")
