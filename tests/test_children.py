"""`children_of` (transforms/_support/children.py) gives what libcst's `node.children` gives,
node for node and in the same order, on every golden fixture's input and output and on
a few of dp2ddp's own modules (which use most of Python's syntax); `read_tree` calls a
read-only visitor's hooks as libcst's `node.visit` does; the walks' type tests agree with
isinstance."""

from __future__ import annotations

import ast
from pathlib import Path

import libcst as cst
import pytest
from conftest import FIXTURES, ROOT

from dp2ddp.flow.bindings import _COUNTED_KINDS
from dp2ddp.flow.defuse import LEAF_KINDS
from dp2ddp.migrate.reindent import refused_lines
from dp2ddp.transforms._support import ast_nodes
from dp2ddp.transforms._support.children import (
    _VISITS,
    KIND,
    NODE,
    SCOPE_KINDS,
    SEQUENCE,
    children_of,
)
from dp2ddp.transforms._support.nodes import ModuleNodes, nodes_of, walk
from dp2ddp.transforms._support.runtime import NAME_WALK_KINDS
from dp2ddp.transforms._support.visiting import field_hooks, read_tree


def _sources() -> list[Path]:
    fixtures = sorted(FIXTURES.glob("*/*.py"))
    paths = fixtures + sorted((ROOT / "dp2ddp" / "transforms" / "_support").glob("*.py"))
    # indentation libcst refuses (migrate re-indents it first: reindent.py) is not a tree
    return [p for p in paths if not refused_lines(p.read_text(encoding="utf-8"))]


@pytest.fixture(scope="module")
def distinct_modules() -> list[tuple[Path, cst.Module]]:
    """Every source parsed once for both comparisons below, each module keeping only the
    top-level statements not met before in an earlier source (same statement kind, same
    text, same layout: indent, newline, encoding). Both comparisons are local to a node
    (its children; the hooks met below it), and libcst parses the same statement text
    under the same layout to the same tree, so a repeated statement (the inserted helpers
    of every expected.py, an input's copy in its expected.py) would check the same
    trees again: a quarter of the bytes remains, every node kind and shape met in the
    whole sources is still met. A module whose every statement was met before is still
    compared (its header, footer and Module node)."""
    seen: set[tuple[type, tuple[str, str, bool, str], str]] = set()
    modules: list[tuple[Path, cst.Module]] = []
    for path in _sources():
        module = cst.parse_module(path.read_text(encoding="utf-8"))
        layout = (
            module.default_indent,
            module.default_newline,
            module.has_trailing_newline,
            module.encoding,
        )
        body = []
        for statement in module.body:
            key = (type(statement), layout, module.code_for_node(statement))
            if key not in seen:
                seen.add(key)
                body.append(statement)
        modules.append((path, module.with_changes(body=body)))
    return modules


def test_children_of_is_libcsts_children(distinct_modules: list[tuple[Path, cst.Module]]) -> None:
    nodes = 0
    for path, module in distinct_modules:
        stack: list[cst.CSTNode] = [module]
        while stack:
            node = stack.pop()
            expected = list(node.children)
            got = list(children_of(node))
            assert len(got) == len(expected), (path, type(node).__name__)
            assert all(a is b for a, b in zip(got, expected, strict=True)), (path, type(node))
            nodes += 1
            stack.extend(expected)
    assert nodes > 50_000
    # Every node type met was read from its visiting method, none fell back to libcst.
    assert not [kind.__name__ for kind, order in _VISITS.items() if order is None]


@pytest.mark.parametrize(
    "source",
    [
        "x = a if b else c\n",  # IfExp: body before test, not the field order
        "@d\ndef f(a: int = 1) -> int:\n    return a\n",  # decorators before the name
        "class C(B, metaclass=M):\n    pass\n",
        "from . import (a, b)\nfrom m import *\n",
        'f"{x!r:>{width}}"\n',
    ],
)
def test_field_order_differs_from_declaration(source: str) -> None:
    module = cst.parse_module(source)
    stack: list[cst.CSTNode] = [module]
    while stack:
        node = stack.pop()
        assert list(children_of(node)) == list(node.children)
        stack.extend(node.children)


