"""Counters kept on the instance, summed over a loop's batches, for DP030 (round 24 gap).

A method of a class looping over a sharded loader may sum its figures on `self`:
`self.seen += len(x)`, `self.correct += (pred == y).sum().item()`, `self.total_loss +=
loss.item()`. After the loop each holds this rank's batches only, as a local running sum
does (evaluation.py's counters), and whoever reads it off the instance shows rank 0's share:
a method of the class (attribute_figures.py asks `counted_attributes` beside the objects it
feeds), the module's own code (`print(trainer.seen)`), or another module of the program
(the entry that built the trainer and handed it its sharded loader: round 24,
lonePatient/Bert-Multi-Label-Text-Classification's Trainer, helper dblshard's repros). The
library's data pass records them (MigrationState.share_attributes, class and attribute);
the program tells its entry (ProgramLoaders.share_attributes, program/feeds.py), whose data
pass says DP030 at each print or return of such an attribute read off a name every binding
of which (flow's reaching definitions) is a construction of that class. Not reduced: the
counter lives across the class's calls (bound in `__init__`), so a sum over the ranks after
one loop would count the earlier loops' share again at the next; summed per loop only where
the loop's function starts it afresh would need the figure's terms proved sums over samples
(a mean's sum doubles), which the data pass proves for names, not attributes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from dp2ddp.flow import DefUse, view
from dp2ddp.transforms._support.nodes import (
    enclosing_class,
    enclosing_function,
    item_pairs,
    variables_under,
)
from dp2ddp.transforms._support.nodes import walk as walk_nodes
from dp2ddp.transforms.data.batch_takers import own_attribute
from dp2ddp.transforms.data.sample_counts import loop_sample_counts
from dp2ddp.transforms.data.sample_grids import gather_grids

if TYPE_CHECKING:
    from dp2ddp.transforms.data.evaluation import LoaderEvaluation


def counted_attributes(
    t: LoaderEvaluation, loop: cst.For | cst.While, owner: cst.ClassDef, me: str
) -> dict[str, int]:
    """The attributes of the instance `loop` sums its batches' figures into (`self.a += v`,
    `self.a = self.a + v`, v read from the batches: `_batch_derived`; a constant added
    counts steps), where the class binds `self.a` to numbers only: each with the line of its
    first sum. Not a count of samples setting a learning rate or a cadence (sample_counts.py
    makes it global, else says DP088/DP092: minGPT's `self.tokens`). Recorded for the
    program where the class is at module level."""
    sums: list[tuple[str, cst.BaseExpression, cst.CSTNode]] = []
    for node in walk_nodes(loop.body, skip_scopes=True):
        summed = _summed(node, me)
        if summed is not None and not isinstance(summed[1], (cst.Integer, cst.Float)):
            sums.append((*summed, node))
    if not sums:
        return {}
    if isinstance(loop, cst.For) and not t.state.options.per_process_batch:
        paced = {id(g) for g, *_ in loop_sample_counts(t, loop, t._module_node)}  # type: ignore[arg-type]
        sums = [s for s in sums if id(s[2]) not in paced]
    batch = t._batch_derived(loop)
    found: dict[str, int] = {}
    for attr, added, node in sums:
        if any(n.value in batch for n in variables_under(added)) and _numbers_only(t, owner, attr):
            found.setdefault(attr, t.input_position(node)[0])
    if found and isinstance(t.parent(owner), cst.Module):
        for attr, line in found.items():
            t.state.share_attributes.append((owner.name.value, attr, line))
    return found


def _summed(node: cst.CSTNode, me: str) -> tuple[str, cst.BaseExpression] | None:
    """(attr, what is added) for `me.attr += v` or `me.attr = me.attr + v` (or `v + ...`)."""
    if isinstance(node, cst.AugAssign) and isinstance(node.operator, cst.AddAssign):
        attr = own_attribute(node.target, me)
        return (attr, node.value) if attr is not None else None
    if not (
        isinstance(node, cst.Assign)
        and len(node.targets) == 1
        and isinstance(node.value, cst.BinaryOperation)
        and isinstance(node.value.operator, cst.Add)
    ):
        return None
    attr = own_attribute(node.targets[0].target, me)
    if attr is None:
        return None
    left, right = node.value.left, node.value.right
    if own_attribute(left, me) == attr:
        return attr, right
    if own_attribute(right, me) == attr:
        return attr, left
    return None


def _numbers_only(t: LoaderEvaluation, owner: cst.ClassDef, attr: str) -> bool:
    """Every plain binding of `self.attr` in the class is a number (`self.seen = 0`), bound
    at least once; its sums (`self.attr = self.attr + v`) aside."""
    numbers = 0
    for node in walk_nodes(owner.body):
        if not isinstance(node, cst.Assign):
            continue
        function = enclosing_function(node, t)
        params = function.params.params if function is not None else ()
        if not params:
            continue
        me = params[0].name.value
        for target, value in (
            p for each in node.targets for p in item_pairs(each.target, node.value)
        ):
            if own_attribute(target, me) != attr:
                continue
            if _number(value):
                numbers += 1
            elif _summed(node, me) is None:
                return False
    return numbers > 0


def _number(value: cst.BaseExpression) -> bool:
    if isinstance(value, cst.UnaryOperation):
        value = value.expression
    return isinstance(value, (cst.Integer, cst.Float))


def said_after_planning(t: LoaderEvaluation) -> None:
    """What the data pass says once every loader of the module is planned: the loops'
    saved grids (sample_grids.py) and the counters read off instances (below)."""
    gather_grids(t)
    said_shown_counts(t)


def said_shown_counts(t: LoaderEvaluation) -> None:
    """DP030 at each print or return, outside the class's own methods, of a counter of
    this module's classes (MigrationState.share_attributes) or of another module's
    (ProgramLoaders.share_attributes), read off a name every binding of which reaching the
    read is a construction of that class (`trainer = Trainer(...)`)."""
    own = {(o, a): f"line {line}" for o, a, line in t.state.share_attributes}
    told = {(q, a): where for q, a, where in t.state.facts.loaders.share_attributes}
    if not own and not told:
        return
    attrs = {a for _, a in own} | {a for _, a in told}
    flow = view(t._module_node)
    for node in walk_nodes(t._module_node):
        if isinstance(node, cst.Call) and t._prints(node):
            values = [a.value for a in node.args]
        elif isinstance(node, cst.Return) and node.value is not None:
            values = [node.value]
        else:
            continue
        shown: list[str] = []
        for value in values:
            for read in walk_nodes(value):
                if not (isinstance(read, cst.Attribute) and read.attr.value in attrs):
                    continue
                where = _counter_of(t, flow, read, own, told)
                if where is not None and where not in shown:
                    shown.append(where)
        if shown:
            t.warn(
                node,
                "DP030",
                f"{'; '.join(shown)}, summed over this rank's batches only, "
                f"{t._shown_as(node)} here",
            )


def _counter_of(
    t: LoaderEvaluation,
    flow: DefUse,
    read: cst.Attribute,
    own: dict[tuple[str, str], str],
    told: dict[tuple[str, str], str],
) -> str | None:
    """How DP030 names `read` (`trainer.seen`) where its object is an instance of a class
    with that counter: every binding of it a construction of the class."""
    if isinstance(read.value, cst.Name):
        method = enclosing_function(read, t)
        owner = enclosing_class(method, t) if method is not None else None
        params = method.params.params if method is not None else ()
        if owner is not None and params and params[0].name.value == read.value.value:
            return None  # `self.seen` in the class's own methods: attribute_figures.py's
    if not isinstance(read.value, cst.Name):
        return None
    found = flow.reaching(read.value)
    if not found:
        return None
    classes: set[tuple[str, str]] = set()
    for definition in found:  # `trainer = Trainer(...)` at every binding
        call = definition.value
        if definition.kind != "assign" or definition.element or not isinstance(call, cst.Call):
            return None
        names = t.qualified_names(call.func)
        local = call.func.value if isinstance(call.func, cst.Name) else None
        matched = [k for k in told if k[0] in names and k[1] == read.attr.value]
        matched += [k for k in own if k[0] == local and k[1] == read.attr.value]
        if not matched:
            return None
        classes.update(matched)
    key = sorted(classes)[0]
    where = told.get(key) or own[key]
    return f"{t.code(read)} is {key[0].rpartition('.')[2]}.{key[1]} (summed at {where})"
