"""The def-use view of one module: built in one iterative walk, asked many times.

Why not libcst's ScopeProvider: it is computed per pass (each pass that declares it pays a
full scope analysis of its own input) and answers only "which assignment is this name", not
"what does this function return" or "who calls it". This view records, in one walk of the
tree, what every flow question needs (see dp2ddp/flow/__init__.py for the questions):

* for each scope (module, function, lambda, class body) and name: its definitions (what
  value each binds, and which element of it when the target unpacks) and its uses;
* for each class: the definitions of `self.x` in its methods;
* for each function: its parameters, its `return` and `yield` values, and (asked lazily,
  from the module's calls) its call sites.

Comprehension variables are recorded in the enclosing scope and answered as Python 3 scopes
them (flow/comprehensions.py: a use reads its own comprehension's target alone). Definitions are
flow-insensitive: every binding of a name in its scope may reach each use, which is the
right answer for "where may this value come from" (a loop's `i += n` reaches `x[i]`).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import cast

import libcst as cst

from dp2ddp.flow.called import looked_up, name_callees
from dp2ddp.flow.children import PerTree, children_of, parent_map
from dp2ddp.flow.comprehensions import scoped

Scope = cst.Module | cst.FunctionDef | cst.Lambda | cst.ClassDef

#: The node types that open a scope, and those `_statement` binds names for: matched by
#: exact type (each is a leaf class of libcst: tests/test_children.py), as isinstance on
#: libcst's ABCs costs a Python-level check at every node of the walk.
_SCOPES = frozenset({cst.FunctionDef, cst.Lambda, cst.ClassDef})
_STATEMENTS = frozenset(
    {
        cst.Assign,
        cst.AugAssign,
        cst.AnnAssign,
        cst.For,
        cst.CompFor,
        cst.WithItem,
        cst.NamedExpr,
        cst.ExceptHandler,
        cst.Import,
        cst.ImportFrom,
        cst.Global,
        cst.Nonlocal,
        cst.Return,
        cst.Yield,
    }
)
#: A Name under one of these is no load.
_NOT_LOADS = frozenset({cst.ImportAlias, cst.AsName, cst.NameItem})
LEAF_KINDS = (
    _SCOPES | _STATEMENTS | _NOT_LOADS | {cst.Name, cst.Call, cst.Attribute, cst.Arg, cst.Param}
)
"""A node that opens a scope."""


@dataclass(frozen=True, eq=False)
class Definition:
    """One binding of a name (or of `self.attr`): `target` is the bound node (a Name, an
    Attribute, a Param, an ImportAlias, a FunctionDef/ClassDef), `value` what it binds
    (None where nothing in the module says: a parameter, an import, `except E as e`),
    `element` the index path into `value` when the target unpacks (`a, (b, c) = v`: c is
    (1, 1)), `kind` one of assign, augassign, annassign, for, with, walrus, param, import,
    def, class, except, store (`d[k] = v` / `d.x = v`, a change of the named object);
    `key` the constant string a store puts its value at (`d["k"] = v`: "k"; `d.x = v`:
    ".x"), else None."""

    target: cst.CSTNode
    value: cst.BaseExpression | None
    kind: str
    statement: cst.CSTNode
    element: tuple[int, ...] = ()
    key: str | None = None


@dataclass(eq=False)
class Function:
    """What the view knows of one function (or lambda): its node, the class it is a method
    of, its parameters in order, and the values it returns and yields."""

    node: cst.FunctionDef | cst.Lambda
    owner: cst.ClassDef | None
    params: list[cst.Param] = field(default_factory=list)
    returns: list[cst.BaseExpression] = field(default_factory=list)
    yields: list[cst.BaseExpression] = field(default_factory=list)

    @property
    def name(self) -> str:
        return self.node.name.value if isinstance(self.node, cst.FunctionDef) else "<lambda>"

    @property
    def self_name(self) -> str | None:
        """The first parameter's name of a method (`self`), None for a plain function or a
        static method."""
        if self.owner is None or not self.params or not isinstance(self.node, cst.FunctionDef):
            return None
        if any(_decorator(d) == "staticmethod" for d in self.node.decorators):
            return None
        return self.params[0].name.value


class DefUse:
    """The def-use view of a module. Build with `view(module)` (cached per tree)."""

    def __init__(self, module: cst.Module) -> None:
        self.module = module
        shared = parent_map(module)  # the passes' metadata has it for this tree already
        self._own_parents = shared is None
        self._parent: Mapping[cst.CSTNode, cst.CSTNode] = {} if shared is None else shared
        self._scope_of: dict[cst.CSTNode, Scope] = {}
        self._outer: dict[Scope, Scope | None] = {module: None}
        self._defs: dict[Scope, dict[str, list[Definition]]] = {}
        self._uses: dict[Scope, dict[str, list[cst.Name]]] = {}
        self._attrs: dict[cst.ClassDef, dict[str, list[Definition]]] = {}
        self._globals: dict[Scope, set[str]] = {}
        self.functions: dict[cst.CSTNode, Function] = {}
        self.classes: dict[str, list[cst.ClassDef]] = {}
        self.calls: list[cst.Call] = []
        self._by_name: dict[str, list[Function]] | None = None
        self._sites: dict[Function, list[cst.Call]] | None = None
        self._reached: dict[int, list[Definition]] = {}  # _reaching's, per use (by id)
        self._build()

    # == building =======================================================================
    def _build(self) -> None:
        own = self._parent if self._own_parents else None
        assert own is None or isinstance(own, dict)
        stores: set[cst.CSTNode] = set()
        stack: list[tuple[cst.CSTNode, Scope]] = [(self.module, self.module)]
        while stack:
            node, scope = stack.pop()
            self._scope_of[node] = scope
            inner: Scope = scope
            kind = type(node)  # exact types (LEAF_KINDS): no ABC instance check a node
            if kind in _SCOPES:
                assert isinstance(node, (cst.FunctionDef, cst.Lambda, cst.ClassDef))
                inner = node
                self._outer[node] = scope
                self._enter(node, scope)
            elif kind is cst.Name:
                assert isinstance(node, cst.Name)
                if node not in stores and self._loads(node):
                    self._uses.setdefault(scope, {}).setdefault(node.value, []).append(node)
            elif kind is cst.Call:
                assert isinstance(node, cst.Call)
                self.calls.append(node)
            elif kind in _STATEMENTS:
                self._statement(node, scope, stores)
            kids = children_of(node)
            if own is not None:
                for child in kids:
                    own[child] = node
            for child in reversed(kids):
                stack.append((child, inner))

    def _enter(self, node: cst.FunctionDef | cst.Lambda | cst.ClassDef, outer: Scope) -> None:
        if isinstance(node, cst.ClassDef):
            self._define(outer, node.name.value, Definition(node.name, None, "class", node))
            self.classes.setdefault(node.name.value, []).append(node)
            return
        owner = outer if isinstance(outer, cst.ClassDef) else None
        function = Function(node, owner)
        self.functions[node] = function
        if isinstance(node, cst.FunctionDef):
            self._define(outer, node.name.value, Definition(node.name, None, "def", node))
        params = node.params
        every = [*params.posonly_params, *params.params]
        if isinstance(params.star_arg, cst.Param):
            every.append(params.star_arg)
        every += params.kwonly_params
        if params.star_kwarg is not None:
            every.append(params.star_kwarg)
        function.params = every
        for param in every:
            self._define(node, param.name.value, Definition(param, param.default, "param", param))
        if isinstance(node, cst.Lambda):
            function.returns.append(node.body)

    def _statement(self, node: cst.CSTNode, scope: Scope, stores: set[cst.CSTNode]) -> None:
        if isinstance(node, cst.Assign):
            for target in node.targets:
                self._bind(target.target, node.value, "assign", node, scope, stores, ())
        elif isinstance(node, (cst.AugAssign, cst.AnnAssign)):
            kind = "augassign" if isinstance(node, cst.AugAssign) else "annassign"
            if node.value is not None:
                self._bind(node.target, node.value, kind, node, scope, stores, ())
        elif isinstance(node, (cst.For, cst.CompFor)):
            self._bind(node.target, node.iter, "for", node, scope, stores, ())
        elif isinstance(node, cst.WithItem):
            if node.asname is not None:
                self._bind(node.asname.name, node.item, "with", node, scope, stores, ())
        elif isinstance(node, cst.NamedExpr):
            self._bind(node.target, node.value, "walrus", node, scope, stores, ())
        elif isinstance(node, cst.ExceptHandler):
            if node.name is not None:
                self._bind(node.name.name, None, "except", node, scope, stores, ())
        elif isinstance(node, (cst.Import, cst.ImportFrom)):
            if isinstance(node.names, cst.ImportStar):
                return
            for alias in node.names:
                bound: cst.BaseExpression = (
                    alias.asname.name if alias.asname is not None else alias.name
                )
                while isinstance(bound, cst.Attribute):  # `import a.b` binds a
                    bound = bound.value
                if isinstance(bound, cst.Name):
                    stores.add(bound)
                    self._define(scope, bound.value, Definition(alias, None, "import", node))
        elif isinstance(node, (cst.Global, cst.Nonlocal)):
            if isinstance(node, cst.Global):
                self._globals.setdefault(scope, set()).update(n.name.value for n in node.names)
            stores.update(n.name for n in node.names)
        elif isinstance(node, (cst.Return, cst.Yield)):
            function = self._function_of(scope)
            if function is not None and node.value is not None:
                value = node.value
                if isinstance(value, cst.From):  # `yield from it`: its elements
                    value = value.item
                (function.returns if isinstance(node, cst.Return) else function.yields).append(
                    value
                )

    def _function_of(self, scope: Scope) -> Function | None:
        return self.functions.get(scope)

    def _bind(
        self,
        target: cst.BaseExpression,
        value: cst.BaseExpression | None,
        kind: str,
        statement: cst.CSTNode,
        scope: Scope,
        stores: set[cst.CSTNode],
        element: tuple[int, ...],
    ) -> None:
        # an iterative walk of the target: (target, element path)
        todo: list[tuple[cst.BaseExpression, tuple[int, ...]]] = [(target, element)]
        while todo:
            current, path = todo.pop()
            if isinstance(current, cst.Name):
                stores.add(current)
                self._define(
                    scope, current.value, Definition(current, value, kind, statement, path)
                )
            elif isinstance(current, (cst.Tuple, cst.List)):
                for index, item in enumerate(current.elements):
                    if isinstance(item, cst.StarredElement):
                        todo.append((item.value, path))
                    else:
                        todo.append((item.value, (*path, index)))
            elif isinstance(current, cst.StarredElement):
                todo.append((current.value, path))
            elif isinstance(current, cst.Attribute):
                self._bind_attribute(current, value, kind, statement, scope, path)
            elif isinstance(current, cst.Subscript):
                holder = current.value
                while isinstance(holder, cst.Subscript):
                    holder = holder.value
                if isinstance(holder, cst.Attribute):  # `self.iters[split] = it`: held by
                    self._bind_attribute(holder, value, "store", statement, scope, path)
                    continue  # what `self.iters` holds (v2-E of stop 42), or by its root
                root = _root_name(current)
                if root is not None:  # `batch["x"] = t`: t is part of what batch holds
                    key = _key(next(s for s in _chain(current) if s.value is root))
                    self._define_store(root, value, statement, scope, path, key=key)

    def _bind_attribute(
        self,
        target: cst.Attribute,
        value: cst.BaseExpression | None,
        kind: str,
        statement: cst.CSTNode,
        scope: Scope,
        path: tuple[int, ...],
    ) -> None:
        function = self._function_of(scope)
        owner = self._class_of_method(function)
        if (
            owner is not None
            and function is not None
            and isinstance(target.value, cst.Name)
            and target.value.value == function.self_name
        ):
            self._attrs.setdefault(owner, {}).setdefault(target.attr.value, []).append(
                Definition(target, value, kind, statement, path)
            )
            return
        held = _self_attribute(target.value, function)
        if owner is not None and held is not None:
            # `self.args.job_name = v`: a change of what `self.args` holds, as `args.x = v`
            # is of what `args` holds; the walk of `self.args.exp_dir` finds it among
            # `self.args`'s definitions (lightaime/deep_gcns_torch@4f6681e's OptInit named
            # its run folder so from the clock and uuid4: each rank made its own, stop 58
            # v4-B)
            self._attrs.setdefault(owner, {}).setdefault(held.attr.value, []).append(
                Definition(target, value, "store", statement, path)
            )
        root = _root_name(target)
        if root is not None:  # `args.save = ...`: a change of what args holds, at ".save"
            key = f".{target.attr.value}" if target.value is root else None
            self._define_store(root, value, statement, scope, path, target, key)

    def _define_store(
        self,
        root: cst.Name,
        value: cst.BaseExpression | None,
        statement: cst.CSTNode,
        scope: Scope,
        path: tuple[int, ...],
        target: cst.CSTNode | None = None,
        key: str | None = None,
    ) -> None:
        owner = self._scope_defining(scope, root.value)
        definition = Definition(target or root, value, "store", statement, path, key)
        self._define(owner, root.value, definition)

    def _class_of_method(self, function: Function | None) -> cst.ClassDef | None:
        """The class whose method `function` is, also for a function nested in a method
        (a closure reads the same `self`)."""
        while function is not None:
            if function.owner is not None:
                return function.owner
            outer = self._outer.get(function.node)
            function = self.functions.get(outer) if outer is not None else None
        return None

    def _define(self, scope: Scope, name: str, definition: Definition) -> None:
        if name in self._globals.get(scope, ()):
            scope = self.module
        self._defs.setdefault(scope, {}).setdefault(name, []).append(definition)

    def _loads(self, node: cst.Name) -> bool:
        parent = self._parent.get(node)
        kind = type(parent)  # exact types: each is a leaf class of libcst (LEAF_KINDS)
        if kind is cst.Attribute:
            return cast(cst.Attribute, parent).attr is not node
        if kind is cst.Arg or kind is cst.Param:
            return getattr(parent, "keyword", None) is not node and (
                getattr(parent, "name", None) is not node
            )
        if kind is cst.FunctionDef or kind is cst.ClassDef:
            return cast(cst.FunctionDef | cst.ClassDef, parent).name is not node
        return kind not in _NOT_LOADS

    # == questions ======================================================================
    def parent(self, node: cst.CSTNode) -> cst.CSTNode | None:
        return self._parent.get(node)

    def scope_of(self, node: cst.CSTNode) -> Scope:
        """The scope a node's names are looked up in (the module for a node of no scope
        the view saw)."""
        return self._scope_of.get(node, self.module)

    def outer(self, scope: Scope) -> Scope | None:
        return self._outer.get(scope)

    def statement_of(self, node: cst.CSTNode) -> cst.CSTNode:
        """The simple or compound statement holding `node`."""
        current: cst.CSTNode | None = node
        while current is not None and not isinstance(
            current, (cst.SimpleStatementLine, cst.BaseCompoundStatement)
        ):
            current = self._parent.get(current)
        return current if current is not None else node

    def ancestors(self, node: cst.CSTNode) -> Iterator[cst.CSTNode]:
        current = self._parent.get(node)
        while current is not None:
            yield current
            current = self._parent.get(current)

    def function_around(self, node: cst.CSTNode) -> Function | None:
        """The innermost function or lambda holding `node`; None at module level."""
        for ancestor in self.ancestors(node):
            if isinstance(ancestor, (cst.FunctionDef, cst.Lambda)):
                return self.functions.get(ancestor)
        return None

    def _scope_defining(self, scope: Scope, name: str) -> Scope:
        """Python's lookup: the scope, then enclosing function scopes (not class bodies),
        then the module; where none defines it, the module."""
        if name in self._globals.get(scope, ()):
            return self.module
        current: Scope | None = scope
        first = True
        while current is not None:
            if (first or not isinstance(current, cst.ClassDef)) and name in self._defs.get(
                current, {}
            ):
                return current
            first = False
            current = self._outer.get(current)
        return self.module

    def definitions(self, name: cst.Name) -> list[Definition]:
        """The bindings a use of `name` may read (empty: a builtin or unbound name). A
        comprehension's variable is its own (Python 3): a use inside the comprehension that
        binds it reads that binding alone, a use elsewhere never reads it."""
        scope = self._scope_defining(self.scope_of(name), name.value)
        every = self._defs.get(scope, {}).get(name.value, [])
        if not any(type(d.statement) is cst.CompFor for d in every):
            return every
        outer = self._outer.get(scope)
        enclosing = self._defs.get(self._scope_defining(outer, name.value), {}) if outer else {}
        return scoped(name, every, enclosing.get(name.value, []), self._parent)

    def reaching(self, name: cst.Name) -> list[Definition]:
        """`_reaching`; for a read of one constant key (`batch["x"]`) or attribute (`args.x`),
        less the stores at another (`batch["w"] = draw()` puts nothing at "x": stop 48, a
        dict with a drawn entry was said to make every entry the draw's, DP047; round 33,
        kampta/PatchVAE@816f4b4: `args.out` set from os.environ made `args.temp` a read of
        os.environ, DP047 at each model call)."""
        found = self._reached.get(id(name))
        if found is None:  # each use walked once (the flow asks again per path through it)
            found = self._reached[id(name)] = self._reaching(name)
        found = list(found)
        parent = self._parent.get(name)
        key = None
        if isinstance(parent, cst.Subscript) and parent.value is name:
            key = _key(parent)
        elif isinstance(parent, cst.Attribute) and parent.value is name:
            key = f".{parent.attr.value}"  # `args.temp` holds nothing `args.out = v` put
        if key is not None:
            return [d for d in found if d.key is None or d.key == key]
        return found

    def _reaching(self, name: cst.Name) -> list[Definition]:
        """The bindings that may reach this use, narrowed by the blocks around it: walking
        out from the use, a plain binding earlier in the same block (`x = ...` as a
        statement of its own, or one in the body of a `with` there: the body runs
        whenever the `with` does) hides everything before it; a binding nested in an earlier
        statement (an if, a loop) may or may not run, so it is kept and the walk goes on;
        leaving a loop's body adds the loop's own bindings (the previous iteration's).
        Bindings outside the use's function (module globals, closures) are kept where the
        walk reaches the function's edge. Falls back to `definitions` where it is unsure."""
        every = self.definitions(name)
        if len(every) <= 1:
            return every
        inside: dict[int, set[int]] = {
            id(d): {id(a) for a in self.ancestors(d.target)} for d in every
        }
        found: list[Definition] = []
        seen: set[int] = set()

        def add(definition: Definition) -> None:
            if id(definition) not in seen:
                seen.add(id(definition))
                found.append(definition)

        node: cst.CSTNode = name
        while True:
            parent = self._parent.get(node)
            if parent is None:  # the module's top: what comes after the use cannot reach it
                return found or every
            if isinstance(parent, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
                for definition in every:  # its parameters, the enclosing scopes' bindings
                    if id(parent.body) not in inside[id(definition)]:
                        add(definition)
                return found
            body = getattr(parent, "body", None)
            if isinstance(parent, (cst.IndentedBlock, cst.Module)) and isinstance(
                body, tuple | list
            ):
                statements = list(body)
                if node in statements:
                    for statement in reversed(statements[: statements.index(node)]):
                        here = [d for d in every if id(statement) in inside[id(d)]]
                        always = {id(line) for line in _always_run(statement)}
                        plain = any(
                            d.kind in ("assign", "annassign") and inside[id(d)] & always
                            for d in here
                        )
                        for definition in here:
                            add(definition)
                        if plain and all(d.kind != "augassign" for d in here):  # `x += 1` reads x
                            return found
            if isinstance(parent, (cst.For, cst.While)) and node is parent.body:
                for definition in every:
                    if id(parent.body) in inside[id(definition)]:
                        add(definition)  # the previous iteration's
                if isinstance(parent, cst.For):
                    bound = [d for d in every if id(parent.target) in inside[id(d)]]
                    if bound or any(d.target is parent.target for d in every):
                        for definition in every:
                            if definition.target is parent.target:
                                add(definition)
                        for definition in bound:
                            add(definition)
                        return found  # each iteration binds the target first
            node = parent

    def definitions_in(self, scope: Scope, name: str) -> list[Definition]:
        return self._defs.get(scope, {}).get(name, [])

    def uses(self, scope: Scope, name: str) -> list[cst.Name]:
        """The loads of `name` that resolve to `scope`'s binding (in nested scopes too)."""
        found = []
        for inner, names in self._uses.items():
            for use in names.get(name, ()):
                if self._scope_defining(inner, name) is scope:
                    found.append(use)
        return found

    def attribute_definitions(self, owner: cst.ClassDef, attr: str) -> list[Definition]:
        """The bindings of `self.attr` in `owner`'s methods (and its base classes of this
        module, named plainly)."""
        found = list(self._attrs.get(owner, {}).get(attr, []))
        for base in owner.bases:
            if isinstance(base.value, cst.Name):
                for parent in self.classes.get(base.value.value, ()):
                    if parent is not owner:
                        found += self._attrs.get(parent, {}).get(attr, [])
        return found

    def method(self, owner: cst.ClassDef, name: str) -> Function | None:
        """`owner.name` defined in `owner`'s body (or a plainly named base of this module)."""
        todo = [owner]
        seen: set[cst.ClassDef] = set()
        while todo:
            current = todo.pop()
            if current in seen:
                continue
            seen.add(current)
            for definition in self._defs.get(current, {}).get(name, ()):
                if definition.kind == "def":
                    function = self.functions.get(definition.statement)
                    if function is not None:
                        return function
            for base in current.bases:
                if isinstance(base.value, cst.Name):
                    todo += self.classes.get(base.value.value, [])
        return None

    def subclasses(self, owner: cst.ClassDef) -> list[cst.ClassDef]:
        """The classes of this module derived from `owner` (a plainly named base), at any
        depth: an instance of one runs `owner`'s methods it does not define itself."""
        found: list[cst.ClassDef] = []
        todo = [owner]
        while todo:
            current = todo.pop()
            for candidates in self.classes.values():
                for candidate in candidates:
                    if candidate in found or candidate is owner:
                        continue
                    if any(
                        isinstance(b.value, cst.Name) and b.value.value == current.name.value
                        for b in candidate.bases
                    ):
                        found.append(candidate)
                        todo.append(candidate)
        return found

    def function_named(self, name: str) -> list[Function]:
        """Functions and methods of the module called `name`."""
        if self._by_name is None:
            self._by_name = {}
            for function in self.functions.values():
                self._by_name.setdefault(function.name, []).append(function)
        return self._by_name.get(name, [])

    def call_sites(self, function: Function) -> list[cst.Call]:
        """Calls that may call `function`: `f(...)` where f resolves to its definition, and
        for a method any `x.name(...)` (the receiver's class is not tracked: a may-answer)
        and `Class(...)` for `__init__`."""
        if self._sites is None:
            self._sites = {}
            for call in self.calls:
                for callee in self.callees(call):
                    self._sites.setdefault(callee, []).append(call)
        return self._sites.get(function, [])

    def callees(self, call: cst.Call) -> list[Function]:
        """The functions of this module `call` may run: a plain function, a method by
        name, a class's `__init__`, a function picked from a table or bound to another
        name (`train = train_nll`: flow/called.py)."""
        func = call.func
        if isinstance(func, cst.Name):
            return name_callees(self, func)
        if isinstance(func, cst.Attribute):
            return [f for f in self.function_named(func.attr.value) if f.owner is not None]
        if isinstance(func, cst.Subscript):
            return looked_up(self, func)
        return []

    def class_called(self, call: cst.Call) -> cst.ClassDef | None:
        """The class of this module `call` instantiates (`BatchIter(...)`), if any."""
        if isinstance(call.func, cst.Name):
            for definition in self.definitions(call.func):
                if definition.kind == "class" and isinstance(definition.statement, cst.ClassDef):
                    return definition.statement
        return None

    def imported(self, name: cst.Name) -> bool:
        """`name` is bound by an import (torch, np, os...). A write to one of the module's
        attributes or items (`torch.backends.cudnn.benchmark = True`, `os.environ[k] = v`:
        a "store" of what the name holds) rebinds nothing: before, it made `torch` no
        import, `torch.tensor(...)` a method of a value, and a batch cut from it a batch
        from an import nobody can split (DP047, FFly/pytorch-cifar10-all-in-gpu@93d9401)."""
        found = [d for d in self.definitions(name) if d.kind != "store"]
        return bool(found) and all(d.kind == "import" for d in found)

    def imported_root(self, expr: cst.BaseExpression) -> bool:
        """The name an attribute chain starts from (`np` of `np.random.rand`, or `expr`
        itself) is bound by an import (`imported`): a module's function or value, not a
        method or attribute of a value the program made."""
        while isinstance(expr, cst.Attribute):
            expr = expr.value
        return isinstance(expr, cst.Name) and self.imported(expr)


def _self_attribute(node: cst.BaseExpression, function: Function | None) -> cst.Attribute | None:
    """`self.args` of `self.args` or `self.args.a.b` in a method whose `self` it is; None
    for any other expression."""
    while isinstance(node, cst.Attribute):
        if function is not None and isinstance(node.value, cst.Name):
            return node if node.value.value == function.self_name else None
        node = node.value
    return None


def _root_name(node: cst.BaseExpression) -> cst.Name | None:
    while isinstance(node, (cst.Attribute, cst.Subscript)):
        node = node.value
    return node if isinstance(node, cst.Name) else None


def _chain(node: cst.BaseExpression) -> Iterator[cst.Subscript]:
    """The subscripts of a target from the outermost in (`d["a"][0]`: `d["a"][0]`, `d["a"]`)."""
    while isinstance(node, (cst.Attribute, cst.Subscript)):
        if isinstance(node, cst.Subscript):
            yield node
        node = node.value


def _key(node: cst.Subscript) -> str | None:
    """The constant string `node` indexes by (`d["k"]`), else None."""
    if len(node.slice) != 1 or not isinstance(node.slice[0].slice, cst.Index):
        return None
    value = node.slice[0].slice.value
    if isinstance(value, cst.SimpleString):
        evaluated = value.evaluated_value
        return evaluated if isinstance(evaluated, str) else None
    return None


def _decorator(decorator: cst.Decorator) -> str:
    value = decorator.decorator
    if isinstance(value, cst.Call):
        value = value.func
    if isinstance(value, cst.Attribute):
        return value.attr.value
    return value.value if isinstance(value, cst.Name) else ""


view = PerTree(DefUse)
"""The def-use view of a module, built once per tree: passes that leave the tree as it was
(the pipeline's copy-on-write) share it, and a changed tree gets a new one."""


def _always_run(statement: cst.CSTNode) -> list[cst.SimpleStatementLine]:
    """The simple statements that run whenever `statement` does: itself, or those of a
    `with` body (a `with` nested in it too). Not a `with suppress(...)`: an exception may
    leave the rest of its body unrun (issue 28: `with torch.no_grad(): fake =
    netG(fixed_noise)` hid the step's `fake = netG(noise)` from no read after it)."""
    if isinstance(statement, cst.SimpleStatementLine):
        return [statement]
    if not isinstance(statement, cst.With) or not isinstance(statement.body, cst.IndentedBlock):
        return []
    if suppresses(statement):
        return []
    return [line for inner in statement.body.body for line in _always_run(inner)]


def suppresses(statement: cst.With) -> bool:
    """A `with` whose item may suppress an exception (`contextlib.suppress(...)`): the rest
    of its body may not run (the readers that take a `with` body as always run ask)."""
    for item in statement.items:
        func = item.item.func if isinstance(item.item, cst.Call) else item.item
        while isinstance(func, cst.Attribute):
            func = func.attr
        if isinstance(func, cst.Name) and "suppress" in func.value:
            return True
    return False
