"""Lists of per-batch means read only as their mean after a pass over a sharded loader.

Class v3-A of stop 46 (WangYueFt/prnet@82d466a's training figures; the shape of
tjddus9597/Proxy-Anchor-CVPR2020@51db570's `losses_per_epoch.append(loss.data.cpu().
numpy())` ... `np.mean(losses_per_epoch)`): per-batch losses kept in a list in the
training loop, the list's mean printed or logged after it. DataParallel's figure is the
mean over the pass's batches of each batch's mean. Sharded by a DistributedSampler every
rank runs as many batches (the sampler pads every rank to the same count), each a share of
the batch; the mean over every rank's items of the shares' means is the mean over the
batches of the mean of their shares, which is the batch's mean where the shares are equal
(the per-rank batch is the global one divided by the ranks; the last batch's shares may
differ by a sample, and the sampler's padding repeats fewer samples than there are ranks,
as for every sharded figure). So the list gathered from every rank after the loop,
`losses = ddp_gather_items(losses)` (an all_gather_object in rank order,
templates/helpers/gather_items.py.j2), gives DataParallel's figure wherever only its mean
is read. Proved, else DP030 as before:

- the loop iterates the loader itself, which this module shards with a DistributedSampler;
- the list is bound to `[]` (`L = []`, `a, L = [], []`) by a statement of the loop's own
  block before it, the last there to name it (a fresh list each time the block runs: a
  list kept across passes and gathered after each would hold the earlier passes' items
  once per rank);
- the loop feeds it once per pass: one `L.append(v)` statement directly in its body, no
  other mention of L in it, and no `break`, `continue`, `return`, `raise` or `yield` in it
  (every pass appends, every rank reaches the gather);
- v is `X.item()`, `float(X)`, `X.detach().cpu().numpy()` (`.data`, ...) of a name every
  binding of which is in the loop's body and a mean over the batch: a `.mean()` call, a
  call of a loss module made by `torch.nn.<X>Loss(...)` or of a torch.nn.functional loss,
  neither given a `reduction`, `weight` or `ignore_index` (a weighted mean over a share is
  not a share of the mean);
- after the loop, in its function (or module), every read of L is `np.mean(L)`,
  `np.average(L)`, `statistics.mean(L)` or `sum(L) / len(L)`, and no function or class
  defined there names L;
- no rank test guards the loop or a call of its function (the gather is a collective).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import libcst as cst
from libcst.metadata import PositionProvider

from dp2ddp.flow import view
from dp2ddp.transforms._support.nodes import call_named, iterated, name_of, unmoved, walk
from dp2ddp.transforms.data.closure_reads import closures, outer_reads
from dp2ddp.transforms.data.figure_aliases import last_item
from dp2ddp.transforms.data.index_tables import every_rank_runs

if TYPE_CHECKING:
    from dp2ddp.transforms.data.evaluation import LoaderEvaluation
    from dp2ddp.transforms.data.plan import Loader
    from dp2ddp.transforms.data.resolution import LoaderResolution

#: The samplers that give every rank as many batches.
_EVEN = frozenset({"DistributedSampler", "DdpDistributedSampler"})
#: torch.nn.functional's losses (mean-reduced unless told otherwise).
_FUNCTIONAL = frozenset(
    {
        "mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "cross_entropy", "nll_loss",
        "binary_cross_entropy", "binary_cross_entropy_with_logits", "kl_div",
    }
)  # fmt: skip
_NOT_PLAIN_MEAN = frozenset({"reduction", "weight", "ignore_index", "size_average", "reduce"})
#: Methods that take a scalar tensor's number (or keep it a scalar).
_SCALAR = frozenset({"item", "detach", "cpu", "numpy", "tolist", "float", "double"})
#: Calls that read a list as its mean (qualified names).
_MEANS = frozenset({"numpy.mean", "numpy.average", "statistics.mean"})


def gathered_mean_lists(t: LoaderEvaluation, loader: Loader, loop: cst.For | cst.While) -> set[str]:
    """The lists `loop` feeds with per-batch means that are gathered from every rank after
    it (planned here; the module docstring), so their mean is DataParallel's figure."""
    before = even_pass(t, loader, loop)
    if before is None:
        return set()
    assert isinstance(loop, cst.For)
    found: set[str] = set()
    for statement in loop.body.body:
        name = _appended(t, loop, statement)
        if name is None or name in found or fresh_before(before, name, _empty_list) is None:
            continue
        named = [n for n in walk(loop.body) if isinstance(n, cst.Name) and n.value == name]
        reads = [n for n in named if not last_item(n, t.parent)]  # `L[-1]`: this step's item
        if len(reads) != 1 or not _read_as_mean(t, loop, name):
            continue
        found.add(name)
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
            f"{name}, a list of this rank's per-batch means read only as its mean, gathered "
            "from every rank after the loop (ddp_gather_items): its mean is the one over "
            "every rank's batches",
        )
    return found


