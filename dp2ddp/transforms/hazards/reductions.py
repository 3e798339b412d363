"""Tensor reductions over the batch, and DP059's search for means over it.

`reduction(node)` reads a reduction call (`x.sum(1)`, `torch.mean(x, 0)`): its name and the
dims it reduces. `batch_means` finds the means over dim 0 or over every element (the batch
included) that a non-linear call encloses in
what reaches backward() (the entropy of the batch's mean prediction): DataParallel computed
such a statistic on the gathered batch, each DDP rank on its own share. `alike_operand` is
the proof that one is no statistic over the batch: the tensor it reduces holds the same values
on every rank, so every rank computes DataParallel's one value. Alike: what the module's
rank-uniformity proof shows the same everywhere (analysis/uniformity.py: constants, options),
and the state of a model the program wraps (a name given to `DataParallel(...)` or bound to
its wrap, read through attributes and slices by alike bounds, never called): DDP broadcasts
it at the wrap and averages every gradient, so the ranks hold it alike
(ChengyueGongR/Frequency-Agnostic@cfb024a's moment regulariser over the rows of
`model.encoder.weight[:bias]`, stop 51 v1-F1); and torch's functions and tensor methods of
alike values (`torch.pow(w - w.mean(0), 3)`), random draws excepted. A model's output (a call
of it, of a submodule of it) is the batch's.
"""

from __future__ import annotations

import libcst as cst

from dp2ddp.transforms._support.base import MigrationTransform
from dp2ddp.transforms._support.children import children_of
from dp2ddp.transforms._support.names import DATAPARALLEL, DISTRIBUTED_DATA_PARALLEL
from dp2ddp.transforms._support.nodes import code_of, wrap_target
from dp2ddp.transforms.analysis.uniformity import RankUniformity
from dp2ddp.transforms.hazards.masked_means import MeanLossObjects, averaging_loss

#: Tensor reductions: over a dimension given as `dim`/`axis` (or the first argument of the
#: method, the second of the torch function), else over every element.
REDUCTIONS = frozenset(
    "sum mean nansum nanmean std var prod logsumexp amax amin max min norm median".split()
)
#: Calls that keep a batch statistic linear (or only reshape it): not what DP059 is about.
#: the wraps a value may be handed to: no function of the values they are given
_WRAPS = frozenset({"DataParallel", "DistributedDataParallel"})
LINEAR = frozenset(
    "sum mean nansum nanmean view reshape squeeze unsqueeze flatten to float double half "
    "clone contiguous detach cpu cuda type type_as view_as reshape_as stack cat".split()
)
MEANS = frozenset({"mean", "nanmean"})
SUMS = frozenset({"sum", "nansum", "logsumexp"})
#: The scopes batch_means does not enter (exact types: each a leaf class of libcst).
_SCOPES = frozenset({cst.Lambda, cst.FunctionDef, cst.ClassDef})


def reduction(
    node: cst.CSTNode, transform: MigrationTransform
) -> tuple[str, tuple[int, ...] | None] | None:
    """(name, dims) when `node` is a tensor reduction: dims () for every element, None
    when not literal, negative dims kept as they are."""
    if not isinstance(node, cst.Call):
        return None
    func = node.func
    positional = [a for a in node.args if a.keyword is None and a.star == ""]
    keywords = {a.keyword.value: a.value for a in node.args if a.keyword is not None}
    torch_names = {
        n.removeprefix("torch.") for n in transform.qualified_names(func) if n.startswith("torch.")
    }
    torch_names &= REDUCTIONS
    if torch_names:
        name = next(iter(torch_names))
        dim = positional[1].value if len(positional) > 1 else None
    elif isinstance(func, cst.Attribute) and func.attr.value in REDUCTIONS:
        name = func.attr.value
        dim = positional[0].value if positional else None
    else:
        return None
    dim = keywords.get("dim", keywords.get("axis", dim))
    if dim is None:
        return (name, ())
    return (name, _literal_dims(dim))


def _literal_dims(node: cst.BaseExpression) -> tuple[int, ...] | None:
    items = [e.value for e in node.elements] if isinstance(node, (cst.Tuple, cst.List)) else [node]
    dims: list[int] = []
    for item in items:
        sign = 1
        if isinstance(item, cst.UnaryOperation) and isinstance(item.operator, cst.Minus):
            sign, item = -1, item.expression
        if not isinstance(item, cst.Integer):
            return None
        dims.append(sign * int(item.value))
    return tuple(dims)


