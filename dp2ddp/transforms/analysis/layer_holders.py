"""Which attributes hold a layer `__init__` registers (DP041, partial_forward.py): a layer
handed whole to a container or another module `__init__` keeps is used as its holders are."""

from __future__ import annotations

import ast
from collections.abc import Callable

from dp2ddp.transforms._support import ast_nodes
from dp2ddp.transforms._support.ast_nodes import is_self_attribute


def holders(init: ast.FunctionDef | ast.AsyncFunctionDef, me: str) -> dict[str, set[str]]:
    """`self.x` handed whole to something `__init__` keeps: attribute x -> the attributes
    that hold it, "" where the holder is not known.

    `self.body = nn.Sequential(self.conv1, self.bn1)`, `self.heads = nn.ModuleDict({"a":
    self.a})`, `self.layers.append(self.bn1)`, `self.block = Block(self.bn1)`, through local
    lists (`layers = [self.conv1]`, `layers.append(self.bn1)`, `nn.Sequential(*layers)`).
    `self.x.weight` or `self.x(...)` in `__init__` (an initialisation) hands nothing on.
    A binding `__init__` replaces later holds nothing (rebound)."""
    locals_of: dict[str, set[str]] = {}  # local name -> the attributes it holds
    replaced = rebound(init, me)
    held: dict[str, set[str]] = {}

    def handed(node: ast.AST) -> set[str]:
        """Attributes `node` hands on whole, and those of the locals it reads."""
        found: set[str] = set()
        stack = [node]
        while stack:
            current = stack.pop()
            if isinstance(current, ast.Attribute):
                if isinstance(current.value, ast.Name) and current.value.id == me:
                    found.add(current.attr)
                    continue
                # `self.x.weight`: a part of it, not the module
                inner = current.value
                while isinstance(inner, ast.Attribute):
                    inner = inner.value
                if isinstance(inner, ast.Name) and inner.id == me:
                    continue
            if isinstance(current, ast.Call):
                stack.extend(current.args)
                stack.extend(k.value for k in current.keywords)
                if not is_self_attribute(current.func, me):
                    stack.append(current.func)
                continue
            if isinstance(current, ast.Name) and isinstance(current.ctx, ast.Load):
                found |= locals_of.get(current.id, set())
            stack.extend(ast.iter_child_nodes(current))
        return found

    def hold(attributes: set[str], holder: str) -> None:
        for attribute in attributes:
            if attribute != holder:
                held.setdefault(attribute, set()).add(holder)

    statements = [
        node
        for node in ast_nodes.walk(init)
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign))
        and node.value is not None
        or isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Call)
        or isinstance(node, (ast.For, ast.comprehension))
    ]
    size = -1
    while size != (size := sum(map(len, (*held.values(), *locals_of.values())))):
        # again until nothing more is found: a list filled in a loop that follows its use
        for node in statements:
            if isinstance(node, ast.Expr):
                assert isinstance(node.value, ast.Call)
                hand_on_call(node.value, me, handed, hold, locals_of)
                continue
            if isinstance(node, (ast.For, ast.comprehension)):
                value: ast.expr | None = node.iter  # `for layer in (self.a, self.b):`
            else:
                value = node.value
            attributes = handed(value) if value is not None else set()
            if not attributes:
                continue
            if isinstance(node, ast.Assign):
                targets = node.targets
            else:
                assert not isinstance(node, ast.Expr)
                targets = [node.target]
            for target in targets:
                root = target
                while isinstance(root, (ast.Subscript, ast.Attribute)) and not (
                    is_self_attribute(root, me)
                ):
                    root = root.value
                if isinstance(root, ast.Attribute):  # self.h = ..., self.h[k] = ...
                    if (id(node), root.attr) not in replaced:
                        hold(attributes, root.attr)
                elif isinstance(root, ast.Name):
                    locals_of.setdefault(root.id, set()).update(attributes)
                else:
                    hold(attributes, "")
    return held


def rebound(init: ast.FunctionDef | ast.AsyncFunctionDef, me: str) -> set[tuple[int, str]]:
    """(id of the statement, attribute) of each `self.h = ...` that a later statement of
    `__init__`'s own body (run after it on every path) binds again without reading it:
    what the first bound is no longer held by `h`. thuml/Koopa@a2e0bb7's `self.time_inv_kps
    = self.time_var_kps = nn.ModuleList(...)`, then `self.time_var_kps = ...` (class v2-C of
    stop 56): the first list is `time_inv_kps`'s alone."""
    found: set[tuple[int, str]] = set()
    for index, statement in enumerate(init.body):
        for node in ast_nodes.walk(statement):
            if not isinstance(node, ast.Assign):
                continue
            for target in node.targets:
                if isinstance(target, ast.Attribute) and is_self_attribute(target, me):
                    later = init.body[index + 1 :]
                    if any(_binds_anew(s, target.attr, me) for s in later):
                        found.add((id(node), target.attr))
    return found


def _binds_anew(statement: ast.stmt, attribute: str, me: str) -> bool:
    """`statement` is `self.<attribute> = value` (one of its targets), `value` not reading
    `self.<attribute>` (`self.h = nn.Sequential(*self.h, x)` keeps what it held)."""
    if not isinstance(statement, ast.Assign):
        return False
    if not any(
        isinstance(t, ast.Attribute) and is_self_attribute(t, me) and t.attr == attribute
        for t in statement.targets
    ):
        return False
    return not any(
        isinstance(n, ast.Attribute) and is_self_attribute(n, me) and n.attr == attribute
        for n in ast_nodes.walk(statement.value)
    )


def hand_on_call(
    call: ast.Call,
    me: str,
    handed: Callable[[ast.AST], set[str]],
    hold: Callable[[set[str], str], None],
    locals_of: dict[str, set[str]],
) -> None:
    """A call statement that hands layers on: `self.layers.append(self.bn1)` (held by
    `layers`), `blocks.append(self.bn1)` (by the local list), anything else (`self.add_module
    (...)`, `setattr(...)`, `register(self.bn1)`): held by something not known."""
    attributes: set[str] = set()
    for argument in (*call.args, *(k.value for k in call.keywords)):
        attributes |= handed(argument)
    if not attributes:
        return
    receiver = call.func.value if isinstance(call.func, ast.Attribute) else None
    if receiver is not None and is_self_attribute(receiver, me):
        assert isinstance(receiver, ast.Attribute)
        hold(attributes, receiver.attr)
    elif isinstance(receiver, ast.Name) and receiver.id != me:
        locals_of.setdefault(receiver.id, set()).update(attributes)
    else:
        hold(attributes, "")


def built_under_flags(
    init: ast.FunctionDef | ast.AsyncFunctionDef,
    me: str,
    holds_parameters: Callable[[ast.expr], str | None],
) -> dict[str, tuple[int, str]]:
    """The layers with parameters `__init__` builds inside an `if` (`self.x = <layer>` in
    either arm, nested `if`s included): attribute -> (line, holds, as `registered`)."""
    found: dict[str, tuple[int, str]] = {}
    stack = [s for s in init.body if isinstance(s, ast.If)]
    while stack:
        statement = stack.pop()
        for node in (*statement.body, *statement.orelse):
            if isinstance(node, ast.If):
                stack.append(node)
            elif isinstance(node, ast.Assign) and len(node.targets) == 1:
                target = node.targets[0]
                if is_self_attribute(target, me) and isinstance(target, ast.Attribute):
                    holds = holds_parameters(node.value)
                    if holds is not None:
                        found.setdefault(target.attr, (node.lineno, holds))
    return found
