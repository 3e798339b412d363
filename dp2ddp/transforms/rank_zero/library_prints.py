"""Library functions that print a report of a model by running its forward (torchsummary's
`summary(model, sizes)`, torchinfo's, ptflops', thop's `profile(...)`): their result
dropped, they only print, and every rank printed it (elvisyjlin/AttGAN-PyTorch@be2d6c6:
`summary(self.G, ...)` in `AttGAN.__init__`, stop 39, v2-C).

Putting such a call on rank 0 alone is safe only where the model it runs is not the DDP
wrap: a DDP forward on one rank alone broadcasts buffers and waits for the others (a hang),
and its reducer then expects a backward that never comes. So the call is guarded where the
model is proved unwrapped there (the wrap's `.module`, a name the wrap was built from, or a
name or attribute this function bound from a call that is not a wrap, with no wrap of it
before the call); elsewhere it stays on every rank and is said (DP099).

TensorBoard's `writer.add_graph(model, x)` traces the model's forward (torch.jit.trace).
Handed the DDP wrap it fails on rank 0 ("Tried to trace <...ProcessGroup...> but it is not
part of the active trace"), and rank 1 then loses its peer (FFly/pytorch-cifar10-all-in-gpu
@93d9401, `model = torch.nn.DataParallel(model)` rebinding the name the graph is drawn
from; stop 61 v4-B). Where the model argument is proved the wrap there (the nearest binding
of that name or attribute before the call, looking outward through the blocks around it in
its function, is a plain assignment of a wrap, and no block around the call binds it
again), it becomes `model.module`: the graph of the model's own layers, what the original's
one-device run drew, traced on rank 0 alone without any collective."""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from dp2ddp.transforms._support.names import (
    DATAPARALLEL,
    DISTRIBUTED_DATA_PARALLEL,
    WRAP_TRAINABLE,
)
from dp2ddp.transforms._support.nodes import enclosing_function
from dp2ddp.transforms.rank_zero.rule import CallRule

if TYPE_CHECKING:
    from dp2ddp.transforms.rank_zero import RankZeroOnly
    from dp2ddp.transforms.rank_zero.facts import RankZeroFacts

#: The library function, by qualified name -> the index of the model among its arguments.
#: Each runs the model's forward and prints a table (their defaults print: torchinfo's
#: verbose=1, ptflops' print_per_layer_stat=True, thop's verbose=True).
PRINTING_REPORTS: dict[str, int] = {
    "torchsummary.summary": 0,
    "torchsummary.torchsummary.summary": 0,
    "torchsummaryX.summary": 0,
    "torchinfo.summary": 0,
    "torchinfo.torchinfo.summary": 0,
    "ptflops.get_model_complexity_info": 0,
    "ptflops.flops_counter.get_model_complexity_info": 0,
    "thop.profile": 0,
    "thop.profile.profile": 0,
    "torchstat.stat": 0,
}


def report_model(t: RankZeroOnly, call: cst.Call) -> cst.BaseExpression | None:
    """The model argument of a printing report's call; None when `call` is no such call."""
    names = t.qualified_names(call.func)
    index = next((PRINTING_REPORTS[n] for n in names if n in PRINTING_REPORTS), None)
    if index is None:
        return None
    positional = [a for a in call.args if a.keyword is None and not a.star]
    if index < len(positional):
        return positional[index].value
    keyword = next(
        (a for a in call.args if a.keyword is not None and a.keyword.value == "model"), None
    )
    return keyword.value if keyword is not None else call.func


def unwrapped_at(
    t: RankZeroOnly, facts: RankZeroFacts, call: cst.Call, model: cst.BaseExpression
) -> bool:
    """`model` is proved not to be the DDP wrap where `call` runs (see the module docstring)."""
    if isinstance(model, cst.Attribute) and model.attr.value == "module":
        return True
    if facts.unwrapped_path(model) == "":
        return True
    if not isinstance(model, (cst.Name, cst.Attribute)):
        return False
    key = t.code(model)
    function = enclosing_function(call, t)
    body = (
        list(function.body.body)
        if function is not None and isinstance(function.body, cst.IndentedBlock)
        else list(facts.module.body)
    )
    statement: cst.CSTNode = call
    while t.parent(statement) is not None and not any(statement is s for s in body):
        parent = t.parent(statement)
        assert parent is not None
        statement = parent
    if not any(statement is s for s in body):
        return False
    last: cst.BaseExpression | None = None
    for earlier in body:
        if earlier is statement:
            break
        for value in _assigned(earlier, key, t):
            last = value
    if _wraps(statement, key, t):
        return False  # a loop that wraps it after the call runs the call on the wrap next
    return isinstance(last, cst.Call) and not _is_wrap(last, t)


