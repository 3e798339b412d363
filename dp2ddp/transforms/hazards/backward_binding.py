"""Which function a call runs and what it passes (hazards/backward.py's calls): the
instances a function binds, its receiver, its parameters bound to a call's arguments."""

from __future__ import annotations

from collections.abc import Callable, Iterable

import libcst as cst

from dp2ddp.transforms._support.nodes import code_of, walk


def instances_of(
    body: Iterable[cst.BaseStatement], class_of: Callable[[cst.BaseExpression], str | None]
) -> dict[str, str]:
    """Names of one function (or the module) bound to an instance of one of the module's
    classes, `model = GanModel(...)` or `self.model = GanModel(cfg).to(device)`: the class
    whose methods `model.m(...)` calls."""
    instances: dict[str, str] = {}
    for statement in body:
        for node in walk(statement, skip_scopes=True):
            if not isinstance(node, cst.Assign) or len(node.targets) != 1:
                continue
            value = node.value
            while (  # through `.to(device)`, `.cuda()`
                isinstance(value, cst.Call)
                and isinstance(value.func, cst.Attribute)
                and isinstance(value.func.value, cst.Call)
            ):
                value = value.func.value
            target = code_of(node.targets[0].target)
            cls = class_of(value.func) if isinstance(value, cst.Call) else None
            if cls is not None and (target.isidentifier() or target.startswith("self.")):
                instances[target] = cls
    return instances


class FunctionInstances:
    """`instances_of` each function's body, read once a function (by id: the tree that
    holds the functions outlives the reader): a module's DP026 reading asks for a method's
    instances for its class's held ones, for its call order and for its own reading."""

    def __init__(self, class_of: Callable[[cst.BaseExpression], str | None]) -> None:
        self._class_of = class_of
        self._found: dict[int, dict[str, str]] = {}

    def __call__(self, function: cst.FunctionDef) -> dict[str, str]:
        found = self._found.get(id(function))
        if found is None:
            body = function.body.body if isinstance(function.body, cst.IndentedBlock) else ()
            found = self._found[id(function)] = instances_of(body, self._class_of)
        return found


def takes_self(function: cst.FunctionDef, cls: str | None) -> bool:
    """A method's first parameter is its receiver (`self`, a classmethod's `cls`), not a
    staticmethod's."""
    return cls is not None and not any(
        code_of(d.decorator) == "staticmethod" for d in function.decorators
    )


def bound_arguments(function: cst.FunctionDef, call: cst.Call, *, method: bool) -> dict[str, int]:
    """Which argument of `call` each parameter of `function` gets (by position, then
    keyword): parameter -> the argument's index."""
    params = function.params
    positional = [p.name.value for p in (*params.posonly_params, *params.params)]
    return bound_names(tuple(positional[1:] if method else positional), call)


def bound_names(positional: tuple[str, ...], call: cst.Call) -> dict[str, int]:
    """`bound_arguments` for the positional parameters' names."""
    bound: dict[str, int] = {}
    for index, arg in enumerate(call.args):
        if arg.keyword is not None:
            bound[arg.keyword.value] = index
        elif arg.star:
            break
        elif index < len(positional):
            bound[positional[index]] = index
    return bound
