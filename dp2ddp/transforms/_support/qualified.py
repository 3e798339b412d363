"""Qualified names as libcst's QualifiedNameProvider gives them, without its scope analysis.

The transforms ask for the qualified names of a few hundred call targets per pass, and
resolving libcst's ScopeProvider for the whole module, in every pass, just to answer them
was a third of a migration's time. `QualifiedNames.names` answers from one walk's worth of
facts: which names module-level imports bind, and which scopes bind every other name. It
mirrors libcst 1.x's `Scope.get_qualified_names_for` (including its quirks: an access
before any assignment in its own scope looks past it, attribute and keyword names get no
names), and returns None wherever that mirroring would take more than these facts (a name
bound by both an import and an assignment, `nonlocal`, dotted imports inside
functions or imports in class bodies, match patterns, type parameters, an access whose
binding order is not plain): the caller then asks libcst. A `global` name in a function
is answered (its bindings there are the module's, as libcst records them): training
scripts say `global best_acc`, and one unanswered name made every pass run the scope
analysis. tests/test_metadata.py checks
it against libcst node for node.
"""

from __future__ import annotations

import builtins
import re
from collections.abc import Collection, Iterable, Mapping, Sequence

import libcst as cst
from libcst.helpers import get_full_name_for_node

from dp2ddp.transforms._support.nodes import bound_names, name_of

_Import = cst.Import | cst.ImportFrom
_Scope = cst.Module | cst.FunctionDef | cst.Lambda | cst.ClassDef | cst.BaseComp
_COMPREHENSIONS = (cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)
#: Containers whose children run in order (statements, or the small statements of a line).
_SEQUENTIAL = (cst.Module, cst.IndentedBlock, cst.SimpleStatementSuite, cst.SimpleStatementLine)
#: Calls whose first argument libcst's scope analysis does not visit.
_TYPING_CALLS = frozenset({"NewType", "TypeVar"})

#: The node types the constructor looks at (found by exact type: isinstance on libcst's
#: abstract classes is slow, and every node of the tree is looked at).
_RELEVANT = frozenset(
    {
        cst.Import,
        cst.ImportFrom,
        cst.FunctionDef,
        cst.ClassDef,
        cst.Param,
        cst.AssignTarget,
        cst.AugAssign,
        cst.AnnAssign,
        cst.For,
        cst.CompFor,
        cst.NamedExpr,
        cst.AsName,
        cst.NameItem,
        cst.MatchAs,
        cst.MatchStar,
        cst.MatchMapping,
        cst.Call,
        cst.TypeParameters,
        cst.TypeAlias,
        cst.SimpleString,
        cst.ConcatenatedString,
    }
)
#: A string annotation is parsed and analysed as code in the scope it sits in; one that
#: could bind a name there (`x: "y := 1"`) is beyond these facts.
_BINDING_TEXT = re.compile(r"=|\b(?:import|def|class|for|with|except|global|nonlocal|as)\b")
#: Modules whose subscripted names make libcst read strings inside as type hints.
_TYPING_MODULES = frozenset({"typing", "typing_extensions"})
_HINT_CALLS = frozenset({"cast", "NewType", "TypeVar"})


