"""libcst's AddImportsVisitor and RemoveImportsVisitor, minus their costs that buy nothing.

A CodemodCommand runs them after a pass that scheduled imports to add or remove. Each
deep-copies the tree and rebuilds all of it, and RemoveImportsVisitor first resolves
libcst's scope analysis to find which imports are unused. Their edits only touch import
statements (and, for additions, the module's statement list), so these versions visit
only the way down to those, keep the rest of the tree as it is, and skip the copy; the
removal skips the scope analysis when an import's name is plainly not used at all (it
occurs in no name and no string outside import statements). Output is the same.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import cast

import libcst as cst
from libcst.codemod import CodemodContext
from libcst.codemod.visitors import AddImportsVisitor, RemoveImportsVisitor
from libcst.codemod.visitors._add_imports import _GatherTopImportsBeforeStatements
from libcst.helpers import get_absolute_module_from_package_for_import

from dp2ddp.flow.children import parent_map
from dp2ddp.transforms._support.libcst_private import NoCopy
from dp2ddp.transforms._support.nodes import walk
from dp2ddp.transforms._support.qualified import QualifiedNames

_Import = cst.Import | cst.ImportFrom


class TopLevelAddImports(NoCopy, AddImportsVisitor):
    """AddImportsVisitor, descending only into the module's top-level import lines (it
    only rewrites `from x import ...` statements at the top and the statement list)."""

    _descend: frozenset[cst.CSTNode] = frozenset()

    def visit_Module(self, node: cst.Module) -> None:
        # The gatherer only reads the leading imports (after a docstring), up to the first
        # other statement: give it just those (it visits all it is given, and the first
        # other statement can be the longest function of the module).
        body = node.body
        stop = next((i for i in range(1, len(body)) if not _is_import_line(body[i])), len(body))
        self._descend = frozenset(s for s in body if _is_import_line(s))
        # AddImportsVisitor.visit_Module (libcst 1.9), with its gatherer's only hook called
        # directly: `leave_Module` reads the statements itself, so libcst's visit of every
        # import on the way (each node rebuilt, then dropped) bought nothing and cost more
        # than the rest of adding an import.
        gatherer = _GatherTopImportsBeforeStatements(self.context)
        _gather_leading_imports(gatherer, body[:stop])
        self.all_imports = gatherer.all_imports
        self.module_imports = self.module_imports - gatherer.module_imports
        for module, alias in gatherer.module_aliases.items():
            if module in self.module_aliases and self.module_aliases[module] == alias:
                del self.module_aliases[module]
        for module, aliases in gatherer.alias_mapping.items():
            for obj, alias in aliases:
                if module in self.alias_mapping and (obj, alias) in self.alias_mapping[module]:
                    self.alias_mapping[module].remove((obj, alias))
                    if len(self.alias_mapping[module]) == 0:
                        del self.alias_mapping[module]
        for module, imports in gatherer.object_mapping.items():
            if module not in self.module_mapping:
                continue
            if "*" in imports:
                del self.module_mapping[module]
            else:
                self.module_mapping[module] = self.module_mapping[module] - imports
                if not self.module_mapping[module]:
                    del self.module_mapping[module]

    def on_visit(self, node: cst.CSTNode) -> bool:
        descend = super().on_visit(node)
        return descend and (isinstance(node, cst.Module) or node in self._descend)

    def leave_Module(self, original_node: cst.Module, updated_node: cst.Module) -> cst.Module:
        # libcst parses the new import lines with the module's parser configuration, which
        # refuses an indent other than spaces and tabs; a form feed in the first indented
        # line (valid Python: the tokenizer resets the column there) is taken into the
        # module's default_indent, and adding an import failed with a ValueError. Import
        # lines are not indented: parse them with four spaces, keep the module's own.
        indent = updated_node.default_indent
        if _INDENT.fullmatch(indent):
            return super().leave_Module(original_node, updated_node)
        added = super().leave_Module(
            original_node, updated_node.with_changes(default_indent="    ")
        )
        return added.with_changes(default_indent=indent)


def _gather_leading_imports(
    gatherer: _GatherTopImportsBeforeStatements, body: Sequence[cst.BaseStatement]
) -> None:
    """The gatherer's `leave_Module` (libcst 1.9) on a module of `body`, its statements
    tested by type where libcst runs a matcher on each (`SimpleStatementLine(body=[
    ImportFrom() | Import()])`, and two on the first): the same imports handled, in the
    same order, for a fraction of the calls (stop 56: the matchers cost ~0.7% of a run)."""
    start = 1 if _skip_first(body) else 0
    for statement in body[start:]:
        if not (
            isinstance(statement, cst.SimpleStatementLine)
            and len(statement.body) == 1
            and isinstance(statement.body[0], (cst.Import, cst.ImportFrom))
        ):
            break
        gatherer.all_imports.append(statement.body[0])
    for imp in gatherer.all_imports:
        if isinstance(imp, cst.Import):
            gatherer._handle_Import(imp)
        else:
            gatherer._handle_ImportFrom(imp)


def _skip_first(body: Sequence[cst.BaseStatement]) -> bool:
    """libcst's `_skip_first`: the module starts with a `__strict__ = ...` line or a
    docstring (a lone simple string), where no import is placed before."""
    if not body or not isinstance(body[0], cst.SimpleStatementLine) or len(body[0].body) != 1:
        return False
    line = body[0].body[0]
    if isinstance(line, cst.Expr):
        return isinstance(line.value, cst.SimpleString)
    return (
        isinstance(line, cst.Assign)
        and len(line.targets) == 1
        and isinstance(line.targets[0].target, cst.Name)
        and line.targets[0].target.value == "__strict__"
    )


#: What libcst's parser configuration accepts as an indent.
_INDENT = re.compile(r"[ \t]+")


class KnownUnusedRemoveImports(NoCopy, RemoveImportsVisitor):
    """RemoveImportsVisitor told which of the scheduled imports are unused (see
    `known_unused`), so it needs no scope analysis; it visits only the way down to them."""

    def __init__(
        self,
        context: CodemodContext,
        unused: dict[cst.ImportAlias, _Import],
        descend: frozenset[cst.CSTNode],
    ) -> None:
        super().__init__(context)
        self._known = unused
        self._descend = descend

    def visit_Module(self, node: cst.Module) -> None:
        self._unused_imports = dict(self._known)

    def on_visit(self, node: cst.CSTNode) -> bool:
        descend = super().on_visit(node)
        return descend and (isinstance(node, cst.Module) or node in self._descend)


def remove_imports(context: CodemodContext, tree: cst.Module) -> cst.Module | None:
    """RemoveImportsVisitor's result without its scope analysis, or None when whether a
    scheduled import is used takes libcst's scope analysis to tell.

    An import is unused, as libcst's gatherer decides, when no name outside import
    statements is one it binds (there is then no access), none is `__all__` (exports) and
    no string it might read as an annotation mentions it. It is used when a name it binds
    is bound only by module-level imports and some node accesses it (QualifiedNames
    resolves that node to them).
    """
    parents = parent_map(tree)
    if parents is None:  # a node object occurs twice: copy, as libcst would
        tree = tree.deep_clone()
        parents = parent_map(tree)
        assert parents is not None
    scheduled = RemoveImportsVisitor(context)  # parses the schedule in context.scratch
    imports: list[_Import] = []
    for node in parents:
        if type(node) is cst.Import or type(node) is cst.ImportFrom:
            imports.append(node)
    consulted = [(a, s) for s in imports for a in _consulted(scheduled, context, s)]
    if not consulted:
        return tree  # nothing it could remove: it would rebuild the same tree
    in_imports = {n for statement in imports for n in walk(statement)}
    uses: dict[str, list[cst.Name]] = {}  # name -> the Name nodes outside imports
    annotations: list[str | None] = []  # texts of strings that may be annotations
    for node in parents:
        kind = type(node)
        if kind is cst.Name:
            if node not in in_imports:
                name = cast(cst.Name, node)
                uses.setdefault(name.value, []).append(name)
        elif (kind is cst.SimpleString or kind is cst.ConcatenatedString) and _annotation(
            node, parents
        ):
            text = node.evaluated_value  # type: ignore[attr-defined]
            annotations.append(text if isinstance(text, str) else None)
    names = QualifiedNames(tree, parents)
    unused: dict[cst.ImportAlias, _Import] = {}
    for alias, statement in consulted:
        bound = _bound_names(alias)
        if not any(name.partition(".")[0] in uses for name in bound) and not any(
            text is None or any(name in text for name in bound) for text in annotations
        ):
            if "__all__" in uses:
                return None
            unused[alias] = statement
        elif len(bound) != 1 or not names.accessed(bound[0], statement, uses.get(bound[0], [])):
            return None
    descend: set[cst.CSTNode] = set()
    for statement in unused.values():
        up: cst.CSTNode | None = statement
        while up is not None and up not in descend:
            descend.add(up)
            up = parents.get(up)
    remover = KnownUnusedRemoveImports(context, unused, frozenset(descend))
    return remover.transform_module(tree)


def _annotation(node: cst.CSTNode, parents: Mapping[cst.CSTNode, cst.CSTNode]) -> bool:
    """Might libcst read this string as a type annotation (a superset of when it does)?"""
    while node in parents:
        node = parents[node]
        if isinstance(node, cst.Annotation):
            return True
        if isinstance(node, cst.Call):
            func = node.func
            name = func.attr if isinstance(func, cst.Attribute) else func
            if isinstance(name, cst.Name) and name.value == "TypeVar":
                return True
    return False


def _consulted(
    scheduled: RemoveImportsVisitor, context: CodemodContext, statement: _Import
) -> list[cst.ImportAlias]:
    """The aliases of `statement` RemoveImportsVisitor removes if they are unused: those
    scheduled, among those its unused-import gatherer looks at."""
    if isinstance(statement, cst.Import):
        modules = scheduled.unused_module_imports
        return [
            alias
            for alias in statement.names
            if alias.evaluated_name in modules
            and modules[alias.evaluated_name] == alias.evaluated_alias
        ]
    names = statement.names
    module = statement.module
    if isinstance(names, cst.ImportStar) or module is None:
        return []
    if isinstance(module, cst.Name) and module.value == "__future__":
        return []  # ignored by the gatherer
    absolute = get_absolute_module_from_package_for_import(context.full_package_name, statement)
    objects = scheduled.unused_obj_imports.get(absolute) if absolute is not None else None
    if not objects:
        return []
    return [alias for alias in names if (alias.evaluated_name, alias.evaluated_alias) in objects]


def _bound_names(alias: cst.ImportAlias) -> list[str]:
    """The names an import alias binds: `x as y` -> ["y"], `a.b` -> ["a.b", "a"]."""
    if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
        return [alias.asname.name.value]
    parts = alias.evaluated_name.split(".")
    return [".".join(parts[:i]) for i in range(len(parts), 0, -1)]


def _is_import_line(statement: cst.CSTNode) -> bool:
    return isinstance(statement, cst.SimpleStatementLine) and any(
        isinstance(small, (cst.Import, cst.ImportFrom)) for small in statement.body
    )
