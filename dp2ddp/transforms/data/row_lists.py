"""Lists of per-batch rows (targets, predictions) joined after a sharded pass and read only
by figures that do not depend on the rows' order.

Stop 48 (WangYueFt/prnet@82d466a's `_train_one_epoch`: `translations_ab.append(
translation_ab.detach().cpu().numpy())` and the prediction's likewise in the loop,
`np.concatenate(..., axis=0)` after it, then `np.mean((a - b) ** 2)` and `r2_score(a,
b)`). DataParallel's lists hold every batch's rows; sharded, each rank's hold its shares'.
Gathered from every rank after the loop (`L = ddp_gather_items(L)`, rank by rank, each
rank's items in step order), every list holds the rows of every batch, each row once (as
the sampler gives them: a padded sample of the last batch once more), in one order for all
the loop's lists: the k-th row of one is the k-th row of the others, as in the original,
only the order of the rows differs. So every figure that does not depend on the rows'
order is DataParallel's. Proved, else DP030 as before:

- the loop is an even pass over the loader (mean_lists.even_pass);
- each list is bound to `[]` by a statement of the loop's own block before it
  (mean_lists.fresh_before) and fed once per pass by one statement `L.append(X....)` in
  its body, no other mention there: X a tensor of the batch's rows (an element the loop's
  target unpacks, one hop through `.to()`/`.cuda()`, or what a call of a DataParallel
  wrap returns), read through `.detach()`, `.cpu()`, `.numpy()`, `.data`;
- after the loop, in its function, the lists are read only joined by rows
  (`np.concatenate(L)`, `axis=0`; `np.vstack(L)`; `torch.cat(L)`, `dim=0`), and what is
  joined only through elementwise arithmetic with other joined arrays or numbers (`+ - *
  / **`, unary minus, `np.abs`, `np.square`, `np.sqrt`, `np.exp`, `np.log`, `np.degrees`,
  `np.radians`), bound to a name (read likewise) or reduced over every row: `np.mean(E)`,
  sklearn's `r2_score(A, B)`, `mean_squared_error`, `mean_absolute_error` (no
  `sample_weight`); any other read of any of them (an unknown function, a subscript, a
  list kept across the passes) leaves every list of the loop to DP030.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst
from libcst.metadata import PositionProvider

from dp2ddp.flow import view
from dp2ddp.transforms._support.names import DATAPARALLEL, DISTRIBUTED_DATA_PARALLEL
from dp2ddp.transforms._support.nodes import call_named, walk
from dp2ddp.transforms.data.mean_lists import _empty_list, even_pass, fresh_before, mentions

if TYPE_CHECKING:
    from dp2ddp.flow.defuse import DefUse
    from dp2ddp.transforms.data.evaluation import LoaderEvaluation
    from dp2ddp.transforms.data.plan import Loader

#: Read a tensor's values as they are (rows kept).
_AS_IS = frozenset({"detach", "cpu", "numpy", "to", "cuda", "float", "double", "clone"})
#: Calls that join a list of arrays by rows.
_JOINS = frozenset({"numpy.concatenate", "numpy.vstack", "torch.cat"})
#: Elementwise functions of one array.
_ELEMENTWISE = frozenset(
    f"numpy.{f}" for f in ("abs", "absolute", "square", "sqrt", "exp", "log", "degrees", "radians")
)
_OPERATORS = (cst.Add, cst.Subtract, cst.Multiply, cst.Divide, cst.Power)
#: Reductions over every row, by how many aligned arrays they take.
_REDUCTIONS = {
    "builtins.len": 1,
    "numpy.mean": 1,
    "numpy.sum": 1,
    "sklearn.metrics.r2_score": 2,
    "sklearn.metrics.mean_squared_error": 2,
    "sklearn.metrics.mean_absolute_error": 2,
    "sklearn.metrics._regression.r2_score": 2,
}
_WRAPS = DATAPARALLEL | DISTRIBUTED_DATA_PARALLEL


def gathered_row_lists(t: LoaderEvaluation, loader: Loader, loop: cst.For | cst.While) -> set[str]:
    """The lists of rows `loop` feeds that are gathered from every rank after it (planned
    here; the module docstring), so the order-free figures read from them are
    DataParallel's."""
    before = even_pass(t, loader, loop)
    if before is None:
        return set()
    assert isinstance(loop, cst.For) and isinstance(loop.body, cst.IndentedBlock)
    flow = view(t._module_node)
    lists: dict[str, cst.CSTNode] = {}
    for statement in loop.body.body:
        name = _appended_rows(t, flow, loop, statement)
        if name is None or name in lists or sum(mentions(loop.body, name)) != 1:
            continue
        made: cst.CSTNode | None = fresh_before(before, name, _empty_list)
        while made is not None and not isinstance(made, cst.Assign):
            made = t.parent(made)
        if made is not None:
            lists[name] = made  # the binding statement, as the def-use view gives it
    if not lists or not _read_order_free(t, flow, loop, lists):
        return set()
    for name in sorted(lists):
        if any(_gathers(after, name) for after in t._after.get(loop, [])):
            continue  # a loop over zip(a, b) is listed for both loaders
        gather = call_named("ddp_gather_items", cst.Arg(cst.Name(name)))
        line = cst.SimpleStatementLine(
            body=[cst.Assign(targets=[cst.AssignTarget(cst.Name(name))], value=gather)]
        )
        t._after.setdefault(loop, []).append(line)
        t.state.helpers.add("gather_items")
    t.record(
        loop,
        f"{', '.join(sorted(lists))}: lists of this rank's rows read only joined by rows into "
        "figures that do not depend on the rows' order, gathered from every rank after the "
        "loop (ddp_gather_items): the figures are the ones over every rank's batches",
    )
    return set(lists)


