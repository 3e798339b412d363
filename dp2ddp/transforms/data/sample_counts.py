"""A count of samples seen, accumulated from the sizes of a sharded loader's batches, that sets
the learning rate (DP088).

chrischute/glow@faffa5b (stop 31, class G1): inside the loop over the training loader,
`global_step += x.size(0)` counts the samples seen, and `scheduler.step(global_step)` drives
a warm-up `LambdaLR(optimizer, lambda s: min(1., s / args.warm_up))`. Under DataParallel
`x` was the whole batch; migrated, each rank's `x` is its share, so the count grows by
1/WORLD_SIZE of the original's per step and every step's learning rate is the original's at
fewer samples: the warm-up takes WORLD_SIZE times the steps. Nothing fails.

Found in one scope (a function, or the module's top level): a loop over a loader this pass
shards; a name it grows by a size of its batch (`n += x.size(0)`, `x.shape[0]`, `len(x)`,
a name the loop assigns from one: data/batch_sized.py's sized names); and, in the same
scope, a read of that name (or of a name assigned from it) that sets a learning rate: the
argument of a `.step(...)` call (an optimizer's step takes no count: a scheduler's), or the
value of an assignment to a `["lr"]` item or an `.lr` attribute; or that decides when to log
or save (`if seen % print_freq == 0:` in the loop), or the test of an `if` in the scope that
compares it (`if seen >= 48: print(...)`, in the loop or after it: stop 51 w5's e1, stop 52
s1). A countdown counts alike (`steps_till_eval -= batch_size`, `if steps_till_eval <= 0:`
evaluates and saves: chrischute/squad@85623ad, stop 54 v1): counting this rank's share,
rank 0 met it at another moment than the original, or never.

Proved, the increment is rewritten to count the global batch as DataParallel saw it:
`seen += ddp_global_count(x.size(0))` (templates/helpers/global_count.py.j2), the sizes of
the ranks' shares summed by an all-reduce. A sum, not `x.size(0) * WORLD_SIZE`: the
DistributedSampler gives every rank equal shares, but a loader sharded through its own
sampler (DdpBatchShard) splits each global batch as DataParallel's scatter did, so the last
batch's parts may differ (7 as 4 + 3). The sum is exact for both. It is a collective, so
every rank must reach the statement as often: proved when every statement around it whose
condition may differ between ranks (analysis/uniformity.py) is a loop over the sharded
loader whose body calls backward() at its own level (each step all-reduces the DDP model's
gradients, so every rank takes as many steps, or DDP itself would wait), no statement
before it in the loop or function may leave early on one rank, no exit of the loop
(`break`, `return`, `raise`) is under such a condition, and its function is reached by
every rank (its callers, in this module and in the program). Where this is not proved,
DP088 as before, naming what was not. The count's other reads (a print, a checkpoint) then
see the global count, as in the original.
With --per-process-batch the training batch keeps its size: nothing to warn.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING

import libcst as cst

from dp2ddp.transforms._support.nodes import (
    COUNTING,
    ModuleNodes,
    enclosing_function,
    name_of,
    walk,
)
from dp2ddp.transforms.analysis.uniformity import RankUniformity
from dp2ddp.transforms.data.batch_sized import (
    _counted,
    _scope,
    _size_expression,
    _size_of,
    _sized_names,
    _target_names,
)
from dp2ddp.transforms.data.plan import Loader

if TYPE_CHECKING:
    from dp2ddp.transforms.data import ShardDataLoaders

#: The inserted call (templates/helpers/global_count.py.j2).
GLOBAL_COUNT = "ddp_global_count"
#: What a count of this rank's share does to the use it reaches, by what that use decides.
_EFFECTS = {
    "the learning rate": "sets the learning rate ({}): the schedule runs at 1/WORLD_SIZE of "
    "the original's pace",
    "when to log or save": "decides when to log or save ({}): they come at 1/WORLD_SIZE of "
    "the original's rate",
    "what runs": "decides what runs ({}): it is met at another moment than the original's, "
    "or never",
}


def lr_sample_counts(
    data: ShardDataLoaders,
    nodes: ModuleNodes,
    sharded: set[cst.Call],
    iterated_through: Callable[[cst.BaseExpression], list[cst.BaseExpression]],
    module: cst.Module,
) -> Iterator[tuple[cst.AugAssign, str, bool, str]]:
    """(the statement growing the count, the warning's detail or the record, whether it is
    rewritten, the warning's code) for each count of a sharded loader's batch sizes that
    reaches a learning rate or decides when to log or save."""
    cache: list[RankUniformity] = []
    loaders = {c: Loader(c, {}, data._binding(c)[0], None, None) for c in data._all_loaders}
    for loop in nodes.of(cst.For):
        calls = [c for e in iterated_through(loop.iter) for c, _ in data._resolve(e, loaders, 0)]
        if any(c in sharded for c in calls):
            yield from loop_sample_counts(data, loop, module, cache)
        elif not calls and _backpropagates_within(loop) and not _counting(loop.iter):
            yield from _unfollowed_counts(data, loop, module, cache)


def _item_size(
    value: cst.BaseExpression, loop: cst.For, batch: set[str], data: ShardDataLoaders
) -> str | None:
    """`value` is the first dimension of an item of the loop's batch (`data["A"].size(0)`,
    `x.shape[0]`, `len(x)`), or a name the loop assigns from one (`batch_size =
    data["A"].size(0)`): its code."""
    if isinstance(value, cst.Name):
        for node in walk(loop.body, skip_scopes=True):
            if (
                isinstance(node, cst.Assign)
                and len(node.targets) == 1
                and isinstance(node.targets[0].target, cst.Name)
                and node.targets[0].target.value == value.value
            ):
                return value.value if _item_size(node.value, loop, batch, data) else None
        return None
    if not isinstance(value, cst.Call):
        return None
    func, item = value.func, None
    if isinstance(func, cst.Name) and func.value == "len" and len(value.args) == 1:
        item = value.args[0].value
    elif isinstance(func, cst.Attribute) and func.attr.value == "size":
        first = value.args[0].value if len(value.args) == 1 else None
        if isinstance(first, cst.Integer) and first.value == "0":
            item = func.value
    while isinstance(item, (cst.Subscript, cst.Attribute)):
        item = item.value
    return data.code(value) if isinstance(item, cst.Name) and item.value in batch else None


def _counting(it: cst.BaseExpression) -> bool:
    """`range(n)`, `enumerate(range(n))`: steps, not batches."""
    while isinstance(it, cst.Call) and name_of(it.func) in ("enumerate", "tqdm") and it.args:
        it = it.args[0].value
    return isinstance(it, cst.Call) and name_of(it.func) in COUNTING


def _unfollowed_counts(
    data: ShardDataLoaders, loop: cst.For, module: cst.Module, cache: list[RankUniformity]
) -> Iterator[tuple[cst.AugAssign, str, bool, str]]:
    """A training loop over what this module does not follow to a loader (an object of
    another module's loader wrapper class, CUT's `for data in dataset:` over a class whose
    generator `__iter__` yields its DataLoader's batches, class K3 of stop 32): a count of
    its batch sizes that sets a rate or a cadence is said, never silently a share."""
    where = data.code(loop.iter)
    for grow, detail, _, code in loop_sample_counts(data, loop, module, cache, prove=False):
        yield (
            grow,
            f"{detail.split('; not summed')[0]}, if the batches of {where} (not followed to "
            "a loader) come from a sharded one",
            False,
            code,
        )


def loop_sample_counts(
    data: ShardDataLoaders,
    loop: cst.For,
    module: cst.Module,
    cache: list[RankUniformity] | None = None,
    prove: bool = True,
) -> Iterator[tuple[cst.AugAssign, str, bool, str]]:
    """lr_sample_counts' answers for one loop over a sharded loader, with the warning's
    code: DP088 for a count reaching a learning rate, DP092 for one deciding a cadence.
    `cache` keeps the module's RankUniformity between loops."""
    cache = [] if cache is None else cache
    batch = _target_names(loop.target)
    sized = _sized_names(loop, data, "")
    for grow in walk(loop.body, skip_scopes=True):
        if not (
            isinstance(grow, cst.AugAssign)
            and isinstance(grow.operator, (cst.AddAssign, cst.SubtractAssign))
            and _counter(grow.target)
        ) or (isinstance(grow.value, cst.Call) and name_of(grow.value.func) == GLOBAL_COUNT):
            continue
        size = _batch_size(grow.value, batch, sized, data)
        if size is None and not prove:
            size = _item_size(grow.value, loop, batch, data)
        if size is None:
            size = _element_count(grow.value, batch, data)
        if size is None:
            continue
        count = data.code(grow.target).strip()
        use = _learning_rate_use(_scope(loop, data), count, data)
        what, code = "the learning rate", "DP088"
        if use is None:
            use, what, code = _cadence_use(loop, count, data), "when to log or save", "DP092"
        if use is None and data.code(grow.value).strip() == size and _backpropagates_within(loop):
            # a count of the training batch's rows itself (not a sum weighted by them)
            use, what, code = _deciding_use(_scope(loop, data), count, data), "what runs", "DP092"
        if use is None:
            continue
        if prove and not cache:
            cache.append(RankUniformity.for_pass(data, module))
        why = _unreached(grow, loop, cache[0], data) if prove else "not followed"
        summing = isinstance(grow.operator, cst.AddAssign)  # else a countdown (`left -= n`)
        if why is None:
            yield (
                grow,
                f"{count} {'+=' if summing else '-='} {GLOBAL_COUNT}({size}): {what} ({use}) "
                "follows the count of samples of the global batch, as DataParallel's did",
                True,
                code,
            )
            continue
        effect = _EFFECTS[what].format(use)
        yield (
            grow,
            f"{count} {'grows' if summing else 'counts down'} by {size}, this rank's share of "
            f"each batch, and {effect}; not summed over the ranks: {why}",
            False,
            code,
        )


def summed_counts(data: ShardDataLoaders, loader: Loader, loop: cst.For | cst.While) -> set[str]:
    """Counts of `loop`'s batch sizes the pass makes global (`seen += ddp_global_count(n)`):
    shown, they are the original's, so no DP030 for them (asked while the loader is planned,
    after its shard edit is registered). None in a loop taking `next()` batches: the proof
    is made for `for` loops over the loader."""
    if (
        not isinstance(loop, cst.For)
        or any(loop is taker for taker in loader.next_loops)
        or data.state.options.per_process_batch
        or loader.call not in (set(data._edits) | set(data._shards))
    ):
        return set()
    return {
        grow.target.value
        for grow, _, summed, _ in loop_sample_counts(data, loop, data._module_node)
        if summed and isinstance(grow.target, cst.Name)
    }


def _unreached(
    grow: cst.AugAssign, loop: cst.For, uniform: RankUniformity, data: ShardDataLoaders
) -> str | None:
    """Why not every rank may reach `grow` as often (a collective there would hang); None
    when every rank does (see the module docstring)."""
    for around in uniform.rank_dependent_statements(grow):
        if not (around is loop and _backpropagates(loop)):
            return f"the statement at line {data.line_of(around)} may differ between ranks"
    if uniform.left_before(grow) is not None:
        return "a statement before it may leave early on one rank"
    for exit_ in walk(loop.body, skip_scopes=True):
        if isinstance(exit_, (cst.Break, cst.Return, cst.Raise)) and any(
            around is not loop for around in uniform.rank_dependent_statements(exit_)
        ):
            return f"the loop may be left early on one rank (line {data.line_of(exit_)})"
    function = enclosing_function(loop, data)
    if function is None:
        return None
    return uniform.why_not_reached(function.body, conditions=False)


def _backpropagates_within(loop: cst.For) -> bool:
    """Some statement of the loop's body, also under a branch (`if is_train:
    loss.backward()`, minGPT's run_epoch), calls `....backward()`: a training loop, for a
    count that is only said (DP088/DP092), never rewritten."""
    return any(
        isinstance(n, cst.Call)
        and isinstance(n.func, cst.Attribute)
        and n.func.attr.value == "backward"
        for n in walk(loop.body, skip_scopes=True)
    )


def _backpropagates(loop: cst.For) -> bool:
    """A statement of the loop's body itself (not one nested in a branch) calls
    `....backward()`: each step all-reduces the DDP model's gradients."""
    if not isinstance(loop.body, cst.IndentedBlock):
        return False
    return any(
        isinstance(small, cst.Expr)
        and isinstance(small.value, cst.Call)
        and isinstance(small.value.func, cst.Attribute)
        and small.value.func.attr.value == "backward"
        for line in loop.body.body
        if isinstance(line, cst.SimpleStatementLine)
        for small in line.body
    )


def _batch_size(
    value: cst.BaseExpression, batch: set[str], sized: Mapping[str, object], data: ShardDataLoaders
) -> str | None:
    """The size of the loop's batch that `value` reads (its code), if any."""
    for name in walk(value):
        if not isinstance(name, cst.Name) or not _counted(name, value, data):
            continue
        if name.value in batch and _size_of(name, data):
            return _size_expression(name, data)
        if name.value in sized:
            return name.value
    return None


def _learning_rate_use(scope: cst.CSTNode, count: str, data: ShardDataLoaders) -> str | None:
    """The code of a statement in `scope` where `count` (or a name assigned from it) sets a
    learning rate: a `.step(...)` argument, or an `["lr"]` item or `.lr` attribute assigned."""
    names = {count}
    statements = list(walk(scope, skip_scopes=True))
    changed = True
    while changed:
        changed = False
        for stmt in statements:
            if isinstance(stmt, cst.Assign) and _reads(stmt.value, names):
                new = {n for t in stmt.targets for n in _target_names(t.target)} - names
                if new and all(isinstance(t.target, cst.Name) for t in stmt.targets):
                    names |= new
                    changed = True
    for stmt in statements:
        if (
            isinstance(stmt, cst.Call)
            and isinstance(stmt.func, cst.Attribute)
            and stmt.func.attr.value == "step"
            and any(_reads(a.value, names) for a in stmt.args)
        ):
            return data.code(stmt)
        if isinstance(stmt, cst.Assign) and _reads(stmt.value, names):
            if any(_sets_lr(t.target) for t in stmt.targets):
                return data.code(stmt).strip()
    return None


def _cadence_use(loop: cst.For, count: str, data: ShardDataLoaders) -> str | None:
    """The test of an `if` in the loop that takes `count` modulo a period (`if seen %
    print_freq == 0:`): the count decides when to log, show or save (CUT/CycleGAN's
    `total_iters`, class K3 of stop 32): counting this rank's share, those come at
    1/WORLD_SIZE of the original's rate and print the count shrunk."""
    for node in walk(loop.body, skip_scopes=True):
        if isinstance(node, cst.If) and any(
            isinstance(n, cst.BinaryOperation)
            and isinstance(n.operator, cst.Modulo)
            and _reads(n.left, {count})
            for n in walk(node.test)
        ):
            return data.code(node.test)
    return None


def _deciding_use(scope: cst.CSTNode, count: str, data: ShardDataLoaders) -> str | None:
    """The test of an `if` in the count's scope (in the loop or after it) that compares
    `count` (`if seen >= 48:`, `if step_samples > limit:`): the count decides whether what
    it guards runs (a print of rank 0's, a save). Counting this rank's share, the test is
    met at another moment than the original's, or never (stop 51 w5's e1, stop 52 s1)."""
    for node in walk(scope, skip_scopes=True):
        if isinstance(node, cst.If) and any(
            isinstance(n, cst.Comparison) and _reads(n, {count}) for n in walk(node.test)
        ):
            return data.code(node.test)
    return None


def _reads(expr: cst.CSTNode, names: set[str]) -> bool:
    """`expr` reads one of `names`: a name, or an attribute of `self` (`self.tokens`)."""
    return any(
        (isinstance(n, cst.Name) and n.value in names)
        or (isinstance(n, cst.Attribute) and _attribute_code(n) in names)
        for n in walk(expr)
    )


def _attribute_code(node: cst.Attribute) -> str:
    return f"self.{node.attr.value}" if _counter(node) else ""


def _counter(target: cst.BaseExpression) -> bool:
    """A count kept in a name or in an attribute of `self` (minGPT's trainer keeps
    `self.tokens`)."""
    return isinstance(target, cst.Name) or (
        isinstance(target, cst.Attribute)
        and isinstance(target.value, cst.Name)
        and target.value.value == "self"
    )


def _element_count(
    value: cst.BaseExpression, batch: set[str], data: ShardDataLoaders
) -> str | None:
    """`value` counts elements of an item of the loop's batch: a total with no dims over
    it or a comparison of it (`(y >= 0).sum()`, `y.numel()`, `torch.count_nonzero(y !=
    pad)`), through `.item()`, `int()`, `float()` (karpathy/minGPT@3ed14b2's tokens seen,
    which drive its learning-rate decay). Each rank's batch holds its share of them."""
    while isinstance(value, cst.Call):
        method = value.func.attr.value if isinstance(value.func, cst.Attribute) else ""
        if method in ("item", "long", "float", "int") and not value.args:
            assert isinstance(value.func, cst.Attribute)
            value = value.func.value
            continue
        if name_of(value.func) in ("int", "float") and len(value.args) == 1:
            value = value.args[0].value
            continue
        break
    if not isinstance(value, cst.Call):
        return None
    func = value.func
    if isinstance(func, cst.Attribute) and func.attr.value in ("sum", "numel", "count_nonzero"):
        counted: cst.BaseExpression | None = func.value if not value.args else None
    elif name_of(func) in ("sum", "numel", "count_nonzero") and len(value.args) == 1:
        counted = value.args[0].value
    else:
        counted = None
    while isinstance(counted, (cst.Comparison, cst.Subscript)):
        counted = counted.left if isinstance(counted, cst.Comparison) else counted.value
    if isinstance(counted, cst.Name) and counted.value in batch:
        return data.code(value)
    return None


def _sets_lr(target: cst.BaseExpression) -> bool:
    """`group["lr"]`, `optimizer.param_groups[0]["lr"]`, `opt.lr`."""
    if isinstance(target, cst.Attribute):
        return target.attr.value == "lr"
    if isinstance(target, cst.Subscript) and len(target.slice) == 1:
        index = target.slice[0].slice
        return (
            isinstance(index, cst.Index)
            and isinstance(index.value, cst.SimpleString)
            and index.value.evaluated_value in ("lr", b"lr")
        )
    return False
