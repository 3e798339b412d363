"""Where a name's value is read or bound again along the paths of one function (DP041's
question of a submodule's output the caller may drop, analysis/dropped_outputs.py).

A read "after" a call keeps the call's value only on the paths that reach it without the
name bound again: `out, feature = self.backbone(x)` then `if self.margin is not None:
out = self.margin(feature)` and `return out` reads the backbone's `out` on one path only.
On the other the layers feeding it get no gradient and DDP fails at the second step
(liuyoude/STgram-MFN@d6c8865, round 20: a classifier head replaced by an ArcFace margin).
`dropped_on_a_path` answers it over the function's structured statements: per path from
the call, read before bound again (kept), bound again or the function left first
(dropped), a path that raises counts for nothing (no backward follows).
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace

from dp2ddp.transforms._support import ast_nodes

#: A name bound by a plain assignment: (name, where the statement ends, its branches).
Store = tuple[str, tuple[int, int], frozenset[tuple[int, str]]]


def rebindings(
    function: ast.Module | ast.FunctionDef | ast.AsyncFunctionDef,
    branches: Mapping[int, frozenset[tuple[int, str]]],
) -> list[Store]:
    """The names `function`'s own plain assignments (`x = ...`, `a, b = ...`, `x: T = ...`)
    bind, each at the end of its statement: its value is read before the name is bound
    (`h = f(h)` reads the old `h`). Augmented assignments read the name: no rebinding."""
    stores: list[Store] = []
    for node in own_nodes(function):
        if isinstance(node, ast.Assign):
            targets: list[ast.expr] = list(node.targets)
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets = [node.target]
        else:
            continue
        end = (node.end_lineno or node.lineno, node.end_col_offset or 0)
        where = branches.get(id(node), frozenset())
        for target in targets:
            if isinstance(target, (ast.Name, ast.Tuple, ast.List)):
                stores.extend((name, end, where) for name in names(target))
    return stores


def rebound(
    stores: list[Store],
    name: str,
    after: tuple[int, int],
    before: tuple[int, int],
    where: frozenset[tuple[int, str]],
) -> bool:
    """`name` is bound again between a call (ending at `after`) and a read (at `before`,
    under the branches `where`) by an assignment that runs whenever the read does (under no
    branch the read is not under): the read sees that value, not the call's. WaveNet's
    `output, skip = self._residual(output, ...)` in the loop, then `output =
    sum(skips)`: the last pass's residual reaches nothing."""
    return any(n == name and after < at < before and under <= where for n, at, under in stores)


def branches(
    function: ast.Module | ast.FunctionDef | ast.AsyncFunctionDef,
) -> dict[int, frozenset[tuple[int, str]]]:
    """id(node) -> the branches it is under: (id of an `if`, a conditional expression or a
    `try`, which side). A read after a call counts as keeping its value only if it runs
    whenever the call did: under no branch the call is not under too."""
    under: dict[int, frozenset[tuple[int, str]]] = {}

    def visit(node: ast.AST, where: frozenset[tuple[int, str]]) -> None:
        under[id(node)] = where
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            return
        if isinstance(node, (ast.If, ast.IfExp)):
            visit(node.test, where)
            sides: tuple[tuple[str, list[ast.AST]], ...] = (
                ("body", list(node.body) if isinstance(node.body, list) else [node.body]),
                ("orelse", list(node.orelse) if isinstance(node.orelse, list) else [node.orelse]),
            )
            for side, children in sides:
                for child in children:
                    visit(child, where | {(id(node), side)})
            return
        if isinstance(node, ast.Try):
            for child in node.body:
                visit(child, where)
            for handler in node.handlers:
                visit(handler, where | {(id(node), f"except {id(handler)}")})
            for child in (*node.orelse, *node.finalbody):
                visit(child, where | {(id(node), "else")} if child in node.orelse else where)
            return
        for child in ast.iter_child_nodes(node):
            visit(child, where)

    for statement in function.body:
        visit(statement, frozenset())
    return under


def own_nodes(
    function: ast.Module | ast.FunctionDef | ast.AsyncFunctionDef,
) -> Iterable[ast.AST]:
    """The nodes of `function`'s body, not those of the functions and classes it defines."""
    stack: list[ast.AST] = list(reversed(function.body))
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            stack.extend(reversed(list(ast.iter_child_nodes(node))))


def names(node: ast.AST) -> frozenset[str]:
    return frozenset(n.id for n in ast_nodes.walk(node) if isinstance(n, ast.Name))


@dataclass(frozen=True)
class _Path:
    """One path's story so far: which of the names it read before binding them again,
    which it bound (or left the function) first; `left`: returned; `jumped`: at a
    `break`/`continue` of the loop being walked; `started`: past the call."""

    read: frozenset[str] = frozenset()
    bound: frozenset[str] = frozenset()
    started: bool = False
    left: bool = False
    jumped: bool = False