def even_pass(
    t: LoaderEvaluation, loader: Loader, loop: cst.For | cst.While
) -> list[cst.BaseStatement] | None:
    """The statements of the loop's block before it, where `loop` iterates `loader` itself,
    which this module shards with a DistributedSampler (every rank as many batches), runs
    every pass to its end (no `break`, `continue`, `return`, `raise` or `yield`) and is
    reached by every rank (no rank test around it or a call of its function); else None."""
    edit = t._edits.get(loader.call)
    sampled = (
        edit is not None
        and isinstance(edit.sampler, cst.Call)
        and name_of(edit.sampler.func) in _EVEN
    )
    if (
        not isinstance(loop, cst.For)
        or not (
            any(loop is other for other, _, _ in loader.loops)
            or (any(loop is r for r in loader.read_loops) and _read_itself(loop))
        )
        or not (sampled or loader.split_rows)
        or not isinstance(loop.body, cst.IndentedBlock)
        or any(
            isinstance(n, (cst.Break, cst.Continue, cst.Return, cst.Raise, cst.Yield))
            for n in walk(loop.body, skip_scopes=True)
        )
        or not every_rank_runs(t, loop)  # type: ignore[arg-type]
    ):
        return None
    block = t.parent(loop)
    if not isinstance(block, (cst.IndentedBlock, cst.Module)):
        return None
    return list(block.body)[: list(block.body).index(loop)]


def _read_itself(loop: cst.For) -> bool:
    """A loop of the loader's `read_loops` that iterates a name or an item (`loader`, bound
    to `self.data_loader["train"]`; `state["loader"]`), the loader itself, not what a call
    makes of it: as many passes on every rank as the loader's."""
    return all(isinstance(i, (cst.Name, cst.Subscript)) for i in iterated(loop.iter))


def _gathers(statement: cst.BaseStatement, name: str) -> bool:
    return (
        isinstance(statement, cst.SimpleStatementLine)
        and isinstance(assign := statement.body[0], cst.Assign)
        and isinstance(assign.value, cst.Call)
        and name_of(assign.value.func) == "ddp_gather_items"
        and isinstance(target := assign.targets[0].target, cst.Name)
        and target.value == name
    )


def _appended(t: LoaderEvaluation, loop: cst.For, statement: cst.CSTNode) -> str | None:
    """L of a statement `L.append(X.item())` (`float(X)`, `X.detach().cpu().numpy()`,
    `X.data...`) with X a mean over the batch bound in the loop's body."""
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
    value = _stored_item(t, loop, statement, call.args[0].value)
    if not per_batch_mean(t, loop, value):
        return None
    return call.func.value.value


