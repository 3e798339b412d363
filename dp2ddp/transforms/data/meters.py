"""Averaging meters of this module's class fed per-batch means over a sharded loader.

Stop 48 (wolny/pytorch-3dunet@a33e2c7's `RunningAverage`, pytorch/examples' AverageMeter):
`losses = AverageMeter()` before a training pass, `losses.update(loss.item(), x.size(0))`
once per batch, `losses.avg` read after the pass. The class keeps sums: `update(val, n)`
adds `val * n` to `self.sum` and `n` to `self.count` and sets `self.avg = self.sum /
self.count`. Sums are additive, so after the loop the ranks' sums added up
(`ddp_all_reduce_sum`) are the sums of a meter fed every rank's batches, and the ratio
recomputed from them is DataParallel's figure: `val * n` of a batch mean and its size adds
up the samples' losses, `n` counts them, so the ratio is the mean over the samples whatever
the shares; with `n` a constant it is the mean of the shares' means, which is the mean of
the batches' means where the shares are equal (as mean_lists.py argues). Proved, else DP030
as before:

- the loop is an even pass over the loader (mean_lists.even_pass);
- the meter is bound to `C(...)` by a statement of the loop's own block before it (fresh each
  pass), C a top-level class of this module with no base and no decorator, or of another
  module of the program read the same way there (ProgramFacts.meters, program/told.py: each
  module read once; stop 54 x4, tszssong/face.evoLVe.PyTorch@017d57e's util/utils.py);
- C's `__init__` (and the methods it calls on `self`) only binds its attributes to numbers
  or to its parameters (`self.name = name`); its `update(self, ...)` only adds to a sum
  (`self.s += p * q`, `self.s += p`, `self.s += 1`: its parameters, no `self`), keeps a
  parameter's last value (`self.val = val`) or sets a ratio of two sums (`self.avg =
  self.sum / self.count`) after every addition, each sum bound to a number by `__init__`;
- the loop feeds it once per pass: one `M.update(...)` statement directly in its body and
  no other mention of M there; each sum-forming parameter is handed a per-batch mean
  (mean_lists.per_batch_mean) or a count: an integer, the parameter's integer default, or
  `X.size(0)` / `X.shape[0]` of a tensor the loop's target unpacks (one hop through
  `.to()`, `.cuda()`); a ratio's numerator adds mean × count (or a mean) where its
  denominator adds the count (or 1);
- after the loop, in its function, M is read only as `M.<ratio>` (a rebinding ends it) and
  no function or class defined there names it.

After the loop: `M.sum, M.count = ddp_all_reduce_sum(M.sum, M.count)` and `M.avg = M.sum /
M.count` for each ratio read.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import libcst as cst
from libcst.metadata import PositionProvider

from dp2ddp.flow import view
from dp2ddp.meter_facts import MeterClass
from dp2ddp.transforms._support.nodes import variables_under, walk
from dp2ddp.transforms._support.qualified import told_matches
from dp2ddp.transforms.analysis.device_moves import METHODS
from dp2ddp.transforms.data.mean_lists import even_pass, fresh_before, mentions, per_batch_mean

if TYPE_CHECKING:
    from dp2ddp.transforms.data.evaluation import LoaderEvaluation
    from dp2ddp.transforms.data.plan import Loader


@dataclass
class _Meter:
    """What a meter class's `update` does: its parameters (name, default), each sum's
    terms (the parameter names multiplied; () for `+= 1`), the ratios (attribute ->
    (numerator sum, denominator sum))."""

    params: list[tuple[str, cst.BaseExpression | None]] = field(default_factory=list)
    sums: dict[str, tuple[str, ...]] = field(default_factory=dict)
    ratios: dict[str, tuple[str, str]] = field(default_factory=dict)


def reduced_meters(t: LoaderEvaluation, loader: Loader, loop: cst.For | cst.While) -> set[str]:
    """The meters `loop` feeds with per-batch means whose sums are all-reduced after it
    (planned here; the module docstring), so their ratios are DataParallel's figures."""
    before = even_pass(t, loader, loop)
    if before is None:
        return set()
    assert isinstance(loop, cst.For) and isinstance(loop.body, cst.IndentedBlock)
    found: set[str] = set()
    for statement in loop.body.body:
        fed = _update_call(statement)
        if fed is None or fed[0] in found:
            continue
        name, call = fed
        made = fresh_before(before, name, lambda v: isinstance(v, cst.Call))
        meter = _meter(t, made) if isinstance(made, cst.Call) else None
        if meter is None or sum(mentions(loop.body, name)) != 1:
            continue
        if not _fed_right(t, loop, meter, call):
            continue
        read = _ratios_read(t, loop, name, meter)
        if not read:
            continue
        found.add(name)
        sums = sorted({s for r in read for s in meter.ratios[r]})
        targets = ", ".join(f"{name}.{s}" for s in sums)
        lines = [f"{targets} = ddp_all_reduce_sum({targets})"]
        lines += [
            f"{name}.{r} = {name}.{meter.ratios[r][0]} / {name}.{meter.ratios[r][1]}" for r in read
        ]
        t._after.setdefault(loop, []).extend(cst.parse_statement(line + "\n") for line in lines)
        t.state.helpers.add("all_reduce_sum")
        t.record(
            loop,
            f"{name}, a meter of this rank's per-batch means read only as "
            f"{', '.join(read)}: its sums ({', '.join(sums)}) summed over the ranks after "
            "the loop (ddp_all_reduce_sum) and the ratio recomputed",
        )
    return found