class QualifiedNames:
    """Answers `names(node)` for the nodes of one tree (see the module docstring)."""

    def __init__(self, module: cst.Module, parents: Mapping[cst.CSTNode, cst.CSTNode]) -> None:
        self._module = module
        self._parents = parents
        self._index: dict[cst.CSTNode, int] = {s: i for i, s in enumerate(module.body)}
        #: dotted name -> (top-level statement index, import) for module-level imports
        self._imports: dict[str, list[tuple[int, _Import]]] = {}
        #: name -> the binding nodes (STORE names, defs, params) of every other binding
        self._bindings: dict[str, list[cst.CSTNode]] = {}
        #: name -> function scope -> the imports inside that function binding it (the
        #: inlined `_dp2ddp` helpers import there; every migrated file has them)
        self._nested: dict[str, dict[_Scope, list[_Import]]] = {}
        #: names whose resolution these facts do not cover
        self._unsafe: set[str] = set()
        #: name -> the functions that declare it `global` (their bindings are the module's)
        self._globals: dict[str, set[_Scope]] = {}
        #: subtrees the scope analysis does not visit (libcst gives their nodes no names)
        self._opaque: set[cst.CSTNode] = set()
        self._type_params = False
        #: nothing can be answered without libcst (see _BINDING_TEXT, _look_at)
        self._broken = False
        #: strings that would bind a name if libcst read them as annotations
        self._risky: list[cst.CSTNode] = []
        #: names imported from typing (their subscripts are type hints to libcst)
        self._typing: set[str] = set()
        self._scopes: dict[cst.CSTNode, _Scope] = {}
        self._binding_scopes: dict[str, dict[_Scope, list[cst.CSTNode]]] = {}
        for node in parents:
            if type(node) in _RELEVANT:
                self._look_at(node)
        self._broken = self._broken or any(self._may_annotate(s) for s in self._risky)

    def _look_at(self, node: cst.CSTNode) -> None:
        if isinstance(node, (cst.Import, cst.ImportFrom)):
            self._add_import(node)
        elif isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Param)):
            self._bind(node.name)
            if node.name.value in _TYPING_MODULES:
                self._broken = True  # its locals' qualified names start with "typing."
        elif isinstance(
            node,
            (cst.AssignTarget, cst.AugAssign, cst.AnnAssign, cst.For, cst.CompFor, cst.NamedExpr),
        ):
            for name in bound_names(node.target):
                self._bind(name)
        elif isinstance(node, cst.AsName):
            if not isinstance(self._parents[node], cst.ImportAlias):
                for name in bound_names(node.name):
                    self._bind(name)
        elif isinstance(node, cst.NameItem) and type(self._parents[node]) is cst.Global:
            scope = self._scope(self._parents[node])
            if type(scope) is cst.FunctionDef:
                self._globals.setdefault(node.name.value, set()).add(scope)
            elif scope is not self._module:  # a class body's: left to libcst
                self._unsafe.add(node.name.value)
        elif isinstance(node, (cst.NameItem, cst.MatchAs, cst.MatchStar)):
            # nonlocal names, and match captures (libcst records no binding)
            if node.name is not None:
                self._unsafe.add(node.name.value)
        elif isinstance(node, cst.MatchMapping):
            if node.rest is not None:
                self._unsafe.add(node.rest.value)
        elif isinstance(node, cst.Call):
            if name_of(node.func) in _TYPING_CALLS:
                self._opaque.update(node.args[:1])
        elif isinstance(node, (cst.SimpleString, cst.ConcatenatedString)):
            if isinstance(node, cst.SimpleString) and "\\" not in node.value:
                text: str | bytes | None = node.value  # no escapes: the text is what it says
            else:
                text = node.evaluated_value
            if not isinstance(text, str) or _BINDING_TEXT.search(text):
                self._risky.append(node)
        else:
            self._type_params = True

    def _may_annotate(self, node: cst.CSTNode) -> bool:
        """Might libcst parse this string as an annotation (a superset of when it does)?"""
        while node is not self._module:
            node = self._parents[node]
            if isinstance(node, cst.Annotation):
                return True
            if isinstance(node, cst.Subscript):
                value = node.value
                if isinstance(value, cst.Name) and value.value in self._typing:
                    return True
            if isinstance(node, cst.Call) and name_of(node.func) in _HINT_CALLS:
                return True
        return False

    def _bind(self, name: cst.Name) -> None:
        self._bindings.setdefault(name.value, []).append(name)

    def _add_import(self, node: _Import) -> None:
        if isinstance(node.names, cst.ImportStar):
            return  # binds nothing libcst records
        statement: cst.CSTNode = node
        at_module_level = True
        while True:
            parent = self._parents[statement]
            if type(parent) is cst.Module:
                break
            if type(parent) in (cst.FunctionDef, cst.ClassDef):
                at_module_level = False
            statement = parent
        index = self._index.get(statement, len(self._index))
        from_typing = (
            isinstance(node, cst.ImportFrom)
            and node.module is not None
            and not node.relative
            and (get_full_name_for_node(node.module) or "").partition(".")[0] in _TYPING_MODULES
        )
        for alias in node.names:
            asname = alias.asname.name if alias.asname is not None else None
            names = [asname.value] if isinstance(asname, cst.Name) else _dotted(alias.name)
            if from_typing:
                self._typing.update(names)
            for name in names:
                if at_module_level:
                    self._imports.setdefault(name, []).append((index, node))
                    continue
                scope = self._scope(node)
                if len(names) > 1 or type(scope) is not cst.FunctionDef:
                    self._unsafe.add(name.partition(".")[0])
                else:
                    self._nested.setdefault(name, {}).setdefault(scope, []).append(node)

    # -- answering -------------------------------------------------------------------
    def names(self, node: cst.CSTNode) -> set[str] | None:
        """The qualified names of `node`, or None when only scope analysis can tell."""
        parent = self._parents.get(node)
        if parent is None:
            return set()  # the module, or a node this pass created: libcst has none either
        if self._broken:
            return None
        if type(node) is cst.SimpleString or type(node) is cst.ConcatenatedString:
            return None  # a string annotation stands for the names it mentions
        full = get_full_name_for_node(node)
        if full is None:
            return set()
        if type(node) is cst.Name and (
            (type(parent) is cst.Attribute and parent.attr is node)
            or (type(parent) is cst.Arg and parent.keyword is node)
        ):
            return set()  # not visited by the scope analysis
        if type(parent) is cst.NameItem and type(self._parents[parent]) is cst.Global:
            return set()  # nor is a `global` statement
        top = node
        while parent is not self._module:
            if parent in self._opaque or type(parent) in (cst.Import, cst.ImportFrom):
                return None
            top, parent = parent, self._parents[parent]
        head = full.partition(".")[0]
        if head in self._unsafe:
            return None
        if head in self._globals and (head in self._imports or head in self._nested):
            return None
        nested = self._nested.get(head)
        if nested is not None:
            if head in self._bindings:
                return None
            scope = self._nested_scope(node, nested)
            if scope is not None:
                return self._nested_import(node, full, head, nested[scope], scope)
        imports = self._imports.get(head)
        if imports is not None:
            if head in self._bindings:
                return None
            return self._imported(full, imports, self._index.get(top))
        if head in self._bindings:
            return self._local(node, full, head)
        return {f"builtins.{head}"} if hasattr(builtins, head) else set()

    def accessed(self, name: str, statement: _Import, nodes: list[cst.Name]) -> bool:
        """Does one of `nodes` (Names with value `name`) access the binding `statement`
        makes? True only when `name` is bound by nothing but module-level imports, none
        of them dotted (`import name.x` makes libcst name accesses `name.x`), and a node
        resolves to them; then libcst records the access on each of those imports."""
        imports = self._imports.get(name, [])
        if not any(s is statement for _, s in imports) or name in self._nested:
            return False
        if any(key.startswith(f"{name}.") for key in self._imports):
            return False
        return any(self.names(node) for node in nodes)

    def _imported(
        self, full: str, imports: list[tuple[int, _Import]], at: int | None
    ) -> set[str] | None:
        """A name bound only by module-level imports, all before the node's statement:
        every scope sees exactly those (an earlier access would see none of them)."""
        if at is None or any(index >= at for index, _ in imports):
            return None
        prefix = full
        while prefix not in self._imports:
            prefix = prefix.rpartition(".")[0]
        names: set[str] = set()
        for _, statement in self._imports[prefix]:
            names |= _import_names(statement, full)
        return names

    def _nested_scope(
        self, node: cst.CSTNode, nested: Mapping[_Scope, list[_Import]]
    ) -> _Scope | None:
        """The innermost scope `node` sees that an import inside a function binds its name
        in; None where none does (then module-level bindings decide)."""
        scope: _Scope | None = self._scope(node)
        while scope is not None and scope not in nested:
            scope = self._visible_parent(scope)
        return scope

    def _nested_import(
        self, node: cst.CSTNode, full: str, head: str, imports: list[_Import], scope: _Scope
    ) -> set[str] | None:
        """A name an import inside the function `scope` binds: libcst answers with every
        such import of that scope (an access in the scope itself only once all of them come
        before it; a dotted module-level import of the name would be looked up instead)."""
        if any(key.startswith(f"{head}.") for key in self._imports):
            return None
        if scope is self._scope(node) and type(node) is cst.Name:
            if not all(self._precedes(i, node, scope) for i in imports):
                return None
        names: set[str] = set()
        for statement in imports:
            names |= _import_names(statement, full)
        return names

    def _local(self, node: cst.CSTNode, full: str, head: str) -> set[str] | None:
        """A name bound by assignments, defs or parameters (and no import)."""
        if self._type_params:
            return None
        by_scope = self._by_scope(head)
        real = self._scope(node)
        own = self._module if real in self._globals.get(head, ()) else real
        scope: _Scope | None = own
        while scope is not None and scope not in by_scope:
            scope = self._visible_parent(scope)
        if scope is None:
            return {f"builtins.{head}"} if hasattr(builtins, head) else set()
        if scope is real and type(node) is cst.Name:
            # An access sees only the assignments before it in its own scope (else libcst
            # looks further out); answer only when one plainly comes first. (A `global`
            # name's access inside its function sees every module binding, in any order.)
            bindings = [b for b in by_scope[real] if self._scope(b) is real]
            if not any(self._precedes(b, node, real) for b in bindings):
                return None
        prefix = self._prefix(scope)
        return {f"{prefix}.{full}" if prefix else full}

    def _by_scope(self, head: str) -> dict[_Scope, list[cst.CSTNode]]:
        """The bindings of `head` by the scope that holds them: a binding inside a function
        that declares `head` global is the module's (only those whose own scope is the
        module count as preceding a module-level access, in `_local`)."""
        by_scope = self._binding_scopes.get(head)
        if by_scope is None:
            by_scope = self._binding_scopes[head] = {}
            declaring = self._globals.get(head, ())
            for binding in self._bindings.get(head, ()):
                scope = self._scope(binding)
                holder = self._module if scope in declaring else scope
                by_scope.setdefault(holder, []).append(binding)
        return by_scope

    # -- scopes, as libcst's ScopeVisitor assigns them ------------------------------
    def _scope(self, node: cst.CSTNode) -> _Scope:
        """The scope `node` is evaluated in."""
        known = self._scopes.get(node)
        if known is not None:
            return known
        parents = self._parents
        child, parent = node, parents[node]
        grandchild: cst.CSTNode | None = None
        outside_params = False  # in a parameter's default or annotation
        while parent is not self._module:
            kind = type(parent)
            if kind is cst.Param and child is not parent.name:  # type: ignore[attr-defined]
                outside_params = True
            elif kind is cst.FunctionDef or kind is cst.Lambda:
                if child is parent.body or (  # type: ignore[attr-defined]
                    child is parent.params and not outside_params  # type: ignore[attr-defined]
                ):
                    break
                outside_params = False
            elif kind is cst.ClassDef:
                if child is parent.body:  # type: ignore[attr-defined]
                    break
            elif kind in _COMPREHENSIONS:
                first: cst.CompFor = parent.for_in  # type: ignore[attr-defined]
                if not (child is first and grandchild is first.iter):
                    break
            grandchild, child, parent = child, parent, parents[parent]
        self._scopes[node] = parent  # type: ignore[assignment]
        return parent  # type: ignore[return-value]

    def _visible_parent(self, scope: _Scope) -> _Scope | None:
        """The next scope out whose names `scope` sees: class bodies are skipped."""
        if scope is self._module:
            return None
        outer = self._scope(scope)
        while type(outer) is cst.ClassDef:
            outer = self._scope(outer)
        return outer

    def _prefix(self, scope: _Scope) -> str:
        """libcst's `_name_prefix` of a scope, e.g. `Net.forward.<locals>`."""
        if scope is self._module:
            return ""
        outer = self._prefix(self._scope(scope))
        if isinstance(scope, cst.FunctionDef):
            parts = [outer, scope.name.value, "<locals>"]
        elif isinstance(scope, cst.ClassDef):
            parts = [outer, scope.name.value]
        elif isinstance(scope, cst.Lambda):
            parts = [outer, "<locals>"]
        else:
            parts = [outer, "<comprehension>"]
        return ".".join(p for p in parts if p)

    def _precedes(self, binding: cst.CSTNode, node: cst.CSTNode, scope: _Scope) -> bool:
        """Is `binding` (in `scope`, as `node` is) recorded before `node` is visited?

        True when they sit in different statements of one block (or small statements of
        one line) and the binding's comes first, when the binding is a parameter and the
        node in the body, or when the binding is a comprehension target and the node the
        comprehension's element. Anything else is left to libcst.
        """
        above = self._ancestors(binding, scope)
        path = self._ancestors(node, scope)
        on_path = {id(n): i for i, n in enumerate(path)}
        for depth, ancestor in enumerate(above):
            at = on_path.get(id(ancestor))
            if at is None:
                continue
            if depth == 0 or at == 0:
                return False  # one contains the other
            mine, theirs = above[depth - 1], path[at - 1]
            if isinstance(ancestor, _SEQUENTIAL):
                body = ancestor.body
                return _position(body, mine) < _position(body, theirs)
            if isinstance(ancestor, (cst.FunctionDef, cst.Lambda)):
                return mine is ancestor.params and theirs is ancestor.body
            if isinstance(ancestor, cst.For):
                return mine is ancestor.target and theirs is ancestor.body
            if isinstance(ancestor, _COMPREHENSIONS):
                elements = (
                    (ancestor.key, ancestor.value)
                    if isinstance(ancestor, cst.DictComp)
                    else (ancestor.elt,)
                )
                return mine is ancestor.for_in and any(theirs is e for e in elements)
            return False
        return False

    def _ancestors(self, node: cst.CSTNode, scope: _Scope) -> list[cst.CSTNode]:
        """`node`, its parent, ... up to and including `scope`."""
        chain = [node]
        while node is not scope:
            node = self._parents[node]
            chain.append(node)
        return chain


