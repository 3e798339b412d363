"""The methods of an nn.Module class that register parameters on `self` outside
`__init__` (a progressive GAN's `grow_network()`): read once per module with the program's
model classes (partial_forward.module_classes); a call of one through a wrapped model's
`.module` grows it after the wrap (DP098, analysis/grown_models.py)."""

from __future__ import annotations

import ast
from collections.abc import Callable

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
        for n in ast.walk(value)
    )


def _registers_on(call: ast.Call, holds: Holds, built: set[str]) -> bool:
    """`x.add_module(n, m)`, `x.register_parameter(n, p)`, `x.append(layer)` on any `x`."""
    attr = call.func.attr if isinstance(call.func, ast.Attribute) else ""
    return attr in REGISTERS or (attr in FILLS and any(_builds(a, holds, built) for a in call.args))


def _built_locals(method: ast.AST, holds: Holds) -> set[str]:
    """The method's local names that hold new layers: assigned a layer (`m = nn.Sequential()`
    counts once something is added to it), or given one (`m.add_module(n, block)`,
    GenerativeSkinLesion's `new_model = deepcopy_exclude(...)` then
    `new_model.add_module('fadein', Fadein())`)."""
    built: set[str] = set()
    for node in ast.walk(method):
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
    if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        return any(
            isinstance(t, (ast.Attribute, ast.Subscript)) and _on_self(t, me) for t in targets
        ) and _builds(node.value, holds, built)
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    if isinstance(func, ast.Name) and func.id == "setattr" and len(node.args) == 3:
        return _on_self(node.args[0], me) and _builds(node.args[2], holds, built)
    if not isinstance(func, ast.Attribute) or not _on_self(func.value, me):
        return False
    return _registers_on(node, holds, built)


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
        for node in ast.walk(method):
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