def _assigned(node: cst.CSTNode, key: str, t: RankZeroOnly) -> list[cst.BaseExpression]:
    """The values assigned to `key` (`self.G`, `model`) under `node`, in order; a binding
    that is no plain assignment counts as a value that proves nothing (a Name)."""
    found: list[cst.BaseExpression] = []

    class _Visitor(cst.CSTVisitor):
        def visit_Assign(self, assign: cst.Assign) -> None:
            if any(t.code(target.target) == key for target in assign.targets):
                found.append(assign.value)

        def visit_AugAssign(self, assign: cst.AugAssign) -> None:
            if t.code(assign.target) == key:
                found.append(cst.Name("_"))

        def visit_For(self, loop: cst.For) -> None:
            if t.code(loop.target) == key:
                found.append(cst.Name("_"))

    node.visit(_Visitor())
    return found


def _wraps(node: cst.CSTNode, key: str, t: RankZeroOnly) -> bool:
    return any(_is_wrap(value, t) for value in _assigned(node, key, t))


def _is_wrap(value: cst.BaseExpression, t: RankZeroOnly) -> bool:
    """A DataParallel or DDP wrap (dp2ddp's trainable-only helper too)."""
    if not isinstance(value, cst.Call):
        return False
    if isinstance(value.func, cst.Name) and value.func.value == WRAP_TRAINABLE:
        return True
    return t.matches(value.func, DATAPARALLEL | DISTRIBUTED_DATA_PARALLEL)


class TracedGraphs(CallRule):
    """`writer.add_graph(model, ...)` of the DDP wrap traces `model.module` (see above)."""

    def leave_call(
        self, original: cst.Call, updated: cst.Call, names: set[str]
    ) -> cst.BaseExpression | None:
        func = original.func
        if not (isinstance(func, cst.Attribute) and func.attr.value == "add_graph"):
            return None
        positional = [a for a in original.args if a.keyword is None and not a.star]
        if not positional:
            return None
        if not wrapped_at(self.t, original, positional[0].value):
            model = positional[0].value
            text = self.t.code(model)
            if text in self.t.state.wrapped and not unwrapped_at(
                self.t, self.facts, original, model
            ):
                self.t.warn(
                    original,
                    "DP128",
                    f"add_graph() traces {text}, which dp2ddp wraps in DDP, proved neither "
                    "the wrap nor the unwrapped model there: tracing the DDP wrap of a model "
                    "holding buffers fails (DDP's forward broadcasts them over its process "
                    f"group, no part of the trace); pass {text}.module",
                )
            return None
        index = list(original.args).index(positional[0])
        model = updated.args[index].value
        args = list(updated.args)
        args[index] = args[index].with_changes(
            value=cst.Attribute(value=model, attr=cst.Name("module"))
        )
        self.t.record(
            original,
            f"add_graph() traces {self.t.code(positional[0].value)}.module: tracing the DDP "
            "wrap fails (its process group is no part of the trace)",
        )
        return updated.with_changes(args=args)


def wrapped_at(t: RankZeroOnly, call: cst.Call, model: cst.BaseExpression) -> bool:
    """`model` is proved the DDP (or DataParallel) wrap where `call` runs."""
    if not isinstance(model, (cst.Name, cst.Attribute)):
        return False
    key = t.code(model)
    node: cst.CSTNode = call
    while (parent := t.parent(node)) is not None:
        if isinstance(parent, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            return False
        if isinstance(parent, (cst.IndentedBlock, cst.Module)):
            body = list(parent.body)
            at = next(i for i, s in enumerate(body) if s is node)
            if _assigned(node, key, t):
                return False  # bound again around the call: a loop may wrap it later
            for earlier in reversed(body[:at]):
                values = _assigned(earlier, key, t)
                if values:
                    return isinstance(earlier, cst.SimpleStatementLine) and _is_wrap(values[-1], t)
        node = parent
    return False