def told_name(names: Iterable[str], known: Collection[str]) -> str | None:
    """The entry of `known` (qualified names another module of the program was told by)
    that one of a call's qualified `names` names (told_matches), the first; None for none."""
    return next(iter(told_matches(names, known)), None)


def told_matches(
    names: Iterable[str],
    known: Collection[str],
    by_last: Mapping[str, Sequence[str]] | None = None,
) -> list[str]:
    """The one reading of 'which told entries does a call's qualified `names` name': the
    names themselves where `known` holds any (sorted); else, for a relative import's name
    (`.trainer.Trainer`, `..ckpt.save`: its package is not told), every entry ending with
    its dotted tail, sorted. `by_last`: `known` by its last part, where the caller keeps
    that index (a program's thousands of summaries). The askers differ only in what they do
    with several relative matches, which may each be the one called: the first
    (told_name), none (hazards' backward summaries: a wrong summary asserts a backward),
    every one, none proved (hazards' picklers: DP070 rather than `.module`)."""
    names = sorted(names)
    exact = [n for n in names if n in known]
    if exact:
        return exact
    found: list[str] = []
    for name in names:
        if not name.startswith("."):
            continue
        tail = "." + name.lstrip(".")
        pool = by_last.get(tail.rpartition(".")[2], ()) if by_last is not None else known
        found.extend(e for e in pool if e in known and e.endswith(tail) and e not in found)
    return sorted(found)


