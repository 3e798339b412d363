"""DP069's proof: an optimizer over a model that is not the wrapped one.

The model an optimizer updates is not the wrapped one, and no sync of
analysis/outside_parameters.py covers it (K1, stop 30:
peterliht/knowledge-distillation-pytorch@b1e4b6a, where only the frozen teacher is
`nn.DataParallel` and the student, the model the optimizer updates, is a plain module).
Migrated, each rank trains its own copy of it on its share, with no gradient averaging: the
copies drift apart from the first step and the saved one is rank 0's. Nothing fails. Its proof
is narrow on purpose, within one scope (a function, or the module's top level): the optimizer's
parameters are `name.parameters()` (also inside `filter`/`list`/a list), and every binding of
`name` in that scope is a construction that does not wrap: a call (through `.cuda()`/`.to()`,
either side of an `if`-expression) that is not DataParallel and not a function known to wrap,
and that is not handed `name` itself. A name that any DataParallel call of the module takes or
is assigned to is the wrapped model (`opt = SGD(net.parameters()); model = DataParallel(net)`),
as is a parameter of the scope (the caller's object). Where the sync's wider proof covers the
same optimizer and model, the sync (or DP068's place) is the answer and DP069 is not given.

A binding of the name to itself or a moved copy of itself (`keeps_itself`: `student =
student.double() if half else student`) adds nothing to what it may be, here and for the
sync (analysis/outside_parameters.py, which gives DP069 where no sync covers the optimizer).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator

import libcst as cst

from dp2ddp.flow import origins, view
from dp2ddp.flow.origins import Origin
from dp2ddp.transforms._support.nodes import (
    MODULE_SELF_CALLS,
    code_of,
    name_of,
    nodes_of,
    unmoved,
    walk,
)


def keeps_itself(value: cst.BaseExpression, x: str, code: Callable[[cst.CSTNode], str]) -> bool:
    """`value` is what `x` already holds: `x` itself with the module's own calls chained on
    it (`x.double()`, `x.cuda()`), or an `if`-expression one side of which is that and the
    other too or a construction (`x.half() if amp else x`, `Net() if fresh else x`). Such a
    binding adds nothing to what x may be: its other bindings answer."""
    if isinstance(value, cst.IfExp):
        sides = (value.body, value.orelse)
        keeps = [keeps_itself(side, x, code) for side in sides]
        return any(keeps) and all(
            k or isinstance(unmoved(side), cst.Call) for k, side in zip(keeps, sides, strict=True)
        )
    return code(unmoved(value)) == x


def _wrapped_names(call: cst.Call) -> Iterator[str]:
    """The module a DataParallel call takes, as a bare name (through `.cuda()`/`.to()`)."""
    if not call.args:
        return
    value: cst.BaseExpression = call.args[0].value
    while isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute):
        if value.func.attr.value not in MODULE_SELF_CALLS:
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
    call = unmoved(value)
    if not isinstance(call, cst.Call) or is_wrap(call):
        return False
    return not any(isinstance(n, cst.Name) and n.value == name for n in walk(call))


def _binds(target: cst.AssignTarget, name: str) -> bool:
    return isinstance(target.target, cst.Name) and target.target.value == name


def unwrapped_optimizers(
    module: cst.Module,
    is_optimizer: Callable[[cst.Call], bool],
    is_wrap: Callable[[cst.Call], bool],
    others: frozenset[str] = frozenset(),
    qualified_names: Callable[[cst.CSTNode], set[str]] | None = None,
) -> list[tuple[cst.Call, str]]:
    """Optimizer calls over a module proved not to be the wrapped one, with its name; not
    one bound from a builder that may return a wrap (`_holds_wrap`; `others`: the other
    modules' functions whose body wraps). Given `qualified_names`, also those the def-use
    view proves (unwrapped_held_optimizers)."""
    wraps = [n for n in nodes_of(module, cst.Call) if is_wrap(n)]
    if not wraps:
        return []
    found = _scoped_unwrapped(module, is_optimizer, is_wrap, others, wraps)
    if qualified_names is not None:
        held = unwrapped_held_optimizers(module, is_optimizer, is_wrap, qualified_names, wraps)
        found += [pair for pair in held if pair not in found]
    return found


def _scoped_unwrapped(
    module: cst.Module,
    is_optimizer: Callable[[cst.Call], bool],
    is_wrap: Callable[[cst.Call], bool],
    others: frozenset[str],
    wraps: list[cst.Call],
) -> list[tuple[cst.Call, str]]:
    """unwrapped_optimizers' proof within one scope (the module docstring's)."""
    wrapped: set[str] = set()
    for call in wraps:
        wrapped.update(_wrapped_names(call))
    for node in nodes_of(module, cst.Assign):
        if any(is_wrap(n) for n in nodes_of(node.value, cst.Call)):
            wrapped.update(t.target.value for t in node.targets if isinstance(t.target, cst.Name))
    scopes: list[cst.CSTNode] = [module]
    scopes += nodes_of(module, cst.FunctionDef)
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
            for name in _optimized(module, call.args[0].value, nodes):
                if name in wrapped or name in params or _holder_of_wraps(name, nodes, is_wrap):
                    continue
                bindings = [
                    n.value
                    for n in nodes
                    if isinstance(n, cst.Assign)
                    and any(_binds(t, name) for t in n.targets)
                    and not keeps_itself(n.value, name, code_of)
                ]
                if bindings and all(
                    _constructs(v, name, is_wrap) or _picked(module, v, name, is_wrap)
                    for v in bindings
                ):
                    if not any(_holds_wrap(module, v, is_wrap, others) for v in bindings):
                        found.append((call, name))
                        break
    return found


def _optimized(module: cst.Module, expr: cst.BaseExpression, nodes: list[cst.CSTNode]) -> list[str]:
    """The modules whose parameters an optimizer's first argument holds: `name` of
    `name.parameters()`, and each plain name handed to a function of the program the
    argument calls, itself or through a name of its scope bound from such a call
    (`_, head_params = split_params(head)`: round 32, ZhaoJ9014/face.evoLVe@a9897bd's
    ArcFace head, trained outside the wrap on each rank's share, unsaid)."""
    found = [name] if (name := _parameters_of(expr)) is not None else []
    bases = {id(n.value) for n in walk(expr) if isinstance(n, cst.Attribute)}
    reads = {n.value for n in walk(expr) if isinstance(n, cst.Name) and id(n) not in bases}
    calls = [n for n in walk(expr) if isinstance(n, cst.Call)]
    calls += [  # `a, b = helper(m)` then `a` read as a plain name (not `self.a`)
        n.value
        for n in nodes
        if isinstance(n, cst.Assign)
        and isinstance(n.value, cst.Call)
        and any(
            isinstance(e, cst.Name) and e.value in reads
            for t in n.targets
            for e in (
                [t.target]
                if isinstance(t.target, cst.Name)
                else [x.value for x in getattr(t.target, "elements", ())]
            )
        )
    ]
    for call in calls:
        if isinstance(call.func, cst.Name) and _program_function(module, call.func.value):
            found += [a.value.value for a in call.args if isinstance(a.value, cst.Name)]
    return list(dict.fromkeys(found))


def _program_function(module: cst.Module, name: str) -> bool:
    """`name` is a function this module defines, or imports from a module of no library
    (a relative import, or a root that is not torch's, numpy's or the standard library's)."""
    if any(f.name.value == name for f in nodes_of(module, cst.FunctionDef)):
        return True
    for imported in nodes_of(module, cst.ImportFrom):
        if isinstance(imported.names, cst.ImportStar) or not any(
            code_of(a.asname.name if a.asname else a.name) == name for a in imported.names
        ):
            continue
        if imported.relative:
            return True
        root = code_of(imported.module).split(".")[0] if imported.module is not None else ""
        return root not in _LIBRARIES and root not in sys.stdlib_module_names
    return False


def _picked(
    module: cst.Module, value: cst.BaseExpression, name: str, is_wrap: Callable[[cst.Call], bool]
) -> bool:
    """`value` picks a module from a dict every binding of which (in the module) is a
    display of constructions that do not wrap (`HEAD = HEADS[cfg["head"]]`)."""
    if not (isinstance(value, cst.Subscript) and isinstance(value.value, cst.Name)):
        return False
    table = value.value.value
    displays = [
        n.value for n in nodes_of(module, cst.Assign) if any(_binds(t, table) for t in n.targets)
    ]
    return bool(displays) and all(
        isinstance(d, cst.Dict)
        and bool(d.elements)
        and all(
            isinstance(e, cst.DictElement) and _constructs(e.value, name, is_wrap)
            for e in d.elements
        )
        for d in displays
    )


#: Libraries whose functions are no program's own parameter helpers.
_LIBRARIES = frozenset({"torch", "torchvision", "numpy", "itertools", "timm", "transformers"})


def _holds_wrap(
    module: cst.Module,
    value: cst.BaseExpression,
    is_wrap: Callable[[cst.Call], bool],
    others: frozenset[str],
) -> bool:
    """`value` (a call binding the optimized name) may be a wrap a builder returns: a
    source of it (flow/origins.py, through this module's functions' returns) is a wrap
    (`def build(): ...; return DataParallel(Net())`, also through a name: `m =
    DataParallel(m); return m`), or a call of another module's function whose body wraps
    (its return is not read here). Such a name is the wrapped model: no DP069."""
    last = {name.rsplit(".", 1)[-1] for name in others}
    for origin in origins(view(module), value, stop=is_wrap):
        node = origin.node
        if isinstance(node, cst.Call) and (
            is_wrap(node) or name_of(node.func, through=(cst.Call,)).rsplit(".", 1)[-1] in last
        ):
            return True
    return False


def _holder_of_wraps(
    name: str, nodes: list[cst.CSTNode], is_wrap: Callable[[cst.Call], bool]
) -> bool:
    """`name` is a bare `nn.Module()` holding only wrapped parts: every binding of it is
    `nn.Module()` (no parameter of its own) and every part registered on it
    (`name.add_module("x", m)`, `name.x = m`) is set again to a wrap of it (`name.x =
    DataParallel(name.x)`), so DDP averages each of its parameters (round 37, Nanne/
    pytorch-NetVlad@def998e: a false DP069 for an optimizer over such a holder)."""
    bound, parts, wrapped = False, set[str](), set[str]()
    for node in nodes:
        if isinstance(node, cst.Assign):
            for target in (t.target for t in node.targets):
                if isinstance(target, cst.Name) and target.value == name:
                    value = node.value
                    if not (isinstance(value, cst.Call) and not value.args):
                        return False
                    if code_of(value.func) not in ("nn.Module", "torch.nn.Module"):
                        return False
                    bound = True
                elif isinstance(target, cst.Attribute) and code_of(target.value) == name:
                    calls = [n for n in nodes_of(node.value, cst.Call) if is_wrap(n)]
                    (wrapped if calls else parts).add(target.attr.value)
        elif (
            isinstance(node, cst.Call)
            and isinstance(node.func, cst.Attribute)
            and node.func.attr.value == "add_module"
            and code_of(node.func.value) == name
        ):
            key = node.args[0].value if node.args else None
            if not isinstance(key, cst.SimpleString):
                return False
            parts.add(key.evaluated_value if isinstance(key.evaluated_value, str) else "")
    return bound and bool(wrapped) and parts <= wrapped


def unwrapped_held_optimizers(
    module: cst.Module,
    is_optimizer: Callable[[cst.Call], bool],
    is_wrap: Callable[[cst.Call], bool],
    qualified_names: Callable[[cst.CSTNode], set[str]],
    wraps: list[cst.Call],
) -> list[tuple[cst.Call, str]]:
    """Optimizer calls over `E.parameters()`, E an item (`x["k"]`, whose value the def-use
    view takes, where an attribute's it does not), where every value the view finds E may
    hold (through names, dicts, parameters and returns) is a module built here
    that no wrap takes: a program class's instance or a torch.nn layer (`criterion
    ["center"]` of `build_criterion()`'s `{"center": CenterLoss(n, d)}`, handed to
    `build_optimizers(model, criterion)`: round 39, mangye16/ReID-Survey@38f5912's centre
    loss, each rank stepping its own centres, unsaid). With E's text, for DP069. `wraps`:
    the module's wrap calls (unwrapped_optimizers' own list)."""
    flow = view(module)
    wrapped = {
        id(o.node) for w in wraps if w.args for o in origins(flow, w.args[0].value) if not o.selects
    }
    found: list[tuple[cst.Call, str]] = []
    for call in nodes_of(module, cst.Call):
        if not call.args or not is_optimizer(call):
            continue
        for inner in walk(call.args[0].value):
            if not (
                isinstance(inner, cst.Call)
                and isinstance(inner.func, cst.Attribute)
                and inner.func.attr.value == "parameters"
                and isinstance(inner.func.value, cst.Subscript)  # the view takes its item
            ):
                continue
            held = [
                o
                for o in origins(flow, inner.func.value)
                if not o.selects and not _empty_container(o.node)  # `c = {}`, then c["k"] = m
            ]
            if held and all(_built_unwrapped(o, wrapped, is_wrap, qualified_names) for o in held):
                found.append((call, code_of(inner.func.value)))
                break
    return found


def _built_unwrapped(
    origin: Origin,
    wrapped: set[int],
    is_wrap: Callable[[cst.Call], bool],
    qualified_names: Callable[[cst.CSTNode], set[str]],
) -> bool:
    """The origin is a module's construction no wrap of the module takes."""
    node = origin.node
    if not isinstance(node, cst.Call) or is_wrap(node) or id(node) in wrapped:
        return False
    if origin.kind == "instance":
        return not any(isinstance(s.node, cst.Attribute) for s in origin.path)  # its own
    names = qualified_names(node.func)
    return origin.kind == "call" and any(
        n.startswith("torch.nn.") and n.rpartition(".")[2][:1].isupper() for n in names
    )


def _empty_container(node: cst.CSTNode) -> bool:
    """`{}`, `[]`, `dict()`: the container a helper fills item by item (ReID-Survey's
    `criterion = {}; criterion['center'] = CenterLoss(...)`), no module of its own."""
    if isinstance(node, (cst.Dict, cst.List)):
        return not node.elements
    return isinstance(node, cst.Call) and name_of(node.func) in ("dict", "list") and not node.args