def receiver(call: cst.Call, transform: MigrationTransform) -> cst.BaseExpression | None:
    if isinstance(call.func, cst.Attribute) and not transform.qualified_names(call.func) & {
        f"torch.{n}" for n in REDUCTIONS
    }:
        return call.func.value
    positional = [a for a in call.args if a.keyword is None]
    return positional[0].value if positional else None


#: batch_means' answers within one search: (node's id, under a non-linear call, depth).
Means = dict[tuple[int, bool, int], list[cst.Call]]


def batch_means(
    node: cst.CSTNode,
    assigned: dict[str, list[cst.BaseExpression]],
    transform: MigrationTransform,
    nonlinear: bool,
    depth: int,
    memo: Means | None = None,
    mean_objects: MeanLossObjects | None = None,
    sums: bool = False,
) -> list[cst.Call]:
    """The means over dim 0 or every element in `node` (names followed) that a non-linear
    call encloses, with `sums` also sums over dim 0 (asked in a loss function's returns,
    whose dim 0 is the batch's: a proxy-anchor loss's `log(1 + pos.sum(dim=0))` per class
    over the batch's samples, round 29, QuocThangNguyen/deep-metric-learning-tsinghua-
    dogs@fca6beb, each rank's own share's sum, unsaid; elsewhere a sum over dim 0 is as
    often a table's over the dataset, data_index_table_padded_pass), an averaging loss's
    value among them (masked_means.averaging_loss: `torch.log10(F.mse_loss(p, y))`,
    DAFX22_FNO's loss, round 13 v1-A; `mean_objects` tells which callees hold a torch.nn
    loss object averaging so).

    Each (node, nonlinear, depth) is searched once (`memo`): a name read many times, bound
    to expressions reading other such names, was followed once per path, a number of
    calls that grows as the reads multiply level after level (P2333/Bag-of-Tricks-for-AT's
    train_cifar.py: 617,549 calls for 52 searches, a tenth of its migration)."""
    if depth > 6 or type(node) in _SCOPES:
        return []
    memo = {} if memo is None else memo
    key = (id(node), nonlinear, depth)
    known = memo.get(key)
    if known is None:
        known = memo[key] = _batch_means_of(
            node, assigned, transform, nonlinear, depth, (memo, mean_objects, sums)
        )
    return known


def _batch_means_of(
    node: cst.CSTNode,
    assigned: dict[str, list[cst.BaseExpression]],
    transform: MigrationTransform,
    nonlinear: bool,
    depth: int,
    search: tuple[Means, MeanLossObjects | None, bool],
) -> list[cst.Call]:
    """_batch_means of one node, its parts searched through the search's memo (called
    directly, no closure a node; a list of one or none is unique as it is)."""
    memo, objects, sums = search
    found: list[cst.Call] = []
    # exact types (leaf classes of libcst): no ABC instance check a node
    if type(node) is cst.Name:
        for bound in assigned.get(node.value, ()):
            deeper = depth + 1
            found += batch_means(bound, assigned, transform, nonlinear, deeper, memo, objects, sums)
        return list(dict.fromkeys(found)) if found[1:] else found
    if type(node) is cst.Call:
        reduced = reduction(node, transform)
        if nonlinear and reduced is not None and reduced[0] in MEANS and _over_batch(reduced[1]):
            found.append(node)
        elif sums and nonlinear and reduced is not None and reduced[0] in SUMS and reduced[1]:
            if 0 in reduced[1]:  # a sum across the samples, `log(1 + p.sum(dim=0))`
                found.append(node)
        elif nonlinear and averaging_loss(node, transform.qualified_names, objects):
            found.append(node)
        func = node.func
        held: cst.BaseExpression | None = None  # the receiver of a method
        short = ""
        if type(func) is cst.Attribute:
            held, short = func.value, func.attr.value
        names = {n.rsplit(".", 1)[-1] for n in transform.qualified_names(func)}
        linear = short in LINEAR if short else bool(names) and names <= LINEAR
        # a wrap is no function of the values (`nn.DataParallel(loss_value)`, a tensor
        # handed to the wrap: model_wrap_s55_v4_tensor_wrapped_loss)
        linear = linear or bool(names & _WRAPS)
        if held is not None:
            # `mean_p.log()`: the receiver is what a non-linear method applies to.
            under = True if not linear else nonlinear
            found += batch_means(held, assigned, transform, under, depth, memo, objects, sums)
        for arg in node.args:
            under = nonlinear or not linear
            found += batch_means(arg.value, assigned, transform, under, depth, memo, objects, sums)
    else:
        for child in children_of(node):  # libcst's `children` without its visitor
            found += batch_means(child, assigned, transform, nonlinear, depth, memo, objects, sums)
    return list(dict.fromkeys(found)) if found[1:] else found


