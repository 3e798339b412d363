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
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import libcst as cst

from dp2ddp.transforms._support.nodes import (
    call_named,
    enclosing_class,
    method_class,
    name_of,
    walk,
)

if TYPE_CHECKING:
    from dp2ddp.transforms.data import ShardDataLoaders

PER_RANK = "ddp_per_rank_batch"
#: Operators whose right operand divides a count: with a global left operand the count is
#: the global one and the size keeps its global value.
_COUNTING = (cst.FloorDivide, cst.Divide, cst.Modulo)
_UNKNOWN = "which of them is the batch's is not known"
#: torch.split's and Tensor.split's keyword for the size.
_SPLIT_SIZE = ("split_size", "split_size_or_sections")


@dataclass
class ChunkPlan:
    """The reads of global chunk sizes to take per rank, and the slices left to DP051."""

    #: a read of the size (Name or Attribute of the input) -> ddp_per_rank_batch(read)
    swaps: dict[cst.CSTNode, cst.BaseExpression] = field(default_factory=dict)
    #: (node, description) of each scaled size, for the change records
    records: list[tuple[cst.CSTNode, str]] = field(default_factory=list)
    #: (slice, detail) for DP051
    warnings: list[tuple[cst.CSTNode, str]] = field(default_factory=list)


def plan_chunk_sizes(
    data: ShardDataLoaders,
    nodes: list[cst.CSTNode],
    sharded: set[cst.Call],
    iterated_through: Callable[[cst.BaseExpression], list[cst.BaseExpression]],
) -> ChunkPlan:
    """Each loop over a sharded loader whose batch is cut into chunks of a global size, and
    each function of the module that such loops give their batch to (`self.step(data,
    label)` cutting `data`): the size's reads taken per rank (ChunkPlan)."""
    plan = ChunkPlan()
    loaders = data._loaders
    batches: dict[cst.For, set[str]] = {}  # each loop over a sharded loader -> its batch
    for loop in (n for n in nodes if isinstance(n, cst.For)):
        calls: list[cst.Call] = []
        for e in iterated_through(loop.iter):
            calls += [c for c, _ in data._resolve(e, loaders, 0)]
            calls += data._read_through(e, loaders)
        if not any(c in sharded for c in calls):
            continue
        body = list(walk(loop.body, skip_scopes=True))
        batches[loop] = _plan_body(
            data, plan, body, _names(loop.target), f"the loop over {data.code(loop.iter)}"
        )
    called = {  # names called in those loops: only their functions can be given a batch
        name_of(n.func)
        for loop in batches
        for n in walk(loop.body, skip_scopes=True)
        if isinstance(n, cst.Call)
    }
    for function in (n for n in nodes if isinstance(n, cst.FunctionDef)):
        if function.name.value not in called:
            continue
        given = _batch_params(data, function, batches)
        if given is None:
            continue
        params, scale, arguments = given
        body = list(walk(function.body, skip_scopes=True))
        where = f"{function.name.value}()" + (", given this rank's batch by every call" * scale)
        _plan_body(data, plan, body, params, where, scale=scale, arguments=arguments)
    return plan


