"""Which modules are scripts: the ast test discovery applies to every file it reads once.

A module with a `__main__` guard or training code at its top level is an entry of its own
(folder mode migrates it as one); the guard test is
`transforms._support.ast_nodes.is_script_guard` (libcst's: `_support.nodes`).
"""

from __future__ import annotations

import ast

from dp2ddp.transforms._support import ast_nodes
from dp2ddp.transforms._support.ast_nodes import is_script_guard

_TOP_LEVEL_CODE = (ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith)


def is_entry_script(tree: ast.Module) -> bool:
    """A `__main__` guard, or training code at the top level (also under a top-level
    `if` or `try`): a loop, a `with`, a call statement, a DataParallel wrap."""
    return _has_top_level_code(tree.body)


def _has_top_level_code(body: list[ast.stmt]) -> bool:
    for stmt in body:
        if isinstance(stmt, ast.If) and is_script_guard(stmt.test):
            return True
        if isinstance(stmt, _TOP_LEVEL_CODE):
            return True
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
            return True
        if isinstance(stmt, ast.If) and _has_top_level_code(stmt.body + stmt.orelse):
            return True
        if isinstance(stmt, ast.Try) and _has_top_level_code(stmt.body):
            return True
        if isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)) and any(
            isinstance(n, ast.Attribute | ast.Name)
            and (n.attr if isinstance(n, ast.Attribute) else n.id) == "DataParallel"
            for n in ast_nodes.walk(stmt)
        ):
            return True
    return False