def _position(body: Sequence[cst.CSTNode], node: cst.CSTNode) -> int:
    return next(i for i, item in enumerate(body) if item is node)


def _dotted(name: cst.Attribute | cst.Name) -> list[str]:
    """`a.b.c` -> ["a.b.c", "a.b", "a"]: the names `import a.b.c` binds, as libcst records."""
    full = get_full_name_for_node(name)
    if full is None:
        return []
    parts = full.split(".")
    return [".".join(parts[:i]) for i in range(len(parts), 0, -1)]


def _import_names(node: _Import, full_name: str) -> set[str]:
    """libcst's ImportAssignment.get_qualified_names_for, for `full_name` bound by `node`."""
    module = ""
    if isinstance(node, cst.ImportFrom):
        if node.module is not None:
            module = get_full_name_for_node(node.module) or ""
        if node.relative:
            module = "." * len(node.relative) + module
    results: set[str] = set()
    if isinstance(node.names, cst.ImportStar):
        return results
    for alias in node.names:
        real_name = get_full_name_for_node(alias.name)
        if not real_name:
            continue
        parts = real_name.split(".")
        for candidate in [".".join(parts[:i]) for i in range(len(parts), 0, -1)]:
            as_name = candidate
            if module and module.endswith("."):
                candidate = f"{module}{candidate}"
            elif module:
                candidate = f"{module}.{candidate}"
            if alias.asname is not None:
                evaluated = alias.evaluated_alias
                if evaluated is not None:
                    as_name = evaluated
            if full_name.startswith(as_name):
                remaining = full_name.split(as_name, 1)[1]
                if remaining and not remaining.startswith("."):
                    continue
                remaining = remaining.lstrip(".")
                results.add(f"{candidate}.{remaining}" if remaining else candidate)
                break
    return results
