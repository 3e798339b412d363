"""Names holding a loop's running figures, for DP030 (data/evaluation.py): the figures,
names bound from them, and lists fed with them."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import libcst as cst
from libcst.metadata import PositionProvider

from dp2ddp.flow import view
from dp2ddp.transforms._support.nodes import variables_under, walk

if TYPE_CHECKING:
    from dp2ddp.transforms.data.evaluation import LoaderEvaluation


def figure_aliases(root: cst.CSTNode, figures: set[str]) -> dict[str, set[str]]:
    """For each name of the function (`root`) that holds running figures, which: the
    figures themselves, and names bound from them (`res = '...' % losses.avg`, also in
    parts: `s += ...`, rtqichen/residual-flows's log line) or
    lists fed with them (`history.append(np.mean(losses))`, read as `history[-1]`:
    tjddus9597/Proxy-Anchor-CVPR2020's epoch loss, logged through `wandb.log`)."""
    held: dict[str, set[str]] = {f: {f} for f in figures}
    assigns: list[tuple[str, set[str]]] = []
    for node in walk(root, skip_scopes=True):
        if isinstance(node, cst.Assign):
            for assigned in node.targets:
                assigns += bindings(assigned.target, node.value)
        elif isinstance(node, (cst.AnnAssign, cst.NamedExpr)) and node.value is not None:
            assigns += bindings(node.target, node.value)
        elif isinstance(node, cst.AugAssign) and isinstance(node.target, cst.Name):
            # a line built in parts: `s += ' | Bits/dim {m.avg:.4f}'.format(m=bpd_meter)`
            reads = {n.value for n in variables_under(node.value)}
            assigns.append((node.target.value, reads))
        elif (
            isinstance(node, cst.Call)
            and isinstance(node.func, cst.Attribute)
            and node.func.attr.value in ("append", "extend", "insert")
            and isinstance(node.func.value, cst.Name)
        ):
            reads = {n.value for a in node.args for n in variables_under(a.value)}
            assigns.append((node.func.value.value, reads))
    while True:
        changed = False
        for target, reads in assigns:
            if target in figures:
                continue
            behind = set().union(*(held.get(r, set()) for r in reads))
            if not behind <= held.get(target, set()):
                held[target] = held.get(target, set()) | behind
                changed = True
        if not changed:
            return held


def bindings(target: cst.BaseExpression, value: cst.BaseExpression) -> list[tuple[str, set[str]]]:
    """The names `target` binds from `value`, each with the names it reads: element-wise
    through a tuple or list unpacking of a tuple or list of as many elements (`avg, text =
    meter.average(), meter.text()`: `text` holds `meter`, fresh6 class Z1), every element
    reading all of `value` otherwise (`a, *rest = parts`, `x, y = pair`): a name is never
    left out of what it may hold."""
    if isinstance(target, cst.Name):
        return [(target.value, {n.value for n in variables_under(value)})]
    if isinstance(target, cst.StarredElement):
        return bindings(target.value, value)
    if not isinstance(target, (cst.Tuple, cst.List)):
        return []
    elements = [e.value for e in target.elements]
    if (
        isinstance(value, (cst.Tuple, cst.List))
        and len(value.elements) == len(elements)
        and not any(isinstance(e, cst.StarredElement) for e in target.elements)
        and not any(isinstance(e, cst.StarredElement) for e in value.elements)
    ):
        pairs = zip(elements, (e.value for e in value.elements), strict=True)
        return [b for t, v in pairs for b in bindings(t, v)]
    return [b for t in elements for b in bindings(t, value)]


#: The bindings whose value is all a name holds after them (its reads are followed).
_REBINDS = frozenset({"assign", "annassign", "augassign", "walrus"})


def may_hold(
    t: LoaderEvaluation,
    name: cst.Name,
    figure: str,
    end: int,
    held: dict[str, set[str]],
    visiting: frozenset[int] = frozenset(),
) -> bool:
    """Whether this read of `name` (which `held` says may hold `figure`, a running figure of
    a loop ending at line `end`) may hold it, by the bindings reaching the read (the
    def-use view): a binding made after the loop holds only what its value reads
    (`outstr = 'Test ...' % (test_loss / count)` after the training loop and a test loop
    that set `count = 0.0` and summed it again: GBNet main.py:157, stop 51 v4-F), followed
    the same way; a binding before or inside the loop, or one not plainly a value (a
    loop's target, a parameter), may hold it. Unsure (no binding found): may."""
    flow = view(t._module_node)
    if flow.parent(name) is None:
        return True
    found = [d for d in flow.reaching(name) if d.kind != "store"]
    if not found:
        return True
    for definition in found:
        place = t.get_metadata(PositionProvider, definition.statement, None)
        if place is None or place.start.line <= end or definition.kind not in _REBINDS:
            return True
        if id(definition) in visiting or definition.value is None:
            continue
        inner = visiting | {id(definition)}
        reads = [n for n in variables_under(definition.value) if figure in held.get(n.value, ())]
        target = definition.target
        if definition.kind == "augassign" and isinstance(target, cst.Name):
            reads.append(target)  # `s += ...` keeps what s held
        if any(may_hold(t, n, figure, end, held, inner) for n in reads):
            return True
    return False


#: What reads a model's weights, not a figure: `gan.D.parameters()`, `net.fc.weight`.
_WEIGHTS = frozenset(
    {"parameters", "named_parameters", "state_dict", "buffers", "named_buffers", "weight", "bias"}
)


def reads_weights(name: cst.Name, parent: Callable[[cst.CSTNode], cst.CSTNode | None]) -> bool:
    """`name` is the root of a read of a model's weights through attributes (`sum(p.sum()
    for p in gan.D.parameters())`, round 20 of issue 28): the weights DDP keeps alike on
    every rank, not a figure an object it holds accumulates from this rank's batches."""
    node: cst.CSTNode = name
    above = parent(node)
    while isinstance(above, cst.Attribute) and above.value is node:
        if above.attr.value in _WEIGHTS:
            return True
        node, above = above, parent(above)
    return False