def _plan_body(
    data: ShardDataLoaders,
    plan: ChunkPlan,
    body: list[cst.CSTNode],
    batch: set[str],
    where: str,
    scale: bool = True,
    arguments: dict[str, list[cst.BaseExpression]] | None = None,
) -> set[str]:
    """Plan the chunks `body` cuts from `batch` (names, grown by the names assigned from
    them); returns the grown batch names. `arguments`: a function's parameters -> what its
    calls give them (a size given as a parameter is global where every call gives a
    configured size, per rank already where every call gives a batch's size or a
    constant, and not known where the calls differ)."""
    batch = set(batch)
    assigned: dict[str, list[cst.BaseExpression]] = {}
    for node in body:
        if isinstance(node, cst.Assign):
            for target in node.targets:
                for name in _names(target.target):
                    assigned.setdefault(name, []).append(node.value)
        elif isinstance(node, (cst.AugAssign, cst.For)):
            for name in _names(node.target):
                assigned.setdefault(name, []).append(node.target)
    changed = True
    while changed:  # names assigned from the batch (`data = data.float()`)
        changed = False
        for name, values in assigned.items():
            if name not in batch and any(_names(v) & batch and not _sizes(v) for v in values):
                batch.add(name)
                changed = True
    cuts: dict[str, list[cst.CSTNode]] = {}  # size -> the chunks it cuts
    for node, terms in _chunks(data, body, batch, assigned):
        if len(terms) == 1:
            cuts.setdefault(terms[0], []).append(node)
        else:  # a size computed from several global sizes: which one means what?
            why = "the size is computed from several configured sizes, " + _UNKNOWN
            plan.warnings.append((node, _detail(data, node, " and ".join(terms), why)))
    for term, chunks in cuts.items():
        given = (arguments or {}).get(term)
        if given is not None:
            local = [_sizes(a) or isinstance(a, (cst.Integer, cst.Float)) for a in given]
            if all(local):
                continue  # every call gives a size of its batch: per rank already
            scale = scale and not any(local)
        if not scale:
            why = f"not every call of {where} gives it this rank's batch and a configured {term}"
        elif not _scale(data, plan, where, body, batch, assigned, term, chunks):
            why = f"{term} meets another configured size in {where}, " + _UNKNOWN
        else:
            continue
        for chunk in dict.fromkeys(chunks):
            plan.warnings.append((chunk, _detail(data, chunk, term, why)))
    return batch


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


def _chunks(
    data: ShardDataLoaders,
    body: list[cst.CSTNode],
    batch: set[str],
    assigned: dict[str, list[cst.BaseExpression]],
) -> Iterator[tuple[cst.CSTNode, list[str]]]:
    """(chunk, the global sizes it is cut by): slices of the batch by an inner range loop's
    counter (or a name a `while` loop steps), `torch.split(x, size)` and `x.split(size)`."""
    for inner in body:
        if isinstance(inner, cst.Call) and _splits_batch(data, inner, batch):
            size = _split_size(data, inner)
            if size is not None:
                terms, _ = _size_terms(data, size, assigned, batch, set(), 0)
                if terms:
                    yield inner, terms
            continue
        if (
            isinstance(inner, cst.For)
            and isinstance(inner.iter, cst.Call)
            and name_of(inner.iter.func) == "range"
        ):
            counter = _names(inner.target)
        elif isinstance(inner, cst.While):  # `while start < len(x): ...; start += size`
            counter = {
                n.target.value
                for n in walk(inner.body, skip_scopes=True)
                if isinstance(n, cst.AugAssign) and isinstance(n.target, cst.Name)
            }
        else:
            continue
        for node in walk(inner.body, skip_scopes=True):  # slices by the counter
            if not (
                isinstance(node, cst.Subscript)
                and isinstance(node.value, cst.Name)
                and node.value.value in batch
                and len(node.slice) >= 1
                and isinstance(node.slice[0].slice, cst.Slice)
            ):
                continue
            cut = node.slice[0].slice
            bounds = [b for b in (cut.lower, cut.upper) if b is not None]
            sizes: list[str] = []
            reads_counter = False
            for bound in bounds:
                found, counts = _size_terms(data, bound, assigned, batch, counter, 0)
                sizes += [t for t in found if t not in sizes]
                reads_counter |= counts
            if reads_counter and sizes:
                yield node, sizes


def _splits_batch(data: ShardDataLoaders, call: cst.Call, batch: set[str]) -> bool:
    """`torch.split(x, n)` or `x.split(n)` of a batch."""
    if "torch.split" in data.qualified_names(call.func):
        first = call.args[0].value if call.args else None
        return isinstance(first, cst.Name) and first.value in batch
    return (
        isinstance(call.func, cst.Attribute)
        and call.func.attr.value == "split"
        and isinstance(call.func.value, cst.Name)
        and call.func.value.value in batch
    )


