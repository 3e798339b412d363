"""Running figures kept in an attribute of the instance, for DP030 (data/evaluation.py).

A training loop in a method that feeds its batches' figures to an object the instance holds
(`self._tracker.update_timeline([t, loss, mean_target])`, `self.history.append(loss)`),
which another method of the class prints or writes (`print(self._tracker.timeline)`, or the
object's own printing method: `self._tracker.plot(path)`), shows this rank's batches only,
as a local list fed in the loop does (ELEKTRONN/elektronn3@8111e5d
elektronn3/training/trainer.py:581 feeds its HistoryTracker; stop 54 s2). The objects are
the attributes the class binds to a call (its own tracker class, a library's meter) or to an
empty list or dict; a torchmetrics/ignite metric gathers the ranks itself and is left alone.
Read where the class prints it: any method's print of `self.<attr>`, or a call of a method
of it that prints or writes (ShowingCalls._prints). A ReduceLROnPlateau a method steps with
a figure read from it (`self.lr_scheduler.step(self.loss_meter.value()[0])`) drops each
rank's rate on its own share's figure: DP090 there, as the rank_zero pass says of a figure
its own training loop computes (vpromise/2d-pose-pytorch@825aed0 utils/Trainer.py:152, a
torchnet meter fed in `_train_one_epoch`; stop 54 x4).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst
from libcst.metadata import PositionProvider

from dp2ddp.transforms._support.nodes import (
    enclosing_class,
    enclosing_function,
    item_pairs,
    variables_under,
)
from dp2ddp.transforms._support.nodes import walk as walk_nodes
from dp2ddp.transforms.analysis.plateau_steps import plateau_steps
from dp2ddp.transforms.data.attribute_counts import counted_attributes
from dp2ddp.transforms.data.batch_takers import own_attribute
from dp2ddp.transforms.data.figure_aliases import bindings, figure_aliases
from dp2ddp.transforms.data.handed_objects import SYNCING_METRICS
from dp2ddp.transforms.data.step_buffers import attribute_step_buffers

if TYPE_CHECKING:
    from dp2ddp.transforms.data.evaluation import LoaderEvaluation


def warn_attribute_figures(t: LoaderEvaluation, loop: cst.For | cst.While) -> None:
    """DP030 at each show, in any method of the loop's class, of an attribute object the
    loop feeds with its batches' figures (the names bound from them: `_batch_derived`,
    asked only where the loop calls a method of an attribute)."""
    function = enclosing_function(loop, t)
    owner = enclosing_class(loop, t) if function is not None else None
    if function is None or owner is None or not function.params.params:
        return
    me = function.params.params[0].name.value
    calls = [
        (node, attr)
        for node in walk_nodes(loop.body, skip_scopes=True)
        if (attr := _own_attribute_call(node, me)) is not None
        and isinstance(t.parent(node), cst.Expr)
    ]
    batch = t._batch_derived(loop)
    fed: dict[str, int] = {}
    for node, attr in calls:
        assert isinstance(node, cst.Call)
        if any(n.value in batch for a in node.args for n in variables_under(a.value)):
            fed.setdefault(attr, t.input_position(node)[0])
    for attr, line in _fed_in_methods(t, loop, owner, me, batch).items():
        fed.setdefault(attr, line)  # `self._update_losses(cur)` feeding `self.meter`
    for attr, store in attribute_step_buffers(t, loop, batch, me).items():  # `self.buf[i] =`
        fed.setdefault(attr, t.input_position(store)[0])
    fed = {a: line for a, line in fed.items() if _keeps(t, owner, a)}
    for attr, line in counted_attributes(t, loop, owner, me).items():  # `self.seen += n`
        fed.setdefault(attr, line)
    if not fed:
        return
    _stored_on(t, owner, fed)
    _plateau_figures(t, owner, fed)
    for method in owner.body.body:
        if not isinstance(method, cst.FunctionDef) or not method.params.params:
            continue
        own = method.params.params[0].name.value
        aliases = _aliases(method, own, set(fed))
        for node in walk_nodes(method.body, skip_scopes=True):
            if isinstance(node, cst.Call) and t._prints(node):
                values = [a.value for a in node.args]
                shown = {a for a in fed if _own_attribute_call(node, own) == a}
            elif isinstance(node, cst.Return) and node.value is not None:
                values, shown = [node.value], set()
            else:
                continue
            shown |= {a for v in values for a in _reads(v, own, aliases)} & set(fed)
            if not shown:
                continue
            fed_at = ", ".join(f"self.{a} (fed at line {fed[a]})" for a in sorted(shown))
            verb = "accumulates" if len(shown) == 1 else "accumulate"
            how = t._shown_as(node)
            name = method.name.value
            t.warn(node, "DP030", f"{fed_at} {verb} this rank's batches only, {how} by {name}()")
            if isinstance(node, cst.Return):  # a caller's plateau step: DP090 (per_rank.py)
                line = t.get_metadata(PositionProvider, node).start.line
                t.state.per_rank_figures.setdefault(name, line)


def _stored_on(t: LoaderEvaluation, owner: cst.ClassDef, fed: dict[str, int]) -> None:
    """Add to `fed` each attribute a method of the class stores what a fed one holds into
    (`self.epoch_losses[i] = np.mean(self.iter_losses[...])`, then `self.epoch_losses[i]`
    logged: round 31, Seanny123/da-rnn@1db1e79), with the line of what fed it, to a fixed
    point; only an attribute the class keeps as a plain container (`_keeps`)."""
    stores: list[tuple[str, cst.BaseExpression, str]] = []
    for method in owner.body.body:
        if not isinstance(method, cst.FunctionDef) or not method.params.params:
            continue
        own = method.params.params[0].name.value
        for node in walk_nodes(method.body, skip_scopes=True):
            if isinstance(node, cst.Assign):
                for target in node.targets:
                    held: cst.BaseExpression = target.target
                    while isinstance(held, cst.Subscript):
                        held = held.value
                    attr = own_attribute(held, own)
                    if attr is not None:
                        stores.append((attr, node.value, own))
    changed = True
    while changed:
        changed = False
        for attr, value, own in stores:
            if attr in fed:
                continue
            behind = sorted(_reads(value, own, {}) & set(fed))
            if behind and _keeps(t, owner, attr):
                fed[attr] = fed[behind[0]]
                changed = True


def _reads(value: cst.BaseExpression, own: str, aliases: dict[str, set[str]]) -> set[str]:
    """The attributes of the instance `value` reads: `self.attr` itself, or a name the
    method bound from it (`aliases`)."""
    found = {
        a
        for n in walk_nodes(value)
        if isinstance(n, cst.Attribute) and (a := own_attribute(n, own)) is not None
    }
    return found.union(*(aliases.get(n.value, set()) for n in variables_under(value)))


def _aliases(method: cst.FunctionDef, own: str, attrs: set[str]) -> dict[str, set[str]]:
    """For each name of `method` bound from a read of a fed attribute, at any remove, the
    attributes it holds: `log = self.train_metrics.result()`, then `log.update(...)` and
    `return log` (the pytorch-template trainer's `_train_epoch`, round 23
    China-ChallengeHub/kaggle_disaster_tweets trainer_softmax.py:106: the epoch's train
    loss returned to the caller that prints it, rank 0's share with no DP030)."""
    seeds: dict[str, set[str]] = {}
    for node in walk_nodes(method.body, skip_scopes=True):
        targets: list[cst.BaseExpression]
        if isinstance(node, cst.Assign):
            targets = [t.target for t in node.targets]
        elif isinstance(node, (cst.AnnAssign, cst.NamedExpr)) and node.value is not None:
            targets = [node.target]
        else:
            continue
        assert node.value is not None
        read = _reads(node.value, own, {}) & attrs
        for target in targets if read else ():
            for name, _ in bindings(target, node.value):
                seeds.setdefault(name, set()).update(read)
    held = figure_aliases(method, set(seeds))
    return {name: set().union(*(seeds[s] for s in behind)) for name, behind in held.items()}


def _plateau_figures(t: LoaderEvaluation, owner: cst.ClassDef, fed: dict[str, int]) -> None:
    """DP090 at each plateau step of a method of `owner` whose figure reads a fed attribute
    of the instance (the module docstring)."""
    for call, figure in plateau_steps(t._module_node, t.qualified_names):
        method = enclosing_function(call, t)
        if method is None or enclosing_class(call, t) is not owner or not method.params.params:
            continue
        own = method.params.params[0].name.value
        if any(
            isinstance(n, cst.Attribute)
            and n.attr.value in fed
            and isinstance(n.value, cst.Name)
            and n.value.value == own
            for n in walk_nodes(figure)
        ):
            line = t.input_position(call)[0]
            t.warn(
                call,
                "DP090",
                f"`{t.code(figure)}` decides the learning rate set at line {line} from this "
                "rank's own batches in its training loop: the ranks may set different rates; "
                "all-reduce the figure first",
            )


def _fed_in_methods(
    t: LoaderEvaluation, loop: cst.For | cst.While, owner: cst.ClassDef, me: str, batch: set[str]
) -> dict[str, int]:
    """Attribute objects a method of the class feeds with what the loop hands it from its
    batches (`self._update_losses(cur)`, whose body calls `self.loss_sup.update(cur[
    "loss_sup"].item())`), with the line of the loop's call. Round 36, yassouali/CCT@
    65d4e5b: the meters' running averages shown in the progress bar and printed after the
    loop were rank 0's half, unsaid (fed in the loop itself: DP030)."""
    methods = {
        m.name.value: m
        for m in owner.body.body
        if isinstance(m, cst.FunctionDef) and len(m.params.params) > 1
    }
    found: dict[str, int] = {}
    for node in walk_nodes(loop.body, skip_scopes=True):
        if not (
            isinstance(node, cst.Call)
            and isinstance(node.func, cst.Attribute)
            and isinstance(node.func.value, cst.Name)
            and node.func.value.value == me
            and node.func.attr.value in methods
        ):
            continue
        method = methods[node.func.attr.value]
        params = [p.name.value for p in method.params.params[1:]]
        given = {
            param
            for param, arg in zip(params, node.args, strict=False)
            if arg.keyword is None and any(n.value in batch for n in variables_under(arg.value))
        }
        own = method.params.params[0].name.value
        for inner in walk_nodes(method.body, skip_scopes=True):
            attr = _own_attribute_call(inner, own)
            if attr is None or not isinstance(inner, cst.Call):
                continue
            if any(n.value in given for a in inner.args for n in variables_under(a.value)):
                found.setdefault(attr, t.input_position(node)[0])
    return found


def _own_attribute_call(node: cst.CSTNode, me: str) -> str | None:
    """`attr` of a call `self.attr.method(...)`."""
    if not (isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute)):
        return None
    return own_attribute(node.func.value, me)


def _keeps(t: LoaderEvaluation, owner: cst.ClassDef, attr: str) -> bool:
    """The class binds `self.attr` to a call that is no self-gathering metric, or to an
    empty list or dict, and to nothing else."""
    values: list[cst.BaseExpression] = []
    for node in walk_nodes(owner.body):
        if not isinstance(node, cst.Assign) or len(node.targets) != 1:
            continue
        for target, value in item_pairs(node.targets[0].target, node.value):
            if isinstance(target, cst.Attribute) and target.attr.value == attr:
                function = enclosing_function(node, t)
                params = function.params.params if function is not None else ()
                if params and isinstance(target.value, cst.Name):
                    if target.value.value == params[0].name.value:
                        values.append(value)
    if not values:
        return False
    for value in values:
        if isinstance(value, cst.Call):
            if any(n.startswith(SYNCING_METRICS) for n in t.qualified_names(value.func)):
                return False
        elif not (isinstance(value, (cst.List, cst.Dict)) and not value.elements):
            return False
    return True
