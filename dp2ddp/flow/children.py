"""`children_of(node)`: what libcst's `node.children` gives, without libcst's visitor.

libcst computes `children` by running a visitor that rebuilds the node (every field visited,
a new node constructed, then dropped): a walk of a module through `children` cost more than
the passes' own work. Here each node type's fields are read directly, in the order libcst's
visitor visits them. That order is taken from the node type's own
`_visit_and_replace_children` (the field names it hands to `visit_required`,
`visit_sequence` ...), once a type; a type whose visiting method does not have that shape
falls back to libcst's `children`. tests/test_children.py compares the two, node for node,
over every golden fixture's input and output.
"""

from __future__ import annotations

import ast
import dataclasses
import inspect
import textwrap
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Generic, TypeVar, overload

import libcst as cst

#: How libcst visits a field: "required", "optional", "sentinel", "sequence" or
#: "body_sequence" (the names of libcst._nodes.internal's visit_* functions).
Visit = tuple[str, str]  # (field name, how)

#: node type -> its visited fields in visiting order; None: use libcst's own visiting.
_VISITS: dict[type[cst.CSTNode], tuple[Visit, ...] | None] = {}
_KINDS = frozenset({"required", "optional", "sentinel", "sequence", "body_sequence"})


def visits(kind: type[cst.CSTNode]) -> tuple[Visit, ...] | None:
    """The fields `kind._visit_and_replace_children` visits, in order, each with the
    visit_* function that visits it (for a field visited two ways, as ImportFrom's `names`
    by visit_required or visit_sequence, the first: the value's type tells them apart).
    None when its source cannot be read that way."""
    try:
        return _VISITS[kind]
    except KeyError:
        found = _VISITS[kind] = _visit_order(kind)
        return found


def _visit_order(kind: type[cst.CSTNode]) -> tuple[Visit, ...] | None:
    try:
        source = textwrap.dedent(inspect.getsource(kind._visit_and_replace_children))
        tree = ast.parse(source)
    except (OSError, TypeError, SyntaxError):
        return None
    # Each visit must rebuild the field it names: `name=visit_x(self, "name", ...)`.
    keyword_of: dict[int, str | None] = {}
    for keyword in ast.walk(tree):
        if isinstance(keyword, ast.keyword):
            for inner in ast.walk(keyword.value):
                keyword_of[id(inner)] = keyword.arg
    found: list[tuple[int, int, str, str]] = []
    for node in ast.walk(tree):
        if not (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id.startswith("visit_")
        ):
            continue
        how = node.func.id[len("visit_") :]
        if (
            how not in _KINDS
            or len(node.args) < 3
            or not (isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str))
        ):
            return None  # a visit this reading does not understand
        if keyword_of.get(id(node)) != node.args[1].value:
            return None
        found.append((node.lineno, node.col_offset, node.args[1].value, how))
    fields = set(_dataclass_fields(kind))
    order: list[Visit] = []
    for _, _, name, how in sorted(found):
        if name not in fields:
            return None
        if name not in (done for done, _ in order):
            order.append((name, how))
    return tuple(order)


def _dataclass_fields(kind: type[cst.CSTNode]) -> tuple[str, ...]:
    fields = getattr(kind, "__dataclass_fields__", None)
    return tuple(fields) if isinstance(fields, dict) else ()


#: What a field's value is, by its type: a node, a sequence (tuple or list), or other.
NODE, SEQUENCE, OTHER = 1, 2, 0


class _Kinds(dict[type, int]):
    """type -> NODE, SEQUENCE or OTHER, found once a type. libcst's node classes are ABCs:
    `isinstance(value, cst.CSTNode)` runs ABCMeta's Python-level check at every field of
    every node a walk passes (a sixth of a migration's time went to such checks); the walks
    here look the value's type up instead. Same answers: issubclass on the type is what
    isinstance decides for these values."""

    def __missing__(self, kind: type) -> int:
        found = (
            NODE
            if issubclass(kind, cst.CSTNode)
            else SEQUENCE
            if issubclass(kind, (tuple, list))
            else OTHER
        )
        self[kind] = found
        return found


KIND = _Kinds()


def children_of(node: cst.CSTNode) -> Sequence[cst.CSTNode]:
    """`node.children`: the node's direct children, in source (visiting) order."""
    fields = visits(type(node))
    if fields is None:
        return node.children
    found: list[cst.CSTNode] = []
    kinds = KIND
    for name, _ in fields:
        value = getattr(node, name)
        kind = kinds[type(value)]
        if kind == NODE:
            found.append(value)
        elif kind == SEQUENCE:
            found.extend(item for item in value if kinds[type(item)] == NODE)
    return found


_T = TypeVar("_T")
_N = TypeVar("_N", bound=cst.CSTNode)
_M = TypeVar("_M", bound=cst.CSTNode)


class PerTree(Generic[_T]):
    """A fact of a whole tree, computed once per tree object: the pipeline's copy-on-write
    hands an unchanged tree to the next pass, which then finds what the last one computed.
    The last `size` trees are kept (each held, so that its id is not reused while cached)."""

    def __init__(self, build: Callable[[cst.Module], _T], size: int = 16) -> None:
        self._build = build
        self._size = size
        self._cache: dict[int, tuple[cst.Module, _T]] = {}

    def __call__(self, module: cst.Module) -> _T:
        key = id(module)
        found = self._cache.get(key)
        if found is not None and found[0] is module:
            self._cache[key] = self._cache.pop(key)  # most recently used last
            return found[1]
        built = self._build(module)
        self._cache[key] = (module, built)
        while len(self._cache) > self._size:
            del self._cache[next(iter(self._cache))]
        return built


