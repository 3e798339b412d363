"""A sharded batch's size compared with the global batch size: read per rank (DP061 else).

layumi/Person_reID_baseline_pytorch (train.py): inside the loop over the training loader,
`if now_batch_size < opt.batchsize: continue` (`now_batch_size, c, h, w = inputs.shape`)
skips the last, short batch. Under DataParallel the loader gave the whole batch, so only the
short one was skipped; migrated, each rank's loader gives `ddp_per_rank_batch(opt.batchsize)`
samples and every batch is smaller than the global size: every batch is skipped, the run
ends with exit 0 and no optimizer step, and nothing says so.

What the comparison meant is "a batch smaller than the loader's batch": per rank that is the
loader's per-rank batch. So where one side is a size of the loop's batch (`x.size(0)`,
`x.size()[0]`, `x.shape[0]`, `len(x)`, or a name the loop assigned from one, also by
unpacking `n, c, h, w = x.shape`) and the other side is spelled as the batch_size the data
pass made per rank (`batch_size=args.batch_size` -> `args.batch_size`), that side is read
per rank: `ddp_per_rank_batch(args.batch_size)`. Proved or said: a comparison of a batch's
size with another number the loop does not change (a literal above 1, a name or attribute
not bound in the loop: a configured size, maybe the global one) is DP061. Left alone: a
position or counter the loop binds (`while start < len(x)`), another tensor's size, 0 or 1,
a computed value. With
--per-process-batch the loaders keep their batch size: nothing to read per rank.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

import libcst as cst

from dp2ddp.transforms._support.nodes import ModuleNodes, call_named, name_of, walk
from dp2ddp.transforms.analysis.chunk_sizes import ChunkPlan
from dp2ddp.transforms.data.batch_sized import _target_names
from dp2ddp.transforms.data.handoffs import fed_size_loops, global_batch_size
from dp2ddp.transforms.data.method_batches import Loop, kept_batch_size, tensor_of
from dp2ddp.transforms.data.plan import Loader, named_loader
from dp2ddp.transforms.data.size_aliases import SizeAliases, batch_rows

if TYPE_CHECKING:
    from dp2ddp.transforms._support.base import MigrationState
    from dp2ddp.transforms.data import ShardDataLoaders

PER_RANK = "ddp_per_rank_batch"
_ORDERING = (cst.LessThan, cst.LessThanEqual, cst.GreaterThan, cst.GreaterThanEqual)
_EQUALITY = (cst.Equal, cst.NotEqual)


def plan_size_guards(
    data: ShardDataLoaders,
    nodes: ModuleNodes,
    iterated_through: Callable[[cst.BaseExpression], list[cst.BaseExpression]],
    plan: ChunkPlan,
) -> None:
    """Add to `plan` the global batch sizes that comparisons with a sharded batch's size
    read per rank (swaps, records), and the comparisons left to DP061 (warnings)."""
    handled: set[cst.Comparison] = set()
    loops: list[Loop] = []
    aliases: SizeAliases | None = None
    for loop, globals_, every, bound in sharded_loops(data, nodes, iterated_through):
        body = list(walk(loop.body, skip_scopes=True))
        batch, sizes = _batch_names(loop, body, data)
        loops.append((loop, globals_, batch))
        aliases = aliases or SizeAliases(data, nodes, every)
        if globals_:
            batch = batch | batch_rows(data, body, globals_, aliases)
        _printed_sizes(data, body, batch, sizes, loop)
        for compare in (n for n in body if isinstance(n, cst.Comparison)):
            handled.add(compare)
            if globals_:
                what = data.code(loop.iter)
                _plan_compare(data, plan, compare, batch, sizes, globals_, bound, what, aliases)
                _one_sample(data, plan, compare, batch, sizes, loop)
            else:
                _unknown_loop(data, plan, compare, batch, sizes, every, loop)
    _outside_loops(data, nodes, handled, plan, loops)


def _printed_sizes(
    data: ShardDataLoaders,
    body: list[cst.CSTNode],
    batch: set[str],
    sizes: set[str],
    loop: cst.For,
) -> None:
    """DP030 where a call that shows its arguments (data/showing.py) reads the batch's size
    in the loop (`i * len(x)` samples seen, `total / i * len(x)`): this rank's share of
    the batch now, DataParallel's the global batch's (round 34, hunkim/PyTorchZeroToAll@
    e5a260f: "[32/64 (50%)] Loss 9.63" for "[64/64 (100%)] Loss 19.31", no warning; the
    loss beside it was averaged over the ranks)."""
    if data.state.options.per_process_batch:
        return
    said = {(w.line, w.col) for w in data.state.warnings if w.code == "DP030"}
    for call in (n for n in body if isinstance(n, cst.Call)):
        if data._position(call) in said or not data._prints(call):
            continue  # its figures said already (`progbar.add(len(x), ...)`): once
        read = next(
            (
                n
                for arg in call.args
                for n in walk(arg.value)
                if isinstance(n, cst.BaseExpression) and _size_read(n, batch, sizes, data)
            ),
            None,
        )
        if read is not None:
            data.warn(
                call,
                "DP030",
                f"`{data.code(read)}` in a shown figure is this rank's share of a batch of "
                f"{data.code(loop.iter)}: DataParallel's was the global batch's",
            )


def _outside_loops(
    data: ShardDataLoaders,
    nodes: ModuleNodes,
    handled: set[cst.Comparison],
    plan: ChunkPlan,
    loops: list[Loop],
) -> None:
    """A tensor's batch dimension compared, outside the loop over a loader, with an attribute
    a DataLoader of the program takes its batch_size from (junyanz/BicycleGAN@40b9d52: the
    model's `is_train()` is `self.real_A.size(0) == self.opt.batch_size`, the batch kept on
    `self` by `set_input()`; migrated, each rank's batch is its share, every batch "short",
    the loop skips them all: no optimizer step, exit 0 - stop 45's v2-A). Which batch the
    tensor holds is not followed from here (an attribute set by another method, a batch
    handed on), so the comparison is said, DP061, unless data/method_batches.py proves the
    tensor the batch a method kept from loops over sharded loaders and the number their
    batch_size: then it is read per rank as in the loop (stop 46); where the loader's batch
    comes straight into the loop, the loop's own reading above rewrites it per rank."""
    if data.state.options.per_process_batch:
        return
    names = set(data.state.hints.loader_batch_attributes)
    names |= {
        g.attr.value
        for c in data._edits
        if isinstance(g := global_batch_size(data, c), cst.Attribute)
    }
    if not names:
        return
    for compare in nodes.of(cst.Comparison):
        if compare not in handled:
            _outside_compare(data, compare, names, plan, loops)


def _outside_compare(
    data: ShardDataLoaders,
    compare: cst.Comparison,
    names: set[str],
    plan: ChunkPlan,
    loops: list[Loop],
) -> None:
    """One comparison outside the loops (_outside_loops): its size read per rank, or DP061."""
    left = compare.left
    for target in compare.comparisons:
        right = target.comparator
        if isinstance(target.operator, _ORDERING + _EQUALITY):
            for size, other in ((left, right), (right, left)):
                if not (
                    isinstance(other, cst.Attribute)
                    and other.attr.value in names
                    and _batch_dimension(size)
                ):
                    continue
                tensor = tensor_of(size)
                if tensor is not None and kept_batch_size(data, compare, tensor, other, loops):
                    if other not in plan.swaps:
                        plan.swaps[other] = call_named(PER_RANK, cst.Arg(other.deep_clone()))
                        plan.records.append(
                            (
                                other,
                                f"{data.code(other)} compared with this rank's batch "
                                f"({data.code(size)}, kept by a method the loop over a "
                                "sharded loader hands its batch to): per rank",
                            )
                        )
                    return
                plan.warnings.append(
                    (
                        compare,
                        f"`{data.code(compare)}`: {data.code(other)} is spelled as a "
                        f"DataLoader's batch_size, the global batch; "
                        f"{data.code(size)} is read outside the loop over a loader, "
                        "where a sharded loader's batch is ddp_per_rank_batch() of it",
                    )
                )
                return
        left = right


def _batch_dimension(expr: cst.BaseExpression) -> bool:
    """`t.size(0)`, `t.size()[0]`, `t.shape[0]` of any tensor expression (`self.real_A`)."""
    if isinstance(expr, cst.Call):
        func = expr.func
        return (
            isinstance(func, cst.Attribute)
            and func.attr.value == "size"
            and len(expr.args) == 1
            and _is_zero(expr.args[0].value)
        )
    if isinstance(expr, cst.Subscript) and len(expr.slice) == 1:
        index = expr.slice[0].slice
        if not (isinstance(index, cst.Index) and _is_zero(index.value)):
            return False
        inner = expr.value
        if isinstance(inner, cst.Call) and not inner.args:
            return isinstance(inner.func, cst.Attribute) and inner.func.attr.value == "size"
        return isinstance(inner, cst.Attribute) and inner.attr.value == "shape"
    return False


def sharded_loops(
    data: ShardDataLoaders,
    nodes: ModuleNodes,
    iterated_through: Callable[[cst.BaseExpression], list[cst.BaseExpression]],
) -> Iterator[tuple[cst.For, set[str], set[str], set[str]]]:
    """(loop, the global batch sizes of the sharded loaders it iterates, every global batch
    size the data pass made per rank, what the loop binds) for each loop that may iterate a
    sharded loader: one followed to such loaders (its global sizes), or one followed to no
    loader at all (no global sizes: which loader it is, is not known). Loops over loaders
    left whole are not listed (their batches are global)."""
    loaders: dict[cst.Call, Loader] = data._loaders
    every = {data.code(g) for c in data._edits if (g := global_batch_size(data, c)) is not None}
    fed = fed_size_loops(data, nodes)  # loops over a loader handed in with its batch size
    every.update(*fed.values())
    if not every:
        return
    for loop in nodes.of(cst.For):
        calls = [c for e in iterated_through(loop.iter) for c, _ in data._resolve(e, loaders, 0)]
        calls += [c for e in iterated_through(loop.iter) for c in data._read_through(e, loaders)]
        globals_ = {data.code(g) for c in calls if (g := global_batch_size(data, c)) is not None}
        globals_ |= fed.get(loop, set())
        if calls and not globals_:
            continue  # loops over loaders left whole: their batches are global
        body = list(walk(loop.body, skip_scopes=True))
        yield loop, globals_, every, _bound_in(loop, body, data)


def _unknown_loop(
    data: ShardDataLoaders,
    plan: ChunkPlan,
    compare: cst.Comparison,
    batch: set[str],
    sizes: set[str],
    every: set[str],
    loop: cst.For,
) -> None:
    """A loop over something not followed to a loader (a dict built by a comprehension,
    read with a phase key: layumi's `dataloaders[phase]`) comparing its batch's size with a
    batch_size the data pass made per rank: which loader it iterates, sharded or whole, is
    not known, so the size is not rewritten but said (DP061)."""
    left = compare.left
    for target in compare.comparisons:
        right = target.comparator
        for size, other in ((left, right), (right, left)):
            text = data.code(other)
            if text in every and _size_read(size, batch, sizes, data):
                plan.warnings.append(
                    (
                        compare,
                        f"`{data.code(compare)}`: {text} is a DataLoader's global batch_size, "
                        f"each rank's loader gives ddp_per_rank_batch({text}); which loader "
                        f"{data.code(loop.iter)} is was not followed",
                    )
                )
                return
        left = right


def _bound_in(loop: cst.For, body: list[cst.CSTNode], data: ShardDataLoaders) -> set[str]:
    """What the loop binds as it runs (`start += micro`, inner loop targets): positions and
    counters, not configured sizes."""
    targets: list[cst.CSTNode] = [loop.target]
    for node in body:
        if isinstance(node, cst.Assign):
            targets += [t.target for t in node.targets]
        elif isinstance(node, (cst.AugAssign, cst.AnnAssign)):
            targets.append(node.target)
        elif isinstance(node, (cst.For, cst.CompFor)):
            targets.append(node.target)
        elif isinstance(node, cst.NamedExpr):
            targets.append(node.target)
    bound: set[str] = set()
    for target in targets:
        for node in walk(target):
            if isinstance(node, (cst.Name, cst.Attribute)):
                bound.add(data.code(node))
    return bound


def _batch_names(
    loop: cst.For, body: list[cst.CSTNode], data: ShardDataLoaders
) -> tuple[set[str], set[str]]:
    """The names holding the loop's batch (its targets, names assigned from them) and the
    names holding a size of it (`n = x.size(0)`, `n, c, h, w = x.shape`)."""
    batch = _target_names(loop.target)
    sizes: set[str] = set()
    assignments = [n for n in body if isinstance(n, cst.Assign)]
    changed = True
    while changed:
        changed = False
        for stmt in assignments:
            if _size_read(stmt.value, batch, sizes, data) or _shape_unpacked(stmt, batch):
                first = _first_target(stmt)
                if not first <= sizes:
                    sizes |= first
                    changed = True
            elif _carries_batch(stmt.value, batch):
                targets = {
                    n.value for t in stmt.targets for n in walk(t.target) if isinstance(n, cst.Name)
                }
                if not targets <= batch:  # `x = x.cuda()`, `inputs = Variable(x)`
                    batch |= targets
                    changed = True
    return batch, sizes


#: Calls that hand their receiver's or argument's batch on whole (a device, a dtype, a wrapper).
_CARRIERS = frozenset(
    {"to", "cuda", "cpu", "float", "half", "double", "long", "int", "type", "contiguous",
     "detach", "clone", "requires_grad_", "Variable", "as_tensor", "from_numpy"}
)  # fmt: skip


def _carries_batch(expr: cst.BaseExpression, batch: set[str]) -> bool:
    """`expr` is the batch itself, moved or wrapped: `x`, `x.cuda()`, `x.to(device)`,
    `Variable(x)`, `data[0]`, `(x, y)` - not a value computed from it (`model(x)`)."""
    if isinstance(expr, cst.Name):
        return expr.value in batch
    if isinstance(expr, (cst.Tuple, cst.List)):
        return any(_carries_batch(e.value, batch) for e in expr.elements)
    if isinstance(expr, cst.Subscript):
        index = expr.slice[0].slice if len(expr.slice) == 1 else None
        return (
            isinstance(index, cst.Index)
            and isinstance(index.value, cst.Integer)
            and _carries_batch(expr.value, batch)
        )
    if isinstance(expr, cst.Call) and name_of(expr.func) in _CARRIERS:
        if isinstance(expr.func, cst.Attribute) and _carries_batch(expr.func.value, batch):
            return True
        return bool(expr.args) and _carries_batch(expr.args[0].value, batch)
    return False


def _first_target(stmt: cst.Assign) -> set[str]:
    """`n = ...` -> {n}; `n, c, h, w = x.shape` -> {n} (the batch dimension)."""
    found: set[str] = set()
    for target in stmt.targets:
        node: cst.BaseExpression = target.target
        if isinstance(node, (cst.Tuple, cst.List)) and node.elements:
            node = node.elements[0].value
        if isinstance(node, cst.Name):
            found.add(node.value)
    return found


def _shape_unpacked(stmt: cst.Assign, batch: set[str]) -> bool:
    value = stmt.value
    if isinstance(value, cst.Call) and not value.args:  # `n, c = x.size()`
        value = value.func
        if not (isinstance(value, cst.Attribute) and value.attr.value == "size"):
            return False
    return (
        isinstance(value, cst.Attribute)
        and value.attr.value in ("shape", "size")
        and isinstance(value.value, cst.Name)
        and value.value.value in batch
        and any(isinstance(t.target, (cst.Tuple, cst.List)) for t in stmt.targets)
    )


def _size_read(
    expr: cst.BaseExpression, batch: set[str], sizes: set[str], data: ShardDataLoaders
) -> bool:
    """`expr` is the batch dimension of a batch name: `x.size(0)`, `x.size()[0]`,
    `x.shape[0]`, `len(x)`; or a name holding one."""
    if isinstance(expr, cst.Name):
        return expr.value in sizes
    return _dimension_zero_of(expr, data) in batch


def _dimension_zero_of(expr: cst.BaseExpression, data: ShardDataLoaders) -> str | None:
    """The name whose batch dimension `expr` reads, if it reads one."""
    if isinstance(expr, cst.Call):
        if name_of(expr.func) == "len" and len(expr.args) == 1:
            arg = expr.args[0].value
            return arg.value if isinstance(arg, cst.Name) else None
        func = expr.func
        if (
            isinstance(func, cst.Attribute)
            and func.attr.value == "size"
            and isinstance(func.value, cst.Name)
            and len(expr.args) == 1
            and _is_zero(expr.args[0].value)
        ):
            return func.value.value
        return None
    if isinstance(expr, cst.Subscript) and len(expr.slice) == 1:
        index = expr.slice[0].slice
        if not (isinstance(index, cst.Index) and _is_zero(index.value)):
            return None
        inner = expr.value
        if isinstance(inner, cst.Call) and not inner.args:
            inner = inner.func
            attribute = "size"
        else:
            attribute = "shape"
        if (
            isinstance(inner, cst.Attribute)
            and inner.attr.value == attribute
            and isinstance(inner.value, cst.Name)
        ):
            return inner.value.value
    return None


def _is_zero(expr: cst.BaseExpression) -> bool:
    return isinstance(expr, cst.Integer) and expr.evaluated_value == 0


def _plan_compare(
    data: ShardDataLoaders,
    plan: ChunkPlan,
    compare: cst.Comparison,
    batch: set[str],
    sizes: set[str],
    globals_: set[str],
    bound: set[str],
    loop: str,
    aliases: SizeAliases,
) -> None:
    left = compare.left
    for target in compare.comparisons:
        if isinstance(target.operator, _ORDERING + _EQUALITY):
            right = target.comparator
            for size, other in ((left, right), (right, left)):
                if _size_read(size, batch, sizes, data) and not _size_read(
                    other, batch, sizes, data
                ):
                    held = aliases.size_of(other)  # a name bound only to the global size
                    sizes_ = globals_ | {data.code(other)} if held in globals_ else globals_
                    _plan_side(data, plan, compare, size, other, sizes_, bound, loop)
        left = target.comparator


def _plan_side(
    data: ShardDataLoaders,
    plan: ChunkPlan,
    compare: cst.Comparison,
    size: cst.BaseExpression,
    other: cst.BaseExpression,
    globals_: set[str],
    bound: set[str],
    loop: str,
) -> None:
    text = data.code(other)
    if isinstance(other, cst.Integer) and other.evaluated_value in (0, 1):
        return
    if isinstance(other, cst.Call) and name_of(other.func) == PER_RANK:
        return  # already per rank
    if _other_dimension_size(other, data):
        return  # another tensor's size: per rank as well, or DP044's business
    if text in globals_ and isinstance(other, (cst.Name, cst.Attribute)):
        if other not in plan.swaps:
            plan.swaps[other] = call_named(PER_RANK, cst.Arg(other.deep_clone()))
            plan.records.append(
                (other, f"{text} compared with this rank's batch ({data.code(size)}): per rank")
            )
        return
    if not (
        (isinstance(other, cst.Integer) and isinstance(other.evaluated_value, int))
        or (isinstance(other, (cst.Name, cst.Attribute)) and text not in bound)
    ):
        return  # a position or a computed value (`start < len(x)`), not a configured size
    plan.warnings.append(
        (
            compare,
            f"`{data.code(compare)}`: {data.code(size)} is this rank's share of a batch of "
            f"{loop}; {text} is not spelled as its batch_size",
        )
    )


def _one_sample(
    data: ShardDataLoaders,
    plan: ChunkPlan,
    compare: cst.Comparison,
    batch: set[str],
    sizes: set[str],
    loop: cst.For,
) -> None:
    """`if x.shape[0] == 1: continue` (marian42/shapegan@090a6a8, stop 63: a batch of one
    sample skipped): DataParallel compared the global batch's size, each rank now holds its
    share, so the skip falls on other steps (or on one rank only, where the shares differ:
    a hang in the next all-reduce). Where the comparison with 1 is the whole test of an `if`
    every rank reaches at every step (a statement of the loop's body, inside `try` or
    `with` at most, no `continue`, `break`, `return` or `raise` before it in the body), its
    size is read summed over the ranks (`ddp_global_count(x.shape[0]) == 1`: one
    all-reduce per step, the same decision on every rank, DataParallel's); else DP153."""
    if len(compare.comparisons) != 1 or data.state.options.per_process_batch:
        return
    target = compare.comparisons[0]
    pairs = ((compare.left, target.comparator), (target.comparator, compare.left))
    for size, other in pairs:
        if not (
            isinstance(other, cst.Integer)
            and other.evaluated_value == 1
            and isinstance(target.operator, _ORDERING + _EQUALITY)
            and _size_read(size, batch, sizes, data)
        ):
            continue
        if _every_step(data, compare, loop):
            summed = call_named(GLOBAL_COUNT, cst.Arg(size.deep_clone()))
            if size is compare.left:
                plan.swaps[compare] = compare.with_changes(left=summed)
            else:
                new = target.with_changes(comparator=summed)
                plan.swaps[compare] = compare.with_changes(comparisons=[new])
            data.state.helpers.add("global_count")
            plan.records.append(
                (compare, f"{data.code(size)} compared with 1: the global batch's size")
            )
        else:
            plan.one_sample.append(
                (
                    compare,
                    f"`{data.code(compare)}`: {data.code(size)} is this rank's share of the "
                    f"batch of {data.code(loop.iter)}, DataParallel compared the whole "
                    "batch's size; not every rank is proved to reach the comparison at "
                    "every step (a condition or an exit before it), so it is not summed",
                )
            )
        return


def _every_step(data: ShardDataLoaders, compare: cst.Comparison, loop: cst.For) -> bool:
    """`compare` is the test of an `if` that is a statement of `loop`'s body (inside `try`
    or `with` blocks at most), with no `continue`, `break`, `return` or `raise` before it."""
    statement = data.parent(compare)
    if not isinstance(statement, cst.If) or statement.test is not compare:
        return False
    node: cst.CSTNode | None = statement
    while node is not None and node is not loop:
        block = data.parent(node)
        if not isinstance(block, cst.IndentedBlock):
            return False
        before = block.body[: list(block.body).index(node)]  # type: ignore[arg-type]
        if any(isinstance(n, _LEAVES) for b in before for n in walk(b)):
            return False
        node = data.parent(block)
        if not isinstance(node, (cst.Try, cst.With, cst.For)):
            return False
    return node is loop


_LEAVES = (cst.Continue, cst.Break, cst.Return, cst.Raise)
GLOBAL_COUNT = "ddp_global_count"


def _other_dimension_size(expr: cst.BaseExpression, data: ShardDataLoaders) -> bool:
    """A size read of a tensor (`y.size(0)`, `len(y)`): not a configured number."""
    return _dimension_zero_of(expr, data) is not None


def compares_a_loader_size(code: str, state: MigrationState) -> bool:
    """May the module compare a batch's size with an attribute a DataLoader of the program
    takes its batch_size from (size_guards' DP061)? Such a module may hold no loader and be
    handed no batch dp2ddp follows (a model module imported by a computed name, stop 45's
    v2-D: junyanz/BicycleGAN's `is_train()`)."""
    if "size(0)" not in code and "size()[0]" not in code and "shape[0]" not in code:
        return False
    return any(f".{name}" in code for name in state.hints.loader_batch_attributes)


def others_loaders_named(code: str, state: MigrationState) -> bool:
    """Where no DataLoader is named, loaders of other modules may still be iterated: ones
    they shard (set_epoch here), ones dp2ddp could not follow (DP027), ones handed to this
    module's functions (LoaderFeed), and in a program a training module's loop over a
    source named like a loader (`unheld_loaders`)."""
    return (
        any(n in code for n, _ in state.loaders.unfollowed)
        or any(e.name in code for e in state.loaders.exported)
        or any(f.function.rpartition(".")[2] in code for f in state.loaders.fed)
        or compares_a_loader_size(code, state)
        or any(c.rpartition(".")[2] in code for c in state.loaders.flagged_loaders)
        or state.program is not None
        and named_loader(code)
        and any(word in code for word in ("backward", ".step("))
    )
