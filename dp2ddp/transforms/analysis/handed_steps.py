"""A training step handed to a call: the loss and the optimizer given to code that steps.

A loop trains where its own body runs a backward pass or steps an optimizer
(analysis/training.py). Mixed-precision code often runs both inside one call the loop hands
the loss and the optimizer to: timm's `loss_scaler(loss, optimizer, parameters=...)`
(NativeScaler runs `scaler.scale(loss).backward()` and `scaler.step(optimizer)`), a
trainer's `step(loss, opt)`, a `Scaler` class of the program's own. Such a loop showed no
backward and no step; with an evaluation under `no_grad()` nested in it, it was read as an
evaluation: its loader was left whole, every rank trained all of it, and DP015 called the
training loop an evaluation (class b1-B of stop 49: ZhendongWang6/Uformer@65fc970
train/train_denoise.py:183).

The proof, over the module's def-use view (dp2ddp/flow), for one call of a loop's body (not
under `no_grad()` / `inference_mode()`):

* it is handed a loss: an argument whose sources (flow.origins, the wrapped model's calls
  taken as sources) hold a gradient-enabled call of the wrapped model (as spelled at the
  wrap) reaching the argument through no `.item()`, `.detach()`, `.tolist()`, `.numpy()`,
  `.data`, `float()` or `int()`: a tensor still attached to the graph of the model's
  parameters;
* and the optimizer: an argument that is, as a whole (through names alone), the object a
  `torch.optim` optimizer class built.

Then the callee decides. The program's own (a function or a class of this module: its
`__call__` or the method called, followed through this module's functions): read, the step
is proved where that code runs a backward or an optimizer step, and the call is no step
where it runs neither. Another module of the program: proved where the program's summary
of that function (ProgramFacts.backward_summaries) holds a backward. A library's callable
(an import or an object built by one, of no module of the program): proved a step by what
it is handed. Why that is a proof: an optimizer changes the parameters only through
`step()`, and `step()` reads only the `.grad` a backward over a graph of those parameters
fills; the loss is that graph's root. A callable that is given both, the graph and the only
object that can apply its gradients, is given nothing else to do with the pair: reading the
loss's value needs no optimizer and reading a learning rate needs no graph. A library that
took both and did neither would leave the parameters as they were, and the loop's loss
would still be computed with gradients on: an evaluation is written under `no_grad()` or
`.eval()`, not so. Whatever else the library does, the loop's batches are training data.

What cannot be read (a parameter, an attribute of an object whose class is not known,
another program module's callable with no summary, several callables of which only some
step) is `unread`: the caller says it (DP134) and takes the loop for training, never for
an evaluation.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import Literal

import libcst as cst
from libcst.helpers import get_full_name_for_node

from dp2ddp.flow import DefUse, code, origins
from dp2ddp.flow.defuse import Function
from dp2ddp.transforms._support.grad_mode import qualified_matches, under_grad_off
from dp2ddp.transforms._support.nodes import calls_under
from dp2ddp.transforms.analysis.training import QualifiedNames, function_trains

#: "module": another program module's callable with no summary (not read; "unread" where
#: an optimizer is handed too); "loss": the loss alone handed to what is not read.
Verdict = Literal["library", "program", "unread", "cleared", "module", "loss"]

#: Methods and builtins whose result is no longer attached to the graph.
_DETACHING = frozenset({"item", "detach", "detach_", "tolist", "numpy", "float", "int"})


@dataclass(frozen=True)
class HandedStep:
    """`call` is handed the loss `loss` and the optimizer `optimizer`; `verdict` says how
    its running the step is known (library, the program's code read, or not read)."""

    call: cst.Call
    verdict: Verdict
    loss: cst.BaseExpression
    optimizer: cst.BaseExpression | None


@dataclass(frozen=True)
class StepContext:
    """What the proof needs of the pass: the module's view, the wrapped model as spelled at
    each wrap, qualified names, the roots of the program's modules, and whether another
    module's function (by qualified name) runs a backward (its summary)."""

    view: DefUse
    wrapped: Collection[str]
    qualified_names: QualifiedNames
    program_roots: Collection[str]
    backprops: Callable[[str], bool]


def handed_step(
    context: StepContext, loop: cst.For | cst.While, *, loss_only: bool = False, held: bool = False
) -> HandedStep | None:
    """The first call of `loop`'s body (not the scopes defined in it) that is handed a loss
    and an optimizer and is proved to step or not read; None where there is none. With
    `loss_only` (the loop's nested `no_grad()` block is asked about), also the first call
    handed the loss alone, its result dropped, by a callee whose code is not read (verdict
    `loss`, see `_loss_handed_off`); with `held` (a `.eval()` before the loop is asked
    about), only where the callee's receiver holds the wrapped model (`_holds_model`)."""
    if not context.wrapped:
        return None
    calls = calls_under(loop.body, skip_scopes=True)
    for call in calls:
        found = _handed(context, call)
        if found is not None:
            return found
    if loss_only or held:
        handed = (_loss_handed_off(context, c, held) for c in calls)
        return next((f for f in handed if f is not None), None)
    return None


def _holds_model(context: StepContext, call: cst.Call) -> Verdict | None:
    """`call` is a method of an object built given the wrapped model or its parameters
    (`engine = Engine(model, lr)`, `Trainer(model.parameters())`; every source of the
    receiver, through names and the parameters a caller binds, is such a construction):
    the object that holds what a step changes, handed the graph to change it by (stop 53
    s3: `model.eval()` before a fine-tuning loop whose `engine.step(loss)` trains). A
    writer, a meter or a scheduler is built given no model: handed the loss, it reads a
    value. The verdict of those constructions' classes (`_source_verdict`: a library's,
    another module's with no summary: not read), None where the receiver is not such."""
    if not isinstance(call.func, cst.Attribute):
        return None
    found = [
        o
        for o in origins(context.view, call.func.value)
        if not o.selects
        and all(isinstance(s.node, (cst.Name, cst.Attribute, cst.Param)) for s in o.path[1:])
    ]
    if not found or not all(
        o.kind == "call"
        and isinstance(o.node, cst.Call)
        and any(_the_model(context, a.value) for a in o.node.args)
        for o in found
    ):
        return None
    method = call.func.attr.value
    verdicts = {_source_verdict(context, o.kind, o.node, method) for o in found}
    return verdicts.pop() if len(verdicts) == 1 else None


def _the_model(context: StepContext, value: cst.BaseExpression) -> bool:
    """`value` is the wrapped model (as spelled at the wrap) or its `parameters()`."""
    if (
        isinstance(value, cst.Call)
        and isinstance(value.func, cst.Attribute)
        and value.func.attr.value in ("parameters", "named_parameters")
    ):
        value = value.func.value
    return code(value) in context.wrapped


def _handed(context: StepContext, call: cst.Call) -> HandedStep | None:
    values = [arg.value for arg in call.args]
    if not values or _grad_off(context, call):
        return None
    loss = next((v for v in values if _loss(context, v)), None)
    if loss is None:
        return None
    others = [v for v in values if v is not loss]
    verdict = _callee(context, call)
    if verdict is None or verdict == "program":  # the program's code says it: no optimizer asked
        return None if verdict is None else HandedStep(call, verdict, loss, None)
    verdict = "unread" if verdict == "module" else verdict
    optimizer = next((v for v in others if _optimizer(context, v)), None)
    if optimizer is None:
        optimizer = next((v for v in others if _cleared(context, call, v)), None)
        verdict = "cleared" if verdict == "library" else verdict
    return None if optimizer is None else HandedStep(call, verdict, loss, optimizer)


def _loss_handed_off(context: StepContext, call: cst.Call, held: bool = False) -> HandedStep | None:
    """`call`, a statement of its own (its result dropped: run for what it does), is handed
    the loss (`_loss`: the wrapped model's output with gradients on, not detached) by a
    library's callable or another program module's function with no summary, whose code
    is not read, and no optimizer it is given is seen built or cleared (`trainer_step(loss,
    opt)` of an uninstalled module, the optimizer made by its factory and cleared inside
    it). A loss whose graph is kept and handed on is the evidence a backward may run
    there; what proves an evaluation is a forward with gradients off, which this is not.
    The loop is taken for training, and said (DP152). A call whose result is used (a
    criterion, `acc = metric(out, y)`) computes from the loss and is no step."""
    if not isinstance(context.view.parent(call), cst.Expr) or _grad_off(context, call):
        return None
    loss = next((a.value for a in call.args if _loss(context, a.value)), None)
    verdict = _holds_model(context, call) if held else _callee(context, call)
    if loss is None or verdict not in ("library", "module"):
        return None
    return HandedStep(call, "loss", loss, None)


def _optimizer(context: StepContext, value: cst.BaseExpression) -> bool:
    """`value` is, as a whole, what a `torch.optim` optimizer class built: every source
    reaching it through names, attributes and the returns of this module's functions only
    (`optimizer = build_optimizer(cfg, model)` returning `torch.optim.SGD(...)`) is such a
    call (the sources of the constructor's own arguments come through the call and are not
    the object)."""
    if not isinstance(value, (cst.Name, cst.Attribute)):
        return False
    view = context.view
    whole = [
        o
        for o in origins(view, value)
        if all(
            isinstance(s.node, (cst.Name, cst.Attribute))
            or (isinstance(s.node, cst.Call) and bool(view.callees(s.node)))
            for s in o.path[1:]
        )
    ]
    return bool(whole) and all(
        o.kind == "call"
        and isinstance(o.node, cst.Call)
        and _optimizer_class(context.qualified_names, o.node)
        for o in whole
    )


def _cleared(context: StepContext, call: cst.Call, value: cst.BaseExpression) -> bool:
    """`value` (a name or an attribute, built by what this module does not read: a
    library's factory such as timm's `create_optimizer_v2`, another module's
    `build_optimizer`, a parameter) has its gradients cleared (`value.zero_grad()`) in the
    function around `call`: the object of a training step, said, not proved an optimizer."""
    if not isinstance(value, (cst.Name, cst.Attribute)):
        return False
    spelled = code(value)
    function = context.view.function_around(call)
    body = function.node.body if function is not None else context.view.module
    return any(
        isinstance(c.func, cst.Attribute)
        and c.func.attr.value == "zero_grad"
        and code(c.func.value) == spelled
        for c in calls_under(body, skip_scopes=True)
    )


def _optimizer_class(qualified_names: QualifiedNames, call: cst.Call) -> bool:
    names = qualified_names(call.func)
    return any(
        n.startswith("torch.optim.") and n.split(".")[2] not in ("lr_scheduler", "swa_utils")
        for n in names
    )


def _loss(context: StepContext, value: cst.BaseExpression) -> bool:
    """A source of `value` is a gradient-enabled call of the wrapped model, reaching it
    through nothing that detaches it."""
    for o in origins(context.view, value, stop=lambda c: _model_call(context, c)):
        if not (o.kind == "call" and isinstance(o.node, cst.Call)):
            continue
        if not _model_call(context, o.node) or _grad_off(context, o.node) or o.selects:
            continue
        if not any(_detaches(s.node) for s in o.path):
            return True
    return False


def _model_call(context: StepContext, call: cst.Call) -> bool:
    func = call.func
    if isinstance(func, cst.Attribute) and func.attr.value == "forward":
        func = func.value
    return code(func) in context.wrapped


def _detaches(node: cst.CSTNode) -> bool:
    if isinstance(node, cst.Attribute) and node.attr.value == "data":
        return True
    if not isinstance(node, cst.Call):
        return False
    func = node.func
    name = func.attr.value if isinstance(func, cst.Attribute) else getattr(func, "value", "")
    return name in _DETACHING


def _grad_off(context: StepContext, node: cst.CSTNode) -> bool:
    """Gradients are off where `node` runs (grad_mode.under_grad_off, the one reading)."""
    return under_grad_off(node, context.view.parent, qualified_matches(context.qualified_names))


def _callee(context: StepContext, call: cst.Call) -> Verdict | None:
    """How the callee's running the step is known: every callable the call may run steps
    (the first way found), none does (None), or not all are read (`unread`)."""
    view = context.view
    read = view.callees(call)
    if read:
        return "program" if _functions_step(context, read) else None
    root = call.func.value if isinstance(call.func, cst.Attribute) else call.func
    method = call.func.attr.value if isinstance(call.func, cst.Attribute) else "__call__"
    verdicts: set[Verdict | None] = set()
    for o in origins(view, root):
        if o.selects:
            continue
        verdicts.add(_source_verdict(context, o.kind, o.node, method))
    if not verdicts or "unread" in verdicts or (None in verdicts and len(verdicts) > 1):
        return "unread"
    if verdicts == {"library", "module"}:  # a library's and another module's, none read
        return "module"
    return next(iter(verdicts))


def _source_verdict(
    context: StepContext, kind: str, node: cst.CSTNode, method: str
) -> Verdict | None:
    view = context.view
    if kind in ("instance", "call") and isinstance(node, cst.Call):
        owner = view.class_called(node)
        if owner is not None:
            function = view.method(owner, method)
            if function is None:
                return "unread"  # an inherited method
            return "program" if _functions_step(context, [function]) else None
    if kind == "definition" and isinstance(node, cst.FunctionDef):
        found = [f for f in view.functions.values() if f.node is node]
        return "program" if _functions_step(context, found) else None
    if kind in ("call", "import"):
        named = node.func if isinstance(node, cst.Call) else node
        names = {n for n in context.qualified_names(named) if n}
        if isinstance(node, cst.ImportAlias):  # `from steplib import trainer_step`
            names |= _imported(view, node)
        if not names or any(n.startswith("builtins.") for n in names):
            return "unread"  # `getattr(hooks, name)`: what the builtin returns is not known
        if any(n.startswith(".") or n.split(".", 1)[0] in context.program_roots for n in names):
            suffix = "" if kind == "import" and method == "__call__" else f".{method}"
            return "program" if any(context.backprops(n + suffix) for n in names) else "module"
        return "library"
    return "unread"


def _imported(view: DefUse, alias: cst.ImportAlias) -> set[str]:
    """The qualified name an import binds (`steplib.trainer_step`; a relative import's
    starts with its dots, the program's)."""
    statement = view.parent(alias)
    while statement is not None and not isinstance(statement, (cst.Import, cst.ImportFrom)):
        statement = view.parent(statement)
    name = get_full_name_for_node(alias.name) or ""
    if isinstance(statement, cst.ImportFrom):
        module = get_full_name_for_node(statement.module) if statement.module else ""
        return {"." * len(statement.relative) + f"{module or ''}.{name}".lstrip(".")}
    return {name} if name else set()


def _functions_step(context: StepContext, functions: list[Function]) -> bool:
    """One of `functions` runs a backward or an optimizer step, itself or through this
    module's functions it calls (each read once)."""
    seen: set[int] = set()
    todo = list(functions)
    while todo:
        function = todo.pop()
        if id(function.node) in seen:
            continue
        seen.add(id(function.node))
        if function_trains(function.node, context.qualified_names):
            return True
        for inner in calls_under(function.node.body):
            todo += context.view.callees(inner)
    return False
