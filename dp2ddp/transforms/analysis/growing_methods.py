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


def _builds(value: ast.expr, holds: Holds) -> bool:
    """`value` builds a layer or parameter, also inside a list or comprehension."""
    return any(isinstance(n, ast.Call) and holds(n) is not None for n in ast.walk(value))


def _registration(node: ast.AST, me: str, holds: Holds) -> bool:
    """Whether the statement or call `node` registers parameters on `self` (one of its
    submodules): `self.x = nn.Linear(...)`, `setattr(self, n, layer)`,
    `self.body.add_module(n, layer)`, `self.blocks.append(Block())`."""
    if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        return any(
            isinstance(t, (ast.Attribute, ast.Subscript)) and _on_self(t, me) for t in targets
        ) and _builds(node.value, holds)
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    if isinstance(func, ast.Name) and func.id == "setattr" and len(node.args) == 3:
        return _on_self(node.args[0], me) and _builds(node.args[2], holds)
    if not isinstance(func, ast.Attribute) or not _on_self(func.value, me):
        return False
    if func.attr in REGISTERS:
        return True
    return func.attr in FILLS and any(_builds(a, holds) for a in node.args)


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
        for node in ast.walk(method):
            if name not in found and _registration(node, me, holds):
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