def _gathers(statement: cst.BaseStatement, name: str) -> bool:
    return (
        isinstance(statement, cst.SimpleStatementLine)
        and isinstance(assign := statement.body[0], cst.Assign)
        and isinstance(assign.value, cst.Call)
        and isinstance(assign.value.func, cst.Name)
        and assign.value.func.value == "ddp_gather_items"
        and isinstance(target := assign.targets[0].target, cst.Name)
        and target.value == name
    )


def _appended_rows(
    t: LoaderEvaluation, flow: DefUse, loop: cst.For, statement: cst.CSTNode
) -> str | None:
    """L of `L.append(X.detach().cpu().numpy())` with X a tensor of the batch's rows."""
    if not (
        isinstance(statement, cst.SimpleStatementLine)
        and len(statement.body) == 1
        and isinstance(expr := statement.body[0], cst.Expr)
        and isinstance(call := expr.value, cst.Call)
        and isinstance(call.func, cst.Attribute)
        and call.func.attr.value == "append"
        and isinstance(call.func.value, cst.Name)
        and len(call.args) == 1
        and call.args[0].keyword is None
        and not call.args[0].star
    ):
        return None
    held = call.args[0].value
    while True:
        if isinstance(held, cst.Attribute) and held.attr.value == "data":
            held = held.value
        elif (
            isinstance(held, cst.Call)
            and isinstance(held.func, cst.Attribute)
            and held.func.attr.value in _AS_IS
            and (not held.args or held.func.attr.value in ("to", "cuda"))
        ):
            held = held.func.value
        else:
            break
    if not isinstance(held, cst.Name) or not _rows(t, flow, loop, held, hops=1):
        return None
    return call.func.value.value