def _update_call(statement: cst.CSTNode) -> tuple[str, cst.Call] | None:
    if (
        isinstance(statement, cst.SimpleStatementLine)
        and len(statement.body) == 1
        and isinstance(expr := statement.body[0], cst.Expr)
        and isinstance(call := expr.value, cst.Call)
        and isinstance(call.func, cst.Attribute)
        and call.func.attr.value == "update"
        and isinstance(call.func.value, cst.Name)
        and not any(a.star for a in call.args)
    ):
        return call.func.value.value, call
    return None


def _meter(t: LoaderEvaluation, made: cst.Call) -> _Meter | None:
    """The meter class `made` builds, read (the module docstring): this module's, or
    another module's the program tells (ProgramFacts.meters); None if not one."""
    if any(a.star for a in made.args):
        return None
    told = dict(t.state.facts.meters)
    if told:  # a relative import's name may match several: proved where all are alike
        matched = {told[n] for n in told_matches(t.qualified_names(made.func), told)}
        if len(matched) == 1:
            meter = matched.pop()
            return _told_meter(meter) if meter.ratios else None  # not proved: only running
    if not isinstance(made.func, cst.Name):
        return None
    found = [d for d in view(t._module_node).reaching(made.func) if d.kind != "store"]
    if len(found) != 1 or found[0].kind != "class":
        return None
    cls = found[0].statement
    if not isinstance(cls, cst.ClassDef) or t.parent(cls) is not t._module_node:
        return None
    return meter_class(cls)


def meter_class(cls: cst.ClassDef) -> _Meter | None:
    """What the top-level class `cls` does as a meter (the module docstring); None if it
    is not one."""
    if not (
        not cls.decorators
        and all(isinstance(b.value, cst.Name) and b.value.value == "object" for b in cls.bases)
        and isinstance(cls.body, cst.IndentedBlock)
    ):
        return None
    methods: dict[str, cst.FunctionDef] = {}
    for item in cls.body.body:
        if isinstance(item, cst.FunctionDef) and not item.decorators:
            methods[item.name.value] = item
        elif not _docstring(item):
            return None
    init, update = methods.get("__init__"), methods.get("update")
    if init is None or update is None:
        return None
    numbers = _initialised(init, methods, set())
    if numbers is None:
        return None
    return _read_update(update, numbers)


def module_meters(
    import_name: str, source: str, parsed: Callable[[], cst.Module | None]
) -> dict[str, MeterClass]:
    """Another module's top-level meter classes, by the qualified name an importer
    resolves (`utils.AverageMeter`), told to the program's modules (ProgramFacts.meters).
    A default that is not an integer is told as none (such a parameter must be handed)."""
    if "+=" not in source or "self" not in source:
        return {}
    module = parsed()
    if module is None:
        return {}
    found: dict[str, MeterClass] = {}
    for item in module.body:
        if not isinstance(item, cst.ClassDef):
            continue
        running = running_methods(item)
        if (meter := meter_class(item)) is not None:
            found[f"{import_name}.{item.name.value}"] = MeterClass(
                tuple(
                    (n, d.value if isinstance(d, cst.Integer) else None) for n, d in meter.params
                ),
                tuple(meter.sums.items()),
                tuple((r, top, bottom) for r, (top, bottom) in meter.ratios.items()),
                running,
            )
        elif running:
            found[f"{import_name}.{item.name.value}"] = MeterClass(running=running)
    return found


