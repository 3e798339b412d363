"""Names holding a loop's running figures, for DP030 (data/evaluation.py): the figures,
names bound from them, and lists fed with them."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

import libcst as cst
from libcst.metadata import PositionProvider

from dp2ddp.flow import DefUse, view
from dp2ddp.transforms._support.nodes import variables_under, walk

if TYPE_CHECKING:
    from dp2ddp.transforms.data.evaluation import LoaderEvaluation


def figure_aliases(root: cst.CSTNode, figures: set[str]) -> dict[str, set[str]]:
    """For each name of the function (`root`) that holds running figures, which: the
    figures themselves, and names bound from them (`res = '...' % losses.avg`, also in
    parts: `s += ...`, rtqichen/residual-flows's log line) or
    lists fed with them (`history.append(np.mean(losses))`, read as `history[-1]`:
    tjddus9597/Proxy-Anchor-CVPR2020's epoch loss, logged through `wandb.log`), or tables
    they are stored into (`history[epoch, 1] = acc`)."""
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
        elif isinstance(node, cst.AugAssign) and isinstance(node.target, cst.Subscript):
            assigns += bindings(node.target, node.value)
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
    if isinstance(target, cst.Subscript):
        # a figure stored into a table (`history[epoch][1] = acc / n`), the table later
        # written out whole (round 29, RICE-EIC/Early-Bird-Tickets@4a16ae0's np.savetxt
        # of its training accuracies: rank 0's share, unsaid): the table holds it
        table = _table_of(target)
        return [] if table is None else [(table.value, {n.value for n in variables_under(value)})]
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
    loop's target, a parameter), may hold it, as does one in another scope (a module's
    global). Unsure (no binding found): may."""
    flow = view(t._module_node)
    if flow.parent(name) is None:
        return True
    reaching = flow.reaching(name)
    found = [d for d in reaching if d.kind != "store"]
    if not found:
        return True
    for store in (d for d in reaching if d.kind == "store"):
        # an item stored into it after the loop (`info = {}; info["loss"] = meter.avg;
        # return info`: round 38, lonePatient/BERT-chinese-text-classification-pytorch@
        # 2f9ae40's epoch figures, rank 0's half, unsaid) holds what its value reads
        if id(store) in visiting or store.value is None:
            continue
        stored = [n for n in variables_under(store.value) if figure in held.get(n.value, ())]
        if any(may_hold(t, n, figure, end, held, visiting | {id(store)}) for n in stored):
            return True
    around = flow.function_around(name)
    for definition in found:
        if flow.function_around(definition.target) is not around:
            # a global bound by another function or the module: its line says nothing of
            # when it runs (round 29, AIDL-PROJ-2022/enhanced-srgan@2ae5559's meters, made
            # under `if __name__ == "__main__":` below the training function)
            return True
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


def global_table_shows(
    t: LoaderEvaluation, root: cst.CSTNode, held: dict[str, set[str]]
) -> Iterator[tuple[cst.Call, str]]:
    """Shows elsewhere in the module of a module global the function `root` stores its
    figures into (`history[epoch][1] = train_acc / n` in train(), `np.savetxt(path,
    history)` at module level: round 29, RICE-EIC/Early-Bird-Tickets@4a16ae0, rank 0's
    share of the training accuracy written unsaid), each with the table's name. The table
    is the module's (every binding of it but its item stores is at module level); the
    show is any call outside `root` that shows its arguments (`_prints`) and reads that
    same global."""
    if not isinstance(root, cst.FunctionDef):
        return
    flow = view(t._module_node)
    tables: set[str] = set()
    for node in walk(root.body, skip_scopes=True):
        if isinstance(node, cst.Assign):
            targets = [a.target for a in node.targets]
        elif isinstance(node, cst.AugAssign):
            targets = [node.target]
        else:
            continue
        for target in targets:
            table = _table_of(target)
            if table is not None and held.get(table.value) and _module_global(flow, table):
                tables.add(table.value)
    if not tables:
        return
    own = flow.function_around(root.body)
    for node in walk(t._module_node):
        if not isinstance(node, cst.Call) or flow.function_around(node) is own:
            continue
        for argument in node.args:
            for name in variables_under(argument.value):
                if name.value in tables and _module_global(flow, name) and t._prints(node):
                    yield node, name.value
                    break


def _table_of(target: cst.BaseExpression) -> cst.Name | None:
    """The name a store's target puts an item into (`history[epoch][1]`: history)."""
    if not isinstance(target, cst.Subscript):
        return None
    while isinstance(target, cst.Subscript):
        target = target.value
    return target if isinstance(target, cst.Name) else None


def _module_global(flow: DefUse, name: cst.Name) -> bool:
    """`name` reads the module's variable: every binding it may read but its item stores
    is made at module level (an `if __name__ == "__main__":` block's too)."""
    bound = [d for d in flow.definitions(name) if d.kind != "store"]
    return bool(bound) and all(flow.function_around(d.target) is None for d in bound)


def last_item(name: cst.Name, parent: Callable[[cst.CSTNode], cst.CSTNode | None]) -> bool:
    """`name[-1]`: the item appended last (in a loop, this step's own: `losses.append(
    loss.item())`, then `print(losses[-1])`, a per-batch figure, not a running one; round
    39, tomguluson92/StyleGAN_PyTorch@4fd0711's false DP030)."""
    holder = parent(name)
    if not isinstance(holder, cst.Subscript) or holder.value is not name or len(holder.slice) != 1:
        return False
    index = holder.slice[0].slice
    return (
        isinstance(index, cst.Index)
        and isinstance(index.value, cst.UnaryOperation)
        and isinstance(index.value.operator, cst.Minus)
        and isinstance(index.value.expression, cst.Integer)
        and index.value.expression.value == "1"
    )
