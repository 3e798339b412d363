"""Where a module builds DataLoaders, read with `ast` once per module for the program hints
(ProgramHints.loader_batch_attributes, builds_loaders; moved whole out of program_hints.py
at stop 48)."""

from __future__ import annotations

import ast

from dp2ddp.transforms._support import ast_nodes
from dp2ddp.transforms._support.ast_nodes import dotted


def loader_calls(tree: ast.Module) -> tuple[frozenset[str], bool]:
    """The attribute names a DataLoader (or a subclass named `...DataLoader`) of the module
    takes its batch_size from: `DataLoader(data, batch_size=opt.batch_size)` -> batch_size;
    and whether it calls one at all (ProgramHints.builds_loaders). A batch's size compared
    with such an attribute in another module (a model object's `is_train()`:
    `self.real_A.size(0) == self.opt.batch_size`) may compare the per-rank batch with the
    global size (data/size_guards.py, DP061)."""
    found: set[str] = set()
    builds = False
    for node in ast_nodes.listed(tree):  # the module's one listing
        parts = dotted(node.func) if isinstance(node, ast.Call) else None
        if isinstance(node, ast.Call) and parts and parts[-1].endswith("DataLoader"):
            builds = True
            for keyword in node.keywords:
                if keyword.arg == "batch_size" and isinstance(keyword.value, ast.Attribute):
                    found.add(keyword.value.attr)
    return frozenset(found), builds
