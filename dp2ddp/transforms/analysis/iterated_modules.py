"""Modules whose parameters an optimizer takes one element of a sequence at a time (stop 48
class r2-A, AberHu/Knowledge-Distillation-Zoo@65470c8: `SGD(chain(snet.parameters(),
*[c.parameters() for c in criterionKD[1:]]))`, the VID regressors beside the wrapped
student). analysis/outside_parameters.py syncs each element after the optimizer's line by
reading the comprehension's clauses again there, as statements: `for c in criterionKD[1:]:
ddp_sync_module(c)`; with the conditions and the outer loops up to the one binding the
module (`[c.parameters() for c in regs if c is not None]`, `[p for g in groups for c in g
for p in c.parameters()]`, `for k, c in crits.items()`: stop 49 g1). Read again, the
clauses must give the same elements: what they read is decided through the def-use view
(flow/defuse.py): a call only of a builtin no binding of the module shadows that gives a
view of its arguments (`enumerate`, `zip`, `list`), or of a read-only view method (`.values()`,
`.items()`); no name the optimizer's line binds. Where that is not proved, the comprehension
is said (DP068, the reason), not synced in silence nor left in silence (stop 48 left every
other shape with neither)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import libcst as cst

from dp2ddp.flow import DefUse
from dp2ddp.transforms._support.nodes import code_of, walk

if TYPE_CHECKING:
    from dp2ddp.transforms._support.base import MigrationTransform


HELPER = "ddp_sync_module"
#: What may give other values when read again (a call may draw, build, or count); a call
#: of _VIEWS or _READS is taken apart below.
_IMPURE = (cst.Call, cst.Await, cst.NamedExpr, cst.Lambda, cst.BaseComp, cst.DictComp)
#: Builtins that give a view of their arguments, the same elements on each read.
_VIEWS = frozenset({"enumerate", "zip", "list", "tuple", "reversed", "range", "len"})
#: Methods that read a container's elements without changing or building them.
_READS = frozenset({"values", "items", "keys"})


@dataclass(frozen=True)
class Iteration:
    """The clauses of a comprehension, outermost first, up to the `for` binding `x`."""

    x: str
    fors: tuple[cst.CompFor, ...]

    @property
    def each(self) -> cst.CompFor:
        return self.fors[-1]

    def loop(self, helper: str, line: cst.SimpleStatementLine, defs: DefUse) -> str:
        """`helper(x)` under the clauses, as statements after `line` (`for c in regs:`, `if
        c:`, nested). The statements bind their targets in the line's scope, where the
        comprehension bound them in its own: a name the scope or the module binds otherwise
        is read as `_ddp_<name>` (it would be overwritten, or made local to a function)."""
        scope = defs.scope_of(line)
        renamed = {
            name: f"_ddp_{name}"
            for clause in self.fors
            for name in _names(clause.target)
            if any(
                not isinstance(d.statement, cst.CompFor)
                for where in {scope, defs.module}
                for d in defs.definitions_in(where, name)
            )
        }
        renaming = _Renaming(renamed)

        def text(node: cst.CSTNode) -> str:
            visited = node.visit(renaming) if renamed else node
            return code_of(visited) if isinstance(visited, cst.CSTNode) else ""

        lines: list[str] = []
        for clause in self.fors:
            lines.append(f"for {text(clause.target)} in {text(clause.iter)}:")
            lines += [f"if {text(c.test)}:" for c in clause.ifs]
        lines.append(f"{helper}({renamed.get(self.x, self.x)})")
        return "\n".join("    " * depth + line for depth, line in enumerate(lines))

    def reads(self, roots: set[str], t: MigrationTransform) -> bool:
        """The clauses call a method of one of `roots` (`model.modules()` of a wrapped
        model: its submodules are inside DDP, nothing to sync)."""
        return any(
            isinstance(n, cst.Call)
            and isinstance(n.func, cst.Attribute)
            and any(
                t.code(n.func.value) == r or t.code(n.func.value).startswith(r + ".") for r in roots
            )
            for c in self.fors
            for n in walk(c.iter)
        )

    def unproved(self, line: cst.SimpleStatementLine, defs: DefUse, t: MigrationTransform) -> str:
        """Why reading the clauses again after `line` may not give the same elements ("":
        it gives them)."""
        bound = {name for clause in self.fors for name in _names(clause.target)}
        inside = {id(n) for n in walk(line)}
        for clause in self.fors:
            for part in (clause.iter, *(c.test for c in clause.ifs)):
                nodes = list(walk(part))
                names = {id(n.attr) for n in nodes if isinstance(n, cst.Attribute)}
                names |= {id(n.keyword) for n in nodes if isinstance(n, cst.Arg) and n.keyword}
                for node in nodes:
                    if isinstance(node, cst.Call) and _reads_again(node, defs):
                        continue
                    if isinstance(node, _IMPURE):
                        return (
                            f"reads {t.code(node)}, which may give other elements when read again"
                        )
                    if (
                        isinstance(node, cst.Name)
                        and id(node) not in names
                        and node.value not in bound
                        and any(
                            not isinstance(d.statement, cst.CompFor) and id(d.statement) in inside
                            for d in defs.definitions(node)
                        )
                    ):
                        return f"reads {node.value}, which the optimizer's statement binds"
        return ""


class _Renaming(cst.CSTTransformer):
    """Each load or store of a name of `names` as its new name (not an attribute's name or
    a keyword)."""

    def __init__(self, names: dict[str, str]) -> None:
        super().__init__()
        self.names = names

    def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.Name:
        new = self.names.get(original.value)
        return updated if new is None else updated.with_changes(value=new)

    def leave_Attribute(self, original: cst.Attribute, updated: cst.Attribute) -> cst.Attribute:
        return updated.with_changes(attr=original.attr)

    def leave_Arg(self, original: cst.Arg, updated: cst.Arg) -> cst.Arg:
        return updated.with_changes(keyword=original.keyword)


def _names(target: cst.BaseExpression) -> list[str]:
    return [n.value for n in walk(target) if isinstance(n, cst.Name)]


def _reads_again(call: cst.Call, defs: DefUse) -> bool:
    """A builtin view (its name bound nowhere in the module) or a read-only method."""
    func = call.func
    if isinstance(func, cst.Name):
        return func.value in _VIEWS and not defs.definitions(func)
    return isinstance(func, cst.Attribute) and func.attr.value in _READS and not call.args


def iterated(node: cst.Call, x: str, t: MigrationTransform) -> Iteration | None:
    """The clauses of the comprehension whose `for` binds `x` (as a name, or an element of
    its target) and whose element, or a later clause, reads `x.parameters()` at `node`."""
    if "." in x:
        return None
    current = t.parent(node)
    while current is not None and not isinstance(current, cst.BaseStatement):
        if isinstance(current, (cst.ListComp, cst.GeneratorExp, cst.SetComp, cst.DictComp)):
            fors: list[cst.CompFor] = []
            clause: cst.CompFor | None = current.for_in
            while clause is not None:
                fors.append(clause)
                clause = clause.inner_for_in
            below = {id(n) for n in walk(node)}
            binders = [i for i, c in enumerate(fors) if _binds(c.target, x)]
            if binders:
                last = binders[-1]
                outer = fors[: last + 1]
                parts = [p for c in outer for p in (c.target, c.iter, *(i.test for i in c.ifs))]
                if not any(id(n) in below for p in parts for n in walk(p)):
                    return Iteration(x, tuple(outer))
            return None
        current = t.parent(current)
    return None


def _binds(target: cst.BaseExpression, x: str) -> bool:
    """`target` binds the name `x` (itself, or an element of a tuple or list it unpacks)."""
    nodes = list(walk(target))
    return not any(isinstance(n, (cst.Attribute, cst.Subscript)) for n in nodes) and any(
        isinstance(n, cst.Name) and n.value == x for n in nodes
    )


def place_each(
    t: MigrationTransform,
    after: dict[int, list[str]],
    node: cst.Call,
    each: Iteration,
    at: tuple[cst.SimpleStatementLine, str | None, DefUse],
) -> None:
    """Plan `for x in ...: ddp_sync_module(x)` after `line` (`after`: id of a line -> the
    statements to insert after it), or say why not (DP068): `where` not every rank reaches
    it, or the clauses may not give the same elements when read again."""
    line, where, defs = at
    x = each.x
    over = t.code(each.each.iter)
    why = each.unproved(line, defs, t)
    if where is None and not why:
        after.setdefault(id(line), []).append(each.loop(HELPER, line, defs))
        t.state.helpers.add("sync_module")
        t.record(
            node,
            f"the parameters of each {x} in {over} are trained outside "
            f"DistributedDataParallel: {HELPER}({x}) for each after they reach the optimizer",
        )
    elif where is not None:
        t.warn(
            node,
            "DP068",
            f"{x}.parameters() for each {x} in {over} reaches the optimizer {where}, so "
            f"{HELPER}({x}) could not be placed where every rank reaches it",
        )
    else:
        t.warn(
            node,
            "DP068",
            f"{x}.parameters() for each {x} in {over} reaches the optimizer, but its "
            f"comprehension {why}, so {HELPER}({x}) was not placed after the optimizer's "
            f"statement: call it for each module the optimizer trains, where every rank "
            f"arrives",
        )
