"""DP069: an optimizer over a model that is not the wrapped one (K1, stop 30:
peterliht/knowledge-distillation-pytorch@b1e4b6a, where only the frozen teacher is
`nn.DataParallel` and the student, the model the optimizer updates, is a plain module).

Under DataParallel one process trains the unwrapped model on every whole batch. Migrated,
the training loader is sharded for the wrapped model, and each rank trains its own copy of
the unwrapped one on its share, with no gradient averaging: the ranks' copies drift apart
from the first step and the saved one is rank 0's, trained on part of the data. Nothing fails.

The proof is narrow on purpose, within one scope (a function, or the module's top level):
the optimizer's parameters are `name.parameters()` (also inside `filter`/`list`/a list), and
every binding of `name` in that scope is a construction that does not wrap: a call (through
`.cuda()`/`.to()`, either side of an `if`-expression) that is not DataParallel and not a
function known to wrap, and that is not handed `name` itself. A name that any DataParallel
call of the module takes or is assigned to is the wrapped model (`opt = SGD(net.parameters());
model = DataParallel(net)`), as is a parameter of the scope (the caller's object).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import libcst as cst

from dp2ddp.transforms._support.nodes import walk

#: Calls that move a module and return it (`Net().cuda()`, `Net().to(device)`).
_MOVES = frozenset({"cuda", "to", "cpu", "float", "double", "half", "train", "eval"})


def _wrapped_names(call: cst.Call) -> Iterator[str]:
    """The module a DataParallel call takes, as a bare name (through `.cuda()`/`.to()`)."""
    if not call.args:
        return
    value: cst.BaseExpression = call.args[0].value
    while isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute):
        if value.func.attr.value not in _MOVES:
            return
        value = value.func.value
    if isinstance(value, cst.Name):
        yield value.value


def _parameters_of(expr: cst.BaseExpression) -> str | None:
    """`name` of `name.parameters()` inside an optimizer's first argument."""
    for node in walk(expr):
        if (
            isinstance(node, cst.Call)
            and isinstance(node.func, cst.Attribute)
            and node.func.attr.value == "parameters"
            and isinstance(node.func.value, cst.Name)
        ):
            return node.func.value.value
    return None


def _constructs(value: cst.BaseExpression, name: str, is_wrap: Callable[[cst.Call], bool]) -> bool:
    """`value` builds a module without wrapping it (see the module's docstring)."""
    if isinstance(value, cst.IfExp):
        return _constructs(value.body, name, is_wrap) and _constructs(value.orelse, name, is_wrap)
    while (
        isinstance(value, cst.Call)
        and isinstance(value.func, cst.Attribute)
        and value.func.attr.value in _MOVES
    ):
        value = value.func.value
    if not isinstance(value, cst.Call) or is_wrap(value):
        return False
    return not any(isinstance(n, cst.Name) and n.value == name for n in walk(value))


def _binds(target: cst.AssignTarget, name: str) -> bool:
    return isinstance(target.target, cst.Name) and target.target.value == name


def unwrapped_optimizers(
    module: cst.Module,
    is_optimizer: Callable[[cst.Call], bool],
    is_wrap: Callable[[cst.Call], bool],
) -> list[tuple[cst.Call, str]]:
    """Optimizer calls over a module proved not to be the wrapped one, with its name."""
    wraps = [n for n in walk(module) if isinstance(n, cst.Call) and is_wrap(n)]
    if not wraps:
        return []
    wrapped: set[str] = set()
    for call in wraps:
        wrapped.update(_wrapped_names(call))
    for node in walk(module):
        if isinstance(node, cst.Assign) and any(
            isinstance(n, cst.Call) and is_wrap(n) for n in walk(node.value)
        ):
            wrapped.update(t.target.value for t in node.targets if isinstance(t.target, cst.Name))
    scopes: list[cst.CSTNode] = [module]
    scopes += [n for n in walk(module) if isinstance(n, cst.FunctionDef)]
    found: list[tuple[cst.Call, str]] = []
    for scope in scopes:
        body = scope.body if isinstance(scope, cst.FunctionDef) else scope
        params = (
            {p.name.value for p in (*scope.params.params, *scope.params.kwonly_params)}
            if isinstance(scope, cst.FunctionDef)
            else set()
        )
        nodes = list(walk(body, skip_scopes=True))
        calls = [n for n in nodes if isinstance(n, cst.Call) and n.args and is_optimizer(n)]
        for call in calls:
            name = _parameters_of(call.args[0].value)
            if name is None or name in wrapped or name in params:
                continue
            bindings = [
                n.value
                for n in nodes
                if isinstance(n, cst.Assign) and any(_binds(t, name) for t in n.targets)
            ]
            if bindings and all(_constructs(v, name, is_wrap) for v in bindings):
                found.append((call, name))
    return found
