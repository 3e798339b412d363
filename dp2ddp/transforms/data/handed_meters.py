"""Averaging meters a loop hands to a step function that feeds them, summed over the ranks.

Stop 49 (helper k1; megvii-research/mdistiller@a08d46f mdistiller/engine/trainer.py:95-187,
a4-A): the loop hands its meters, with its batch, to a step function of the program
(`self.train_iter(data, meters)`, `step(net, mse, x, y)`) that feeds them there
(`meters["losses"].update(loss.item(), x.size(0))`); the loop's function reads the ratio
after it (`meters["losses"].avg`). Over a sharded loader each meter holds this rank's
batches only (handed_objects.py says so with DP030). meters.py proves a meter fed in the
loop's own body and sums it over the ranks after the loop; this does the same for a meter
fed in the callee, with the same argument (sums are additive; the ratio recomputed from the
ranks' sums is DataParallel's figure). Proved, else DP030 as before:

- the loop is an even pass over the loader (mean_lists.even_pass);
- the meter is bound by a statement of the loop's own block before it to `C(...)` or to a
  dict display of string keys each to `C(...)` (meters._meter proves C, as for a meter fed
  in the loop);
- the loop mentions it once: an argument of one call statement of its body, the callee a
  function of this module or a method of the loop's class (handed_objects._callees);
- the callee names the parameter only as `P.update(...)` or `P["key"].update(...)` call
  statements of its own top-level block, each meter once, with no `return`, `raise`,
  `yield`, `break` or `continue` before them (every call feeds every meter once), and each
  sum-forming argument is a per-batch mean (`X.item()` of a `.mean()` or a plain torch loss
  computed in the callee) or a count (an integer, or `X.size(0)` / `X.shape[0]` of a tensor
  the loop's target hands it, unpacked or moved by `.to()`/`.cuda()` once);
- after the loop, in its function, the name is read only as `M.<ratio>` / `M["key"].<ratio>`.

After the loop: `M.sum, M.count = ddp_all_reduce_sum(M.sum, M.count)` and the ratio
recomputed, for each meter read.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import libcst as cst
from libcst.metadata import PositionProvider

from dp2ddp.flow import view
from dp2ddp.flow.carriers import METHODS
from dp2ddp.transforms._support.nodes import name_of, walk
from dp2ddp.transforms.data.handed_objects import _callees
from dp2ddp.transforms.data.mean_lists import (
    _SCALAR,
    even_pass,
    fresh_before,
    mean_over_batch,
    mentions,
)
from dp2ddp.transforms.data.meters import _Meter, _meter

if TYPE_CHECKING:
    from dp2ddp.transforms.data.evaluation import LoaderEvaluation
    from dp2ddp.transforms.data.plan import Loader

_STOPS = (cst.Return, cst.Raise, cst.Yield, cst.Break, cst.Continue)


def reduced_handed_meters(
    t: LoaderEvaluation, loader: Loader, loop: cst.For | cst.While
) -> set[str]:
    """The meters `loop` hands to a step function that feeds them per-batch means, summed
    over the ranks after it (planned here; the module docstring)."""
    before = even_pass(t, loader, loop)
    if before is None:
        return set()
    assert isinstance(loop, cst.For) and isinstance(loop.body, cst.IndentedBlock)
    callees = _callees(t, loop)
    found: set[str] = set()
    for statement in loop.body.body:
        if not (
            isinstance(statement, cst.SimpleStatementLine)
            and len(statement.body) == 1
            and isinstance(expr := statement.body[0], cst.Expr)
            and isinstance(call := expr.value, cst.Call)
            and not any(a.star for a in call.args)
        ):
            continue
        func = call.func
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name):
            spelled = f"{func.value.value}.{func.attr.value}"
        else:
            spelled = name_of(func)
        callee = callees.get(spelled)
        if callee is None:
            continue
        function, skip = callee
        params = [p.name.value for p in function.params.params[skip:]]
        handed: dict[str, cst.BaseExpression] = {}
        for index, arg in enumerate(call.args):
            param = arg.keyword.value if arg.keyword is not None else None
            if param is None and index < len(params):
                param = params[index]
            if param is None or param not in params:
                break
            handed[param] = arg.value
        else:
            for param, value in handed.items():
                if not isinstance(value, cst.Name) or value.value in found:
                    continue
                name = value.value
                lines = _planned(t, loop, before, call, function, handed, param, name)
                if lines is None:
                    continue
                found.add(name)
                t._after.setdefault(loop, []).extend(cst.parse_statement(s + "\n") for s in lines)
                t.state.helpers.add("all_reduce_sum")
                t.record(
                    loop,
                    f"{name}, meters of this rank's per-batch means fed by {spelled}() and "
                    "read only as their ratios: their sums summed over the ranks after the "
                    "loop (ddp_all_reduce_sum) and the ratios recomputed",
                )
    return found


def _planned(
    t: LoaderEvaluation,
    loop: cst.For,
    before: list[cst.BaseStatement],
    call: cst.Call,
    function: cst.FunctionDef,
    handed: dict[str, cst.BaseExpression],
    param: str,
    name: str,
) -> list[str] | None:
    """The statements that sum `name`'s meters over the ranks after `loop`, or None."""
    made = fresh_before(before, name, lambda v: isinstance(v, (cst.Call, cst.Dict)))
    meters: dict[str | None, _Meter] = {}
    if isinstance(made, cst.Call):
        meter = _meter(t, made)
        if meter is None:
            return None
        meters[None] = meter
    elif isinstance(made, cst.Dict):
        for element in made.elements:
            if not (
                isinstance(element, cst.DictElement)
                and isinstance(element.key, cst.SimpleString)
                and isinstance(element.value, cst.Call)
                and element.key.value not in meters
            ):
                return None
            meter = _meter(t, element.value)
            if meter is None:
                return None
            meters[element.key.value] = meter
    else:
        return None
    keywords = sum(a.keyword is not None and a.keyword.value == name for a in call.args)
    if sum(mentions(loop.body, name)) - keywords != 1:
        return None
    feeds = _feeds(function, param)
    if feeds is None or not feeds:
        return None
    for key, update in feeds.items():
        fed = meters.get(key)
        if fed is None or not _fed_right(t, loop, function, handed, fed, update):
            return None
    read = _read_after(t, loop, name, meters)
    if not read:
        return None
    lines: list[str] = []
    for key, ratios in read.items():
        if key not in feeds:
            return None  # a meter the callee does not feed: not this rank's share
        held = name if key is None else f"{name}[{key}]"
        sums = sorted({s for r in ratios for s in meters[key].ratios[r]})
        targets = ", ".join(f"{held}.{s}" for s in sums)
        lines.append(f"{targets} = ddp_all_reduce_sum({targets})")
        lines += [
            f"{held}.{r} = {held}.{meters[key].ratios[r][0]} / {held}.{meters[key].ratios[r][1]}"
            for r in ratios
        ]
    return lines