def _split_size(data: ShardDataLoaders, call: cst.Call) -> cst.BaseExpression | None:
    """The size argument of a split call; None when given by `*` or not at all."""
    if any(a.star for a in call.args):
        return None
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value in _SPLIT_SIZE:
            return arg.value
    positional = [a.value for a in call.args if a.keyword is None]
    at = 1 if "torch.split" in data.qualified_names(call.func) else 0
    return positional[at] if len(positional) > at else None


def _scale(
    data: ShardDataLoaders,
    plan: ChunkPlan,
    where: str,
    body: list[cst.CSTNode],
    batch: set[str],
    assigned: dict[str, list[cst.BaseExpression]],
    term: str,
    chunks: list[cst.CSTNode],
) -> bool:
    """Take the reads of the global size `term` in `loop` per rank; False where there is
    none to take (the size is read elsewhere: DP051)."""
    reads = [n for n in body if _reads(data, n, term)]
    aliases = {
        name
        for name, values in assigned.items()
        if len(values) == 1 and any(v is r for r in reads for v in values)
    }
    alias_reads = [
        n for n in body if isinstance(n, cst.Name) and n.value in aliases and _is_read(data, n)
    ]
    if any(_mixed(data, r, batch, assigned) for r in [*reads, *alias_reads]):
        return False
    swaps: list[cst.CSTNode] = []
    for read in reads:
        holder = _alias_of(data, read, aliases)
        if holder is None:
            if not _global_count(data, read, batch, assigned):
                swaps.append(read)
        elif all(
            not _global_count(data, r, batch, assigned) for r in alias_reads if r.value == holder
        ):
            swaps.append(read)  # the alias takes the per-rank value where it is bound
        else:
            swaps += [
                r
                for r in alias_reads
                if r.value == holder and not _global_count(data, r, batch, assigned)
            ]
    if not swaps:
        return False
    for node in swaps:
        if node not in plan.swaps:
            assert isinstance(node, cst.BaseExpression)
            plan.swaps[node] = call_named(PER_RANK, cst.Arg(node.deep_clone()))
    data.state.helpers.add("per_rank_batch")
    plan.records.append(
        (
            chunks[0],
            f"{data.code(chunks[0])} cuts this rank's batch into chunks of {term}, a size of "
            "the global batch under DataParallel (which scattered each chunk over the "
            f"devices): read as this rank's part, {PER_RANK}({term}), where it cuts or "
            f"counts this rank's batch in {where}",
        )
    )
    return True


def _reads(data: ShardDataLoaders, node: cst.CSTNode, term: str) -> bool:
    """`node` reads the size spelled `term` (a whole Name or Attribute, not a part of a
    longer one, not a binding)."""
    if not isinstance(node, (cst.Name, cst.Attribute)) or data.code(node) != term:
        return False
    parent = data.parent(node)
    if isinstance(parent, cst.Attribute) and (parent.value is node or parent.attr is node):
        return False
    return _is_read(data, node)


def _is_read(data: ShardDataLoaders, node: cst.CSTNode) -> bool:
    """Not a binding, an attribute's name or a keyword."""
    parent = data.parent(node)
    if isinstance(parent, cst.Attribute) and parent.attr is node:
        return False
    if isinstance(parent, (cst.AssignTarget, cst.AugAssign, cst.For)):
        return parent.target is not node
    if isinstance(parent, cst.Arg):
        return parent.value is node
    return not isinstance(parent, cst.Param)


def _alias_of(data: ShardDataLoaders, read: cst.CSTNode, aliases: set[str]) -> str | None:
    """The alias `read` is the whole value of (`chunk = self.arg.fbs`), if any."""
    parent = data.parent(read)
    if isinstance(parent, cst.Assign) and parent.value is read and len(parent.targets) == 1:
        target = parent.targets[0].target
        if isinstance(target, cst.Name) and target.value in aliases:
            return target.value
    return None