def running_methods(cls: cst.ClassDef) -> tuple[str, ...]:
    """The class's methods (`__call__` and those not dunders) that add to an attribute of
    the instance (`self.scores += batch_score`): an instance fed the batch's figures through
    one keeps a running figure of the batches it was given, whatever else it does."""
    if not isinstance(cls.body, cst.IndentedBlock):
        return ()
    found: list[str] = []
    for item in cls.body.body:
        if not isinstance(item, cst.FunctionDef) or (
            item.name.value != "__call__" and item.name.value.startswith("__")
        ):
            continue
        params = {p.name.value for p in item.params.params[1:]}
        if any(
            isinstance(n, cst.AugAssign)
            and isinstance(n.operator, cst.AddAssign)
            and _self_attr(n.target) is not None
            and any(v.value in params for v in variables_under(n.value))
            for n in walk(item.body, skip_scopes=True)
        ):
            found.append(item.name.value)  # a parameter's value added (a count of calls not)
    return tuple(found)


def running_calls(t: LoaderEvaluation, loop: cst.For | cst.While, batch: set[str]) -> set[str]:
    """Objects bound before `loop` to an instance of a class of the program whose method
    the loop calls with the batch's figures adds them to the instance (`running_methods`),
    where its value is kept (`epoch_loss = loss_container(loss.item())`, a `__call__`;
    `acc = meter.update(out, y)`) or the call is a plain `meter(x)` statement (GuYuc/
    WS-DAN.PyTorch@8777912's module-level meters, round 11 v1-B): the object's name and the
    name its value is kept in (a figure of this rank's batches only, DP030 where shown).
    `meter.update(x)` statements are evaluation._running_objects' own."""
    found: set[str] = set()
    for node in walk(loop.body, skip_scopes=True):
        if not isinstance(node, cst.Call) or not node.args or any(a.star for a in node.args):
            continue
        parent = t.parent(node)
        kept = (
            parent.targets[0].target
            if isinstance(parent, cst.Assign) and len(parent.targets) == 1
            else None
        )
        if isinstance(node.func, cst.Name):
            name, method = node.func.value, "__call__"
        elif isinstance(node.func, cst.Attribute) and isinstance(node.func.value, cst.Name):
            name, method = node.func.value.value, node.func.attr.value
            if kept is None:
                continue  # a statement: _running_objects reads it
        else:
            continue
        if kept is None and not isinstance(parent, cst.Expr):
            continue
        if kept is not None and not isinstance(kept, cst.Name):
            continue
        if not any(n.value in batch for a in node.args for n in variables_under(a.value)):
            continue
        made = t._bound_before(loop, name)
        if isinstance(made, cst.Call) and method in _running_of(t, made):
            found.add(name)
            if isinstance(kept, cst.Name):
                found.add(kept.value)
    return found


def _running_of(t: LoaderEvaluation, made: cst.Call) -> tuple[str, ...]:
    """The running methods of the class `made` builds: another module's the program tells
    (ProgramFacts.meters), or this module's own top-level class."""
    told = dict(t.state.facts.meters)
    if told:
        matched = {told[n].running for n in told_matches(t.qualified_names(made.func), told)}
        if len(matched) == 1:
            return matched.pop()
    if not isinstance(made.func, cst.Name):
        return ()
    found = [d for d in view(t._module_node).reaching(made.func) if d.kind != "store"]
    if len(found) != 1 or found[0].kind != "class":
        return ()
    cls = found[0].statement
    return running_methods(cls) if isinstance(cls, cst.ClassDef) else ()


def _told_meter(told: MeterClass) -> _Meter:
    return _Meter(
        params=[(n, None if d is None else cst.Integer(d)) for n, d in told.params],
        sums=dict(told.sums),
        ratios={r: (top, bottom) for r, top, bottom in told.ratios},
    )


def _docstring(item: cst.CSTNode) -> bool:
    return (
        isinstance(item, cst.SimpleStatementLine)
        and len(item.body) == 1
        and isinstance(item.body[0], cst.Expr)
        and isinstance(item.body[0].value, (cst.SimpleString, cst.ConcatenatedString))
    )