def _feeds(function: cst.FunctionDef, param: str) -> dict[str | None, cst.Call] | None:
    """The `update` call feeding each meter `param` holds (key None: `param` itself), where
    the function names `param` only so, in statements of its top-level block (or a `with`
    block's) that every call reaches; else None."""
    if not isinstance(function.body, cst.IndentedBlock):
        return None
    found: dict[str | None, cst.Call] = {}
    stopped = False
    for statement in _flat(function.body.body):
        fed = _update(statement, param)
        if fed is not None:
            key, call = fed
            if stopped or key in found:
                return None
            found[key] = call
            continue
        if mentions(statement, param):
            return None
        stopped = stopped or any(isinstance(n, _STOPS) for n in walk(statement, skip_scopes=True))
    return found


def _flat(statements: Sequence[cst.BaseStatement]) -> list[cst.BaseStatement]:
    """The statements, those of a `with` block's body in its place (every entry runs it)."""
    flat: list[cst.BaseStatement] = []
    for statement in statements:
        if isinstance(statement, cst.With) and isinstance(statement.body, cst.IndentedBlock):
            flat.extend(_flat(statement.body.body))
        else:
            flat.append(statement)
    return flat


def _update(statement: cst.BaseStatement, param: str) -> tuple[str | None, cst.Call] | None:
    if not (
        isinstance(statement, cst.SimpleStatementLine)
        and len(statement.body) == 1
        and isinstance(expr := statement.body[0], cst.Expr)
        and isinstance(call := expr.value, cst.Call)
        and isinstance(call.func, cst.Attribute)
        and call.func.attr.value == "update"
        and not any(a.star for a in call.args)
        and not any(mentions(a.value, param) for a in call.args)
    ):
        return None
    receiver = call.func.value
    if isinstance(receiver, cst.Name) and receiver.value == param:
        return None, call
    key = _key(receiver)
    if key is not None and isinstance(receiver, cst.Subscript):
        inner = receiver.value
        if isinstance(inner, cst.Name) and inner.value == param:
            return key, call
    return None


def _key(node: cst.BaseExpression) -> str | None:
    if (
        isinstance(node, cst.Subscript)
        and len(node.slice) == 1
        and isinstance(index := node.slice[0].slice, cst.Index)
        and isinstance(index.value, cst.SimpleString)
    ):
        return index.value.value
    return None


def _fed_right(
    t: LoaderEvaluation,
    loop: cst.For,
    function: cst.FunctionDef,
    handed: dict[str, cst.BaseExpression],
    meter: _Meter,
    call: cst.Call,
) -> bool:
    """As meters._fed_right, with the mean and the count read in the callee."""
    given: dict[str, cst.BaseExpression | None] = dict(meter.params)
    order = [n for n, _ in meter.params]
    for at, arg in enumerate(call.args):
        if arg.keyword is None:
            if at >= len(order) or any(a.keyword is not None for a in call.args[:at]):
                return False
            given[order[at]] = arg.value
        elif arg.keyword.value in given:
            given[arg.keyword.value] = arg.value
        else:
            return False
    kinds: dict[str, str] = {}
    for terms in meter.sums.values():
        for n in terms:
            value = given.get(n)
            if value is None:
                return False
            if isinstance(value, cst.Integer) or _count(t, loop, function, handed, value):
                kinds[n] = "count"
            elif _mean(t, function, value):
                kinds[n] = "mean"
            else:
                return False
    for top, bottom in meter.ratios.values():
        means = [n for n in meter.sums[top] if kinds[n] == "mean"]
        counts = sorted(n for n in meter.sums[top] if kinds[n] == "count")
        if len(means) != 1 or sorted(meter.sums[bottom]) != counts:
            return False
    return True


