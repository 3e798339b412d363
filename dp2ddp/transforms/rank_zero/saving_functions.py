"""Which functions of a module save (or load) a checkpoint: ProgramHints.saved_by and
loaded_by (rank_zero/barriers.py: a load after a call of another module's saver waits at a
ddp_barrier()). Moved out of program_hints.py whole (stop 49, to make room there).
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from dp2ddp.transforms._support import ast_nodes
from dp2ddp.transforms._support.ast_nodes import resolved_name


def saving_functions(
    tree: ast.Module, table: dict[str, str], target: str = "torch.save"
) -> frozenset[str]:
    """Names of the module's top-level functions and its top-level classes' methods that
    call `target` (torch.save), directly or through others of them (`f()`, `self.f()`)."""
    return _calling(tree, lambda func: resolved_name(func, table) == target)


def _calling(tree: ast.Module, direct: Callable[[ast.expr], bool]) -> frozenset[str]:
    """Names of the module's top-level functions and its top-level classes' methods that
    call what `direct` accepts (a call's func), directly or through others of them (`f()`,
    `self.f()`); a class whose `__call__` does is named `Cls.__call__` too, for the calls of
    its instances (`early_stopping(loss, model, path)`) in other modules."""
    functions: list[ast.FunctionDef | ast.AsyncFunctionDef] = []
    #: `Cls.__call__` for each class's `__call__`: an instance called (`stopper(loss)`)
    calls_of_instances: dict[int, str] = {}
    for statement in tree.body:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
            functions.append(statement)
        elif isinstance(statement, ast.ClassDef):
            for s in statement.body:
                if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    functions.append(s)
                    if s.name == "__call__":
                        calls_of_instances[id(s)] = f"{statement.name}.__call__"
    calls = {
        id(f): [n.func for n in ast_nodes.walk(f) if isinstance(n, ast.Call)] for f in functions
    }
    found = {f.name for f in functions if any(direct(func) for func in calls[id(f)])}
    while True:
        more = {
            f.name
            for f in functions
            if f.name not in found and any(_own_callee(func) in found for func in calls[id(f)])
        }
        if not more:
            break
        found |= more
    found |= {
        name
        for f in functions
        if (name := calls_of_instances.get(id(f)))
        and any(direct(func) or _own_callee(func) in found for func in calls[id(f)])
    }
    return frozenset(found)


def _own_callee(func: ast.expr) -> str:
    """`f` of `f(...)` or `self.f(...)`; "" otherwise."""
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
        return func.attr if func.value.id == "self" else ""
    return ""
