"""A layer whose output a submodule hands only to a callable its caller passes in (DP041).

`class SublayerOutput: forward(self, x, sublayer): return x + self.dropout(sublayer(
self.norm(x)))`, called as `self.sublayer_output[0](query, lambda x: self.self_attn(query,
x_in, x_in))` (emadeldeen24/AttnSleep@6b4d266 model/model.py, issue 28 round 23): the lambda
ignores its argument, so `self.norm`'s output is computed and dropped in every step and its
parameters get no gradient. DataParallel does not mind; DDP fails at the second step
("Expected to have finished reduction in the prior iteration").

Two facts, each of one class, met in partial_forward.partial_models:

- the callee's `CallableFeed`s: a parameter of its forward() it calls (`sublayer(...)`),
  and the registered layers every mention of which (in any method but `__init__`) lies in
  that call's arguments, directly or through a local name read only there (`h =
  self.norm(x)`, `sublayer(h)`), with the argument positions they are fed at;
- the caller's `HandedCallable`s: each call in forward() (or a method it calls on `self`)
  of a submodule holding project classes (`self.x(...)`, `self.x[k](...)`, a loop variable
  over `self.x`), per argument, which of its own parameters the argument reads: a lambda,
  a method of the class (`self.step`), a function of the module or one defined in the
  method read as written; a layer of the class (`self.ff`) reads its input; anything else
  (a name handed in, `functools.partial(...)`, a call's result) is not known.

Where the callable passed at a fed parameter reads none of the positions the layer's output
is fed at, the layer gets no gradient (proved: DP041 says so); where what it reads is not
known, the layer is not proved to get one (DP041 says that: a graph walk per step is cheaper
than a crash). A callee forward() whose callers are not classes of the program is not
judged.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from dp2ddp.transforms._support import ast_nodes
from dp2ddp.transforms._support.ast_nodes import is_self_attribute
from dp2ddp.transforms.analysis.dropped_outputs import called_methods, held_classes, loop_variables

Function = ast.FunctionDef | ast.AsyncFunctionDef
#: What a callable reads of its arguments where it reads them all (a layer, `*args` read).
EVERY = frozenset(range(64))


@dataclass(frozen=True)
class CallableFeed:
    """forward()'s parameter `name` (its `position` past `self`) is called, and `attribute`'s
    output reaches nothing but that call's arguments, at `at` (positions)."""

    name: str
    position: int
    attribute: str
    at: frozenset[int]
    line: int


@dataclass(frozen=True)
class HandedCallable:
    """`self.<attribute>(...)` (holding `callees`) given `text` at `position` (or by
    `keyword`): of its own parameters, it reads `reads` (None: not known)."""

    cls: str
    attribute: str
    callees: tuple[str, ...]
    position: int
    keyword: str
    reads: frozenset[int] | None
    text: str
    line: int
    path: str


def class_callables(
    cls: ast.ClassDef,
    registered: Iterable[str],
    resolve: Callable[[ast.expr], tuple[str, bool] | None],
    path: str,
    functions: Mapping[str, Function],
) -> tuple[tuple[CallableFeed, ...], tuple[HandedCallable, ...]]:
    """The class's feeds (as a callee) and handed callables (as a caller)."""
    methods = {
        n.name: n for n in cls.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
    }
    init, forward = methods.get("__init__"), methods.get("forward")
    if init is None or forward is None or not init.args.args or not forward.args.args:
        return (), ()
    feeds = _feeds(forward, methods, set(registered))
    held = held_classes(init, init.args.args[0].arg, resolve)
    handed: list[HandedCallable] = []
    for function in (forward, *called_methods(forward, methods)) if held else ():
        handed += _handed(cls.name, function, methods, held, registered, functions, path)
    return feeds, tuple(handed)


def ignored(
    handed: Iterable[HandedCallable], feeds_of: Mapping[str, tuple[CallableFeed, ...]]
) -> tuple[str, str, str, int, str] | None:
    """(cls, attribute, how, line, path) of the first handed callable that leaves a layer of
    its callee without a gradient, or not proved to give it one."""
    for call in handed:
        for callee in call.callees:
            for feed in feeds_of.get(callee, ()):
                if call.keyword != feed.name and call.position != feed.position:
                    continue
                if call.reads is not None and call.reads & feed.at:
                    continue
                kind = callee.rsplit(".", 1)[-1]
                layer = f"self.{feed.attribute}"
                said = (
                    f"that callable ignores it: {layer} gets no gradient"
                    if call.reads is not None
                    else f"what that callable reads is not known: {layer} may get no gradient"
                )
                how = (
                    f"passes `{call.text}` as `{feed.name}` to {{attr}} (a {kind}), whose "
                    f"forward() hands {layer}'s output only to `{feed.name}(...)` (line "
                    f"{feed.line}); {said}"
                )
                return (call.cls, call.attribute, how, call.line, call.path)
    return None


