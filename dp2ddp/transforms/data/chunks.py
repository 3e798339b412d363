"""A sharded batch cut into chunks of a size that kept its global value: scaled (DP051 else).

kenziyuliu/MS-G3D@2f927f4 (main.py): gradient accumulation by chunks. Inside the loop over
the training loader (also through a local name, `loader = self.data_loader["train"]`),
`real_batch_size = self.arg.forward_batch_size`, `splits = len(data) // real_batch_size`,
then `for i in range(splits): left = i * real_batch_size; right = left + real_batch_size;
out = model(data[left:right])`. Under DataParallel the loader gave the global batch and each
chunk was scattered over the devices; migrated, the loader gives each rank batch //
WORLD_SIZE samples while the chunk size kept its global value: with a chunk size equal to
the batch the loop runs `range(4 // 8)` = 0 forwards (no training at all, and nothing says
so) or the program's own assert fails; otherwise each forward holds WORLD_SIZE times
DataParallel's per-device chunk.

What DataParallel did per device is what each rank must do: a forward of `chunk` samples
was scattered as chunk // WORLD_SIZE per device, and the number of chunks per step was
len(global batch) // chunk. So the chunk size is read as this rank's part,
`ddp_per_rank_batch(chunk)`, wherever it cuts or counts this rank's batch: the slice bounds,
`len(x) // chunk`, `len(x) % chunk`, `range(0, len(x), chunk)`, `torch.split(x, chunk)`;
a count made from a global size (`range(BATCH // MICRO)`) keeps the global size (the same
count of chunks, each now per rank). An alias bound once in the loop (`chunk =
self.arg.forward_batch_size`) takes the per-rank value where it is bound, when every read of
it is of the first kind. Without BatchNorm the averaged update is DataParallel's (each
rank's chunk losses are divided by the same count). `x.chunk(n)` cuts into a number of
chunks, not a size: already right. A size no read of which can be rewritten in the loop:
DP051 at the slice.

Found: a loop over a loader this pass shards; names bound from its batch in its body (the
loop's targets, and names assigned from expressions that read them); inside it, an inner
`for ... in range(...)` whose body slices such a batch with bounds that read the inner
loop's variable and a size that is not taken from the batch itself (`x.size(0)`, `len(x)`,
`x.shape[0]` are per-rank already), also through names assigned in the loop (`left = i *
fbs`); or `torch.split(x, size)` / `x.split(size)` of such a batch. Constants are left
alone (a chunk of 1 is one sample). With --per-process-batch the batch keeps its size:
nothing to scale.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

import libcst as cst

from dp2ddp.transforms._support.nodes import (
    ModuleNodes,
    enclosing_class,
    method_class,
    name_of,
    walk,
)
from dp2ddp.transforms.analysis.chunk_sizes import ChunkPlan, names_of, plan_body
from dp2ddp.transforms.analysis.training import loop_trains

if TYPE_CHECKING:
    from dp2ddp.transforms.data import ShardDataLoaders


def plan_chunk_sizes(
    data: ShardDataLoaders,
    nodes: ModuleNodes,
    sharded: set[cst.Call],
    iterated_through: Callable[[cst.BaseExpression], list[cst.BaseExpression]],
) -> ChunkPlan:
    """Each loop over a sharded loader whose batch is cut into chunks of a global size, and
    each function of the module that such loops give their batch to (`self.step(data,
    label)` cutting `data`): the size's reads taken per rank (ChunkPlan)."""
    plan = ChunkPlan()
    loaders = data._loaders
    batches: dict[cst.For, set[str]] = {}  # each loop over a sharded loader -> its batch
    for loop in nodes.of(cst.For):
        calls: list[cst.Call] = []
        for e in iterated_through(loop.iter):
            calls += [c for c, _ in data._resolve(e, loaders, 0)]
            calls += data._read_through(e, loaders)
        if not any(c in sharded for c in calls):
            continue
        body = list(walk(loop.body, skip_scopes=True))
        batches[loop] = plan_body(
            data, plan, body, names_of(loop.target), f"the loop over {data.code(loop.iter)}"
        )
        _warn_collated_parts(data, plan, loop, [c for c in calls if c in sharded])
    called = {  # names called in those loops: only their functions can be given a batch
        name_of(n.func)
        for loop in batches
        for n in walk(loop.body, skip_scopes=True)
        if isinstance(n, cst.Call)
    }
    for function in nodes.of(cst.FunctionDef):
        if function.name.value not in called:
            continue
        given = _batch_params(data, function, batches)
        if given is None:
            continue
        params, scale, arguments = given
        body = list(walk(function.body, skip_scopes=True))
        where = f"{function.name.value}()" + (", given this rank's batch by every call" * scale)
        plan_body(data, plan, body, params, where, scale=scale, arguments=arguments)
    for division, detail in plan.figures:
        data.warn(division, "DP106", detail)
    return plan