def _rows(
    t: LoaderEvaluation,
    flow: DefUse,
    loop: cst.For,
    name: cst.Name,
    hops: int,
    through: frozenset[int] = frozenset(),
) -> bool:
    """Every binding reaching `name` gives a tensor of the batch's rows: an element the
    loop's target unpacks, `.to()`/`.cuda()` of one (one hop: `x, y = x.cuda(), y.cuda()`,
    whose own binding the view also sees reach its `y` from the step before), or a
    DataParallel wrap's output."""
    found = [d for d in flow.reaching(name) if d.kind != "store"]
    if not found:
        return False
    inside = {id(n) for n in walk(loop.body, skip_scopes=True)}
    for d in found:
        if d.kind == "for" and d.statement is loop and d.element:
            continue
        if id(d.statement) in through:
            continue
        value = d.value
        if d.element and isinstance(value, cst.Tuple) and len(d.element) == 1:
            at = d.element[0]  # `x, y = x.cuda(), y.cuda()`
            element = value.elements[at] if at < len(value.elements) else None
            value = element.value if isinstance(element, cst.Element) else None
        elif d.element:
            return False
        if d.kind != "assign" or id(d.statement) not in inside:
            return False
        if not isinstance(value, cst.Call):
            return False
        func = value.func
        if (
            hops
            and isinstance(func, cst.Attribute)
            and func.attr.value in ("to", "cuda")
            and isinstance(func.value, cst.Name)
            and _rows(t, flow, loop, func.value, hops - 1, through | {id(d.statement)})
        ):
            continue
        if isinstance(func, cst.Name) and _wrap(t, flow, func):
            continue
        return False
    return True


def _wrap(t: LoaderEvaluation, flow: DefUse, func: cst.Name) -> bool:
    """Every binding reaching `func` is `nn.DataParallel(...)` (through `.to()`/`.cuda()`)."""
    found = [d for d in flow.reaching(func) if d.kind != "store"]
    for d in found:
        value = d.value
        while (
            isinstance(value, cst.Call)
            and isinstance(value.func, cst.Attribute)
            and value.func.attr.value in ("to", "cuda")
        ):
            value = value.func.value
        if not (
            d.kind == "assign"
            and not d.element
            and isinstance(value, cst.Call)
            and t.qualified_names(value.func) & _WRAPS
        ):
            return False
    return bool(found)


def _read_order_free(
    t: LoaderEvaluation, flow: DefUse, loop: cst.For, lists: dict[str, cst.CSTNode]
) -> bool:
    """After the loop every read of the lists, and of the arrays joined from them, is
    order-free (the module docstring)."""
    end = t.get_metadata(PositionProvider, loop).end.line
    scope = t._scope_root(loop)
    if any(
        len(mentions(scope, name))
        != sum(isinstance(n, cst.Name) and n.value == name for n in walk(scope, skip_scopes=True))
        for name in lists
    ):
        return False  # a function or class inside reads a name too: not followed
    made = {(id(statement), name) for name, statement in lists.items()}
    reads = [
        n
        for n in walk(scope, skip_scopes=True)
        if isinstance(n, cst.Name)
        and t.get_metadata(PositionProvider, n).start.line > end
        and not isinstance(parent := t.parent(n), cst.AssignTarget)
        and not (isinstance(parent, cst.Attribute) and parent.attr is n)
    ]
    joined: set[int] = set()  # the statements binding a joined array
    while True:
        grown = False
        for node in reads:
            kind = _kind(flow, node, made, joined)
            if kind is None:
                continue
            if kind == "mixed":
                return False
            top = _aligned_top(t, node, kind)
            if top is None:
                return False
            statement = t.parent(top)
            if (
                isinstance(statement, cst.Assign)
                and len(statement.targets) == 1
                and isinstance(statement.targets[0].target, cst.Name)
                and id(statement) not in joined
            ):
                joined.add(id(statement))
                grown = True
        if not grown:
            break
    for node in reads:
        kind = _kind(flow, node, made, joined)
        if kind is None:
            continue
        top = _aligned_top(t, node, kind)
        if top is None or not _ends_well(t, flow, top, made, joined):
            return False
    return True


def _kind(flow: DefUse, node: cst.Name, made: set[tuple[int, str]], joined: set[int]) -> str | None:
    """ "list" (a read of a gathered list), "joined" (of an array joined from them), None
    (neither), "mixed" (both or one of them and something else)."""
    found = [d for d in flow.reaching(node) if d.kind != "store"]
    kinds = {
        "list"
        if (id(d.statement), node.value) in made
        else "joined"
        if id(d.statement) in joined
        else ""
        for d in found
    }
    if kinds == {""} or not kinds:
        return None
    return kinds.pop() if len(kinds) == 1 else "mixed"


