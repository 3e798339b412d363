"""A sharded batch cut into chunks of a size that kept its global value (DP051).

kenziyuliu/MS-G3D@2f927f4 (main.py): gradient accumulation by chunks. Inside the loop over
the training loader, `splits = len(data) // forward_batch_size` (or the configured
`batch_size // forward_batch_size`), then `for i in range(splits): left = i * fbs;
right = left + fbs; out = model(data[left:right])`. Under DataParallel the loader gave the
global batch and each chunk was scattered over the devices; migrated, the loader gives each
rank batch // WORLD_SIZE samples while the chunk size keeps its global value: with a chunk
size equal to the batch the loop runs `range(4 // 8)` = 0 forwards (no training at all, and
nothing says so) or the program's own assert fails; otherwise each forward holds
WORLD_SIZE times DataParallel's per-device chunk (BatchNorm normalises other groups). Which
size the program meant (the per-rank chunk is fbs // WORLD_SIZE, DataParallel's per-device
chunk) is its choice, so DP051 names the slice and the size.

Found: a loop over a loader this pass shards; names bound from its batch in its body (the
loop's targets, and names assigned from expressions that read them); inside it, an inner
`for ... in range(...)` whose body slices such a batch with bounds that read the inner
loop's variable and a size that is not taken from the batch itself (`x.size(0)`, `len(x)`,
`x.shape[0]` are per-rank already): a name or attribute, also through names assigned in the
loop (`left = i * fbs`). Constants are left alone (a chunk of 1 is one sample). With
--per-process-batch the batch keeps its size: nothing to warn.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

import libcst as cst

from dp2ddp.transforms._support.nodes import name_of, walk

if TYPE_CHECKING:
    from dp2ddp.transforms.data import ShardDataLoaders


def global_chunk_sizes(
    data: ShardDataLoaders,
    nodes: list[cst.CSTNode],
    sharded: set[cst.Call],
    iterated_through: Callable[[cst.BaseExpression], list[cst.BaseExpression]],
) -> Iterator[tuple[cst.Subscript, str]]:
    """(the slice, the warning's detail) for each chunk of a sharded batch cut by a size
    that is not the batch's own."""
    loaders = data._loaders
    for loop in (n for n in nodes if isinstance(n, cst.For)):
        calls = [c for e in iterated_through(loop.iter) for c, _ in data._resolve(e, loaders, 0)]
        if not any(c in sharded for c in calls):
            continue
        body = list(walk(loop.body, skip_scopes=True))
        batch = _names(loop.target)
        assigned: dict[str, list[cst.BaseExpression]] = {}
        for node in body:
            if isinstance(node, cst.Assign):
                for target in node.targets:
                    for name in _names(target.target):
                        assigned.setdefault(name, []).append(node.value)
        changed = True
        while changed:  # names assigned from the batch (`data = data.float()`)
            changed = False
            for name, values in assigned.items():
                if name not in batch and any(_names(v) & batch and not _sizes(v) for v in values):
                    batch.add(name)
                    changed = True
        seen: set[str] = set()
        for inner in body:
            if not (
                isinstance(inner, cst.For)
                and isinstance(inner.iter, cst.Call)
                and name_of(inner.iter.func) == "range"
            ):
                continue
            counter = _names(inner.target)
            for node in walk(inner.body, skip_scopes=True):
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
                terms: list[str] = []
                reads_counter = False
                for bound in bounds:
                    found, counts = _size_terms(data, bound, assigned, batch, counter, 0)
                    terms += [t for t in found if t not in terms]
                    reads_counter |= counts
                if not reads_counter or not terms:
                    continue
                key = f"{data.code(node)}"
                if key in seen:
                    continue
                seen.add(key)
                sizes = ", ".join(terms)
                yield (
                    node,
                    f"{data.code(node)} cuts this rank's batch into chunks of {sizes}, a size "
                    "of the global batch under DataParallel (which scattered each chunk over "
                    "the devices); each rank's batch is now batch_size // WORLD_SIZE, so a "
                    "chunk holds WORLD_SIZE times DataParallel's per-device chunk, and where "
                    "the size is the batch's, range() runs no chunk at all: scale it "
                    "(// WORLD_SIZE) as the batch was scaled",
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
