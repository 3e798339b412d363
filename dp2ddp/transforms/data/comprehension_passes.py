"""A pass over a sharded loader written as a comprehension: this rank's share, said (DP030).

The data pass follows `for` statements over a loader: their figures are reduced, or DP030
or DP015 says they are this rank's. A pass written as a comprehension or a generator
(`err = sum(F.mse_loss(net(x), y, reduction="sum").item() for x, y in loaders[phase])`,
round 24's zsyOAOA/VDNet@599c153-like validation in a phase loop) is no `for` statement:
its loader, sharded as the epoch's training loader's sibling, gave rank 0's share of the
sum, printed as the whole set's, and nothing said it. Here each comprehension whose
iterable is (through names and progress wrappers) a loader the pass sharded, whose value
a reduction takes (`sum`, `np.mean`, `len`, ...: a figure; a batch wrapper's generator is
none) and whose element runs no backward or optimizer step (a training pass is right per
rank), gets DP030 at the comprehension, naming the loader.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import libcst as cst

from dp2ddp.transforms._support.nodes import ModuleNodes, name_of, walk

if TYPE_CHECKING:
    from dp2ddp.transforms.data import ShardDataLoaders
    from dp2ddp.transforms.data.plan import Loader

#: Calls in an element that make the comprehension a training pass.
_TRAINING = frozenset({"backward", "step"})
#: Reductions whose argument, a comprehension over a loader, is a figure of the pass.
_FIGURES = frozenset({"sum", "mean", "max", "min", "len", "average", "nanmean", "median"})


def _reduced(t: ShardDataLoaders, comprehension: cst.BaseExpression) -> bool:
    """The comprehension is the argument of a reduction (`sum(... for x, y in loader)`,
    `np.mean([...])`): a figure over the pass's batches."""
    arg = t.parent(comprehension)
    call = t.parent(arg) if isinstance(arg, cst.Arg) else arg
    return isinstance(call, cst.Call) and name_of(call.func) in _FIGURES


def said_comprehension_passes(
    t: ShardDataLoaders,
    nodes: ModuleNodes,
    loaders: dict[cst.Call, Loader],
    sharded: set[cst.Call],
    through: Callable[[cst.BaseExpression], list[cst.BaseExpression]],
) -> None:
    """DP030 at each comprehension over a loader of `sharded` (module docstring)."""
    if not sharded:
        return
    known = {c: loader for c, loader in loaders.items() if c in sharded}
    kinds = (cst.GeneratorExp, cst.ListComp, cst.SetComp, cst.DictComp)
    for comprehension in [n for kind in kinds for n in nodes.of(kind)]:
        if not _reduced(t, comprehension):
            continue  # a batch wrapper's generator (`{...} for x, y in loader`): no figure
        clause = comprehension.for_in
        if any(
            isinstance(n, cst.Call) and name_of(n.func) in _TRAINING for n in walk(comprehension)
        ):
            continue
        found = [call for expr in through(clause.iter) for call, _ in t._resolve(expr, known, 0)]
        if not found:
            continue
        loader = known[found[0]]
        label = t.code(loader.binding) if loader.binding is not None else t.code(clause.iter)
        t.warn(
            comprehension,
            "DP030",
            f"`{t.code(comprehension).splitlines()[0][:60]}` goes through {label}, sharded: "
            "what it computes is this rank's share of the batches, not the whole set's as "
            "under DataParallel",
        )
