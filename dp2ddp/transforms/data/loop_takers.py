"""Which loops take a loader's batches and what they run, beyond `for x in loader`
(data pass): a `while` loop that takes them with `next(it)` of `iter(loader)` (class H2
of stop 32), and the calls a loop proved never to train may make (class H1)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from dp2ddp.transforms._support.nodes import (
    assigned_value,
    derived_names,
    name_of,
    variables_under,
    walk,
)
from dp2ddp.transforms.data.decisions import LIBRARY_ROOTS

if TYPE_CHECKING:
    from dp2ddp.transforms.data import ShardDataLoaders
    from dp2ddp.transforms.data.plan import Loader


def register_next_loops(
    t: ShardDataLoaders, nodes: list[cst.CSTNode], loaders: dict[cst.Call, Loader]
) -> None:
    """Each loader's `next_loops`: the `while` loops, and the `for` loops not over a loader,
    that take its batches with `next(it)` (next_loaders)."""
    over_loaders = {id(loop) for found in loaders.values() for loop, _, _ in found.loops}
    for taker in nodes:
        if not (
            isinstance(taker, cst.While)
            or isinstance(taker, cst.For)
            and id(taker) not in over_loaders
        ):
            continue
        for call in next_loaders(t, taker, loaders):
            if not any(seen is taker for seen in loaders[call].next_loops):
                loaders[call].next_loops.append(taker)


def next_loaders(
    t: ShardDataLoaders, loop: cst.While | cst.For, loaders: dict[cst.Call, Loader]
) -> set[cst.Call]:
    """The loaders whose batches `loop` takes with `next(it)`, `it` bound only to
    `iter(loader)` (`while True: try: x, y = next(it) except StopIteration: it =
    iter(dl)`): the loop consumes their batches as a `for` over them does (class H2). Also
    a `for` loop over something else, `for i in range(n):` (class D1, stop 33:
    deeplab-pytorch's iterations, each taking ITER_SIZE batches so)."""
    found: set[cst.Call] = set()
    for node in walk(loop.body, skip_scopes=True):
        if not (
            isinstance(node, cst.Call)
            and name_of(node.func) == "next"
            and node.args
            and isinstance(it := node.args[0].value, cst.Name)
        ):
            continue
        bound = [assigned_value(r.node, t) for r in t.referents(it)]
        if not bound or not all(
            isinstance(b, cst.Call) and name_of(b.func) == "iter" and len(b.args) == 1
            for b in bound
        ):
            continue
        for b in bound:
            assert isinstance(b, cst.Call)
            found.update(call for call, _ in t._resolve(b.args[0].value, loaders, 0))
    return found


def package_call(t: ShardDataLoaders, call: cst.Call) -> bool:
    """A package's function: `np.save`, `os.path.join`, `len`."""
    return any(q.split(".")[0] in LIBRARY_ROOTS for q in t.qualified_names(call.func))


def runs_module(t: ShardDataLoaders, call: cst.Call) -> bool:
    """A call of a name bound only to a torch object (`model = nn.DataParallel(Net())`):
    its forward."""
    if not isinstance(call.func, cst.Name):
        return False
    referents = t.referents(call.func)
    return bool(referents) and all(
        isinstance(r.node, cst.Name)
        and isinstance(bound := assigned_value(r.node, t), cst.Call)
        and any(q.split(".")[0] == "torch" for q in t.qualified_names(bound.func))
        for r in referents
    )


def batch_names(loop: cst.For | cst.While) -> set[str]:
    """A `for` loop's target; what the loop binds from `next(it)` (a `while` loop's
    batches, or a `for` loop's over `range` that takes them so)."""
    target = variables_under(loop.target) if isinstance(loop, cst.For) else []
    return {n.value for n in target} | {
        n.value
        for node in walk(loop.body, skip_scopes=True)
        if isinstance(node, cst.Assign)
        and isinstance(node.value, cst.Call)
        and name_of(node.value.func) == "next"
        for t in node.targets
        for n in variables_under(t.target)
    }


def batch_derived(loop: cst.For | cst.While) -> set[str]:
    """Names the loop binds from its batches: its target, and what the body computes
    from them (`output = model(input)`, `loss = criterion(output, target)`)."""
    return derived_names(loop.body, batch_names(loop))
