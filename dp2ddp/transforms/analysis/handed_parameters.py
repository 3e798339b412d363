"""What a trained model bound to a parameter is handed (analysis/outside_parameters.py asks).

A function's or a method's parameter whose `.parameters()` reach an optimizer beside a wrap
its function (or class) makes is a construction where every call of the module hands it
one: then `ddp_sync_module` keeps it alike (stop 47: `def train(model, teacher): teacher =
nn.DataParallel(teacher)`). A method's parameter counts by the calls of the method (for
`__init__`, the constructions of its class), and an attribute stored from one (`self.teacher
= teacher` beside `self.student = nn.DataParallel(student)`, stop 48) by what the parameter
is handed. A parameter the class stores on an attribute it wraps is the wrap's argument, not
a model trained beside it. Where neither every call hands a construction nor every call a
wrap, DP119 says so (`unproved`). The calls are the def-use view's call sites."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import libcst as cst

from dp2ddp.flow import view
from dp2ddp.flow.defuse import DefUse, Function
from dp2ddp.flow.origins import argument_for
from dp2ddp.transforms._support.nodes import module_of, nodes_of, unmoved

if TYPE_CHECKING:
    from dp2ddp.transforms._support.base import MigrationTransform

IsWrap = Callable[[cst.CSTNode], bool]
#: What a call in another module hands a parameter where it is proved a construction
#: (`_elsewhere`): a call of no wrap, as `_builds` asks.
BUILT_ELSEWHERE = cst.Call(func=cst.Name("constructed_in_another_module"))


def _within(code: str, roots: set[str]) -> bool:
    return any(code == r or code.startswith(r + ".") for r in roots)


def wraps(value: cst.BaseExpression, is_wrap: IsWrap) -> bool:
    """`value` is a wrap (through `.cuda()`/`.to()`), or an if-expression with one side."""
    value = unmoved(value)
    if value is BUILT_ELSEWHERE:
        return False
    if isinstance(value, cst.IfExp):
        return wraps(value.body, is_wrap) or wraps(value.orelse, is_wrap)
    return is_wrap(value)


def _sites(flow: DefUse, function: Function) -> list[cst.Call]:
    """The module's calls of `function`: for `__init__`, the constructions of its class
    (not another class's `super().__init__()`); for another method, calls by its name but
    those whose receiver is a construction (`Logger()`, or a name bound only to
    constructions) of classes whose method of that name is another (`_receivers`)."""
    sites = flow.call_sites(function)
    if function.owner is not None and function.name == "__init__":
        return [s for s in sites if flow.class_called(s) is function.owner]
    if function.owner is None:
        return sites
    return [
        s
        for s in sites
        if not (classes := _receivers(flow, s))
        or any(flow.method(c, function.name) in (function, None) for c in classes)
    ]


def _receivers(flow: DefUse, call: cst.Call) -> list[cst.ClassDef]:
    """The classes of this module a method call's receiver is constructed from, where the
    def-use view gives each of its bindings (empty: not known)."""
    if not isinstance(call.func, cst.Attribute):
        return []
    receiver = call.func.value
    values: list[cst.BaseExpression | None] = [receiver]
    if isinstance(receiver, cst.Name):
        found = flow.definitions(receiver)
        values = [d.value if d.kind == "assign" and not d.element else None for d in found]
    classes = [flow.class_called(v) if isinstance(v, cst.Call) else None for v in values or [None]]
    return [] if None in classes else [c for c in classes if c is not None]


def _stored_wrapped(
    function: Function, param: cst.Param, wrapped: set[str], t: MigrationTransform
) -> bool:
    """`param` of a method is stored on an attribute of `self` that is wrapped
    (`self.model = model` before `self.model = DataParallel(self.model)`)."""
    me = function.self_name
    if me is None:
        return function.owner is not None  # a static or class method: not read
    for node in nodes_of(function.node, cst.Assign):
        if isinstance(node.value, cst.Name) and node.value.value == param.name.value:
            for target in node.targets:
                code = t.code(target.target)
                if code.startswith(me + ".") and _within("self" + code[len(me) :], wrapped):
                    return True
    return False


def handed(
    param: cst.Param, t: MigrationTransform, wrapped: set[str]
) -> list[cst.BaseExpression | None]:
    """What this module's calls of `param`'s function pass it (the def-use view's call
    sites): the argument, or for a name the values of its bindings (one hop); [None] where
    the function is called nowhere in the module or is a method storing it on a wrapped
    attribute, None for an argument not passed or a binding other than a plain assignment
    (a parameter, an unpacking, a loop variable)."""
    flow = view(module_of(param, t))  # type: ignore[arg-type]
    function = flow.function_around(param)
    if function is None or _stored_wrapped(function, param, wrapped, t):
        return [None]
    sites = _sites(flow, function)
    elsewhere = _elsewhere(function, param, t)
    if not sites:
        return elsewhere or [None]
    values: list[cst.BaseExpression | None] = list(elsewhere)
    for site in sites:
        argument = argument_for(site, function, param)
        if isinstance(argument, cst.Name):
            found = [
                d.value if d.kind in ("assign", "annassign") and not d.element else None
                for d in flow.definitions(argument)
            ]
            values += found or [None]
        else:
            values.append(argument)
    return values


def _elsewhere(
    function: Function, param: cst.Param, t: MigrationTransform
) -> list[cst.BaseExpression | None]:
    """What the program's other modules' constructions of `function`'s class hand `param`
    (ProgramHints.constructed), for `__init__` of a top-level class: BUILT_ELSEWHERE for a
    construction, None for anything else or an argument not passed."""
    owner = function.owner
    if function.name != "__init__" or owner is None or param not in function.params:
        return []
    if not isinstance(t.parent(owner), cst.Module):
        return []
    position = str(function.params.index(param) - 1)
    found: list[cst.BaseExpression | None] = []
    for call in t.state.hints.constructed:
        name, _, slots = call.partition("|")
        if name != owner.name.value:
            continue
        kinds = dict(slot.partition("=")[::2] for slot in slots.split(";") if slot)
        kind = None if "*" in kinds else kinds.get(position) or kinds.get(param.name.value)
        found.append(BUILT_ELSEWHERE if kind == "built" else None)
    return found


def stored_from(value: cst.Name, t: MigrationTransform) -> cst.Param | None:
    """The method's parameter an attribute binding stores (`self.teacher = teacher`), when
    `value` is bound only as that parameter."""
    flow = view(module_of(value, t))  # type: ignore[arg-type]
    found = flow.definitions(value)
    if len(found) != 1 or found[0].kind != "param":
        return None
    param = found[0].target
    function = flow.function_around(param)
    if not isinstance(param, cst.Param) or function is None or function.owner is None:
        return None
    return param


def unproved(
    node: cst.CSTNode,
    scope: cst.FunctionDef | None,
    x: str,
    t: MigrationTransform,
    is_wrap: IsWrap,
    wrapped: set[str],
) -> tuple[str, list[str]]:
    """Why `x` (a parameter of `scope` bound nowhere else there, or `self.attr` stored only
    from a method's parameter: `node` is its read) is not proved to be a construction (then
    it is synced) nor a wrap (then DDP averages it): DP119's subject and reasons, no reasons
    where it is no such parameter or every call hands it a wrap or a model within one
    (`model.module`). Only where its function (or the method's class) wraps another model
    itself: a trainer function beside a builder that wraps (`fit(model)` handed `build()`
    by other modules) trains the wrap it is handed."""
    flow = view(module_of(node, t))  # type: ignore[arg-type]
    params: list[cst.Param] = []
    if scope is not None:
        every = (*scope.params.posonly_params, *scope.params.params, *scope.params.kwonly_params)
        params = [p for p in every if p.name.value == x]
        if any(
            t.code(target.target) == x
            for assign in nodes_of(scope.body, cst.Assign)
            for target in assign.targets
        ):
            return "", []
    else:
        around = flow.function_around(node)
        me = around.self_name if around is not None else None
        if around is None or around.owner is None or me is None or x.count(".") != 1:
            return "", []
        if not x.startswith(me + "."):
            return "", []
        values = [d.value for d in flow.attribute_definitions(around.owner, x.split(".")[1])]
        stored = [stored_from(v, t) if isinstance(v, cst.Name) else None for v in values]
        if not stored or None in stored:
            return "", []
        params = [p for p in stored if p is not None]
    if not params:
        return "", []
    reasons: list[str] = []
    subject = ""
    for param in params:
        function = flow.function_around(param)
        if function is None or not isinstance(function.node, cst.FunctionDef):
            return "", []
        home: cst.CSTNode = function.node if function.owner is None else function.owner
        if not any(is_wrap(n) for n in nodes_of(home, cst.Call)):
            return "", []
        if _stored_wrapped(function, param, wrapped, t):
            return "", []
        name = function.name if function.owner is None else f"{function.owner.name.value}"
        called = f"{name}()" if function.owner is None else f"{name}.{function.name}()"
        caller = f"{name}()" if function.name == "__init__" else called
        source = "" if x == param.name.value else f", stored from {param.name.value}"
        wrapper = f"{name}()" if function.owner is None else f"class {name}"
        subject = (
            f"{x}{source}, a parameter of {called}, is trained by an optimizer beside the "
            f"model {wrapper} wraps with DataParallel"
        )
        sites = _sites(flow, function)
        if not sites:
            reasons.append(f"no call of {caller} in this module hands it a model")
        for site in sites:
            argument = argument_for(site, function, param)
            text = t.code(argument) if argument is not None else None
            if argument is None or not (
                wraps(argument, is_wrap)
                or _within(text or "", wrapped)
                or isinstance(argument, cst.Name)
                and any(
                    d.value is not None and wraps(d.value, is_wrap)
                    for d in flow.definitions(argument)
                )
            ):
                line = t.input_position(site)[0]
                reasons.append(f"line {line} hands it {text or 'nothing'}")
    return subject, reasons
