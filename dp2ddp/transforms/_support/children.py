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
import inspect
import textwrap
from collections.abc import Sequence

import libcst as cst

#: node type -> its child-bearing fields in visiting order; None: use libcst's `children`.
_ORDER: dict[type[cst.CSTNode], tuple[str, ...] | None] = {}


def _visit_order(kind: type[cst.CSTNode]) -> tuple[str, ...] | None:
    """The field names `kind._visit_and_replace_children` visits, in order (None when its
    source cannot be read that way)."""
    try:
        source = textwrap.dedent(inspect.getsource(kind._visit_and_replace_children))
        tree = ast.parse(source)
    except (OSError, TypeError, SyntaxError):
        return None
    found: list[tuple[int, int, str]] = []
    for node in ast.walk(tree):
        if not (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id.startswith("visit_")
        ):
            continue
        if len(node.args) < 3 or not (
            isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str)
        ):
            return None  # a visit this reading does not understand
        found.append((node.lineno, node.col_offset, node.args[1].value))
    fields = set(_dataclass_fields(kind))
    order: list[str] = []
    for _, _, name in sorted(found):
        if name not in fields:
            return None
        if name not in order:
            order.append(name)
    return tuple(order)


def _dataclass_fields(kind: type[cst.CSTNode]) -> tuple[str, ...]:
    fields = getattr(kind, "__dataclass_fields__", None)
    return tuple(fields) if isinstance(fields, dict) else ()


def children_of(node: cst.CSTNode) -> Sequence[cst.CSTNode]:
    """`node.children`: the node's direct children, in source (visiting) order."""
    kind = type(node)
    try:
        order = _ORDER[kind]
    except KeyError:
        order = _ORDER[kind] = _visit_order(kind)
    if order is None:
        return node.children
    found: list[cst.CSTNode] = []
    node_type = cst.CSTNode
    for name in order:
        value = getattr(node, name)
        if isinstance(value, node_type):
            found.append(value)
        elif isinstance(value, (tuple, list)):
            found.extend(item for item in value if isinstance(item, node_type))
    return found
