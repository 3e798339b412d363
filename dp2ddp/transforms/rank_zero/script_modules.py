"""Modules that run as scripts of their own: a `__main__` block (its guard), and one that
wraps a model with DataParallel there (ProgramHints.script). Moved whole out of
program_hints.py (stop 53 s2, to make room there)."""

from __future__ import annotations

import ast

from dp2ddp.transforms._support import ast_nodes


def guard(statement: ast.stmt) -> bool:
    """`if __name__ == "__main__":`."""
    return isinstance(statement, ast.If) and ast_nodes.is_script_guard(statement.test)


def wraps_as_script(tree: ast.Module) -> bool:
    """The module's `__main__` block wraps a model with DataParallel, in the block or in a
    top-level function or class of the module it calls (through others of them): it is a
    script of its own (ProgramHints.script). A class the block constructs counts with all
    its methods: a trainer class wrapping in `__init__` (`trainer = ModelTrainer(...)`,
    fewshot-egnn's train.py, imported by its eval.py: v4-A of stop 57) or in the method
    the block calls next."""
    functions: dict[str, ast.AST] = {
        s.name: s
        for s in tree.body
        if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
    }
    blocks = [s for s in tree.body if guard(s)]
    todo: list[ast.AST] = list(blocks)
    seen: set[str] = set()
    while todo:
        for node in ast_nodes.walk(todo.pop()):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if name == "DataParallel":
                return True
            if isinstance(func, ast.Name) and name in functions and name not in seen:
                seen.add(name)
                todo.append(functions[name])
    return False