class _Hooks(cst.CSTVisitor):
    """Records every hook call libcst makes on a read-only visitor; skips into no Lambda
    (a visit that returns False)."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, cst.CSTNode]] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        self.calls.append(("visit", node))
        return super().on_visit(node)

    def on_leave(self, original_node: cst.CSTNode) -> None:
        self.calls.append(("leave", original_node))
        super().on_leave(original_node)

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False


def test_read_tree_calls_the_hooks_libcst_calls(
    distinct_modules: list[tuple[Path, cst.Module]],
) -> None:
    """read_tree: the same hooks on the same nodes in the same order as `node.visit`."""
    calls = 0
    for path, module in distinct_modules:
        expected, got = _Hooks(), _Hooks()
        module.visit(expected)
        read_tree(module, got)
        assert len(got.calls) == len(expected.calls), path
        assert all(
            a[0] == b[0] and a[1] is b[1] for a, b in zip(got.calls, expected.calls, strict=True)
        ), path
        calls += len(got.calls)
    assert calls > 100_000


def test_read_tree_leaves_field_hooks_to_libcst() -> None:
    class FieldHook(cst.CSTVisitor):
        def __init__(self) -> None:
            self.seen = 0

        def visit_Call_func(self, node: cst.Call) -> None:
            self.seen += 1

    visitor = FieldHook()
    read_tree(cst.parse_module("f(g(x))\n"), visitor)
    assert visitor.seen == 2


def test_field_hooks_is_the_dir_scan() -> None:
    """field_hooks (the MRO's own namespaces, libcst's stubs scanned once) answers what
    scanning dir() for per-field hook names and looking each up answers, for every visitor
    class dp2ddp defines (all its modules imported) and for classes with a hook, inherited
    or put back to a no-op stub."""
    import importlib
    import pkgutil
    import re

    import dp2ddp

    for info in pkgutil.walk_packages(dp2ddp.__path__, "dp2ddp."):
        importlib.import_module(info.name)
    hook_name = re.compile(r"(visit|leave)_[A-Z][A-Za-z]*_[a-z_]+$")

    def scanned(kind: type) -> bool:
        return any(
            hook_name.match(name) and not getattr(getattr(kind, name), "_is_no_op", False)
            for name in dir(kind)
        )

    class Hooked(cst.CSTVisitor):
        def leave_Call_func(self, node: cst.Call) -> None:
            pass

    class Inherits(Hooked):
        pass

    class Stubbed(Hooked):
        leave_Call_func = cst.CSTVisitor.leave_Call_func

    kinds: list[type] = [Hooked, Inherits, Stubbed]
    stack: list[type] = [cst.CSTVisitor, cst.CSTTransformer]
    while stack:
        kind = stack.pop()
        kinds.append(kind)
        stack.extend(kind.__subclasses__())
    assert len(kinds) > 40
    assert [field_hooks(k) for k in kinds] == [scanned(k) for k in kinds]
    assert field_hooks(Inherits) and not field_hooks(Stubbed)


def test_exact_type_checks_name_leaf_classes() -> None:
    """Where a walk matches `type(node) is X` (or `in` a set of types) instead of
    isinstance, X has no subclass: the two agree."""
    kinds = {*LEAF_KINDS, *_COUNTED_KINDS, *SCOPE_KINDS, *NAME_WALK_KINDS}
    assert all(isinstance(kind, type) and not kind.__subclasses__() for kind in kinds)


def test_kind_table_agrees_with_isinstance() -> None:
    values: list[object] = [cst.Name("x"), cst.MaybeSentinel.DEFAULT, None, "x", (), [], 1]
    values += [cst.SimpleWhitespace(" "), cst.Newline(), cst.parse_module("x\n")]
    for value in values:
        assert (KIND[type(value)] == NODE) == isinstance(value, cst.CSTNode)
        assert (KIND[type(value)] == SEQUENCE) == isinstance(value, (tuple, list))


#: Kinds asked of nodes_of: a leaf class, a pair, and libcst's abstract bases.
_ASKED: list[type[cst.CSTNode] | tuple[type[cst.CSTNode], ...]] = [
    cst.Call,
    (cst.For, cst.While),
    cst.BaseExpression,
    (cst.BaseCompoundStatement, cst.Name),
]


def test_nodes_of_is_walk_filtered_by_isinstance() -> None:
    """nodes_of (a module's answer kept per tree, a subtree's walked) and ModuleNodes.of
    give what `[n for n in walk(root) if isinstance(n, kinds)]` gives, in that order, with
    and without skip_scopes; ast_nodes.walk gives ast.walk's nodes in its order."""
    for path in _sources()[::7]:
        text = path.read_text(encoding="utf-8")
        module = cst.parse_module(text)
        functions = [n for n in walk(module) if isinstance(n, cst.FunctionDef)]
        for kinds in _ASKED:
            for root in (module, *functions[:5]):
                for skip in (False, True):
                    expected = [n for n in walk(root, skip_scopes=skip) if isinstance(n, kinds)]
                    assert list(nodes_of(root, kinds, skip_scopes=skip)) == expected
            expected = [n for n in walk(module) if isinstance(n, kinds)]
            assert list(nodes_of(module, kinds)) == expected  # kept: asked again
            assert list(ModuleNodes(module).of(kinds)) == expected
        tree = ast.parse(text)
        assert ast_nodes.walk(tree) == list(ast.walk(tree))
