"""The batch mixed with its own rows in a drawn order before the wrapped model (DP147).

Mixup (`perm = torch.randperm(x.size(0)); x = lam * x + (1 - lam) * x[perm]`), CutMix
(`x[:, :, a:b, c:d] = x[perm, :, a:b, c:d]`) and their kin pair each row of the batch with
another row of the same batch, picked by a drawn permutation. DataParallel's loop did this
over the whole global batch before scattering it: a row's partner came from any row.
Under DDP each rank's loop permutes only its own share, so partners come from that share
only, and where every rank seeds its generators alike every rank draws the same
permutation and the same weight. No row is compared with another (DP124's rule does not
see it: stop 50 w2 left it), and DP006 at the draws says only that the draw is made on
every rank. Found on the same backward walk from each argument of a wrapped model's call
as DP124 (hazards/batch_pairing.py, flow/origins.py): a source that is a permutation draw
(`torch.randperm`, `numpy.random.permutation`) reaching the argument as the first index of
a subscript whose value the walk also reaches from the loader's batch. A plain reorder in
place (`x = x[perm]`) pairs nothing and is not said.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

import libcst as cst

from dp2ddp.flow import DefUse, Origin, Step

#: Draws of a permutation of n (the rows' new order).
PERMUTATIONS = frozenset({"torch.randperm", "numpy.random.permutation"})


def permuted_rows(
    defs: DefUse,
    found: Iterable[Origin],
    qualified_names: Callable[[cst.CSTNode], set[str]],
    cut: Callable[[DefUse, Step], bool],
    from_data: Callable[[DefUse, cst.BaseExpression], bool],
) -> list[tuple[cst.Subscript, cst.Call]]:
    """The subscripts among the origins' paths (those of one argument of a wrapped model's
    call) that take a batch's rows in a drawn order and are mixed with the batch, each
    with its permutation's draw. `cut` says a step takes a batch out of data, `from_data`
    that a value comes from such a batch (batch_pairing._batch_cut, _from_data): the
    subscript's value is on a path from the batch to the argument (the walk entered a
    helper of the module: `mixup_data(x, y)`), or its own sources are (CutMix's store
    `x[:, a:b] = x[perm, a:b]`, whose value the walk left for the store's target)."""
    origins = list(found)
    data: set[int] = set()
    for origin in origins:
        after = False
        for step in origin.path:
            after = after or cut(defs, step)
            if after:
                data.add(id(step.node))
    permuted: list[tuple[cst.Subscript, cst.Call]] = []
    for origin in origins:
        drawn = origin.node
        if origin.kind != "call" or not isinstance(drawn, cst.Call):
            continue
        if not qualified_names(drawn.func) & PERMUTATIONS:
            continue
        for step in origin.path:
            if not step.index:
                continue
            subscript = _subscript_of(defs, step.node)
            if (
                subscript is not None
                and (id(subscript.value) in data or from_data(defs, subscript.value))
                and not _reordered_in_place(defs, subscript)
                and all(subscript is not s for s, _ in permuted)
            ):
                permuted.append((subscript, drawn))
            break
    return permuted


def _subscript_of(defs: DefUse, index: cst.CSTNode) -> cst.Subscript | None:
    """The subscript whose first index is `index` (`x[perm]`, `x[perm, :, a:b]`)."""
    element = defs.parent(index)
    if isinstance(element, cst.Index):
        element = defs.parent(element)
    subscript = defs.parent(element) if isinstance(element, cst.SubscriptElement) else None
    if not isinstance(subscript, cst.Subscript) or subscript.slice[0] is not element:
        return None
    return subscript


def _reordered_in_place(defs: DefUse, subscript: cst.Subscript) -> bool:
    """`x = x[perm]`: the batch reordered whole, paired with nothing."""
    statement = defs.parent(subscript)
    return (
        isinstance(statement, cst.Assign)
        and statement.value is subscript
        and len(statement.targets) == 1
        and isinstance(statement.targets[0].target, cst.Name)
        and isinstance(subscript.value, cst.Name)
        and statement.targets[0].target.value == subscript.value.value
    )
