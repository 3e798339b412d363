"""The methods of an nn.Module class that register parameters on `self` outside
`__init__` (a progressive GAN's `grow_network()`): read once per module with the program's
model classes (partial_forward.module_classes); a call of one through a wrapped model's
`.module` grows it after the wrap (DP098, analysis/grown_models.py)."""

from __future__ import annotations

import ast
from collections.abc import Callable

from dp2ddp.transforms._support import ast_nodes

#: Calls on a module that register what they are given (any argument counts).
REGISTERS = frozenset({"add_module", "register_module", "register_parameter"})
#: Calls on a container that add an entry (it counts when the entry holds parameters).
FILLS = frozenset({"append", "extend", "insert", "update"})

#: `has_parameters`' signature with the module's imports bound: whether an expression
#: builds a module or parameter (None: not known to).
Holds = Callable[[ast.expr], "str | None"]


def _on_self(node: ast.expr, me: str) -> bool:
    """`self` or an attribute path from it (`self.body`, `self.blocks[0]`)."""
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        node = node.value
    return isinstance(node, ast.Name) and node.id == me


def _builds(value: ast.expr, holds: Holds, built: set[str]) -> bool:
    """`value` builds a layer or parameter, also inside a list or comprehension, or names a
    local `built` holds (see _built_locals)."""
    return any(
        (isinstance(n, ast.Call) and holds(n) is not None)
        or (isinstance(n, ast.Name) and n.id in built)
        for n in ast_nodes.walk(value)
    )


def put_into(node: ast.AST) -> tuple[list[ast.expr], str, list[ast.expr]] | None:
    """The one reading of "this statement puts something into an object", for DP098's
    registrations outside `__init__` (growing_methods) and the holders `__init__` builds
    (dropped_outputs.held_classes): (the receivers, how, what goes in) for `x.add_module(n,
    m)`, `x.register_parameter(n, p)`, `x.append(m)` and the other fills (how: the method;
    every argument), `setattr(x, n, v)` ("setattr", [v]), `x.a = v`, `x[k] = v` ("=", each
    such target, [v]); None for anything else."""
    if isinstance(node, ast.Call):
        func = node.func
        if isinstance(func, ast.Name) and func.id == "setattr" and len(node.args) == 3:
            return [node.args[0]], "setattr", [node.args[2]]
        if isinstance(func, ast.Attribute) and func.attr in REGISTERS | FILLS:
            return [func.value], func.attr, list(node.args)
        return None
    if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        found: list[ast.expr] = [
            t for t in targets if isinstance(t, (ast.Attribute, ast.Subscript))
        ]
        return (found, "=", [node.value]) if found else None
    return None


def _registers_on(call: ast.Call, holds: Holds, built: set[str]) -> bool:
    """`x.add_module(n, m)`, `x.register_parameter(n, p)`, `x.append(layer)` on any `x`."""
    put = put_into(call)
    if put is None or put[1] in ("setattr", "="):
        return False
    return put[1] in REGISTERS or any(_builds(a, holds, built) for a in put[2])


def _built_locals(method: ast.AST, holds: Holds) -> set[str]:
    """The method's local names that hold new layers: assigned a layer (`m = nn.Sequential()`
    counts once something is added to it), or given one (`m.add_module(n, block)`,
    GenerativeSkinLesion's `new_model = deepcopy_exclude(...)` then
    `new_model.add_module('fadein', Fadein())`)."""
    built: set[str] = set()
    for node in ast_nodes.walk(method):
        if isinstance(node, ast.Assign) and _builds(node.value, holds, set()):
            built.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and isinstance(node.func.value, ast.Name)
            and _registers_on(node, holds, set())
        ):
            built.add(node.func.value.id)
    return built


def _registration(node: ast.AST, me: str, holds: Holds, built: set[str]) -> bool:
    """Whether the statement or call `node` registers parameters on `self` (one of its
    submodules): `self.x = nn.Linear(...)` (or a local holding new layers),
    `setattr(self, n, layer)`, `self.body.add_module(n, layer)`,
    `self.blocks.append(Block())`."""
    put = put_into(node)
    if put is None or not any(_on_self(r, me) for r in put[0]):
        return False
    return put[1] in REGISTERS or any(_builds(v, holds, built) for v in put[2])


def growing_methods(cls: ast.ClassDef, holds: Holds) -> tuple[tuple[str, int], ...]:
    """The methods of `cls` other than `__init__` that register parameters on `self`,
    each with the line of the first registration; also a method that calls such a method
    of `self` (`def grow_network(self): self._add_block()`), with that call's line."""
    methods = {
        n.name: n
        for n in cls.body
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.args.args
    }
    found: dict[str, int] = {}
    calls: dict[str, list[tuple[str, int]]] = {}
    for name, method in methods.items():
        if name == "__init__":
            continue
        me = method.args.args[0].arg
        built = _built_locals(method, holds)
        for node in ast_nodes.walk(method):
            if name not in found and _registration(node, me, holds, built):
                found[name] = getattr(node, "lineno", method.lineno)
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and isinstance(node.func.value, ast.Name)
                and node.func.value.id == me
                and node.func.attr in methods
            ):
                calls.setdefault(name, []).append((node.func.attr, node.lineno))
    changed = True
    while changed:  # a fixed point over the class's own calls: linear in practice
        changed = False
        for name, called in calls.items():
            line = next((at for callee, at in called if callee in found), None)
            if name not in found and name != "__init__" and line is not None:
                found[name], changed = line, True
    return tuple(sorted(found.items()))
