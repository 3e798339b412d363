"""The one reading of "gradients off": a `with` item or a decorator that turns them off, and a
node that runs under one.

Before stop 51 six readers asked it each their own way (the review of stop 50): hazards'
`losses.inside_no_grad` and `_turns_off_grad` and `backward._is_no_grad` by qualified name
(`no_grad`, `inference_mode`, not `set_grad_enabled(False)`), data's `evaluation._is_no_grad`
by qualified name plus `set_grad_enabled(False)` by name, `generator_batches.named_no_grad`
(read by loader_consumers, handed_steps, fixed_fetch) by name only (aliases missed,
`inference_mode(False)` read as off), and `loader_consumers._under_no_grad` its own function
only while `losses.inside_no_grad` crossed into the functions around. They ask here now.

Where the meaning differs it stays apart, on purpose: analysis/grad_paths.grad_off (`ast`, a
module class's forward()) asks whether a context *may* turn gradients off on some step
(`set_grad_enabled(flag)` with a flag not proved True counts: a path that may run without
gradients), and names the context for its message; here the question is whether they are
proved off (a flag that is not the literal False is read as on).
"""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from dp2ddp.transforms._support.nodes import NO_GRAD, is_false

#: `set_grad_enabled` under every spelling torch exports it (off with a literal False).
GRAD_SWITCH: frozenset[str] = frozenset(
    f"torch.{path}set_grad_enabled" for path in ("", "autograd.", "autograd.grad_mode.")
)
#: A pass's `matches(node, names)`: does `node` resolve to one of `names` (aliases included).
Matches = Callable[[cst.CSTNode, frozenset[str]], bool]
Parent = Callable[[cst.CSTNode], "cst.CSTNode | None"]


def qualified_matches(qualified_names: Callable[[cst.CSTNode], set[str]]) -> Matches:
    """`matches` for a reader that has qualified names but no pass (a def-use question)."""
    return lambda node, names: not names.isdisjoint(qualified_names(node))


def grad_off(expr: cst.BaseExpression, matches: Matches | None = None) -> bool:
    """`expr` (a with item or a decorator) turns gradients off: `no_grad()`,
    `inference_mode()` (not `inference_mode(False)`), `set_grad_enabled(False)`, spelled
    so (`torch.no_grad()`, `no_grad()`, `torch.autograd.no_grad`), or, given a pass's
    `matches`, under an alias resolving to one of torch's names (NO_GRAD, GRAD_SWITCH:
    `from torch import no_grad as frozen`). The spelled name decides first, so a name
    is resolved only where it is none of the three (no cost added to the readers that
    resolved every item before). A flag other than the literal False
    (`set_grad_enabled(is_train)`) is not proved off: read as on."""
    call = expr if isinstance(expr, cst.Call) else None
    func = call.func if call is not None else expr
    name = (
        func.attr.value
        if isinstance(func, cst.Attribute)
        else func.value
        if isinstance(func, cst.Name)
        else ""
    )
    first = call.args[0].value if call is not None and call.args else None
    false = isinstance(first, cst.Name) and first.value == "False"
    if name in ("no_grad", "inference_mode"):
        return not false
    if name == "set_grad_enabled":
        return false
    if matches is None or name == "":
        return False
    if matches(func, NO_GRAD):
        return not false
    return false and matches(func, GRAD_SWITCH)


def under_grad_off(node: cst.CSTNode, parent: Parent, matches: Matches | None = None) -> bool:
    """`node` runs with gradients off: inside a `with` whose item turns them off, in its own
    function (or at module level), or in a function decorated so. A function defined under
    such a `with` runs when it is called, not there: the walk stops at the first function,
    lambda or class around `node`."""
    current = parent(node)
    while current is not None:
        if isinstance(current, cst.With) and any(grad_off(i.item, matches) for i in current.items):
            return True
        if isinstance(current, cst.FunctionDef):
            return any(grad_off(d.decorator, matches) for d in current.decorators)
        if isinstance(current, (cst.Lambda, cst.ClassDef)):
            return False
        current = parent(current)
    return False


def module_mode(call: cst.Call) -> str | None:
    """The mode a module's `.eval()` / `.train(...)` call puts it in: `train(False)` and
    `train(mode=False)` are `eval()` (torch defines `eval` so), `train()` and `train(True)`
    train; a mode given by a value the call does not spell is not known (None), and nothing
    is proved from it. The one reading for the passes that ask which mode a model call runs
    in (data.evaluation's evaluation loops, batches.training_loops' evaluation calls)."""
    assert isinstance(call.func, cst.Attribute)
    if call.func.attr.value == "eval":
        return "eval"
    if not call.args:
        return "train"
    given = call.args[0].value
    if is_false(given):
        return "eval"
    if isinstance(given, cst.Name) and given.value == "True":
        return "train"
    return None