def _stored_item(
    t: LoaderEvaluation, loop: cst.For, statement: cst.CSTNode, value: cst.BaseExpression
) -> cst.BaseExpression:
    """What `self.info["loss"]` holds where the statement of the loop's body right before
    `statement` stores it (`self.info["loss"] = loss.item()`, then `losses.append(self.
    info["loss"])`: round 39, limaosen0/AS-GCN@ab6951c's iter_info); `value` otherwise."""
    if not isinstance(value, (cst.Subscript, cst.Attribute)):
        return value
    body = list(loop.body.body) if isinstance(loop.body, cst.IndentedBlock) else []
    at = next((i for i, s in enumerate(body) if s is statement), 0)
    before = body[at - 1] if at else None
    if (
        isinstance(before, cst.SimpleStatementLine)
        and len(before.body) == 1
        and isinstance(store := before.body[0], cst.Assign)
        and len(store.targets) == 1
        and t.code(store.targets[0].target) == t.code(value)
    ):
        return store.value
    return value


def per_batch_mean(t: LoaderEvaluation, loop: cst.For, held: cst.BaseExpression) -> bool:
    """`X.item()` (`float(X)`, `X.detach().cpu().numpy()`, `X.data...`) with X a mean over
    the batch bound in the loop's body."""
    if isinstance(held, cst.Call) and name_of(held.func) == "float" and len(held.args) == 1:
        held = held.args[0].value
    while True:  # `.item()`, `.detach().cpu().numpy()`, `.data`: the same number
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
    return isinstance(held, cst.Name) and _batch_mean(t, loop, held)


def _batch_mean(t: LoaderEvaluation, loop: cst.For, name: cst.Name) -> bool:
    """Every binding reaching `name` is in the loop's body and binds a mean over the batch."""
    flow = view(t._module_node)
    found = [d for d in flow.reaching(name) if d.kind != "store"]
    inside = {id(n) for n in walk(loop.body, skip_scopes=True)}
    return bool(found) and all(
        d.kind == "assign"
        and not d.element
        and id(d.statement) in inside
        and d.value is not None
        and mean_over_batch(t, d.value)
        for d in found
    )


def mean_over_batch(t: LoaderResolution, value: cst.BaseExpression) -> bool:
    """`value` is one mean over a batch: a tensor's `.mean()`, a functional loss or a call
    of a name bound to a `torch.nn` loss, each mean-reduced (no `reduction=`, no weights);
    the loss built and moved (`nn.CrossEntropyLoss().cuda()`) counts as built."""
    if not isinstance(value, cst.Call):
        return False
    if isinstance(value.func, cst.Attribute) and value.func.attr.value == "mean":
        return not value.args  # a tensor's mean over all its elements
    if any(a.keyword is not None and a.keyword.value in _NOT_PLAIN_MEAN for a in value.args):
        return False
    if any(a.star for a in value.args) or len(value.args) > 2:
        return False
    names = t.qualified_names(value.func)
    if any(
        q.startswith("torch.nn.functional.") and q.rsplit(".", 1)[1] in _FUNCTIONAL for q in names
    ):
        return True
    if not isinstance(value.func, cst.Name):
        return False
    makers = [d for d in view(t._module_node).reaching(value.func) if d.kind != "store"]
    built = [
        unmoved(d.value)
        for d in makers
        if d.kind == "assign" and not d.element and d.value is not None
    ]
    return (
        bool(makers)
        and len(built) == len(makers)
        and all(
            isinstance(value, cst.Call)
            and not any(
                a.keyword is not None and a.keyword.value in _NOT_PLAIN_MEAN or a.star
                for a in value.args
            )
            and not any(a.keyword is None for a in value.args)  # positional: weight, ...
            and any(
                q.startswith("torch.nn.") and q.count(".") == 2 and q.endswith("Loss")
                for q in t.qualified_names(value.func)
            )
            for value in built
        )
    )


def _empty_list(value: cst.BaseExpression) -> bool:
    return isinstance(value, cst.List) and not value.elements


