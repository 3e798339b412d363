"""nn.Module classes DataParallel wraps only a part of (round 10 v3-A, DP115).

A class whose own code wraps a submodule it holds (`self.encoder = nn.DataParallel(enc)`,
Philip-Bachman/amdim-public@8754ae1's `Model`, and its loss module's `self.nce_func =
nn.DataParallel(NCE_MI_MULTI(...))`) is not wrapped itself: its forward() ran once, on the
whole batch the inner wrap gathered, and so did whatever the program does with its output.
A class that builds such a class in its `__init__` is the same, transitively. The program
tells it as ModelClass.part_wrap, so that hazards/sub_wraps.py can treat a call of an
instance like a wrapped model's: its output was the whole batch under DataParallel and is
one rank's share under DDP.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping


def held_wrap(cls: ast.ClassDef, path: str) -> str:
    """`self.encoder (path:line)` of the first `self.x = nn.DataParallel(...)` of the class's
    methods (`DataParallel` as the call's last name); "" if none."""
    for method in cls.body:
        if not isinstance(method, ast.FunctionDef) or not method.args.args:
            continue
        me = method.args.args[0].arg
        for node in ast.walk(method):
            if not (isinstance(node, ast.Assign) and isinstance(node.value, ast.Call)):
                continue
            func = node.value.func
            last = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if last != "DataParallel":
                continue
            for target in node.targets:
                if (
                    isinstance(target, ast.Attribute)
                    and isinstance(target.value, ast.Name)
                    and target.value.id == me
                ):
                    where = f"{path}:{node.lineno}" if path else f"line {node.lineno}"
                    return f"{cls.name}.{target.attr} ({where})"
    return ""


def partly_wrapped(
    held: Mapping[str, str], children: Mapping[str, tuple[str, ...]]
) -> dict[str, str]:
    """Per class (qualified name): its own held wrap (`held`), else the first of the classes
    its `__init__` builds (`children`) that is partly wrapped, transitively."""
    done: dict[str, str] = {}

    def visit(name: str, seen: frozenset[str]) -> str:
        if name in done:
            return done[name]
        if name in seen:
            return ""
        found = held.get(name, "")
        for child in children.get(name, ()) if not found else ():
            found = visit(child, seen | {name})
            if found:
                break
        done[name] = found
        return found

    names = children.keys() | held.keys()
    return {name: how for name in names if (how := visit(name, frozenset()))}