def _aligned_top(t: LoaderEvaluation, node: cst.Name, kind: str) -> cst.BaseExpression | None:
    """The outermost elementwise expression over `node`'s rows: for a list, from the call
    joining it; None where the read is not one."""
    current: cst.BaseExpression = node
    if kind == "list":
        arg = t.parent(node)
        call = t.parent(arg) if isinstance(arg, cst.Arg) else None
        if not (
            isinstance(arg, cst.Arg)
            and arg.keyword is None
            and isinstance(call, cst.Call)
            and call.args[0] is arg
            and t.qualified_names(call.func) & _JOINS
            and all(_row_axis(a) for a in call.args[1:])
        ):
            return None
        current = call
    while True:
        parent = t.parent(current)
        if isinstance(parent, cst.BinaryOperation) and isinstance(parent.operator, _OPERATORS):
            current = parent
        elif isinstance(parent, cst.UnaryOperation) and isinstance(parent.operator, cst.Minus):
            current = parent
        elif isinstance(parent, cst.Arg) and parent.keyword is None:
            call = t.parent(parent)
            if not (
                isinstance(call, cst.Call)
                and len(call.args) == 1
                and t.qualified_names(call.func) & _ELEMENTWISE
            ):
                return current
            current = call
        else:
            return current


def _row_axis(arg: cst.Arg) -> bool:
    """`axis=0` / `dim=0` / a positional 0."""
    return (
        (arg.keyword is None or arg.keyword.value in ("axis", "dim"))
        and isinstance(arg.value, cst.Integer)
        and arg.value.value == "0"
    )


def _ends_well(
    t: LoaderEvaluation,
    flow: DefUse,
    top: cst.BaseExpression,
    made: set[tuple[int, str]],
    joined: set[int],
) -> bool:
    """`top` is bound to a name (a joined array) or reduced over every row, and each operand
    of its elementwise arithmetic is aligned (a joined array, a joined list, a number)."""
    if not _operands_aligned(t, flow, top, made, joined):
        return False
    parent = t.parent(top)
    if isinstance(parent, cst.Assign):
        return id(parent) in joined
    if not isinstance(parent, cst.Arg) or parent.keyword is not None:
        return False
    call = t.parent(parent)
    return (
        isinstance(call, cst.Call)
        and _reduction(t, call)
        and all(
            _operands_aligned(t, flow, a.value, made, joined)
            for a in call.args
            if a.keyword is None
        )
    )


def _operands_aligned(
    t: LoaderEvaluation,
    flow: DefUse,
    expr: cst.BaseExpression,
    made: set[tuple[int, str]],
    joined: set[int],
) -> bool:
    if isinstance(expr, (cst.Integer, cst.Float)):
        return True
    if isinstance(expr, cst.Name):
        return _kind(flow, expr, made, joined) == "joined"
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, _OPERATORS):
        return _operands_aligned(t, flow, expr.left, made, joined) and _operands_aligned(
            t, flow, expr.right, made, joined
        )
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Minus):
        return _operands_aligned(t, flow, expr.expression, made, joined)
    if isinstance(expr, cst.Call) and expr.args and not expr.args[0].star:
        first = expr.args[0].value
        names = t.qualified_names(expr.func)
        if names & _JOINS:
            return (
                isinstance(first, cst.Name)
                and _kind(flow, first, made, joined) == "list"
                and all(_row_axis(a) for a in expr.args[1:])
            )
        if names & _ELEMENTWISE and len(expr.args) == 1:
            return _operands_aligned(t, flow, first, made, joined)
        if _reduction(t, expr):  # a number over every row (`t - np.mean(t)`)
            return all(
                _operands_aligned(t, flow, a.value, made, joined)
                for a in expr.args
                if a.keyword is None
            )
    return False


def _reduction(t: LoaderEvaluation, call: cst.Call) -> bool:
    """A reduction over every row (_REDUCTIONS) given as many positional arrays as it takes
    and no other argument but `multioutput`."""
    arity = next((_REDUCTIONS[q] for q in t.qualified_names(call.func) if q in _REDUCTIONS), 0)
    positional = [a for a in call.args if a.keyword is None]
    return (
        bool(arity)
        and len(positional) == arity
        and not any(a.star for a in call.args)
        and all(a.keyword is None or a.keyword.value == "multioutput" for a in call.args)
    )
