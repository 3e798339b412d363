"""Where a loader's batches and figures go decides its role, beyond the loop over it.

* fed_to_samples_only: a loader whose loops only yield its batches from a generator of the
  module takes its role from the generator's takers (analysis/generator_batches.py).
* figures_handed_on: an evaluation loop's figures handed to an object fed in the loop or
  shown per batch, which summing the loop's counters would not make global.
* gathered_whole: a loader whose loops only collect its batches (for a statistic of the
  whole set) stays whole.
* fetched_once: a call of another module's loader factory whose loader only gives one
  fixed batch, `next(iter(loader))` outside any loop (a sample grid's batch).
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

import libcst as cst

from dp2ddp.flow import view
from dp2ddp.transforms._support.grad_mode import grad_off
from dp2ddp.transforms._support.nodes import (
    NodeView,
    enclosing_function,
    inside,
    module_of,
    name_of,
    variables_under,
    walk,
)
from dp2ddp.transforms.analysis.generator_batches import Role, generator_role
from dp2ddp.transforms.data.decisions import only_gathers
from dp2ddp.transforms.data.loop_takers import package_call, runs_module

if TYPE_CHECKING:
    from dp2ddp.transforms.data import ShardDataLoaders
    from dp2ddp.transforms.data.evaluation import LoaderEvaluation
    from dp2ddp.transforms.data.plan import Loader

#: What a figure of a sharded evaluation loop would hold (DP015 says why a loader stays whole).
SHARE = "this rank's batches of a sharded loader"


def fed_to_samples_only(t: ShardDataLoaders, loader: Loader, label: str) -> bool:
    """The loader's loops only yield its batches from a generator of this module, and
    its batches are proved to feed no training (analysis/generator_batches.py: each
    `next()` of the generator is taken in a function that never backpropagates, under
    `no_grad()` or after `.eval()`, and keeps the batch to itself): a fixed sample batch
    (knazeri/edge-connect@3142579's `create_iterator`, class S1 of stop 31). It stays
    whole, as the original drew it, and the outputs built from it are the original's
    (the rank-zero pass writes them on rank 0). A generator whose batches are not
    followed to a training or a sample use is said (DP074), sharded as before."""
    module = module_of(loader.call, t)
    if not loader.loops or not isinstance(module, cst.Module):
        return False
    told = t.state.loaders.generator_takers
    roles = [
        generator_role(view(module), loop, partial(grad_off, matches=t.matches), told)
        for loop, _, _ in loader.loops
    ]
    if any(found is None for found in roles):
        return False
    kinds = {found[0] for found in roles if found is not None}
    names = sorted({f"{found[1]}()" for found in roles if found is not None})
    if kinds == {Role.SHOWS}:
        return True  # nothing changes at the loader: no record (a rerun changes nothing)
    if Role.UNKNOWN in kinds and Role.TRAINS not in kinds:
        t.warn(
            loader.call,
            "DP074",
            f"{label} is sharded as training data, but the batches {', '.join(names)} "
            "yields were not followed to a training or to a sample/evaluation use "
            "(called from no function of the program, or the batch handed on): if "
            "they are for samples or evaluation, each rank gets its share only",
        )
    return False


def gathered_whole(t: ShardDataLoaders, loader: Loader, label: str) -> bool:
    """Every loop over the loader only collects its batches (`only_gathers`: no model run,
    no backward, no call of the program's code; `rows.append(x)`): the data gathered for
    something made of all of it, a whitening fit or a mean (class v3-A of stop 53,
    taufikxu/Triple-GAN@127948d: `AugmentWrapper` fits ZCA on the batches of a shuffled
    loader; sharded as training data, each rank fitted its half and whitened the
    classifier's inputs its own way, with no warning). It stays whole: every rank gathers
    all of it, as the original did (DP163 says so)."""
    if not loader.loops or loader.read_loops or loader.next_loops or not _only_looped(t, loader):
        return False
    takers = (partial(package_call, t), partial(runs_module, t))
    found = [only_gathers(loop, t.qualified_names, *takers) for loop, _, _ in loader.loops]
    if any(call is None for call in found):
        return False
    first = found[0]
    assert first is not None
    t.warn(
        loader.call,
        "DP163",
        f"{label} is iterated only by loops that run no model and train nowhere, its batches "
        f"collected (`{t.code(first)}` at line {t._line(first)}), as for a statistic of the "
        "whole set: left unsharded, every rank gathers all of it as the original did",
    )
    return True


def _only_looped(t: ShardDataLoaders, loader: Loader) -> bool:
    """The loader is a local name of a function whose every read is in the iterable of one
    of its loops: no other code reaches it (an attribute `self.loader`, a global, a name
    returned or handed on may be trained on elsewhere: shared_draws_gathered_batch)."""
    binding, function = loader.binding, enclosing_function(loader.call, t)
    if not isinstance(binding, cst.Name) or function is None:
        return False
    for node in walk(function.body):
        if not isinstance(node, cst.Name) or node.value != binding.value:
            continue
        if isinstance(t.parent(node), cst.AssignTarget) and node is not binding:
            return False  # bound again: another value under the same name
        if node is not binding and not any(inside(node, it, t) for _, it, _ in loader.loops):
            return False
    return True


def fetched_once(t: NodeView, call: cst.Call) -> bool:
    """The loader `call` builds is only taken once, by `next(iter(...))` outside any loop:
    `next(iter(factory(dataset, n)))`, or a name bound to the call whose every use is one
    (class v2-C of stop 41: akanimax/pro_gan_pytorch@6206613's fixed batch for its sample
    grid, from `get_data_loader` of another module). The original fetched the global
    batch; from the factory's sharded loader it was this rank's share (the grid held 2
    of 4 images). For a loader of its own module the shared_draws pass fetches it whole
    (ddp_whole_batch); a factory's call is built whole instead (ddp_shard=False)."""
    parent = t.parent(call)
    if isinstance(parent, cst.Arg):
        return _fetch(t, call)
    if not (
        isinstance(parent, cst.Assign)
        and parent.value is call
        and len(parent.targets) == 1
        and isinstance(parent.targets[0].target, cst.Name)
    ):
        return False
    module = module_of(call, t)
    if not isinstance(module, cst.Module):
        return False
    flow = view(module)
    target = parent.targets[0].target
    uses = flow.uses(flow.scope_of(target), target.value)
    return bool(uses) and all(_fetch(t, use) for use in uses)


def _fetch(t: NodeView, node: cst.CSTNode) -> bool:
    """`node` is X of `next(iter(X))`, in no loop of its function."""
    chain: list[cst.CSTNode] = []
    current: cst.CSTNode | None = node
    for _ in range(4):  # Arg, iter(...), Arg, next(...)
        current = t.parent(current) if current is not None else None
        if current is None:
            return False
        chain.append(current)
    inner, outer = chain[1], chain[3]
    if not (
        isinstance(inner, cst.Call)
        and name_of(inner.func) == "iter"
        and len(inner.args) == 1
        and isinstance(outer, cst.Call)
        and name_of(outer.func) == "next"
        and len(outer.args) == 1
    ):
        return False
    above: cst.CSTNode | None = outer
    while above is not None and not isinstance(above, (cst.FunctionDef, cst.Lambda)):
        if isinstance(above, (cst.For, cst.While, cst.BaseComp)):
            return False
        above = t.parent(above)
    return True


def figures_handed_on(t: LoaderEvaluation, loop: cst.For) -> tuple[cst.CSTNode, str] | None:
    """A figure of the batches that summing the loop's counters does not make global,
    as (where, why): handed to an object fed in the loop (`progbar.add(n,
    values=[("mae", mae)])`, the program's own progress bar, which averages and prints
    what it is given) or shown per batch (`print(loss.item())`). Counters summed after
    the loop (`iteration += 1`) would be global while these stay this rank's batches:
    the figures printed are rank 0's half (real-world: knazeri/edge-connect@3142579's
    eval(), class E1 of stop 31), so the loader stays whole (DP015)."""
    batch = t._batch_derived(loop) - set(t._counters(loop)) - _index_of(loop)
    objects = t._running_objects(loop)
    for node in walk(loop.body, skip_scopes=True):
        if not isinstance(node, cst.Call):
            continue
        func = node.func
        if (
            isinstance(func, cst.Attribute)
            and isinstance(func.value, cst.Name)
            and func.value.value in objects
        ):
            return node, f"{func.value.value} would be fed only {SHARE}"
        if t._prints(node) and any(
            n.value in batch for a in node.args for n in variables_under(a.value)
        ):
            return node, f"{t.code(func)}() would show only {SHARE}"
    return None


def _index_of(loop: cst.For) -> set[str]:
    """The step index `enumerate()` hands the loop (`for i, (x, y) in enumerate(loader)`):
    a position in this rank's batches, not a figure of them."""
    if (
        isinstance(loop.iter, cst.Call)
        and name_of(loop.iter.func) == "enumerate"
        and isinstance(loop.target, cst.Tuple)
        and loop.target.elements
        and isinstance(loop.target.elements[0].value, cst.Name)
    ):
        return {loop.target.elements[0].value.value}
    return set()
