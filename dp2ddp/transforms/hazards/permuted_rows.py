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

The mixing may happen in a helper the loop hands its batch to (stop 52 w2:
clovaai/CutMix-PyTorch@2d8eb68's `cutmix(x, y)` pasting `x[index, a:b]` into the caller's
tensor; a `mixup_data(x, y)` of another module): `mixed_parameter` reads each drawing
helper once (the program's HelperDraw summaries, hazards/draws.py), and `helper_mixes` finds
a call of such a helper handed the batch that the model's call reads, in place or through
what it returns; the warning goes to the call, with the helper's line.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

import libcst as cst

from dp2ddp.facts import HelperDraw
from dp2ddp.flow import DefUse, Origin, Step, origins
from dp2ddp.transforms._support.nodes import walk

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


def mixed_parameter(
    defs: DefUse,
    function: cst.FunctionDef,
    method: bool,
    qualified_names: Callable[[cst.CSTNode], set[str]],
    position: Callable[[cst.CSTNode], tuple[int, int]],
) -> tuple[int, str, int, bool] | None:
    """(position among a call's arguments, name, line, in place) of the first parameter of
    `function` whose rows it takes in the order of a permutation it draws (`x[index, a:b]`
    with `index = torch.randperm(...)`), mixed with the rest: stored back into the
    parameter's own tensor (`x[:, a:b] = x[index, a:b]`: the caller's batch changed in
    place) or reaching a `return`. The parameter must be the value as passed (every binding
    reaching it is the parameter or a store into it); a plain reorder is not mixing."""
    params = [*function.params.posonly_params, *function.params.params]
    names = [p.name.value for p in params][1 if method else 0 :]
    returns = [n for n in walk(function.body, skip_scopes=True) if isinstance(n, cst.Return)]
    for node in walk(function.body, skip_scopes=True):
        if not isinstance(node, cst.Subscript) or not isinstance(node.value, cst.Name):
            continue
        name = node.value.value
        first = node.slice[0].slice
        if name not in names or not isinstance(first, cst.Index):
            continue
        reaching = defs.reaching(node.value)
        if not reaching or any(d.kind not in ("param", "store") for d in reaching):
            continue
        if _reordered_in_place(defs, node) or not any(
            o.kind == "call"
            and isinstance(o.node, cst.Call)
            and qualified_names(o.node.func) & PERMUTATIONS
            for o in origins(defs, first.value)
        ):
            continue
        statement = defs.parent(node)
        in_place = (
            isinstance(statement, cst.Assign)
            and statement.value is node
            and all(_root_name(t.target) == name for t in statement.targets)
        )
        if in_place or any(
            value is not None and _reaches(defs, value, node)
            for value in (r.value for r in returns)
        ):
            return names.index(name), name, position(node)[0], in_place
    return None


def _root_name(target: cst.BaseExpression) -> str | None:
    """`x` of a store `x[...] = ...`."""
    return (
        target.value.value
        if isinstance(target, cst.Subscript) and isinstance(target.value, cst.Name)
        else None
    )


def _reaches(defs: DefUse, value: cst.BaseExpression, node: cst.Subscript) -> bool:
    """Some flow into `value` passes through `node`."""
    ids = {id(node), id(node.value)}
    return any(id(s.node) in ids for o in origins(defs, value) for s in o.path)


def mixing_calls(
    defs: DefUse, mixer: Callable[[cst.Call], HelperDraw | None]
) -> list[tuple[cst.Call, HelperDraw]]:
    """The module's calls of helpers that mix an argument's rows in a drawn order
    (HelperDraw.mixes), once per module."""
    found = [(call, mixer(call)) for call in defs.calls if call.args]
    return [(call, draw) for call, draw in found if draw is not None and draw.mixes is not None]


def helper_mixes(
    defs: DefUse,
    model: cst.Call,
    found: Iterable[Origin],
    mixing: list[tuple[cst.Call, HelperDraw]],
    from_data: Callable[[DefUse, cst.BaseExpression], bool],
    position: Callable[[cst.CSTNode], tuple[int, int]],
) -> list[tuple[cst.Call, HelperDraw]]:
    """The calls among `mixing` (mixing_calls) whose result the model's argument
    (sources `found`) reads: the call is on the argument's path (`x, ya, yb, lam =
    mixup_data(x, y)`), or, for a helper mixing in place (`cutmix(x, y)`), it is handed a
    name bound where the argument's path passes (the loop's `x`) before the model's call.
    The argument handed must come from the loader's batch (`from_data`)."""
    hits: list[tuple[cst.Call, HelperDraw]] = []
    if not mixing:
        return hits
    on_path = {id(s.node) for o in found for s in o.path} | {id(o.node) for o in found}
    for call, draw in mixing:
        assert draw.mixes is not None
        at, name, _, in_place = draw.mixes
        if position(call) >= position(model):
            continue
        handed = next((a.value for a in call.args if a.keyword and a.keyword.value == name), None)
        positional = [a for a in call.args if a.keyword is None and not a.star]
        if handed is None and at < len(positional):
            handed = positional[at].value
        if handed is None or not from_data(defs, handed):
            continue
        if in_place:
            hit = isinstance(handed, cst.Name) and any(
                id(d.target) in on_path for d in defs.reaching(handed)
            )
        else:
            hit = id(call) in on_path
        if hit:
            hits.append((call, draw))
    return hits