def _over_batch(dims: tuple[int, ...] | None) -> bool:
    """A mean over these dims averages across the samples: dim 0, or every element (`torch.mean(
    pred_fake)`, `x.mean()`: the batch's too). A relativistic GAN's `pred_real -
    torch.mean(pred_fake)` inside its BCE was DataParallel's mean over the gathered batch and
    is each rank's own under DDP (riverlight/HSR@00ec23c's discriminator, stop 57 v1-A)."""
    return dims is not None and (dims == () or 0 in dims)


def whole_statistic(
    node: cst.BaseExpression,
    assigned: dict[str, list[cst.BaseExpression]],
    transform: MigrationTransform,
    depth: int = 0,
) -> cst.Call | None:
    """The mean or total over every element (the batch's too) that `node` is:
    `torch.mean(d)`, `x.sum()` with no dims, through names and factors that are numbers,
    names or attributes and no statistic themselves (`λ * torch.mean(d)`); for DP059's
    products of such statistics (hazards/count_means.py, class v2-C of stop 53).

    Each (node, depth) is read once per question: a name rebound n times as a product of
    itself (`x = x * i` in each arm of n if/else) is read through every binding at every
    depth, n**6 walks unmemoised (32 arms: 9 s of a 10 s migration, stop 75)."""
    memo: dict[tuple[int, int], cst.Call | None] = {}

    def statistic(node: cst.BaseExpression, depth: int) -> cst.Call | None:
        key = (id(node), depth)
        if key not in memo:
            memo[key] = _whole_statistic(node, depth)
        return memo[key]

    def _whole_statistic(node: cst.BaseExpression, depth: int) -> cst.Call | None:
        if depth > 6:
            return None
        if isinstance(node, cst.Name):
            bound = assigned.get(node.value, [])
            found = [statistic(v, depth + 1) for v in bound]
            return found[0] if bound and all(found) else None
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Multiply):
            for a, b in ((node.left, node.right), (node.right, node.left)):
                bare = a.expression if isinstance(a, cst.UnaryOperation) else a
                factor = isinstance(bare, (cst.Integer, cst.Float, cst.Name, cst.Attribute))
                if factor and statistic(a, depth + 1) is None:
                    return statistic(b, depth + 1)
            return None
        reduced = reduction(node, transform)
        if reduced is not None and reduced[0] in MEANS | SUMS - {"logsumexp"} and reduced[1] == ():
            assert isinstance(node, cst.Call)
            return node
        return None

    return statistic(node, depth)


def wrapped_models(calls: list[cst.Call], transform: MigrationTransform) -> frozenset[str]:
    """The names (as spelled) a module gives to a DataParallel or DDP wrap (its first
    argument) or binds to one (`parallel_model = nn.DataParallel(model, dim=1)`)."""
    found: set[str] = set()
    for call in calls:
        if transform.qualified_names(call.func) & (DATAPARALLEL | DISTRIBUTED_DATA_PARALLEL):
            positional = [a for a in call.args if a.keyword is None and not a.star]
            if positional:
                found.add(code_of(positional[0].value))
            target = wrap_target(call, transform)
            if target is not None:
                found.add(target)
    return frozenset(found)


class Alike:
    """alike_operand's proof for one module: its uniformity proof and its wrapped models."""

    def __init__(self, uniform: RankUniformity, models: frozenset[str]) -> None:
        self.uniform = uniform
        self.models = models


