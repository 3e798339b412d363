"""Chunks of a global size cut from this rank's batch: the reads of the size taken per rank.

Under DataParallel a training batch was the global one and each chunk a loop cut from it
(gradient accumulation, micro-batches, a language model's column chunks) was scattered over
the devices. Once each rank holds its part of the batch (a sharded loader: the data pass; a
split where the batch is bound: the batches pass), a chunk size that kept its global value
cuts WORLD_SIZE times DataParallel's per-device chunk, and a loop bound by the global width
runs past this rank's part (empty chunks: the gradient shrinks by WORLD_SIZE, silently). The
faithful reading: every size that cuts or counts this rank's batch is this rank's part,
`ddp_per_rank_batch(size)`, so each rank runs the original's count of chunks, each its part
of DataParallel's chunk; a ratio of two global sizes (a loss weight `chunk / batch`) keeps
them, as it is the same ratio per rank. data/chunks.py (loaders) and batches/ (splits) use
`plan_body` on the names a batch is bound to; the rules are in data/chunks.py's docstring.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

import libcst as cst

from dp2ddp.transforms._support.base import MigrationTransform
from dp2ddp.transforms._support.nodes import call_named, name_of, walk
from dp2ddp.transforms.analysis.chunk_divisors import (
    divides,
    folded_figures,
    leaves,
    names_in,
    sizes_read,
)

PER_RANK = "ddp_per_rank_batch"
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
    #: (division, detail) for DP106: a value divided by a scaled size, neither proved a
    #: figure of this rank's batch nor a configured size
    figures: list[tuple[cst.CSTNode, str]] = field(default_factory=list)
    #: (comparison, detail) for DP153: a batch's size compared with 1 where not every rank
    #: is proved to reach the comparison (data/size_guards.py)
    one_sample: list[tuple[cst.CSTNode, str]] = field(default_factory=list)


def plan_body(
    data: MigrationTransform,
    plan: ChunkPlan,
    body: list[cst.CSTNode],
    batch: set[str],
    where: str,
    scale: bool = True,
    arguments: dict[str, list[cst.BaseExpression]] | None = None,
    dim: int = 0,
    extents: bool = False,
) -> set[str]:
    """Plan the chunks `body` cuts from `batch` (names, grown by the names assigned from
    them); returns the grown batch names. `arguments`: a function's parameters -> what its
    calls give them (a size given as a parameter is global where every call gives a
    configured size, per rank already where every call gives a batch's size or a
    constant, and not known where the calls differ). `dim`: the dim the batch was split
    along (the slice at that position cuts the chunks). `extents`: the chunk loop's
    extent is read too (`range(0, B, chunk)`, `while start < B`): a batch split where it
    is bound keeps the global width B in the loop that walks it, where a loader's batch
    is walked by its own size (`len(x)`); B is taken per rank with the chunk size, and a
    ratio of the two (a loss weight `chunk / B`) keeps both, being the same per rank."""
    batch = set(batch)
    assigned: dict[str, list[cst.BaseExpression]] = {}
    for node in body:
        if isinstance(node, cst.Assign):
            for target in node.targets:
                for name in names_in(_stored(target.target)):
                    assigned.setdefault(name, []).append(node.value)
        elif isinstance(node, (cst.AugAssign, cst.For)):
            for name in names_in(node.target):
                assigned.setdefault(name, []).append(node.target)
    iterated = {  # `for x, y in zip(data.chunk(k, 1), ...)`: x, y are parts of the batch
        name: node.iter
        for node in body
        if extents and isinstance(node, cst.For)
        for name in names_in(node.target)
    }
    changed = True
    while changed:  # names assigned from the batch (`data = data.float()`)
        for name, source in iterated.items():
            if name not in batch and names_in(source) & batch and not sizes_read(source):
                batch.add(name)
        changed = False
        for name, values in assigned.items():
            if name not in batch and any(names_in(v) & batch and not sizes_read(v) for v in values):
                batch.add(name)
                changed = True
    cuts: dict[str, list[cst.CSTNode]] = {}  # size -> the chunks it cuts
    walks: dict[cst.CSTNode, cst.BaseExpression | None] = {}  # chunk -> its loop's extent
    for node, terms, loop in _chunks(data, body, batch, assigned, dim):
        if extents and loop is not None:
            known, walks[node] = _extent(data, loop, batch)
            if not known:
                why = "the loop that walks the batch has no extent dp2ddp can read"
                plan.warnings.append((node, _detail(data, node, " and ".join(terms), why)))
                continue
        if len(terms) == 1:
            cuts.setdefault(terms[0], []).append(node)
        else:  # a size computed from several global sizes: which one means what?
            why = "the size is computed from several configured sizes, " + _UNKNOWN
            plan.warnings.append((node, _detail(data, node, " and ".join(terms), why)))
    # the extents walked (`chunk / B` is a weight); None: no ratio is read as a weight
    ratios = {data.code(e) for e in walks.values() if e is not None} if extents else None
    for term, chunks in cuts.items():
        given = (arguments or {}).get(term)
        if given is not None:
            local = [sizes_read(a) or isinstance(a, (cst.Integer, cst.Float)) for a in given]
            if all(local):
                continue  # every call gives a size of its batch: per rank already
            scale = scale and not any(local)
        if not scale:
            why = f"not every call of {where} gives it this rank's batch and a configured {term}"
        elif not _scale(data, plan, where, body, batch, assigned, term, chunks, ratios):
            why = f"{term} meets another configured size in {where}, " + _UNKNOWN
        else:
            for chunk in chunks:
                extent = walks.get(chunk)
                if extent is not None and extent not in plan.swaps:
                    plan.swaps[extent] = call_named(PER_RANK, cst.Arg(extent.deep_clone()))
            continue
        for chunk in dict.fromkeys(chunks):
            plan.warnings.append((chunk, _detail(data, chunk, term, why)))
    if extents and (walks or _chunked(data, body, batch, dim)):
        _measured_weights(data, plan, body, batch, assigned, where)
    return batch


def _chunked(data: MigrationTransform, body: list[cst.CSTNode], batch: set[str], dim: int) -> bool:
    """The body cuts the batch into a number of chunks along `dim` (`x.chunk(k, dim)`,
    `torch.chunk(x, k, dim)`): each rank's chunks are its part of DataParallel's."""
    for node in body:
        if not isinstance(node, cst.Call) or name_of(node.func) != "chunk":
            continue
        qualified = "torch.chunk" in data.qualified_names(node.func)
        if qualified:
            first = node.args[0].value if node.args else None
        elif isinstance(node.func, cst.Attribute):
            first = node.func.value
        else:
            continue
        if isinstance(first, cst.Name) and first.value in batch:
            positional = [a.value for a in node.args if a.keyword is None]
            given = [a.value for a in node.args if a.keyword and a.keyword.value == "dim"]
            at = 2 if qualified else 1
            found = given or positional[at : at + 1]
            if (int(found[0].value) if found and isinstance(found[0], cst.Integer) else 0) == dim:
                return True
    return False


def _measured_weights(
    data: MigrationTransform,
    plan: ChunkPlan,
    body: list[cst.CSTNode],
    batch: set[str],
    assigned: dict[str, list[cst.BaseExpression]],
    where: str,
) -> None:
    """A chunk's share measured on the chunk over a configured width (`loss * cur_bs /
    batch_size`, `cur_bs = x.size(1)`): the chunk is this rank's part, so the width is
    too (`ddp_per_rank_batch(batch_size)`): per rank the shares sum to 1, as the
    original's did; with the global width every gradient would be WORLD_SIZE times too
    small."""
    for node in body:
        if not (isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Divide)):
            continue
        width = node.right
        if not isinstance(width, (cst.Name, cst.Attribute, cst.Integer)) or width in plan.swaps:
            continue
        if (
            sizes_read(width)
            or names_in(width) & batch
            or isinstance(width, cst.Integer)
            and int(width.value, 0) < 2
        ):
            continue
        if isinstance(width, cst.Name) and width.value in assigned:
            continue  # bound in the loop: not a configured width
        if not _measures(node.left, batch, assigned):
            continue
        plan.swaps[width] = call_named(PER_RANK, cst.Arg(width.deep_clone()))
        data.state.helpers.add("per_rank_batch")
        plan.records.append(
            (
                node,
                f"{data.code(node)}: a share measured on this rank's chunk over the global "
                f"width {data.code(width)}: read as this rank's part, "
                f"{PER_RANK}({data.code(width)}), in {where}",
            )
        )


def _measures(
    expr: cst.BaseExpression, batch: set[str], assigned: dict[str, list[cst.BaseExpression]]
) -> bool:
    """`expr` reads a size of the batch (`x.size(1)`, or a name bound to one)."""
    for node in walk(expr):
        if isinstance(node, cst.Call) and sizes_read(node) and names_in(node) & batch:
            return True
        if isinstance(node, cst.Subscript) and sizes_read(node) and names_in(node) & batch:
            return True
        if isinstance(node, cst.Name) and node.value not in batch:
            values = assigned.get(node.value, [])
            if values and all(sizes_read(v) and names_in(v) & batch for v in values):
                return True
    return False


def _chunks(
    data: MigrationTransform,
    body: list[cst.CSTNode],
    batch: set[str],
    assigned: dict[str, list[cst.BaseExpression]],
    dim: int,
) -> Iterator[tuple[cst.CSTNode, list[str], cst.For | cst.While | None]]:
    """(chunk, the global sizes it is cut by, the loop walking the batch): slices of the
    batch along `dim` by an inner range loop's counter (or a name a `while` loop steps or
    tests), `torch.split(x, size)` and `x.split(size)` along `dim`."""
    for inner in body:
        if isinstance(inner, cst.Call) and _splits_batch(data, inner, batch):
            size = _split_size(data, inner)
            if size is not None and _split_dim(data, inner) == dim:
                terms, _ = _size_terms(data, size, assigned, batch, set(), 0)
                if terms:
                    yield inner, terms, None
            continue
        if (
            isinstance(inner, cst.For)
            and isinstance(inner.iter, cst.Call)
            and name_of(inner.iter.func) == "range"
        ):
            counter = names_in(inner.target)
        elif isinstance(inner, cst.While):  # `while start < len(x): ...; start += size`
            stepped = [n for n in walk(inner.body, skip_scopes=True)]
            counter = {
                n.target.value
                for n in stepped
                if isinstance(n, cst.AugAssign) and isinstance(n.target, cst.Name)
            }
            rebound = {  # `start = end` in the body, `start` tested: the loop's counter
                name
                for n in stepped
                if isinstance(n, cst.Assign)
                for t in n.targets
                for name in names_in(t.target)
            }
            if isinstance(inner.test, cst.Comparison) and isinstance(inner.test.left, cst.Name):
                counter |= {inner.test.left.value} & rebound
        else:
            continue
        for node in walk(inner.body, skip_scopes=True):  # slices by the counter
            if not (
                isinstance(node, cst.Subscript)
                and isinstance(node.value, cst.Name)
                and node.value.value in batch
                and len(node.slice) > dim
                and isinstance(node.slice[dim].slice, cst.Slice)
                and all(  # the positions before `dim` take everything (`x[:, a:b]`)
                    _whole(e.slice) for e in node.slice[:dim]
                )
            ):
                continue
            cut = node.slice[dim].slice
            assert isinstance(cut, cst.Slice)
            bounds = [b for b in (cut.lower, cut.upper) if b is not None]
            sizes: list[str] = []
            reads_counter = False
            for bound in bounds:
                found, counts = _size_terms(data, bound, assigned, batch, counter, 0)
                sizes += [t for t in found if t not in sizes]
                reads_counter |= counts
            if reads_counter and sizes:
                yield node, sizes, inner


def _whole(index: cst.BaseSlice) -> bool:
    """`:` (every position of a dim)."""
    return (
        isinstance(index, cst.Slice)
        and index.lower is None
        and index.upper is None
        and index.step is None
    )


def _split_dim(data: MigrationTransform, call: cst.Call) -> int | None:
    """The dim a split call cuts along (0 unless given); None where not a literal."""
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == "dim":
            return int(arg.value.value) if isinstance(arg.value, cst.Integer) else None
    positional = [a.value for a in call.args if a.keyword is None]
    at = 2 if "torch.split" in data.qualified_names(call.func) else 1
    if len(positional) <= at:
        return 0
    given = positional[at]
    return int(given.value) if isinstance(given, cst.Integer) else None


def _extent(
    data: MigrationTransform, loop: cst.For | cst.While, batch: set[str]
) -> tuple[bool, cst.BaseExpression | None]:
    """(known, the global width a chunk loop walks): `range(0, B, chunk)`'s B, `while start
    < B`'s B, a configured size (a name, an attribute, a literal); (True, None) where the
    width is the batch's own size (`range(0, x.size(1), chunk)`: per rank already) or the
    loop counts chunks (`range(B // chunk)`: the original's count); (False, None) where
    the loop's extent cannot be read."""
    extent: cst.BaseExpression | None = None
    if isinstance(loop, cst.For) and isinstance(loop.iter, cst.Call):
        positional = [a.value for a in loop.iter.args if a.keyword is None and not a.star]
        if len(positional) == 1:
            return True, None
        if len(positional) in (2, 3):
            extent = positional[1]
    elif isinstance(loop, cst.While) and isinstance(loop.test, cst.Comparison):
        if len(loop.test.comparisons) == 1 and isinstance(
            loop.test.comparisons[0].operator, (cst.LessThan, cst.LessThanEqual)
        ):
            extent = loop.test.comparisons[0].comparator
    if extent is None:
        return False, None
    if sizes_read(extent):
        return True, None
    if isinstance(extent, cst.Integer) and int(extent.value, 0) > 1:
        return True, extent
    if isinstance(extent, (cst.Name, cst.Attribute)) and not names_in(extent) & batch:
        return True, extent
    return False, None


def _splits_batch(data: MigrationTransform, call: cst.Call, batch: set[str]) -> bool:
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


def _split_size(data: MigrationTransform, call: cst.Call) -> cst.BaseExpression | None:
    """The size argument of a split call; None when given by `*` or not at all."""
    if any(a.star for a in call.args):
        return None
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value in _SPLIT_SIZE:
            return arg.value
    positional = [a.value for a in call.args if a.keyword is None]
    at = 1 if "torch.split" in data.qualified_names(call.func) else 0
    return positional[at] if len(positional) > at else None


def _stored(target: cst.BaseExpression) -> cst.BaseExpression:
    """What a store changes: `buf` of `buf[i * n:(i + 1) * n] = ...` (stop 54 v3-A: the
    names of the index, the chunk size among them, are read there, not bound)."""
    while isinstance(target, cst.Subscript):
        target = target.value
    return target


def _scale(
    data: MigrationTransform,
    plan: ChunkPlan,
    where: str,
    body: list[cst.CSTNode],
    batch: set[str],
    assigned: dict[str, list[cst.BaseExpression]],
    term: str,
    chunks: list[cst.CSTNode],
    ratios: set[str] | None = None,
) -> bool:
    """Take the reads of the global size `term` in `loop` per rank; False where there is
    none to take (the size is read elsewhere: DP051). A read in one arithmetic expression
    with a global extent of `ratios` (`loss * chunk / B`) is left: the ratio is the same
    per rank."""
    reads = [n for n in body if _reads(data, n, term) and not _in_ratio(data, n, ratios)]
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
    held = batch | folded_figures(body, batch)
    kinds = {id(r): divides(data, r, held, assigned) for r in [*reads, *alias_reads]}
    swaps: list[cst.CSTNode] = []
    for read in reads:
        holder = _alias_of(data, read, aliases)
        if holder is None:
            if kinds[id(read)] not in ("count", "unknown"):
                swaps.append(read)
        elif all(
            kinds[id(r)] not in ("count", "unknown") for r in alias_reads if r.value == holder
        ):
            swaps.append(read)  # the alias takes the per-rank value where it is bound
        else:
            swaps += [
                r
                for r in alias_reads
                if r.value == holder and kinds[id(r)] not in ("count", "unknown")
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
    bound = {holder for r in swaps if (holder := _alias_of(data, r, aliases)) is not None}
    for read in [*reads, *alias_reads]:
        per_rank = read in swaps or isinstance(read, cst.Name) and read.value in bound
        _say_figure(data, plan, read, kinds[id(read)], term, per_rank)
    return True


def _say_figure(
    data: MigrationTransform,
    plan: ChunkPlan,
    read: cst.CSTNode,
    kind: str | None,
    term: str,
    swapped: bool,
) -> None:
    """A figure divided by the scaled size: recorded where it is this rank's (its divisor
    is now this rank's part too, so a per-sample loss is one still, not 1 / WORLD_SIZE of
    it); DP106 where what it divides is not known to be a figure of this rank's batch or a
    configured size (mcan-vqa's `loss / SUB_BATCH_SIZE`, class v3-B of stop 42, printed
    the halved figure in silence before)."""
    division = data.parent(read)
    if kind == "figure" and swapped and isinstance(division, cst.BinaryOperation):
        plan.records.append(
            (
                division,
                f"{data.code(division)} divides a figure of this rank's chunk by {term}: "
                f"read as {PER_RANK}({term}) there too, the chunk's size on this rank",
            )
        )
    elif kind == "unknown" and isinstance(division, cst.BinaryOperation):
        left = data.code(division.left)
        whole = data.code(division.with_changes(lpar=[], rpar=[]))
        plan.figures.append(
            (
                division,
                f"{whole} divides {left} by {term}, the chunk size now read as "
                f"this rank's part, {PER_RANK}({term}), where it cuts the batch; whether "
                f"{left} is a figure of this rank's chunk (its divisor should then be "
                f"{PER_RANK}({term}) too) or a size of the global batch (then {term} is "
                "right) is not proved: left as written",
            )
        )


def _in_ratio(data: MigrationTransform, read: cst.CSTNode, ratios: set[str] | None) -> bool:
    """`read` is an operand of arithmetic (up through the operations around it) that
    also reads one of `ratios` (`chunk / B`, `loss * chunk / B`) or, with `ratios` given
    (a walked split batch), divides by another configured size (`loss * chunk /
    BATCH` in a loop that walks `x.size(1)`): a weight, the same ratio per rank."""
    if ratios is None:
        return False
    top: cst.CSTNode = read
    while isinstance(parent := data.parent(top), cst.BinaryOperation):
        top = parent
    if top is read:
        return False
    for node in walk(top):
        if node is read or not isinstance(node, (cst.Name, cst.Attribute, cst.Integer)):
            continue
        if data.code(node) in ratios:
            return True
    return any(
        isinstance(n, cst.BinaryOperation)
        and isinstance(n.operator, cst.Divide)
        and not sizes_read(n.right)
        and any(
            isinstance(leaf, (cst.Name, cst.Attribute))
            or (isinstance(leaf, cst.Integer) and int(leaf.value, 0) > 1)
            for leaf in walk(n.right)
            if leaf is not read
        )
        for n in walk(top)
    )


def _reads(data: MigrationTransform, node: cst.CSTNode, term: str) -> bool:
    """`node` reads the size spelled `term` (a whole Name or Attribute, not a part of a
    longer one, not a binding)."""
    if not isinstance(node, (cst.Name, cst.Attribute)) or data.code(node) != term:
        return False
    parent = data.parent(node)
    if isinstance(parent, cst.Attribute) and (parent.value is node or parent.attr is node):
        return False
    return _is_read(data, node)


def _is_read(data: MigrationTransform, node: cst.CSTNode) -> bool:
    """Not a binding, an attribute's name or a keyword."""
    parent = data.parent(node)
    if isinstance(parent, cst.Attribute) and parent.attr is node:
        return False
    if isinstance(parent, (cst.AssignTarget, cst.AugAssign, cst.For)):
        return parent.target is not node
    if isinstance(parent, cst.Arg):
        return parent.value is node
    return not isinstance(parent, cst.Param)


def _alias_of(data: MigrationTransform, read: cst.CSTNode, aliases: set[str]) -> str | None:
    """The alias `read` is the whole value of (`chunk = self.arg.fbs`), if any."""
    parent = data.parent(read)
    if isinstance(parent, cst.Assign) and parent.value is read and len(parent.targets) == 1:
        target = parent.targets[0].target
        if isinstance(target, cst.Name) and target.value in aliases:
            return target.value
    return None


def _global_count(
    data: MigrationTransform,
    read: cst.CSTNode,
    batch: set[str],
    assigned: dict[str, list[cst.BaseExpression]],
) -> bool:
    """`BATCH // read` (or `/`, `%`) whose left operand is a configured size: a count of
    the global batch's chunks, which keeps the global size."""
    return divides(data, read, batch, assigned) == "count"


def _mixed(
    data: MigrationTransform,
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
    if sizes_read(other):
        return False
    return any(
        isinstance(leaf, (cst.Name, cst.Attribute))
        and not (names_in(leaf) & batch)
        and not (isinstance(leaf, cst.Name) and leaf.value in assigned)
        for leaf in leaves(other)
    )


def _detail(data: MigrationTransform, chunk: cst.CSTNode, size: str, why: str) -> str:
    return (
        f"{data.code(chunk)} cuts this rank's batch into chunks of {size}, a size of the "
        "global batch under DataParallel (which scattered each chunk over the devices); "
        "each rank's batch is now batch_size // WORLD_SIZE, so a chunk holds WORLD_SIZE "
        "times DataParallel's per-device chunk, and where the size is the batch's, range() "
        f"runs no chunk at all. Not scaled: {why}; scale it (// WORLD_SIZE) as the batch "
        "was scaled"
    )


def _size_terms(
    data: MigrationTransform,
    expr: cst.BaseExpression,
    assigned: dict[str, list[cst.BaseExpression]],
    batch: set[str],
    counter: set[str],
    depth: int,
) -> tuple[list[str], bool]:
    """The sizes (names, attributes) a bound reads that are not the batch's own, and whether
    it reads the chunk loop's counter; through names assigned in the loop."""
    if sizes_read(expr):
        return [], any(n in counter for n in names_in(expr))
    terms: list[str] = []
    counts = False
    for node in leaves(expr):
        if isinstance(node, cst.Name) and node.value in counter:
            counts = True
        elif isinstance(node, cst.Name) and node.value in assigned and depth < 4:
            values = assigned[node.value]
            if any(sizes_read(v) for v in values):
                continue  # sized by the batch: per-rank
            for value in values:
                more, more_counts = _size_terms(data, value, assigned, batch, counter, depth + 1)
                terms += [t for t in more if t not in terms]
                counts |= more_counts
        elif isinstance(node, (cst.Name, cst.Attribute)) and not names_in(node) & batch:
            text = data.code(node)
            if text not in terms:
                terms.append(text)
    return terms, counts


def names_of(expr: cst.CSTNode) -> set[str]:
    """The names `expr` reads or binds (`x, (y, z)` -> x, y, z)."""
    return names_in(expr)