def _mean(t: LoaderEvaluation, function: cst.FunctionDef, held: cst.BaseExpression) -> bool:
    """`X.item()` (`float(X)`, `.detach().cpu()`, `.data`) of a mean over the batch: the
    call itself, or a name every binding of which is in the callee and such a call."""
    if isinstance(held, cst.Call) and name_of(held.func) == "float" and len(held.args) == 1:
        held = held.args[0].value
    while True:
        if isinstance(held, cst.Attribute) and held.attr.value == "data":
            held = held.value
        elif (
            isinstance(held, cst.Call)
            and not held.args
            and isinstance(held.func, cst.Attribute)
            and held.func.attr.value in _SCALAR
        ):
            held = held.func.value
        else:
            break
    if isinstance(held, cst.Call):
        return mean_over_batch(t, held)
    if not isinstance(held, cst.Name):
        return False
    found = [d for d in view(t._module_node).reaching(held) if d.kind != "store"]
    inside = {id(n) for n in walk(function.body, skip_scopes=True)}
    return bool(found) and all(
        d.kind == "assign"
        and not d.element
        and id(d.statement) in inside
        and d.value is not None
        and mean_over_batch(t, d.value)
        for d in found
    )


def _count(
    t: LoaderEvaluation,
    loop: cst.For,
    function: cst.FunctionDef,
    handed: dict[str, cst.BaseExpression],
    value: cst.BaseExpression,
) -> bool:
    """`X.size(0)` / `X.shape[0]` of a tensor the loop's target hands the callee."""
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
        and isinstance(value.value, cst.Attribute)
        and value.value.attr.value == "shape"
    ):
        tensor = value.value.value
    return isinstance(tensor, cst.Name) and _rows(t, loop, function, handed, tensor, 2)


def _rows(
    t: LoaderEvaluation,
    loop: cst.For,
    function: cst.FunctionDef,
    handed: dict[str, cst.BaseExpression],
    name: cst.Name,
    hops: int,
) -> bool:
    """Every binding of `name` in the callee gives this rank's share of a batch: a parameter
    handed (a name bound only by) the loop's target, or an unpacking or a `.to()` of one."""
    flow = view(t._module_node)
    found = [d for d in flow.reaching(name) if d.kind != "store"]
    if not found:
        return False
    for d in found:
        if d.kind == "param":
            arg = handed.get(name.value)
            if not isinstance(arg, cst.Name):
                return False
            outer = [o for o in flow.reaching(arg) if o.kind != "store"]
            if not outer or not all(o.kind == "for" and o.statement is loop for o in outer):
                return False
            continue
        value = d.value
        if d.kind != "assign" or not hops:
            return False
        if d.element and isinstance(value, cst.Name):
            inner = value
        elif (
            not d.element
            and isinstance(value, cst.Call)
            and isinstance(value.func, cst.Attribute)
            and value.func.attr.value in METHODS
            and isinstance(value.func.value, cst.Name)
        ):
            inner = value.func.value
        else:
            return False
        if not _rows(t, loop, function, handed, inner, hops - 1):
            return False
    return True


def _read_after(
    t: LoaderEvaluation, loop: cst.For, name: str, meters: dict[str | None, _Meter]
) -> dict[str | None, list[str]]:
    """The ratios read after `loop` in its function, by meter, where every read is one."""
    end = t.get_metadata(PositionProvider, loop).end.line
    scope = t._scope_root(loop)
    if len(mentions(scope, name)) != sum(
        isinstance(n, cst.Name) and n.value == name for n in walk(scope, skip_scopes=True)
    ):
        return {}  # a function or class inside reads the name too: not followed
    read: dict[str | None, list[str]] = {}
    for node in walk(scope, skip_scopes=True):
        if not (isinstance(node, cst.Name) and node.value == name):
            continue
        if t.get_metadata(PositionProvider, node).start.line <= end:
            continue
        parent: cst.CSTNode | None = t.parent(node)
        if isinstance(parent, cst.AssignTarget):
            return read  # rebound: what follows is another object
        key: str | None = None
        held: cst.CSTNode = node
        if None not in meters:
            if not isinstance(parent, cst.Subscript):
                return {}
            key = _key(parent)
            if key is None or key not in meters:
                return {}
            held, parent = parent, t.parent(parent)
        meter = meters[key]
        if not (
            isinstance(parent, cst.Attribute)
            and parent.value is held
            and parent.attr.value in meter.ratios
            and not isinstance(t.parent(parent), (cst.AssignTarget, cst.AugAssign, cst.Del))
        ):
            return {}
        ratios = read.setdefault(key, [])
        if parent.attr.value not in ratios:
            ratios.append(parent.attr.value)
    return read