def _tree_nodes(module: cst.Module) -> tuple[cst.CSTNode, ...]:
    listed: list[cst.CSTNode] = []
    stack: list[cst.CSTNode] = [module]
    while stack:
        node = stack.pop()
        listed.append(node)
        stack.extend(reversed(children_of(node)))
    return tuple(listed)


tree_nodes = PerTree(_tree_nodes)
"""Every node of a module in source order (what a walk from the module yields), listed
once per tree: the passes' rules each ask for the whole module (the rank-zero rules five
times a pass)."""

#: The node types that open a scope (a walk's `skip_scopes` does not enter them), each a
#: leaf class of libcst (tests/test_children.py): matched by exact type.
SCOPE_KINDS = frozenset({cst.FunctionDef, cst.ClassDef, cst.Lambda})

Kinds = type[cst.CSTNode] | tuple[type[cst.CSTNode], ...]


class TypeTest(dict[type, bool]):
    """`isinstance(node, kinds)`, answered from the node's type, found once a type: on
    libcst's ABCs an isinstance that fails runs ABCMeta's Python-level check (one per
    class of a tuple), at every node a walk filters (a sixth of a monorepo's time)."""

    def __init__(self, kinds: Kinds) -> None:
        super().__init__()
        self.kinds = kinds

    def __missing__(self, kind: type) -> bool:
        found = self[kind] = issubclass(kind, self.kinds)
        return found


_TESTS: dict[Kinds, TypeTest] = {}


def type_test(kinds: Kinds) -> TypeTest:
    """The shared TypeTest of `kinds` (a class or a tuple of classes)."""
    test = _TESTS.get(kinds)
    if test is None:
        test = _TESTS[kinds] = TypeTest(kinds)
    return test


_typed: PerTree[dict[Kinds, tuple[cst.CSTNode, ...]]] = PerTree(lambda module: {})


def module_nodes_of(module: cst.Module, kinds: Kinds) -> tuple[cst.CSTNode, ...]:
    """The nodes of `module` that are `kinds`, in source order: the module's listing
    filtered once per tree and kinds. The program facts and the passes' rules each look
    for the calls, the assignments or the defs of the whole module; each such question
    is answered once for the tree (the pipeline hands an unchanged tree to the next pass,
    which finds it answered)."""
    found = _typed(module)
    nodes = found.get(kinds)
    if nodes is None:
        test = type_test(kinds)
        nodes = found[kinds] = tuple(n for n in tree_nodes(module) if test[type(n)])
    return nodes


_FIELDS: dict[type[cst.CSTNode], tuple[str, ...]] = {}


def _fields(kind: type[cst.CSTNode]) -> tuple[str, ...]:
    names = _FIELDS.get(kind)
    if names is None:
        names = _FIELDS[kind] = tuple(f.name for f in dataclasses.fields(kind))
    return names


def _parent_map(module: cst.Module) -> Mapping[cst.CSTNode, cst.CSTNode] | None:
    parents: dict[cst.CSTNode, cst.CSTNode] = {}
    stack: list[cst.CSTNode] = [module]
    kinds = KIND
    while stack:
        node = stack.pop()
        for name in _fields(type(node)):
            value = getattr(node, name)
            kind = kinds[type(value)]
            if kind == NODE:
                if value in parents:
                    return None
                parents[value] = node
                stack.append(value)
            elif kind == SEQUENCE:
                for item in value:
                    if kinds[type(item)] == NODE:
                        if item in parents:
                            return None
                        parents[item] = node
                        stack.append(item)
    return parents


parent_map = PerTree(_parent_map)
"""Each node's parent (what ParentNodeProvider gives), or None when a node object occurs
twice in the tree (then metadata keyed by node would be ambiguous); once per tree, shared
by the passes' metadata, the import edits and the def-use view. Read only."""


class ModuleNodes(Sequence[cst.CSTNode]):
    """A module's nodes in source order (tree_nodes), and those of given kinds
    (`of`: module_nodes_of): what a pass hands its rules for the whole module, so that each
    rule asks for the loops, the calls or the classes it reads instead of testing every
    node of the module again."""

    def __init__(self, module: cst.Module) -> None:
        self.module = module
        self._nodes = tree_nodes(module)

    @overload
    def __getitem__(self, index: int) -> cst.CSTNode: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[cst.CSTNode]: ...

    def __getitem__(self, index: int | slice) -> cst.CSTNode | Sequence[cst.CSTNode]:
        return self._nodes[index]

    def __len__(self) -> int:
        return len(self._nodes)

    def __iter__(self) -> Iterator[cst.CSTNode]:
        return iter(self._nodes)

    @overload
    def of(self, kinds: type[_N]) -> tuple[_N, ...]: ...

    @overload
    def of(self, kinds: tuple[type[_N], type[_M]]) -> tuple[_N | _M, ...]: ...

    @overload
    def of(self, kinds: tuple[type[cst.CSTNode], ...]) -> tuple[cst.CSTNode, ...]: ...

    def of(self, kinds: Kinds) -> tuple[cst.CSTNode, ...]:
        """The module's nodes of `kinds`, in source order, once per tree."""
        return module_nodes_of(self.module, kinds)
