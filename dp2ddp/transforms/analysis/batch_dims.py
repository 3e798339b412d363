"""DataParallel's `dim` across a program's modules (ast only: program hints are built from
every module before any is migrated), for the batches pass of a module that iterates
batches but does not wrap the model itself."""

from __future__ import annotations

import ast
from collections.abc import Iterable

from dp2ddp.transforms._support import ast_nodes


def scatter_dims(trees: Iterable[ast.Module]) -> frozenset[str]:
    """The `dim` of every `DataParallel(...)` call, as written ("0" where not given)."""
    dims: set[str] = set()
    for tree in trees:
        for node in ast_nodes.listed(tree):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if name != "DataParallel":
                continue
            given = [k.value for k in node.keywords if k.arg == "dim"]
            if len(node.args) > 3:
                given.append(node.args[3])
            dims.add(ast.unparse(given[0]) if given else "0")
    return frozenset(dims)