def alike_operand(
    mean: cst.Call,
    assigned: dict[str, list[cst.BaseExpression]],
    transform: MigrationTransform,
    alike: Alike,
) -> bool:
    """The tensor the mean over dim 0 `mean` reduces holds the same values on every rank
    (see the module docstring): no rank's share of the batch."""
    if reduction(mean, transform) is None:  # an averaging loss: its input and target
        operands = [a.value for a in mean.args if a.keyword is None][:2]
        return bool(operands) and all(
            _alike(operand, mean, assigned, transform, alike, 0) for operand in operands
        )
    operand = receiver(mean, transform)
    return operand is not None and _alike(operand, mean, assigned, transform, alike, 0)


def alike_value(
    node: cst.BaseExpression,
    at: cst.Call,
    assigned: dict[str, list[cst.BaseExpression]],
    transform: MigrationTransform,
    alike: Alike,
) -> bool:
    """`node` (read at `at`) holds the same values on every rank: a hyperparameter, a
    wrapped model's weights, no share of the batch."""
    return _alike(node, at, assigned, transform, alike, 0)


def _alike(
    node: cst.BaseExpression,
    at: cst.Call,
    assigned: dict[str, list[cst.BaseExpression]],
    transform: MigrationTransform,
    alike: Alike,
    depth: int,
) -> bool:
    """`node` holds the same values on every rank."""
    if depth > 6:
        return False
    if isinstance(node, cst.Name):
        bound = assigned.get(node.value)
        if bound:
            return all(_alike(b, at, assigned, transform, alike, depth + 1) for b in bound)
        return node.value in alike.models or alike.uniform.value(node, at)
    if isinstance(node, cst.Attribute):
        # a part of a wrapped model (its weights, as DDP keeps them), else what the
        # uniformity proof shows (`args.split`: no store of another value anywhere)
        return _model_part(node, assigned, alike) or alike.uniform.value(node, at)
    if isinstance(node, cst.Subscript):
        bounds = [
            part
            for element in node.slice
            for part in (
                [element.slice.lower, element.slice.upper, element.slice.step]
                if isinstance(element.slice, cst.Slice)
                else [element.slice.value if isinstance(element.slice, cst.Index) else None]
            )
            if part is not None
        ]
        return all(_alike(b, at, assigned, transform, alike, depth + 1) for b in bounds) and (
            _alike(node.value, at, assigned, transform, alike, depth)
        )
    if isinstance(node, cst.Call):
        func = node.func
        names = transform.qualified_names(func)
        if names and all(n.startswith("torch.") for n in names):
            if names & _DRAWS:
                return False
        elif isinstance(func, cst.Attribute) and func.attr.value in TENSOR_METHODS:
            # a tensor's method (`w.pow(2)`); any other call of a model's part runs it
            # (`model.encoder(x)`: its output is the batch's)
            if not _alike(func.value, at, assigned, transform, alike, depth):
                return False
        else:
            return False  # a function of the program, a model's call: not followed
        return all(_alike(a.value, at, assigned, transform, alike, depth) for a in node.args)
    if isinstance(node, (cst.BinaryOperation, cst.UnaryOperation)):
        parts = [p for p in node.children if isinstance(p, cst.BaseExpression)]
        return all(_alike(p, at, assigned, transform, alike, depth) for p in parts)
    return alike.uniform.value(node, at)


def _model_part(
    node: cst.BaseExpression, assigned: dict[str, list[cst.BaseExpression]], alike: Alike
) -> bool:
    """`node` reads a wrapped model's state through attributes (`model.encoder.weight`,
    `parallel_model.module.head`): its root is a name the module wraps, not rebound in the
    scope."""
    if code_of(node) in alike.models:
        return True
    while isinstance(node, cst.Attribute):
        node = node.value
        if code_of(node) in alike.models:
            return not (isinstance(node, cst.Name) and node.value in assigned)
    return False


#: Tensor methods that compute from the tensor alone (no draw, no model run).
TENSOR_METHODS = (
    REDUCTIONS
    | LINEAR
    | frozenset(
        "pow abs sqrt exp log log1p neg t transpose permute expand expand_as repeat narrow "
        "select index_select gather chunk split add sub mul div matmul mm clamp sign "
        "softmax log_softmax sigmoid tanh relu square".split()
    )
)
#: torch's draws: their values differ between ranks seeded apart.
_DRAWS = frozenset(
    f"torch.{n}"
    for n in "rand rand_like randn randn_like randint randint_like randperm normal bernoulli "
    "multinomial poisson".split()
)