def _warn_collated_parts(
    data: ShardDataLoaders, plan: ChunkPlan, loop: cst.For, calls: list[cst.Call]
) -> None:
    """DP051 at each inner loop that trains on the parts of the item of a sharded loader
    whose `collate_fn=` is the program's own (ming024/FastSpeech2@d4e79eb: `DataLoader(...,
    batch_size=batch_size * group_size, collate_fn=dataset.collate_fn)`, the collate cutting
    the loader batch into batches of the dataset's own `batch_size`, then `for batchs in
    loader: for batch in batchs: model(...)`: class Q1; also through `enumerate(batchs)`,
    stop 45 v3-A, whose collate cuts int(sqrt(len(batch))) parts). The parts' size is decided inside
    the collate_fn, which this pass does not rewrite: cut by a fixed size, each rank's part
    of the loader batch gives parts of the global size, so every step trains WORLD_SIZE
    times DataParallel's batch and an epoch has WORLD_SIZE times fewer steps; cut into a
    number of parts, it is right. Not proved either way: said."""
    collates = [
        arg.value
        for call in calls
        for arg in call.args
        if arg.keyword is not None and arg.keyword.value == "collate_fn"
    ]
    if not collates:
        return
    items = names_of(loop.target)
    for inner in walk(loop.body, skip_scopes=True):
        if (
            isinstance(inner, cst.For)
            and _iterated_name(inner.iter) in items
            and loop_trains(inner, data.qualified_names)
        ):
            plan.warnings.append(
                (
                    inner,
                    f"the loop over {data.code(loop.iter)} trains on the parts of each of its "
                    f"items (`for {data.code(inner.target)} in {data.code(inner.iter)}`), "
                    f"which its collate_fn {data.code(collates[0])} cuts from the loader "
                    "batch; each rank's loader batch is now batch_size // WORLD_SIZE, so "
                    "where the collate cuts parts of a fixed size (not a number of parts), "
                    "each step trains WORLD_SIZE times DataParallel's batch and an epoch has "
                    "WORLD_SIZE times fewer steps; where it computes the parts from the "
                    "batch's length otherwise (`int(sqrt(len(batch)))` parts of that size), "
                    "the parts change with the batch and samples may be left out. Not proved: "
                    "cut each rank's share into the original's number of parts, or take the "
                    "part size as ddp_per_rank_batch(size)",
                )
            )


#: Calls whose iteration runs over their first argument's items (all or some, in order or
#: not): `for j, part in enumerate(parts)` trains on the parts as `for part in parts` does
#: (xcmyz/Tacotron2-Pytorch@a2d8b47, stop 45 v3-A).
_ITERATING = frozenset({"enumerate", "iter", "reversed", "sorted", "list", "tuple", "tqdm"})


def _iterated_name(expr: cst.BaseExpression) -> str | None:
    """The name whose items a for loop's iterable runs over: `parts`, `enumerate(parts)`,
    `tqdm(enumerate(parts))`; None for anything else."""
    while (
        isinstance(expr, cst.Call)
        and name_of(expr.func) in _ITERATING
        and expr.args
        and expr.args[0].keyword is None
        and not expr.args[0].star
    ):
        expr = expr.args[0].value
    return expr.value if isinstance(expr, cst.Name) else None


def _batch_params(
    data: ShardDataLoaders, function: cst.FunctionDef, batches: dict[cst.For, set[str]]
) -> tuple[set[str], bool, dict[str, list[cst.BaseExpression]]] | None:
    """The parameters of `function` that calls in loops over sharded loaders give the
    loop's batch, and whether every call is such (its chunk sizes can then be read per
    rank; else only said). A method's calls are `self.name(...)` in its class."""
    owner = method_class(function, data)
    if owner is not None:
        if function.name.value.startswith("__"):
            return None
        sites = [
            c
            for c in data._callers(function)
            if isinstance(c.func, cst.Attribute)
            and isinstance(c.func.value, cst.Name)
            and c.func.value.value == "self"
            and enclosing_class(c, data) is owner
        ]
    else:
        sites = data._callers(function)
    if not sites:
        return None
    params = [*function.params.posonly_params, *function.params.params]
    found: set[str] | None = None
    every = True
    arguments: dict[str, list[cst.BaseExpression]] = {}
    for site in sites:
        for param in params:
            argument = data._argument(function, site, param)
            if argument is not None:
                arguments.setdefault(param.name.value, []).append(argument)
        loop = next(
            (a for a in _ancestors(data, site) if isinstance(a, cst.For) and a in batches), None
        )
        if loop is None:
            every = False
            continue
        here = {
            p.name.value
            for p in params
            if isinstance(argument := data._argument(function, site, p), cst.Name)
            and argument.value in batches[loop]
        }
        found = here if found is None else found & here
    if not found:
        return None
    return found, every, arguments


def _ancestors(data: ShardDataLoaders, node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """The nodes around `node` within its function."""
    current = data.parent(node)
    while current is not None and not isinstance(current, (cst.FunctionDef, cst.Lambda)):
        yield current
        current = data.parent(current)