def _global_count(
    data: ShardDataLoaders,
    read: cst.CSTNode,
    batch: set[str],
    assigned: dict[str, list[cst.BaseExpression]],
) -> bool:
    """`BATCH // read` (or `/`, `%`) whose left operand is no size of a batch: a count of
    the global batch's chunks, which keeps the global size."""
    parent = data.parent(read)
    if not (
        isinstance(parent, cst.BinaryOperation)
        and parent.right is read
        and isinstance(parent.operator, _COUNTING)
    ):
        return False
    if _sizes(parent.left):
        return False
    for leaf in _leaves(parent.left):
        if isinstance(leaf, cst.Name) and (
            leaf.value in batch or any(_sizes(v) for v in assigned.get(leaf.value, []))
        ):
            return False
    return True


def _mixed(
    data: ShardDataLoaders,
    read: cst.CSTNode,
    batch: set[str],
    assigned: dict[str, list[cst.BaseExpression]],
) -> bool:
    """`read` meets another size of no batch in an operation and is not the divisor of a
    count (`BATCH // MICRO` read at BATCH): which of the two is the global batch is not
    known, so neither is scaled."""
    parent = data.parent(read)
    if not isinstance(parent, cst.BinaryOperation) or _global_count(data, read, batch, assigned):
        return False
    other = parent.right if parent.left is read else parent.left
    if _sizes(other):
        return False
    return any(
        isinstance(leaf, (cst.Name, cst.Attribute))
        and not (_names(leaf) & batch)
        and not (isinstance(leaf, cst.Name) and leaf.value in assigned)
        for leaf in _leaves(other)
    )


def _detail(data: ShardDataLoaders, chunk: cst.CSTNode, size: str, why: str) -> str:
    return (
        f"{data.code(chunk)} cuts this rank's batch into chunks of {size}, a size of the "
        "global batch under DataParallel (which scattered each chunk over the devices); "
        "each rank's batch is now batch_size // WORLD_SIZE, so a chunk holds WORLD_SIZE "
        "times DataParallel's per-device chunk, and where the size is the batch's, range() "
        f"runs no chunk at all. Not scaled: {why}; scale it (// WORLD_SIZE) as the batch "
        "was scaled"
    )


def _names(expr: cst.CSTNode) -> set[str]:
    return {n.value for n in walk(expr) if isinstance(n, cst.Name)}


def _sizes(expr: cst.CSTNode) -> bool:
    """Reads a size of a batch (`x.size(0)`, `len(x)`, `x.shape[0]`): per-rank already."""
    for node in walk(expr):
        if isinstance(node, cst.Call) and name_of(node.func) in ("len", "size"):
            return True
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
            if node.func.attr.value == "size":
                return True
        if isinstance(node, cst.Attribute) and node.attr.value == "shape":
            return True
    return False


def _size_terms(
    data: ShardDataLoaders,
    expr: cst.BaseExpression,
    assigned: dict[str, list[cst.BaseExpression]],
    batch: set[str],
    counter: set[str],
    depth: int,
) -> tuple[list[str], bool]:
    """The sizes (names, attributes) a bound reads that are not the batch's own, and whether
    it reads the chunk loop's counter; through names assigned in the loop."""
    if _sizes(expr):
        return [], any(n in counter for n in _names(expr))
    terms: list[str] = []
    counts = False
    for node in _leaves(expr):
        if isinstance(node, cst.Name) and node.value in counter:
            counts = True
        elif isinstance(node, cst.Name) and node.value in assigned and depth < 4:
            values = assigned[node.value]
            if any(_sizes(v) for v in values):
                continue  # sized by the batch: per-rank
            for value in values:
                more, more_counts = _size_terms(data, value, assigned, batch, counter, depth + 1)
                terms += [t for t in more if t not in terms]
                counts |= more_counts
        elif isinstance(node, (cst.Name, cst.Attribute)) and not _names(node) & batch:
            text = data.code(node)
            if text not in terms:
                terms.append(text)
    return terms, counts


def _leaves(expr: cst.BaseExpression) -> Iterator[cst.BaseExpression]:
    """The operands of an arithmetic expression: names and attributes, not their parts."""
    if isinstance(expr, cst.BinaryOperation):
        yield from _leaves(expr.left)
        yield from _leaves(expr.right)
    elif isinstance(expr, cst.UnaryOperation):
        yield from _leaves(expr.expression)
    elif isinstance(expr, (cst.Name, cst.Attribute)):
        yield expr
