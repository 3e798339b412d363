"""A loop over a sharded loader runs as many passes on every rank (issue 29, uniformity.py).

Its batches differ between ranks, so uniformity.py cannot prove `for x, y in loader:` by
the value it iterates; yet a barrier in such a loop (after a checkpoint saved on rank 0 and
loaded back in the same pass: princeton-vl/RAFT's loop, stop 34) needs only that every rank
runs as many passes. That is proved here, from how the loader is built, never assumed:

- the loop iterates a loader (through `enumerate(...)`, or a progress bar), a name or
  `self.x` every binding of which in the module is `DataLoader(..., sampler=S(...))` with S
  torch's DistributedSampler or the header's DdpDistributedSampler, no `batch_sampler=`,
  at most the dataset and the batch size positional, and each binding reached by every rank;
  or (stop 52 w3), where another module of the program reads this one in its original
  text (RankUniformity.original_text: the loaders not migrated yet), a DataLoader with
  neither `sampler=` nor `batch_sampler=` (at most the dataset, the batch size and shuffle
  positional) (wujiyang/Face_Pytorch@3afd941
  train.py: a step counter `total_iters += 1` in the loop over `trainloader` decides the
  evaluation that eval_lfw.py's writes and reads the .mat files in). Whether the data pass
  shards it (DistributedSampler: `ceil(len(dataset) / WORLD_SIZE)` indices on every rank)
  or leaves it whole (every index on every rank), each rank runs as many passes;
- its batch size (`ddp_per_rank_batch(B)` or any other), `drop_last`, and the sampler's
  `num_replicas` and `drop_last` are the same on every rank (uniformity.py's values);
- no rank leaves the loop early on its own: no `break`, `return` or `raise` leaving it under
  a condition (inside it) that may differ between ranks (`if loss.item() < limit: break`).

A DistributedSampler hands each rank `ceil(len(dataset) / WORLD_SIZE)` indices (the list
padded; `floor` with drop_last), whatever its rank; the loader cuts them into batches by its
batch size and drop_last: the same count on every rank. That rests on `len(dataset)` being
the same on every rank, the premise of sharding by index itself: the data pass builds every
rank's dataset alike (`ddp_same_random`) or warns where it cannot, and a dataset listed from
files rank 0 writes is waited for (barriers.py) or warned (DP054, DP066).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from dp2ddp.flow import Definition, view
from dp2ddp.flow.origins import argument_for
from dp2ddp.transforms._support.names import (
    DATALOADER,
    DDP_DISTRIBUTED_SAMPLER,
    DISTRIBUTED_SAMPLER,
)
from dp2ddp.transforms._support.nodes import leaves_past, name_of, walk
from dp2ddp.transforms.analysis.batch_noise import PER_RANK_BATCH
from dp2ddp.transforms.analysis.guards import bar_iterable

if TYPE_CHECKING:
    from dp2ddp.transforms.analysis.uniformity import RankUniformity


def sharded_passes_alike(uniform: RankUniformity, loop: cst.For) -> bool:
    """`loop` goes through a sharded loader whose length is the same on every rank, and no
    rank leaves it on its own (see the module's docstring)."""
    iterated = _loader_of(uniform, loop.iter)
    if iterated is None:
        return False
    definitions = _bindings(uniform, iterated)
    if not definitions or not all(_sharded(uniform, d) for d in definitions):
        return False
    return not left_per_rank(uniform, loop)


def _loader_of(uniform: RankUniformity, expr: cst.BaseExpression) -> cst.BaseExpression | None:
    """The loader `expr` iterates: itself, or through `enumerate(loader[, start])` or a
    progress bar (`tqdm(loader, ...)`): each yields once per batch."""
    bar = bar_iterable(expr, uniform.view)
    if bar is not None:
        return _loader_of(uniform, bar)
    if isinstance(expr, cst.Call):
        if not uniform.view.qualified_names(expr.func) & {"builtins.enumerate"}:
            return None
        args = [a for a in expr.args if a.keyword is None and not a.star]
        if not args or len(args) != len(expr.args):
            return None
        return _loader_of(uniform, args[0].value)
    return expr if isinstance(expr, (cst.Name, cst.Attribute)) else None


def _bindings(uniform: RankUniformity, loader: cst.BaseExpression) -> list[Definition]:
    """Every binding of the loader's name (or of `self.x` in its class's methods)."""
    flow = view(uniform.module)
    if isinstance(loader, cst.Name):
        return flow.definitions(loader)
    if not (isinstance(loader, cst.Attribute) and isinstance(loader.value, cst.Name)):
        return []
    function = flow.function_around(loader)
    if function is None or function.owner is None or loader.value.value != function.self_name:
        return []
    return flow.attribute_definitions(function.owner, loader.attr.value)


def _sharded(uniform: RankUniformity, definition: Definition) -> bool:
    """A binding of a DataLoader over a DistributedSampler whose length is every rank's."""
    call = definition.value
    if definition.kind != "assign" or definition.element or not isinstance(call, cst.Call):
        return False
    if not uniform.view.qualified_names(call.func) & DATALOADER:
        return False
    keywords = {a.keyword.value: a.value for a in call.args if a.keyword is not None}
    positional = [a.value for a in call.args if a.keyword is None]
    if any(a.star for a in call.args) or len(positional) > 3 or "batch_sampler" in keywords:
        return False
    sampler = keywords.get("sampler")
    # the original text (another module's question): no sampler yet, the data pass's to shard
    whole = uniform.original_text and "sampler" not in keywords
    if not whole and not (
        isinstance(sampler, cst.Call)
        and _distributed_sampler(uniform, sampler)
        and len(positional) <= 2
    ):
        return False
    size = keywords.get("batch_size", positional[1] if len(positional) > 1 else None)
    if isinstance(size, cst.Call) and name_of(size.func) == PER_RANK_BATCH and size.args:
        size = size.args[0].value  # the global batch over WORLD_SIZE: every rank's
    at = definition.statement
    given = sampler.args if isinstance(sampler, cst.Call) else ()
    sampled = {a.keyword.value: a.value for a in given if a.keyword is not None}
    alike = [size, keywords.get("drop_last"), sampled.get("num_replicas"), sampled.get("drop_last")]
    if not all(value is None or uniform.value(value, at) for value in alike):
        return False
    return uniform.rank_dependent_around(at) is None


def _distributed_sampler(uniform: RankUniformity, call: cst.Call) -> bool:
    return name_of(call.func) == DDP_DISTRIBUTED_SAMPLER or bool(
        uniform.view.qualified_names(call.func) & DISTRIBUTED_SAMPLER
    )


def left_per_rank(uniform: RankUniformity, loop: cst.For | cst.While) -> bool:
    """A `break`, `return` or `raise` leaving `loop` under a condition inside it that may
    differ between ranks: that rank runs fewer passes (asked of a `while` too: its test
    alike on every rank does not make its passes alike)."""
    within = {id(node) for node in walk(loop.body)}
    for exit_ in walk(loop.body, skip_scopes=True):
        if isinstance(exit_, cst.Continue) or not leaves_past(exit_, within, uniform.view):
            continue
        if any(id(s) in within for s in uniform.rank_dependent_statements(exit_)):
            return True
    return False


def batch_sizes_alike(uniform: RankUniformity, loop: cst.For, test: cst.BaseExpression) -> bool:
    """`test` reads `loop`'s batches only through their size (`x.size(0)`, `x.shape[0]`,
    `len(x)`) and is otherwise the same on every rank, and every loader `loop` iterates
    (itself, through `enumerate` or a progress bar, or each of a `zip`) is sharded as
    `sharded_passes_alike` proves: each rank's loader yields as many batches, the k-th of
    the same size on every rank (stop 46 v3-D, okankop/Driver-Anomaly-Detection@6f7f251:
    `if normal_data.size(0) != ddp_per_rank_batch(args.n_train_batch_size): break` over
    `zip(train_normal_loader, train_anormal_loader)`, which DP032 said may differ)."""
    loaders = _loaders_of(uniform, loop.iter)
    if not loaders:
        return False
    if not all(_sharded_loader(uniform, loader) for loader in loaders):
        return False
    batches = {n.value for n in walk(loop.target) if isinstance(n, cst.Name)}
    return _sizes_or_uniform(uniform, test, batches, test)


def _sharded_loader(uniform: RankUniformity, loader: cst.BaseExpression) -> bool:
    """Every binding of `loader` is `_sharded`; a parameter of the module's function (the
    real program's `train(train_normal_loader, train_anormal_loader, ...)`), where every
    call of the function passes a name every binding of which is (one hop)."""
    definitions = _bindings(uniform, loader)
    if not definitions:
        return False
    flow = view(uniform.module)
    for definition in definitions:
        if definition.kind != "param" or not isinstance(definition.target, cst.Param):
            if not _sharded(uniform, definition):
                return False
            continue
        function = flow.function_around(definition.target)
        sites = flow.call_sites(function) if function is not None else []
        if function is None or not sites:
            return False
        for site in sites:
            passed = argument_for(site, function, definition.target)
            if not isinstance(passed, cst.Name):
                return False
            bound = flow.definitions(passed)
            if not bound or not all(_sharded(uniform, d) for d in bound):
                return False
    return True


def _loaders_of(uniform: RankUniformity, expr: cst.BaseExpression) -> list[cst.BaseExpression]:
    """The loaders `expr` iterates: one (`_loader_of`), or each argument of `zip(...)`
    (also through `enumerate` or a progress bar: `enumerate(zip(a, b))`)."""
    names = uniform.view.qualified_names(expr.func) if isinstance(expr, cst.Call) else set()
    bar = bar_iterable(expr, uniform.view)
    if bar is not None or (isinstance(expr, cst.Call) and names & {"builtins.enumerate"}):
        inner = bar if bar is not None else expr.args[0].value if expr.args else None  # type: ignore[attr-defined]
        return _loaders_of(uniform, inner) if inner is not None else []
    if isinstance(expr, cst.Call) and names & {"builtins.zip"}:
        found = [_loader_of(uniform, a.value) for a in expr.args]
        if any(a.keyword is not None or a.star for a in expr.args) or None in found:
            return []
        return [f for f in found if f is not None]
    one = _loader_of(uniform, expr)
    return [one] if one is not None else []


def _sizes_or_uniform(
    uniform: RankUniformity, expr: cst.BaseExpression, batches: set[str], at: cst.CSTNode
) -> bool:
    """Each part of `expr` is a batch's size or reads no batch and is uniform."""
    if _size_of_batch(expr, batches):
        return True
    if not any(isinstance(n, cst.Name) and n.value in batches for n in walk(expr)):
        if isinstance(expr, cst.Call) and name_of(expr.func) == PER_RANK_BATCH and expr.args:
            expr = expr.args[0].value  # the global batch over WORLD_SIZE: every rank's
        return uniform.value(expr, at)
    parts: list[cst.BaseExpression]
    if isinstance(expr, cst.Comparison):
        parts = [expr.left, *(c.comparator for c in expr.comparisons)]
    elif isinstance(expr, (cst.BooleanOperation, cst.BinaryOperation)):
        parts = [expr.left, expr.right]
    elif isinstance(expr, cst.UnaryOperation):
        parts = [expr.expression]
    else:
        return False
    return all(_sizes_or_uniform(uniform, p, batches, at) for p in parts)


def _size_of_batch(expr: cst.BaseExpression, batches: set[str]) -> bool:
    """`x.size(0)`, `x.shape[0]`, `len(x)` of a batch name `x`."""
    if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute):
        held, first = expr.func.value, expr.args[0].value if len(expr.args) == 1 else None
        if expr.func.attr.value == "size" and isinstance(first, cst.Integer) and first.value == "0":
            return isinstance(held, cst.Name) and held.value in batches
    if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Name) and expr.func.value == "len":
        only = expr.args[0].value if len(expr.args) == 1 else None
        return isinstance(only, cst.Name) and only.value in batches
    if isinstance(expr, cst.Subscript) and isinstance(expr.value, cst.Attribute):
        shape = expr.value
        index = expr.slice[0].slice if len(expr.slice) == 1 else None
        return (
            shape.attr.value == "shape"
            and isinstance(shape.value, cst.Name)
            and shape.value.value in batches
            and isinstance(index, cst.Index)
            and isinstance(index.value, cst.Integer)
            and index.value.value == "0"
        )
    return False
