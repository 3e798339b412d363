"""Functions whose every batch is one of a loader this module shards, told to its importers.

A generator of a library (`lib.get_iter(batch_size)`: `while True: for x, label in loader:
yield x, label`, the loader sharded here) hands its importer this rank's share of each
batch: an importer's `x, label = itr.__next__()` (or `next(itr)`, or `for ... in
lib.get_iter(...)`) takes a batch as a `for` over the loader does. In one module the batch
proof follows the walk into the generator and to the sharded loader (batches/proof.py); in
another module the walk stops at the call, read as "data nobody split", and the batch was
cut again (`ddp_shard_batch`): each rank trained on a quarter of DataParallel's batch, no
warning (x1's repro of stop 53; taufikxu/Triple-GAN@127948d train_triplegan.py:245-246,
`data_u, _ = itr_u.__next__()` of library/data_iters.py's `inf_train_gen`).

The fact, once per module (program mode, only where the data pass shards a loader): a
top-level function whose every `yield` (a generator: each item; else every `return`) is
proved over the module's def-use view (dp2ddp/flow `origins`) to be one batch of a loader
the data pass shards here: every source of the value, but those reaching it only as a key,
index or size, comes through such a loader, and the one part taken on the way from the
loader is its batch (an element of the iteration; no slice, item or row after it). Told as
LoaderExport(function, yields="yields" | "returns"): the importer's batch proof takes such
a batch as this rank's share (batches/yielded.py), its loops' figures as a loader's
(`yielded_loops`). A loader left whole here (an evaluation's) exports nothing: the
importer's cut stays, as DataParallel's scatter.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import TYPE_CHECKING

import libcst as cst

from dp2ddp.flow import origins, view
from dp2ddp.result import LoaderExport
from dp2ddp.transforms._support.nodes import ITER_WRAPPERS, name_of, nodes_of, walk

if TYPE_CHECKING:
    from dp2ddp.transforms.data import ShardDataLoaders


def yielding_exports(
    t: ShardDataLoaders, module: cst.Module, sharded: Collection[cst.Call]
) -> list[LoaderExport]:
    """LoaderExport(name, True, yields=...) of each top-level function of `module` whose
    every batch is one of the loaders `sharded` (module docstring), or whose every return
    is a call of another module's function exported so (`get_data_iter(bs)` returning
    `data_iters.inf_train_gen(bs, ...)`: Triple-GAN's library/inputs.py, a second hop)."""
    found: list[LoaderExport] = []
    loaders = {id(c) for c in sharded}
    handed = _exported_alike(t)
    for function in module.body if loaders or handed else ():
        if not isinstance(function, cst.FunctionDef):
            continue
        body = list(walk(function.body, skip_scopes=True))
        returns = [n.value for n in body if isinstance(n, cst.Return)]
        kind = _handed_on(t, returns, handed)
        if kind is not None and not any(isinstance(n, cst.Yield) for n in body):
            found.append(LoaderExport(function.name.value, True, yields=kind))
            continue
        if not loaders or not any(isinstance(n, cst.For) or next_of(n) is not None for n in body):
            continue  # takes no batch of a loader itself: not asked (a walk per return)
        yields = [n.value for n in body if isinstance(n, cst.Yield)]
        kind = "yields" if yields else "returns"
        values = yields or returns
        if values and all(
            isinstance(v, cst.BaseExpression) and _one_batch(module, v, loaders) for v in values
        ):
            found.append(LoaderExport(function.name.value, True, yields=kind))
    return found


def _exported_alike(t: ShardDataLoaders) -> dict[str, tuple[LoaderExport, ...]]:
    """The other modules' yielding exports by kind, as plain function exports (what
    data/imported._is_exported matches by name)."""
    exported = [e for e in t.state.loaders.exported if e.yields]
    return {
        kind: alike
        for kind in ("yields", "returns")
        if (
            alike := tuple(
                LoaderExport(e.name, True, module=e.module) for e in exported if e.yields == kind
            )
        )
    }


def _handed_on(
    t: ShardDataLoaders,
    returns: list[cst.BaseExpression | None],
    handed: dict[str, tuple[LoaderExport, ...]],
) -> str | None:
    """The kind every one of `returns` is a call of (an exported function's result handed
    on whole); None where one is not."""
    kinds = set()
    for value in returns:
        if not isinstance(value, cst.Call):
            return None
        origin = t._call_origin(value, None, None)
        kind = next((k for k, alike in handed.items() if t._is_exported(origin, alike)), None)
        if kind is None:
            return None
        kinds.add(kind)
    return kinds.pop() if len(kinds) == 1 else None


def _one_batch(module: cst.Module, value: cst.BaseExpression, loaders: set[int]) -> bool:
    """Every source of `value` not reaching it as a key, index or size comes through one of
    `loaders`, and exactly one part is taken after it (the iteration's element)."""
    found = [o for o in origins(view(module), value) if not o.selects]
    for origin in found:
        at = [i for i, step in enumerate(origin.path) if id(step.node) in loaders]
        if not at or sum(step.cut for step in origin.path[at[-1] + 1 :]) != 1:
            return False
    return bool(found)


def written_shard(t: ShardDataLoaders, loader: cst.Call) -> bool:
    """A DataLoader a migration sharded before (its `sampler=` dp2ddp's: a second run, the
    module a fixed point): its batches are each rank's part as the ones sharded now."""
    return any(
        a.keyword is not None and a.keyword.value == "sampler" and t._is_ours(a.value)
        for a in loader.args
    )


def yielded_loops(t: ShardDataLoaders, module: cst.Module) -> list[cst.For | cst.While]:
    """The loops of this module taking the batches of another module's function exported as
    yielding or returning its sharded loaders' batches: a `for` over a call of it, `next()`
    / `.__next__()` of a value bound from one (a generator), or a call of it (a function
    returning a batch), in the loop's own scope."""
    alike = _exported_alike(t)
    if not alike:
        return []

    def of(expr: cst.BaseExpression, kind: str) -> bool:
        if kind not in alike:
            return False
        if isinstance(expr, cst.Call):
            return t._is_exported(t._call_origin(expr, None, None), alike[kind])
        return any(
            o.call is not None and t._is_exported(o, alike[kind]) for o in t._origins(expr, (), 0)
        )

    found: list[cst.For | cst.While] = []
    for loop in nodes_of(module, (cst.For, cst.While)):
        taking = False
        if isinstance(loop, cst.For):
            source = loop.iter
            while (
                isinstance(source, cst.Call)
                and name_of(source.func) in ITER_WRAPPERS
                and source.args
            ):
                source = source.args[0].value  # `enumerate(lib.get_iter(n))`
            taking = of(source, "yields")
        for node in walk(loop.body, skip_scopes=True):
            if taking:
                break
            if isinstance(node, cst.Call):
                it = next_of(node)
                taking = (it is not None and of(it, "yields")) or of(node, "returns")
        if taking:
            found.append(loop)
    return found


def next_of(node: cst.CSTNode) -> cst.BaseExpression | None:
    """`e` of `next(e)`, `e.next()`, `e.__next__()`; else None."""
    if not isinstance(node, cst.Call):
        return None
    if isinstance(node.func, cst.Name) and node.func.value == "next" and node.args:
        return node.args[0].value
    if (
        isinstance(node.func, cst.Attribute)
        and node.func.attr.value in ("next", "__next__")
        and not node.args
    ):
        return node.func.value
    return None