# -- the callee ------------------------------------------------------------------------------
def _feeds(
    forward: Function, methods: Mapping[str, Function], registered: set[str]
) -> tuple[CallableFeed, ...]:
    me = forward.args.args[0].arg
    parameters = [a.arg for a in forward.args.args[1:]]
    found: list[CallableFeed] = []
    for position, name in enumerate(parameters):
        calls = [
            n
            for n in ast_nodes.walk(forward)
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == name
        ]
        if not calls:
            continue
        slots: dict[int, int] = {}  # node id -> the argument position it lies in
        for call in calls:
            if any(isinstance(a, ast.Starred) for a in call.args) or call.keywords:
                slots.clear()
                break
            for index, argument in enumerate(call.args):
                slots.update({id(n): index for n in ast_nodes.walk(argument)})
        for attribute in sorted(registered):
            at = _fed_at(forward, me, attribute, slots)
            elsewhere = any(
                _mentions(method, attribute)
                for other, method in methods.items()
                if other not in ("__init__", "forward")
            )
            if at and not elsewhere:
                found.append(CallableFeed(name, position, attribute, at, calls[0].lineno))
    return tuple(found)


def _fed_at(
    forward: Function, me: str, attribute: str, slots: Mapping[int, int]
) -> frozenset[int] | None:
    """The argument positions `self.<attribute>`'s mentions in forward() all lie in (or a
    local name bound from it and read only there); None where one lies elsewhere."""
    mentions = [
        n
        for n in ast_nodes.walk(forward)
        if isinstance(n, ast.Attribute) and n.attr == attribute and is_self_attribute(n, me)
    ]
    if not mentions:
        return None
    at: set[int] = set()
    bound = {
        id(m): s.targets[0].id
        for s in ast_nodes.walk(forward)
        if isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name)
        for m in ast_nodes.walk(s.value)
    }
    for mention in mentions:
        if id(mention) in slots:
            at.add(slots[id(mention)])
            continue
        local = bound.get(id(mention))
        reads = [
            n
            for n in ast_nodes.walk(forward)
            if isinstance(n, ast.Name) and n.id == local and isinstance(n.ctx, ast.Load)
        ]
        if local is None or not reads or any(id(r) not in slots for r in reads):
            return None
        at.update(slots[id(r)] for r in reads)
    return frozenset(at)


def _mentions(function: Function, attribute: str) -> bool:
    return any(
        isinstance(n, ast.Attribute) and n.attr == attribute for n in ast_nodes.walk(function)
    )


# -- the caller ------------------------------------------------------------------------------
def _handed(
    cls: str,
    function: Function,
    methods: Mapping[str, Function],
    held: Mapping[str, tuple[str, ...]],
    registered: Iterable[str],
    functions: Mapping[str, Function],
    path: str,
) -> list[HandedCallable]:
    if not function.args.args:
        return []
    me = function.args.args[0].arg
    over = loop_variables(function, me)
    local = {
        n.name: n
        for n in ast_nodes.walk(function)
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n is not function
    }
    layers = set(registered)
    found: list[HandedCallable] = []
    for call in ast_nodes.walk(function):
        if not isinstance(call, ast.Call):
            continue
        func = call.func.value if isinstance(call.func, ast.Subscript) else call.func
        attribute = ""
        if is_self_attribute(func, me) and isinstance(func, ast.Attribute):
            attribute = func.attr
        elif isinstance(func, ast.Name) and func is call.func:
            attribute = over.get(func.id, "")
        callees = held.get(attribute, ())
        if not callees:
            continue
        given = [(i, "", a) for i, a in enumerate(call.args) if not isinstance(a, ast.Starred)]
        given += [(-1, k.arg, k.value) for k in call.keywords if k.arg is not None]
        for position, keyword, argument in given:
            reads = _reads(argument, me, methods, layers, {**functions, **local})
            text = ast.unparse(argument)
            text = text if len(text) <= 48 else text[:45] + "..."
            found.append(
                HandedCallable(
                    cls, attribute, callees, position, keyword, reads, text, call.lineno, path
                )
            )
    return found


def _reads(
    argument: ast.expr,
    me: str,
    methods: Mapping[str, Function],
    layers: set[str],
    functions: Mapping[str, Function],
) -> frozenset[int] | None:
    """Which of its own parameters the callable `argument` reads; None where not known."""
    if isinstance(argument, ast.Lambda):
        return _read_parameters(argument.args, argument.body)
    if is_self_attribute(argument, me) and isinstance(argument, ast.Attribute):
        if argument.attr in layers:
            return EVERY  # a layer reads its input
        method = methods.get(argument.attr)
        if method is not None and method.args.args:
            bound = ast.arguments(
                posonlyargs=[],
                args=method.args.args[1:],
                vararg=method.args.vararg,
                kwonlyargs=[],
                kw_defaults=[],
                kwarg=None,
                defaults=[],
            )
            return _read_parameters(bound, method)
        return None
    if isinstance(argument, ast.Name) and argument.id in functions:
        function = functions[argument.id]
        return _read_parameters(function.args, function)
    return None


def _read_parameters(arguments: ast.arguments, body: ast.AST) -> frozenset[int]:
    read = {n.id for n in ast_nodes.walk(body) if isinstance(n, ast.Name)}
    read &= {
        n.id
        for n in ast_nodes.walk(body)
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
    }
    if arguments.vararg is not None and arguments.vararg.arg in read:
        return EVERY
    return frozenset(i for i, a in enumerate(arguments.args) if a.arg in read)