def fresh_before(
    before: Sequence[cst.CSTNode], name: str, made: Callable[[cst.BaseExpression], bool]
) -> cst.BaseExpression | None:
    """The value the last statement of `before` naming `name` binds it to, where that
    value is `made` (`[]`) and the statement does nothing else with it (`name = []`,
    `a, name = [], []`); else None."""
    for statement in reversed(before):
        if not mentions(statement, name):
            continue
        if not (
            isinstance(statement, cst.SimpleStatementLine)
            and len(statement.body) == 1
            and isinstance(assign := statement.body[0], cst.Assign)
            and len(assign.targets) == 1
        ):
            return None
        target, value = assign.targets[0].target, assign.value
        pairs: list[tuple[cst.BaseExpression, cst.BaseExpression]] = [(target, value)]
        if isinstance(target, cst.Tuple) and isinstance(value, cst.Tuple):
            if len(target.elements) != len(value.elements):
                return None
            pairs = [
                (t.value, v.value) for t, v in zip(target.elements, value.elements, strict=True)
            ]
        if sum(mentions(statement, name)) != 1:
            return None
        return next(
            (v for t, v in pairs if isinstance(t, cst.Name) and t.value == name and made(v)),
            None,
        )
    return None


def mentions(root: cst.CSTNode, name: str) -> list[bool]:
    return [True for n in walk(root) if isinstance(n, cst.Name) and n.value == name]


def _read_as_mean(t: LoaderEvaluation, loop: cst.For, name: str) -> bool:
    """After `loop`, in its function, every read of `name` is a mean of it; at least one.
    A function defined there, named only after the loop, reads it after the loop
    (closure_reads.py)."""
    end = t.get_metadata(PositionProvider, loop).end.line
    scope = t._scope_root(loop)
    names = [n for n in walk(scope, skip_scopes=True) if isinstance(n, cst.Name)]
    inner: list[cst.Name] = []  # read in a function defined here, run after the loop only
    for function, lines in closures(t, scope):
        found = outer_reads(t, function, name, scope) if all(line > end for line in lines) else None
        inner += found or []
    if len(mentions(scope, name)) != sum(n.value == name for n in names) + len(inner):
        return False  # a function or class inside reads the name too: not followed
    reads = 0
    for node in [*names, *inner]:
        if node.value != name:
            continue
        line = t.get_metadata(PositionProvider, node).start.line
        if all(node is not n for n in inner) and line <= end:
            continue
        parent = t.parent(node)
        if isinstance(parent, cst.Attribute) and parent.attr is node:
            continue
        if isinstance(parent, cst.AssignTarget):
            return reads > 0  # rebound: what follows is another list
        if not isinstance(parent, cst.Arg) or parent.keyword is not None:
            return False
        call = t.parent(parent)
        if not (isinstance(call, cst.Call) and len(call.args) == 1):
            return False
        if t.qualified_names(call.func) & _MEANS:
            reads += 1
            continue
        if name_of(call.func) == "sum" and _over_len(t, call, name):
            reads += 1
            continue
        if name_of(call.func) == "len" and _under_sum(t, call, name):
            continue
        return False
    return reads > 0


def _over_len(t: LoaderEvaluation, call: cst.Call, name: str) -> bool:
    """`sum(L) / len(L)`."""
    division = t.parent(call)
    return (
        isinstance(division, cst.BinaryOperation)
        and isinstance(division.operator, cst.Divide)
        and division.left is call
        and isinstance(right := division.right, cst.Call)
        and name_of(right.func) == "len"
        and len(right.args) == 1
        and isinstance(right.args[0].value, cst.Name)
        and right.args[0].value.value == name
    )


def _under_sum(t: LoaderEvaluation, call: cst.Call, name: str) -> bool:
    """`len(L)` of `sum(L) / len(L)`."""
    division = t.parent(call)
    return (
        isinstance(division, cst.BinaryOperation)
        and isinstance(division.left, cst.Call)
        and division.right is call
        and _over_len(t, division.left, name)
    )
