"""Copy-on-write visiting: libcst's transformer visit, without rebuilding what no pass
changed.

libcst's `CSTNode.visit` rebuilds every node of the tree on every pass (a new node built
from its visited children even when none of them changed; its own source says "TODO:
provide traversal where children are not replaced"), and a pass that changes nothing then
hands on a new tree whose code must be generated and compared again. `visit_tree` calls
the same hooks in the same order (`on_visit`, each field in libcst's visiting order, then
`on_leave(original, updated)`), handles removals and flattenings as libcst's
`visit_required` / `visit_optional` / `visit_sentinel` / `visit_sequence` /
`visit_body_sequence` do, and builds a new node only when one of its children came back
as another object: a pass that changes nothing returns the very tree it was given.

Used for passes without per-field hooks (`visit_<Type>_<field>`); the fields each node
type visits, and how, come from transforms/_support/children.py.

`read_tree` is the same for a read-only `CSTVisitor` (the passes' helper visitors that
collect facts): libcst's `node.visit(visitor)` rebuilds every node it passes there too, and
drops the copies; here the hooks are called on the nodes themselves and nothing is built.
"""

from __future__ import annotations

import re
from typing import Any

import libcst as cst

from dp2ddp.transforms._support.children import KIND, NODE, SEQUENCE, children_of, visits

_Result = cst.CSTNode | cst.RemovalSentinel | cst.FlattenSentinel[Any]


def visit_tree(visitor: cst.CSTTransformer, node: cst.CSTNode) -> _Result:
    """`node.visit(visitor)`, rebuilding only nodes whose children changed."""
    if visitor.on_visit(node):
        updated = _children(visitor, node)
    else:
        updated = node
    result = visitor.on_leave(node, updated)
    if KIND[type(result)] != NODE and not isinstance(
        result, (cst.RemovalSentinel, cst.FlattenSentinel)
    ):
        raise cst.CSTValidationError(
            "Expected a node of type CSTNode or a RemovalSentinel, "
            + f"but got a return value of {type(result).__name__}"
        )
    return result


def _children(visitor: cst.CSTTransformer, node: cst.CSTNode) -> cst.CSTNode:
    fields = visits(type(node))
    if fields is None:
        return node._visit_and_replace_children(visitor)  # libcst's own rebuilding
    changes: dict[str, Any] | None = None
    kinds = KIND
    for name, how in fields:
        value = getattr(node, name)
        kind = kinds[type(value)]
        if kind == NODE:
            result = visit_tree(visitor, value)
            if result is value:
                continue
            new: Any = _single(result, value, how)
        elif kind == SEQUENCE:
            new = _sequence(visitor, value, body=how == "body_sequence")
            if new is None:
                continue
        else:
            continue  # None or MaybeSentinel: nothing to visit
        if changes is None:
            changes = {}
        changes[name] = new
    return node if changes is None else node.with_changes(**changes)


def _single(result: _Result, value: cst.CSTNode, how: str) -> Any:
    """What a field holding one node becomes (libcst.\\_nodes.internal's rules)."""
    kind = type(value).__name__
    if isinstance(result, cst.FlattenSentinel):
        raise TypeError(
            f"We got a FlattenSentinel while visiting a {kind}. This "
            + "node's parent does not allow for it to be it to be replaced with a "
            + "sequence."
        )
    if isinstance(result, cst.RemovalSentinel):
        if how == "optional":
            return None
        if how == "sentinel":
            return cst.MaybeSentinel.DEFAULT
        raise TypeError(
            f"We got a RemovalSentinel while visiting a {kind}. This "
            + "node's parent does not allow it to be removed."
        )
    return result


def _sequence(
    visitor: cst.CSTTransformer, children: tuple[Any, ...] | list[Any], *, body: bool
) -> tuple[Any, ...] | None:
    """The new children of a sequence field, or None when every child came back as itself."""
    found: list[Any] = []
    changed = False
    for child in children:
        new = visit_tree(visitor, child)
        if new is child:
            found.append(child)
            continue
        changed = True
        if isinstance(new, cst.RemovalSentinel):
            continue
        if isinstance(new, cst.FlattenSentinel):
            if body:
                # As visit_body_iterable: an empty statement that replaced a non-empty one
                # is dropped (a removal left it empty).
                found.extend(
                    item for item in new if child._is_removable() or not item._is_removable()
                )
            else:
                found.extend(new)
        elif body and not child._is_removable() and new._is_removable():
            continue
        else:
            found.append(new)
    return tuple(found) if changed else None


_ATTRIBUTE_HOOK = re.compile(r"(visit|leave)_[A-Z][A-Za-z]*_[a-z_]+$")
#: class -> the per-field hook names its own namespace defines that are not libcst's no-op
#: stubs (`_is_no_op`): libcst's typed visitor base holds 1,126 such stubs, scanned once here
#: instead of once per visitor class (each pass and rule class paid a `dir()` and 1,200
#: regex matches; at import, the pass classes' `__init_subclass__` did so 40 times).
_OWN_HOOKS: dict[type, frozenset[str]] = {}
#: visitor class -> whether it has per-field hooks (then libcst's own visit calls them)
_FIELD_HOOKS: dict[type[cst.CSTVisitor], bool] = {}


def _own_hooks(kind: type) -> frozenset[str]:
    try:
        return _OWN_HOOKS[kind]
    except KeyError:
        found = _OWN_HOOKS[kind] = frozenset(
            name
            for name, value in vars(kind).items()
            if _ATTRIBUTE_HOOK.match(name) and not getattr(value, "_is_no_op", False)
        )
        return found


def field_hooks(kind: type) -> bool:
    """Whether `kind` has a per-field hook (`visit_<Type>_<field>`, `leave_<Type>_<field>`)
    that is not one of libcst's no-op stubs: what scanning `dir(kind)` for such names and
    testing each found by getattr tells. A hook getattr finds is defined, not as a stub, in
    the namespace of some class of the MRO, so only those names need looking up."""
    names = frozenset().union(*(_own_hooks(base) for base in kind.__mro__))
    for name in names:
        hook = getattr(kind, name, None)
        if hook is not None and not getattr(hook, "_is_no_op", False):
            return True
    return False


def read_tree(node: cst.CSTNode, visitor: cst.CSTVisitor) -> None:
    """`node.visit(visitor)` for a read-only visitor: `on_visit(node)`, the children in
    libcst's visiting order (unless on_visit said False), then `on_leave(node)`, as libcst
    calls them, without libcst rebuilding each node on the way. A visitor with per-field
    hooks (`visit_<Type>_<field>`, its own on_visit_attribute) is left to libcst."""
    kind = type(visitor)
    hooks = _FIELD_HOOKS.get(kind)
    if hooks is None:
        hooks = _FIELD_HOOKS[kind] = (
            kind.on_visit_attribute is not cst.CSTVisitor.on_visit_attribute
            or kind.on_leave_attribute is not cst.CSTVisitor.on_leave_attribute
            or field_hooks(kind)
        )
    if hooks:
        node.visit(visitor)
    else:
        _read(visitor, node)


def _read(visitor: cst.CSTVisitor, node: cst.CSTNode) -> None:
    if visitor.on_visit(node):
        for child in children_of(node):
            _read(visitor, child)
    visitor.on_leave(node)