def _self_attr(node: cst.BaseExpression) -> str | None:
    if (
        isinstance(node, cst.Attribute)
        and isinstance(node.value, cst.Name)
        and node.value.value == "self"
    ):
        return node.attr.value
    return None


def _initialised(
    method: cst.FunctionDef, methods: dict[str, cst.FunctionDef], seen: set[str]
) -> set[str] | None:
    """The attributes `method` (and the methods it calls on self) binds to numbers, where
    it does nothing but bind attributes to numbers or parameters and call such methods."""
    params = {p.name.value for p in method.params.params[1:]}
    if (
        not method.params.params
        or method.params.params[0].name.value != "self"
        or isinstance(method.params.star_arg, cst.Param)
        or method.params.star_kwarg is not None
        or not isinstance(method.body, cst.IndentedBlock)
    ):
        return None
    numbers: set[str] = set()
    for statement in method.body.body:
        if _docstring(statement):
            continue
        if not isinstance(statement, cst.SimpleStatementLine):
            return None
        for small in statement.body:
            if isinstance(small, cst.Assign):
                value = small.value
                number = isinstance(value, (cst.Integer, cst.Float))
                if not (number or isinstance(value, cst.Name) and value.value in params):
                    return None
                for target in small.targets:
                    attr = _self_attr(target.target)
                    if attr is None:
                        return None
                    (numbers.add if number else numbers.discard)(attr)
            elif (
                isinstance(small, cst.Expr)
                and isinstance(call := small.value, cst.Call)
                and not call.args
                and (name := _self_attr(call.func)) in methods
                and name not in seen
                and name not in ("__init__", "update")
            ):
                inner = _initialised(methods[name], methods, seen | {name})
                if inner is None:
                    return None
                numbers |= inner
            else:
                return None
    return numbers


def _read_update(update: cst.FunctionDef, numbers: set[str]) -> _Meter | None:
    params = update.params
    if (
        not params.params
        or params.params[0].name.value != "self"
        or isinstance(params.star_arg, cst.Param)
        or params.star_kwarg is not None
        or params.kwonly_params
        or params.posonly_params
        or not isinstance(update.body, cst.IndentedBlock)
    ):
        return None
    meter = _Meter(params=[(p.name.value, p.default) for p in params.params[1:]])
    names = {name for name, _ in meter.params}
    lasts: set[str] = set()
    for statement in update.body.body:
        if _docstring(statement):
            continue
        if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
            return None
        small = statement.body[0]
        if isinstance(small, cst.AugAssign) and isinstance(small.operator, cst.AddAssign):
            attr = _self_attr(small.target)
            terms = _product(small.value, names)
            if attr is None or terms is None or attr not in numbers or attr in meter.sums:
                return None
            if attr in lasts or any(attr in pair for pair in meter.ratios.values()):
                return None  # a ratio set before this addition would be stale
            meter.sums[attr] = terms
        elif isinstance(small, cst.Assign) and len(small.targets) == 1:
            attr = _self_attr(small.targets[0].target)
            value = small.value
            if attr is None or attr in meter.sums:
                return None
            if isinstance(value, cst.Name) and value.value in names:
                lasts.add(attr)
                continue
            if not (
                isinstance(value, cst.BinaryOperation)
                and isinstance(value.operator, cst.Divide)
                and (top := _self_attr(value.left)) in meter.sums
                and (bottom := _self_attr(value.right)) in meter.sums
            ):
                return None
            assert top is not None and bottom is not None
            meter.ratios[attr] = (top, bottom)
        else:
            return None
    return meter if meter.ratios else None


def _product(value: cst.BaseExpression, names: set[str]) -> tuple[str, ...] | None:
    """The parameters `value` multiplies (`val * n`: (val, n); `n`: (n,); `1`: ())."""
    if isinstance(value, cst.Integer) and value.value == "1":
        return ()
    if isinstance(value, cst.Name) and value.value in names:
        return (value.value,)
    if isinstance(value, cst.BinaryOperation) and isinstance(value.operator, cst.Multiply):
        left, right = _product(value.left, names), _product(value.right, names)
        if left is not None and right is not None and left and right:
            return left + right
    return None


