"""Which assignments a name reads, answered as libcst's ScopeProvider answers it, from the
def-use view instead of a scope analysis per pass.

The data and batch passes follow loaders and batches through "the assignments this name
can refer to" (`access.referents`) and "the uses of this assignment" (`references`), with
libcst's meaning, which differs from the view's flow-insensitive `definitions`: within the
use's own scope only the bindings made by a statement that ended before the use count
(`x = f(x)` reads an earlier x; a loop's later `i += n` does not reach `x[i]` above it),
and when none did, the enclosing scope's (libcst's fallback); comprehensions, lambdas,
class bodies and functions are scopes, decorators, default values and base classes are
looked up outside them; a name that starts an imported dotted name (`os` of `os.path.join`
after `import os.path`) is a use of that dotted name, not of the Name. Resolving libcst's
ScopeProvider cost each of those passes a full scope analysis of its input (about a tenth
of a monorepo's migration); this is computed once per tree, on top of the cached view,
and only for the names asked about.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import cast

import libcst as cst

from dp2ddp.flow.children import PerTree, children_of
from dp2ddp.flow.defuse import Definition, DefUse, view

#: What opens a scope in libcst's analysis.
LibScope = (
    cst.Module
    | cst.FunctionDef
    | cst.Lambda
    | cst.ClassDef
    | cst.ListComp
    | cst.SetComp
    | cst.DictComp
    | cst.GeneratorExp
)
_COMPS = (cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)
#: Nodes whose end advances libcst's assignment count of their scope (its
#: _ASSIGNMENT_LIKE_NODES, less the type-parameter nodes).
_COUNTED = (
    cst.AnnAssign,
    cst.AsName,
    cst.Assign,
    cst.AugAssign,
    cst.ClassDef,
    cst.CompFor,
    cst.FunctionDef,
    cst.Global,
    cst.Import,
    cst.ImportFrom,
    cst.NamedExpr,
    cst.Nonlocal,
    cst.Parameters,
    cst.WithItem,
)
_COUNTED_KINDS = frozenset(_COUNTED)


@dataclass(eq=False)
class Referent:
    """One assignment a name may refer to: `node` is what libcst's Assignment.node is (the
    bound Name, the Param, the FunctionDef/ClassDef, the Import statement)."""

    node: cst.CSTNode
    definition: Definition
    scope: cst.CSTNode
    _bindings: Bindings = field(repr=False)

    @property
    def references(self) -> list[Use]:
        """The uses that may read this assignment (libcst's Assignment.references)."""
        return self._bindings.references(self)


@dataclass(frozen=True)
class Use:
    """A use of a name (libcst's Access; only its node is read)."""

    node: cst.Name


class Bindings:
    """libcst's name resolution for one module, over its def-use view."""

    def __init__(self, defuse: DefUse) -> None:
        self.view = defuse
        self._order: dict[cst.CSTNode, tuple[int, int]] | None = None
        self._counted: dict[cst.CSTNode, list[int]] | None = None
        self._loads: dict[str, list[cst.Name]] | None = None
        self._defs: dict[str, list[Referent]] = {}
        self._refs: dict[int, list[Use]] = {}
        self._dotted: set[str] | None = None
        self._memo: dict[cst.Name, list[Referent]] = {}
        self._attached_to: dict[cst.Name, set[int]] = {}
        self._bare: dict[str, list[Definition]] = {}
        self._nonlocal: dict[cst.CSTNode, set[str]] = {}

    # == positions ======================================================================
    def _number(self) -> None:
        """Enter and leave numbers of every node (one counter), and for each scope the leave
        numbers of the nodes that advance its assignment count."""
        order: dict[cst.CSTNode, tuple[int, int]] = {}
        counted: dict[cst.CSTNode, list[int]] = {}
        loads: dict[str, list[cst.Name]] = {}
        tick = 0
        enter: dict[cst.CSTNode, int] = {}
        stack: list[tuple[cst.CSTNode, bool, bool]] = [(self.view.module, False, False)]
        uses = {id(n) for names in self.view._uses.values() for ns in names.values() for n in ns}
        parent_of = self.view.parent
        while stack:
            node, leaving, in_import = stack.pop()
            tick += 1
            if leaving:
                order[node] = (enter.pop(node), tick)
                parent = parent_of(node)
                # exact types: each is a leaf class of libcst (tests/test_children.py), and
                # isinstance on libcst's ABCs is a Python-level check at every node
                kind, parent_kind = type(node), type(parent)
                if kind in _COUNTED_KINDS and not (
                    kind is cst.CompFor and parent_kind is not cst.CompFor
                ):  # a comprehension's first `for` counts after its target (below)
                    counted.setdefault(self._counting_scope(node), []).append(tick)
                if parent_kind is cst.For and cast(cst.For, parent).target is node:
                    counted.setdefault(self.scope_at(cast(cst.For, parent)), []).append(tick)
                elif (
                    parent_kind is cst.CompFor
                    and cast(cst.CompFor, parent).target is node
                    and type(parent_of(cast(cst.CompFor, parent))) is not cst.CompFor
                ):
                    compfor = cast(cst.CompFor, parent)
                    counted.setdefault(self._comprehension_of(compfor), []).append(tick)
                continue
            enter[node] = tick
            if type(node) is cst.Nonlocal:
                self._nonlocal.setdefault(self.scope_at(node), set()).update(
                    item.name.value for item in node.names
                )
            if (
                type(node) is cst.AnnAssign
                and node.value is None
                and isinstance(node.target, cst.Name)
            ):  # `x: int`: a binding for libcst, none for the view (it binds no value)
                self._bare.setdefault(node.target.value, []).append(
                    Definition(node.target, None, "annassign", node)
                )
            kind = type(node)
            if kind is cst.Name and id(node) in uses and not in_import:
                loads.setdefault(cast(cst.Name, node).value, []).append(cast(cst.Name, node))
            inner = in_import or kind is cst.Import or kind is cst.ImportFrom
            stack.append((node, True, in_import))
            for child in reversed(children_of(node)):
                stack.append((child, False, inner))
        self._order, self._counted, self._loads = order, counted, loads

    def _counting_scope(self, node: cst.CSTNode) -> cst.CSTNode:
        """The scope whose count `node`'s end advances (a def's or class's: the outer one;
        a CompFor's: its comprehension)."""
        if isinstance(node, cst.CompFor):
            return self._comprehension_of(node)
        if isinstance(node, cst.Parameters):
            owner = self.view.parent(node)
            if owner is not None:
                return owner
        return self.scope_at(node)

    def _index(self, scope: cst.CSTNode, at: int) -> int:
        """How many counted nodes of `scope` ended before tick `at`."""
        assert self._counted is not None
        return sum(1 for t in self._counted.get(scope, ()) if t < at)

    # == scopes =========================================================================
    def _comprehension_of(self, compfor: cst.CompFor) -> cst.CSTNode:
        node: cst.CSTNode = compfor
        parent = self.view.parent(node)
        while isinstance(parent, cst.CompFor):
            node, parent = parent, self.view.parent(parent)
        return parent if parent is not None else self.view.module

    def scope_at(self, node: cst.CSTNode) -> cst.CSTNode:
        """The scope libcst looks names up in at `node` (a def's or class's own node is in
        the scope around it)."""
        child, parent = node, self.view.parent(node)
        skip_function = False
        while parent is not None:
            if isinstance(parent, cst.Param) and child is not parent.name:
                skip_function = True  # default values and annotations: outside
            elif isinstance(parent, (cst.FunctionDef, cst.Lambda)):
                inside = child is parent.params or child is parent.body
                if inside and not skip_function:
                    return parent
                skip_function = False
            elif isinstance(parent, cst.ClassDef):
                if child is parent.body:
                    return parent
            elif isinstance(parent, _COMPS):
                first = parent.for_in
                if not (child is first and self._in_first_iter(node, first)):
                    return parent
            elif isinstance(parent, cst.Module):
                return parent
            child, parent = parent, self.view.parent(parent)
        return self.view.module

    def _in_first_iter(self, node: cst.CSTNode, first: cst.CompFor) -> bool:
        current: cst.CSTNode | None = node
        while current is not None and current is not first:
            if current is first.iter:
                return True
            current = self.view.parent(current)
        return False

    def _outer(self, scope: cst.CSTNode) -> cst.CSTNode | None:
        if isinstance(scope, cst.Module):
            return None
        return self.scope_at(scope)

    # == assignments ====================================================================
    def _referents_named(self, name: str) -> list[Referent]:
        """Every assignment of `name` in the module, with its libcst scope."""
        found = self._defs.get(name)
        if found is None:
            if self._order is None:
                self._number()
            assert self._order is not None
            definitions = [d for defs in self.view._defs.values() for d in defs.get(name, ())]
            found = []
            for definition in definitions + self._bare.get(name, []):
                referent = self._referent(definition)
                if referent is not None:
                    found.append(referent)
            order = self._order
            found.sort(key=lambda r: order[r.node][0])  # source order
            self._defs[name] = found
        return found

    def _referent(self, definition: Definition) -> Referent | None:
        kind = definition.kind
        if kind == "store":
            return None  # `d[k] = v`, `a.x = v`: no binding for libcst
        if kind in ("def", "class"):
            node: cst.CSTNode = definition.statement
            scope = self.scope_at(node)
        elif kind == "import":
            node = definition.statement
            scope = self.scope_at(node)
        elif kind == "param":
            node = definition.target
            holder = self.view.parent(self.view.parent(node) or node)
            scope = holder if holder is not None else self.scope_at(node)
        elif isinstance(definition.statement, cst.CompFor):
            node = definition.target
            scope = self._comprehension_of(definition.statement)
        else:
            node = definition.target
            scope = self.scope_at(node)
        name = node if isinstance(node, cst.Name) else None
        if name is not None:
            while self._nonlocal_in(scope, name.value):  # bound where the name resolves
                outer = self._next_visible(self._outer(scope), scope)
                if outer is None:
                    break
                scope = outer
            if self._declared(scope, name.value):
                scope = self.view.module
        return Referent(node, definition, scope, self)

    def _declared(self, scope: cst.CSTNode, name: str) -> bool:
        """`global name` in `scope`."""
        return name in self.view._globals.get(scope, ())  # type: ignore[call-overload]

    def _nonlocal_in(self, scope: cst.CSTNode, name: str) -> bool:
        return name in self._nonlocal.get(scope, ())

    def _in_scope(self, scope: cst.CSTNode, name: str) -> list[Referent]:
        return [r for r in self._referents_named(name) if r.scope is scope]

    def _next_visible(self, scope: cst.CSTNode | None, origin: cst.CSTNode) -> cst.CSTNode | None:
        while isinstance(scope, cst.ClassDef) and scope is not origin:
            scope = self._outer(scope)
        return scope

    def _resolve(self, scope: cst.CSTNode | None, name: str, origin: cst.CSTNode) -> list[Referent]:
        """libcst's _resolve_scope_for_access: the scope's own assignments, else the next
        visible enclosing scope's (class bodies are seen only from themselves)."""
        while scope is not None:
            if not isinstance(scope, cst.Module) and self._declared(scope, name):
                return self._in_scope(self.view.module, name)
            if self._nonlocal_in(scope, name):
                scope = self._next_visible(self._outer(scope), origin)
                continue
            own = self._in_scope(scope, name)
            if own or isinstance(scope, cst.Module):
                return own
            scope = self._next_visible(self._outer(scope), origin)
        return []

    # == questions ======================================================================
    def referents(self, name: cst.Name) -> list[Referent]:
        """The assignments a use of `name` can refer to, as libcst's ScopeProvider says
        (`access.referents`, builtins left out): empty for a Name that is no use."""
        found = self._memo.get(name)
        if found is None:
            found = self._memo[name] = self._compute(name)
        return found

    def _compute(self, name: cst.Name) -> list[Referent]:
        if self._order is None:
            self._number()
        assert self._order is not None and self._loads is not None
        if not any(n is name for n in self._loads.get(name.value, ())):
            return []
        if self._dotted_use(name):
            return []
        scope = self.scope_at(name)
        every = self._resolve(scope, name.value, scope)
        at = self._access_tick(name, scope)
        earlier = [r for r in every if r.scope is not scope or self._tick_index(r, scope) < at]
        if not earlier and every and not isinstance(scope, cst.Module):
            outer = self._outer(scope)
            earlier = self._resolve(outer, name.value, scope)
        return earlier

    def _access_tick(self, name: cst.Name, scope: cst.CSTNode) -> int:
        """The use's index in its scope's count (a comprehension's element is visited after
        its `for` clauses)."""
        assert self._order is not None
        if isinstance(scope, _COMPS) and not self._within(name, scope.for_in):
            return self._index(scope, self._order[scope][1])
        return self._index(scope, self._order[name][0])

    def _tick_index(self, referent: Referent, scope: cst.CSTNode) -> int:
        """The assignment's index in `scope`'s count (recorded where its node is entered)."""
        assert self._order is not None
        return self._index(scope, self._order[referent.node][0])

    def _within(self, node: cst.CSTNode, root: cst.CSTNode) -> bool:
        assert self._order is not None
        enter, leave = self._order[root]
        return enter <= self._order[node][0] <= leave

    def _dotted_use(self, name: cst.Name) -> bool:
        """`a` of `a.b.c` where an import binds `a.b` (or `a.b.c`): libcst counts the use as
        one of that dotted name."""
        chain: list[str] = [name.value]
        child: cst.CSTNode = name
        parent = self.view.parent(name)
        while isinstance(parent, cst.Attribute) and parent.value is child:
            chain.append(parent.attr.value)
            child, parent = parent, self.view.parent(parent)
        if len(chain) == 1:
            return False
        dotted = self._dotted_imports()
        return any(".".join(chain[:n]) in dotted for n in range(2, len(chain) + 1))

    def _dotted_imports(self) -> set[str]:
        if self._dotted is None:
            self._dotted = set()
            for scope_defs in self.view._defs.values():
                for definitions in scope_defs.values():
                    for definition in definitions:
                        alias = definition.target
                        if (
                            definition.kind == "import"
                            and isinstance(alias, cst.ImportAlias)
                            and alias.asname is None
                            and isinstance(alias.name, cst.Attribute)
                        ):
                            parts = _dotted(alias.name)
                            for n in range(2, len(parts) + 1):
                                self._dotted.add(".".join(parts[:n]))
        return self._dotted

    def references(self, referent: Referent) -> list[Use]:
        """The uses libcst attaches to `referent` (Assignment.references), in source order:
        a use reads it when it is an assignment the use's scope resolves to and it came
        first (or is of another scope); a use made before every binding of its own scope
        is attached to the enclosing scope's bindings instead (as libcst does, even where
        the use's referents are its own scope's)."""
        found = self._refs.get(id(referent))
        if found is None:
            if self._loads is None:
                self._number()
            assert self._loads is not None
            key = _bound_name(referent)
            found = [
                Use(use)
                for use in (self._loads.get(key, ()) if key is not None else ())
                if id(referent) in self._attached(use)
            ]
            self._refs[id(referent)] = found
        return found

    def _attached(self, use: cst.Name) -> set[int]:
        """The assignments (ids) libcst records `use` as a reference of."""
        found = self._attached_to.get(use)
        if found is None:
            found = set()
            if not self._dotted_use(use):
                scope = self.scope_at(use)
                at = self._access_tick(use, scope)
                todo = list(self._resolve(scope, use.value, scope))
                while todo:
                    assignment = todo.pop()
                    if id(assignment) in found:
                        continue
                    if assignment.scope is not scope or self._tick_index(assignment, scope) < at:
                        found.add(id(assignment))
                    elif not isinstance(assignment.scope, cst.Module):
                        outer = self._outer(assignment.scope)
                        todo += self._resolve(outer, use.value, outer) if outer is not None else []
            self._attached_to[use] = found
        return found

    def defined_by(self, node: cst.FunctionDef | cst.ClassDef) -> list[Referent]:
        """The assignment a def or class statement makes (libcst: the one whose node is
        it)."""
        return [r for r in self._referents_named(node.name.value) if r.node is node]

    def module_names(self) -> set[str]:
        """The names assigned at module level (libcst's `scope.globals.assignments` names;
        `import a.b` binds a and a.b)."""
        if self._order is None:
            self._number()
        names: set[str] = set()
        every = [*self.view._defs.get(self.view.module, {}).values(), *self._bare.values()]
        for definitions in every:
            for definition in definitions:
                referent = self._referent(definition)
                if referent is None or referent.scope is not self.view.module:
                    continue  # a comprehension's variable is its own scope's
                bound = _bound_name(referent)
                if bound is not None:
                    names.add(bound)
                alias = definition.target
                if (
                    definition.kind == "import"
                    and isinstance(alias, cst.ImportAlias)
                    and alias.asname is None
                    and isinstance(alias.name, cst.Attribute)
                ):
                    parts = _dotted(alias.name)
                    names.update(".".join(parts[:n]) for n in range(1, len(parts) + 1))
        return names


def _bound_name(referent: Referent) -> str | None:
    definition = referent.definition
    target = definition.target
    if isinstance(target, cst.Name):
        return target.value
    if isinstance(target, cst.Param):
        return target.name.value
    if isinstance(target, cst.ImportAlias):
        bound: cst.BaseExpression = target.asname.name if target.asname is not None else target.name
        while isinstance(bound, cst.Attribute):
            bound = bound.value
        return bound.value if isinstance(bound, cst.Name) else None
    return None


def _dotted(node: cst.BaseExpression) -> list[str]:
    parts: list[str] = []
    while isinstance(node, cst.Attribute):
        parts.append(node.attr.value)
        node = node.value
    if isinstance(node, cst.Name):
        parts.append(node.value)
    return parts[::-1]


bindings = PerTree(lambda module: Bindings(view(module)))
"""libcst's name resolution over a module's def-use view, once per tree."""
