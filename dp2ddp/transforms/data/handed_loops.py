"""A loop that hands its training step to a call (data pass; analysis/handed_steps.py).

`loss_scaler(loss, optimizer, parameters=model.parameters())` runs the backward and the
optimizer step inside a library (timm's NativeScaler) or inside the program's own class:
the loop trains, and its loader is training data, sharded, whatever evaluation runs under
`no_grad()` inside it (class b1-B of stop 49, ZhendongWang6/Uformer@65fc970: read as an
evaluation, the training loader was left whole and every rank trained all of it). Where
the callee is not read (a parameter, another module's object not summarised), the loop is
still taken for training, and DP134 says so.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst
from libcst.metadata import PositionProvider

from dp2ddp.flow import code, view
from dp2ddp.transforms._support.grad_mode import module_mode, under_grad_off
from dp2ddp.transforms._support.nodes import module_of, walk
from dp2ddp.transforms.analysis.handed_steps import (
    StepContext,
    handed_step,
)
from dp2ddp.transforms.data.decisions import no_grad_inside

if TYPE_CHECKING:
    from dp2ddp.transforms.data.imported import LoaderImports


def hands_step(
    t: LoaderImports, loop: cst.For | cst.While, *, loss_only: bool = False, held: bool = False
) -> bool:
    """`loop` hands the loss and the optimizer to a call proved to step or not read (then
    DP134), once per loop; with `loss_only` (asked for the loop's nested `no_grad()`
    block), or the loss alone to a call whose code is not read (then DP152); with `held`
    (asked for a `.eval()` before the loop), the loss alone to a method of an object built
    given the wrapped model (DP152)."""
    key = (loop, loss_only, held)
    if key in t._handed:
        return t._handed[key]
    t._handed[key] = False
    module = module_of(loop, t)
    if not isinstance(module, cst.Module) or not t.state.wrapped:
        return False
    facts = t.state.facts
    summaries = {
        name for name, told in facts.backward_summaries if any(not m for _, _, m in told.sites)
    }
    roots = {n.split(".", 1)[0] for n in (*summaries, *t.state.hints.class_methods)}
    roots |= {name.split(".", 1)[0] for name, _ in facts.backward_summaries}
    context = StepContext(
        view(module), tuple(t.state.wrapped), t.qualified_names, roots, summaries.__contains__
    )
    found = handed_step(context, loop, loss_only=loss_only, held=held)
    if found is None:
        return False
    t._handed[key] = True
    if found.verdict == "unread":
        t.warn(
            found.call,
            "DP134",
            f"`{code(found.call)}` hands the loss `{code(found.loss)}` and the optimizer "
            f"`{code(found.optimizer)}` to {code(found.call.func)}(), whose code dp2ddp does "
            "not read: the loop is taken for training, its loader sharded (each rank trains "
            "its share, DDP averages the gradients)",
        )
    elif found.verdict == "cleared":
        t.warn(
            found.call,
            "DP148",
            f"`{code(found.call)}` hands the loss `{code(found.loss)}` and "
            f"`{code(found.optimizer)}` (its gradients cleared with zero_grad() here, built by "
            "no torch.optim class dp2ddp sees) to the library's "
            f"{code(found.call.func)}(): the loop is taken for training, its loader sharded "
            "(each rank trains its share, DDP averages the gradients)",
        )
    elif found.verdict == "loss":
        t.warn(
            found.call,
            "DP152",
            f"`{code(found.call)}` hands the loss `{code(found.loss)}` (the wrapped model's "
            f"output with gradients on) to {code(found.call.func)}(), whose code dp2ddp does "
            "not read, and no optimizer it sees built or cleared: the loop is taken for "
            "training ("
            + (
                f"{code(found.call.func.value)} was built given the wrapped model: a "
                "`.eval()` before the loop"
                if held and isinstance(found.call.func, cst.Attribute)
                else "a nested no_grad() block"
            )
            + " does not make it an evaluation), its loader sharded (each rank trains its "
            "share, DDP averages the gradients)",
        )
    return True


def trains_after_eval(t: LoaderImports, loop: cst.For) -> bool:
    """A loop after a `.eval()` trains all the same: it trains (`_trains`), or it hands
    the loss alone to a method of an object built given the wrapped model (stop 53 s3:
    `model.eval()` to fine-tune without dropout, `engine.step(loss)` of a library; read
    as an evaluation, its loader was left whole and every rank trained all of it)."""
    return t._trains(loop) or hands_step(t, loop, held=True)


def in_eval_context(t: LoaderImports, loop: cst.For) -> bool:
    """Under `no_grad()`/`inference_mode()`, after `.eval()`, or no_grad_inside() it.

    A `.eval()` decides nothing for a loop that backpropagates (`_trains`): whatever mode
    some model is in, a loop whose backward runs trains, and its loader is training
    data. Knowledge distillation switches its frozen teacher to eval mode before the
    loop that trains the student (real-world: peterliht/knowledge-distillation-pytorch
    @b1e4b6a): read as an evaluation, the loader was left whole (DP015) and every rank
    trained on the whole batch."""
    if no_grad_inside(loop, t.matches, t.qualified_names) and not t._trains_or_hands_loss(loop):
        return True
    if under_grad_off(loop, t.parent, t.matches):
        return True
    node = t.parent(loop)
    while node is not None and not isinstance(node, (cst.FunctionDef, cst.Module)):
        node = t.parent(node)
    if isinstance(node, cst.FunctionDef):
        line = t.get_metadata(PositionProvider, loop).start.line
        mode: str | None = "train"
        for call in walk(node.body, skip_scopes=True):
            if (
                isinstance(call, cst.Call)
                and isinstance(call.func, cst.Attribute)
                and call.func.attr.value in ("eval", "train")
                and t.get_metadata(PositionProvider, call).start.line < line
            ):
                mode = module_mode(call)
        return mode == "eval" and not trains_after_eval(t, loop)
    return False