#: Beyond this many distinct path stories the question is not answered (None).
_MOST = 256


def read_paths(
    function: ast.FunctionDef | ast.AsyncFunctionDef, call: ast.stmt, watched: Iterable[str]
) -> frozenset[frozenset[str]] | None:
    """Per path through `function` that runs the statement `call` (which binds the names
    `watched`), the names it reads after the call before binding them again (a loop's next
    pass included: `x, s = block(x)` reads the last pass's `x`); a path that raises counts
    for nothing (no backward follows). None where `call` is not in the function's own
    statements or the stories grow past _MOST."""
    walker = _Walker(call, frozenset(watched))
    try:
        ends = walker.block(function.body, {_Path()})
    except _TooMany:
        return None
    if not walker.met:
        return None
    return frozenset({p.read for p in ends if p.started} | walker.ended)


class _TooMany(Exception):
    pass


class _Walker:
    def __init__(self, call: ast.stmt, watched: frozenset[str]) -> None:
        self.call, self.watched, self.met = call, watched, False
        self.ended: set[frozenset[str]] = set()

    def block(self, statements: Iterable[ast.stmt], paths: set[_Path]) -> set[_Path]:
        """The stories after `statements`, those that left or jumped passing through."""
        for statement in statements:
            moving = {p for p in paths if not (p.left or p.jumped)}
            if not moving:
                break
            paths = (paths - moving) | self.statement(statement, moving)
            if len(paths) > _MOST:
                raise _TooMany
        return paths

    def touch(self, node: ast.AST | None, paths: set[_Path], bind: bool = False) -> set[_Path]:
        """`node` read (or, `bind`, its names bound) on each started path."""
        if node is None:
            return paths
        if bind:
            hit = self.watched & names(node)
        else:
            hit = frozenset(
                n.id
                for n in ast_nodes.walk(node)
                if isinstance(n, ast.Name) and n.id in self.watched and isinstance(n.ctx, ast.Load)
            )
        if not hit:
            return paths
        out = set()
        for p in paths:
            if p.started:
                fresh = hit - p.read - p.bound
                p = replace(p, bound=p.bound | fresh) if bind else replace(p, read=p.read | fresh)
            out.add(p)
        return out

    def statement(self, statement: ast.stmt, paths: set[_Path]) -> set[_Path]:
        if statement is self.call:
            self.met = True
            paths = self.touch(getattr(statement, "value", None), paths)
            self.ended |= {p.read for p in paths if p.started}  # a loop's earlier pass
            return {replace(p, read=frozenset(), bound=frozenset(), started=True) for p in paths}
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            return self.touch(statement, paths)  # a closure reading it keeps it
        if isinstance(statement, ast.If):
            paths = self.touch(statement.test, paths)
            return self.block(statement.body, paths) | self.block(statement.orelse, paths)
        if isinstance(statement, (ast.For, ast.AsyncFor, ast.While)):
            if isinstance(statement, ast.While):
                paths = self.touch(statement.test, paths)
            else:
                paths = self.touch(statement.target, self.touch(statement.iter, paths), bind=True)
            once = self.block(statement.body, paths)
            twice = self.block(statement.body, {p for p in once if not p.left})
            after = {replace(p, jumped=False) for p in paths | once | twice}
            return self.block(statement.orelse, after)
        if isinstance(statement, (ast.With, ast.AsyncWith)):
            for item in statement.items:
                paths = self.touch(item.context_expr, paths)
            return self.block(statement.body, paths)
        if isinstance(statement, ast.Try):
            ends = self.block(statement.body, paths)
            for handler in statement.handlers:
                ends |= self.block(handler.body, paths)
            return self.block(statement.finalbody, self.block(statement.orelse, ends))
        if isinstance(statement, ast.Match):
            paths = self.touch(statement.subject, paths)
            ends = set(paths)
            for case in statement.cases:
                ends |= self.block(case.body, paths)
            return ends
        if isinstance(statement, ast.Raise):
            return set()  # no backward after it
        if isinstance(statement, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            paths = self.touch(statement.value, paths)
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            for target in targets:
                if isinstance(statement, ast.AugAssign) or not isinstance(target, ast.Name):
                    paths = self.touch(target, paths)  # `x[i] = v`, `x += v` read x
                if not isinstance(target, (ast.Subscript, ast.Attribute)):
                    paths = self.touch(target, paths, bind=True)
            return paths
        paths = self.touch(statement, paths)
        if isinstance(statement, ast.Return):
            return {replace(p, left=True) for p in paths}
        if isinstance(statement, (ast.Break, ast.Continue)):
            return {replace(p, jumped=True) for p in paths}
        return paths
