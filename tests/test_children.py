"""`children_of` (transforms/_support/children.py) gives what libcst's `node.children` gives,
node for node and in the same order, on every golden fixture's input and output and on
a few of dp2ddp's own modules (which use most of Python's syntax)."""

from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest
from conftest import FIXTURES, ROOT

from dp2ddp.transforms._support.children import _VISITS, children_of


def _sources() -> list[Path]:
    fixtures = sorted(FIXTURES.glob("*/*.py"))
    return fixtures + sorted((ROOT / "dp2ddp" / "transforms" / "_support").glob("*.py"))


def test_children_of_is_libcsts_children() -> None:
    nodes = 0
    for path in _sources():
        stack: list[cst.CSTNode] = [cst.parse_module(path.read_text(encoding="utf-8"))]
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