def _fed_right(t: LoaderEvaluation, loop: cst.For, meter: _Meter, call: cst.Call) -> bool:
    """Each parameter a sum reads is handed a per-batch mean or a count, and each ratio
    divides a sum of means (weighted by a count) by the sum of that count (or of 1)."""
    handed: dict[str, cst.BaseExpression | None] = dict(meter.params)
    order = [name for name, _ in meter.params]
    for at, arg in enumerate(call.args):
        if arg.keyword is None:
            if at >= len(order) or any(a.keyword is not None for a in call.args[:at]):
                return False
            handed[order[at]] = arg.value
        elif arg.keyword.value in handed:
            handed[arg.keyword.value] = arg.value
        else:
            return False
    kinds: dict[str, str] = {}
    for terms in meter.sums.values():
        for name in terms:
            value = handed.get(name)
            if value is None:
                return False
            if _count(t, loop, value):
                kinds[name] = "count"
            elif per_batch_mean(t, loop, value):
                kinds[name] = "mean"
            else:
                return False
    for top, bottom in meter.ratios.values():
        means = [n for n in meter.sums[top] if kinds[n] == "mean"]
        counts = sorted(n for n in meter.sums[top] if kinds[n] == "count")
        if len(means) != 1 or sorted(meter.sums[bottom]) != counts:
            return False
        if any(kinds[n] != "count" for n in meter.sums[bottom]):
            return False
    return True


def _count(t: LoaderEvaluation, loop: cst.For, value: cst.BaseExpression) -> bool:
    """An integer, or `X.size(0)` / `X.shape[0]` / `X.size()[0]` of a tensor the loop's
    target unpacks (one hop through `.to()`, `.cuda()`): the batch's (share's) size."""
    if isinstance(value, cst.Integer):
        return True
    tensor: cst.BaseExpression | None = None
    if (
        isinstance(value, cst.Call)
        and isinstance(value.func, cst.Attribute)
        and value.func.attr.value == "size"
        and len(value.args) == 1
        and isinstance(value.args[0].value, cst.Integer)
        and value.args[0].value.value == "0"
    ):
        tensor = value.func.value
    elif (
        isinstance(value, cst.Subscript)
        and len(value.slice) == 1
        and isinstance(index := value.slice[0].slice, cst.Index)
        and isinstance(index.value, cst.Integer)
        and index.value.value == "0"
    ):
        inner = value.value
        if isinstance(inner, cst.Attribute) and inner.attr.value == "shape":
            tensor = inner.value
        elif (
            isinstance(inner, cst.Call)
            and not inner.args
            and isinstance(inner.func, cst.Attribute)
            and inner.func.attr.value == "size"
        ):
            tensor = inner.func.value
    return isinstance(tensor, cst.Name) and _unpacked(t, loop, tensor, hops=1)


def _unpacked(t: LoaderEvaluation, loop: cst.For, name: cst.Name, hops: int) -> bool:
    flow = view(t._module_node)
    found = [d for d in flow.reaching(name) if d.kind != "store"]
    if not found:
        return False
    for d in found:
        if d.kind == "for" and d.statement is loop and d.element:
            continue
        value = d.value
        if (
            hops
            and d.kind == "assign"
            and not d.element
            and isinstance(value, cst.Call)
            and isinstance(value.func, cst.Attribute)
            and value.func.attr.value in METHODS
            and isinstance(value.func.value, cst.Name)
            and _unpacked(t, loop, value.func.value, hops - 1)
        ):
            continue
        return False
    return True


def _ratios_read(t: LoaderEvaluation, loop: cst.For, name: str, meter: _Meter) -> list[str]:
    """The ratios read after `loop` in its function, where every read there is one."""
    end = t.get_metadata(PositionProvider, loop).end.line
    scope = t._scope_root(loop)
    if len(mentions(scope, name)) != sum(
        isinstance(n, cst.Name) and n.value == name for n in walk(scope, skip_scopes=True)
    ):
        return []  # a function or class inside reads the name too: not followed
    read: list[str] = []
    for node in walk(scope, skip_scopes=True):
        if not (isinstance(node, cst.Name) and node.value == name):
            continue
        if t.get_metadata(PositionProvider, node).start.line <= end:
            continue
        parent = t.parent(node)
        if isinstance(parent, cst.AssignTarget):
            return read  # rebound: what follows is another meter
        if not (
            isinstance(parent, cst.Attribute)
            and parent.value is node
            and parent.attr.value in meter.ratios
            and not isinstance(t.parent(parent), (cst.AssignTarget, cst.AugAssign, cst.Del))
        ):
            return []
        if parent.attr.value not in read:
            read.append(parent.attr.value)
    return read
