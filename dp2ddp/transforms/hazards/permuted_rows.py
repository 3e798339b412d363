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
(`torch.randperm`, `numpy.random.permutation`), or of positions with replacement
(`torch.randint`: analysis/row_picks.py, round 26 rc) reaching the argument as the first index of
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
from dp2ddp.transforms._support.nodes import name_of, walk
from dp2ddp.transforms.analysis.row_picks import PERMUTATIONS, ROW_PICKS, picks_rows


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
    data = _after_cuts(defs, origins, cut)
    permuted: list[tuple[cst.Subscript, cst.Call]] = []
    for origin in origins:
        drawn = origin.node
        if origin.kind != "call" or not isinstance(drawn, cst.Call):
            continue
        names = qualified_names(drawn.func)
        if not names & ROW_PICKS or not picks_rows(defs, drawn, names):
            # a permutation, or positions whose values index the batch's rows
            # (analysis/row_picks.py); not labels drawn when the data is made
            # (`TensorDataset(x, torch.randint(0, 3, (16,)))`, then `w[losses >= top]`)
            continue
        for step in origin.path:
            if not step.index:
                continue
            subscript = _subscript_of(defs, step.node)
            if (
                subscript is not None
                and (id(subscript.value) in data or from_data(defs, subscript.value))
                and not _reads_order(defs, subscript, drawn)
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


def _reordered_in_place(defs: DefUse, subscript: cst.Subscript | cst.Call) -> bool:
    """`x = x[perm]` (also `x = x.flip(0)`, `x = torch.roll(x, 1, 0)`): the batch reordered
    whole, paired with nothing."""
    statement = defs.parent(subscript)
    if isinstance(subscript, cst.Subscript):
        root: cst.BaseExpression | None = subscript.value
    elif isinstance(subscript.func, cst.Attribute) and not subscript.args[:0]:
        method = name_of(subscript.func.value) != "torch"
        root = subscript.func.value if method else subscript.args[0].value
    else:
        root = None
    return (
        isinstance(statement, cst.Assign)
        and statement.value is subscript
        and len(statement.targets) == 1
        and isinstance(statement.targets[0].target, cst.Name)
        and isinstance(root, cst.Name)
        and statement.targets[0].target.value == root.value
    )


def mixed_parameter(
    defs: DefUse,
    function: cst.FunctionDef,
    method: bool,
    qualified_names: Callable[[cst.CSTNode], set[str]],
    position: Callable[[cst.CSTNode], tuple[int, int]],
    fixed: bool = False,
) -> tuple[int, str, int, bool] | None:
    """(position among a call's arguments, name, line, in place) of the first parameter of
    `function` whose rows it takes in the order of a permutation it draws (`x[index, a:b]`
    with `index = torch.randperm(...)`), mixed with the rest: stored back into the
    parameter's own tensor (`x[:, a:b] = x[index, a:b]`: the caller's batch changed in
    place) or reaching a `return`. The parameter must be the value as passed (every binding
    reaching it is the parameter or a store into it); a plain reorder is not mixing.
    `fixed`: rows taken at fixed offsets instead (`x[(i + 1) % b]`, `shifted_index`:
    RIPT_SDMM's `point_mixup`, round 11 v3-B), DP139's."""
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
        if _reordered_in_place(defs, node):
            continue
        if fixed and not shifted_index(defs, first.value):
            continue
        if not fixed and not any(
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
            value is not None and _reaches(defs, value, node, function)
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


def _reaches(
    defs: DefUse, value: cst.BaseExpression, node: cst.Subscript, function: cst.FunctionDef
) -> bool:
    """Some flow into `value` passes through `node`, also through a list of `function` the
    flow reads that it fills by `.append(v)` / `.extend(v)` (`mixed.append(lam * x[i] + ...)`
    then `return torch.stack(mixed)`: the def-use view's walk stops at the `[]`)."""
    ids = {id(node), id(node.value)}
    found = origins(defs, value)
    if any(id(s.node) in ids for o in found for s in o.path):
        return True
    names = {s.node.value for o in found for s in o.path if isinstance(s.node, cst.Name)}
    filled = [
        call.args[0].value
        for call in walk(function.body, skip_scopes=True)
        if isinstance(call, cst.Call)
        and isinstance(call.func, cst.Attribute)
        and call.func.attr.value in ("append", "extend")
        and isinstance(call.func.value, cst.Name)
        and call.func.value.value in names
        and len(call.args) == 1
    ]
    return any(id(s.node) in ids for v in filled for o in origins(defs, v) for s in o.path)


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
    on_path |= _appended_paths(defs, model, found, position)
    for call, draw in mixing:
        assert draw.mixes is not None
        at, name, _, in_place = draw.mixes
        if in_place and position(call) >= position(model):
            continue  # a helper returning its mix may be called inside the model's call
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


def shifted_rows(
    defs: DefUse,
    found: Iterable[Origin],
    cut: Callable[[DefUse, Step], bool],
    from_data: Callable[[DefUse, cst.BaseExpression], bool],
) -> list[cst.BaseExpression]:
    """The places among the origins' paths (those of one argument of a wrapped model's call)
    that take the batch's rows in an order fixed by their positions, pairing each row with
    another of the same batch: `x[(torch.arange(n) + 1) % n]`, `x[(i + 1) % B]` in a loop
    over the rows, `x.roll(1, 0)`, `torch.flip(x, [0])`. Under DataParallel the partner
    was a row of the whole global batch (the last row's, the first of the batch); under DDP
    it is one of this rank's share (round 11 v3-B, takahikof/RIPT_SDMM@fca73d3's
    `point_mixup`, `(i + 1) % B`). As for a drawn order, a plain reorder in place (`x =
    x.flip(0)`) pairs nothing and is not said."""
    origins = list(found)
    data = _after_cuts(defs, origins, cut)
    places: list[cst.BaseExpression] = []
    for origin in origins:
        for step in origin.path:
            place = _shifted_at(defs, step.node)
            if (
                place is not None
                and (
                    id(step.node) in data
                    or isinstance(step.node, cst.BaseExpression)
                    and from_data(defs, step.node)
                )
                and not _reordered_in_place(defs, place)
                and all(place is not p for p in places)
            ):
                places.append(place)
    return places


def _shifted_at(defs: DefUse, node: cst.CSTNode) -> cst.Subscript | cst.Call | None:
    """The subscript or call around `node` (a value on a path) that takes its rows at fixed
    offsets: `node[shift]` (`shifted_index`), `node.roll(k, 0)`, `node.flip(0)`,
    `torch.roll(node, k, 0)`, `torch.flip(node, [0])`."""
    parent = defs.parent(node)
    if isinstance(parent, cst.Subscript) and parent.value is node:
        first = parent.slice[0].slice
        if isinstance(first, cst.Index) and shifted_index(defs, first.value):
            return parent
        return None
    if isinstance(parent, cst.Attribute) and parent.value is node:
        call = defs.parent(parent)
        if isinstance(call, cst.Call) and call.func is parent:
            rest = [a.value for a in call.args]
            if _along_rows(parent.attr.value, rest, call):
                return call
        return None
    arg = parent if isinstance(parent, cst.Arg) else None
    call = defs.parent(arg) if arg is not None else None
    if (
        isinstance(call, cst.Call)
        and arg is not None
        and call.args
        and call.args[0] is arg
        and isinstance(call.func, cst.Attribute)
        and isinstance(call.func.value, cst.Name)
        and call.func.value.value == "torch"
        and _along_rows(call.func.attr.value, [a.value for a in call.args[1:]], call)
    ):
        return call
    return None


def _along_rows(method: str, rest: list[cst.BaseExpression], call: cst.Call) -> bool:
    """`roll(k, 0)`/`roll(k, dims=0)` or `flip(0)`/`flip([0])`/`flip(dims=(0,))` (the
    arguments after the tensor): a reorder along the first axis, the batch's rows."""
    keyword = {a.keyword.value: a.value for a in call.args if a.keyword is not None}
    if method == "roll":
        dims = keyword.get("dims", rest[1] if len(rest) > 1 else None)
    elif method == "flip":
        dims = keyword.get("dims", rest[0] if rest else None)
    else:
        return False
    if isinstance(dims, (cst.List, cst.Tuple)):
        return any(_is_zero(e.value) for e in dims.elements)
    return dims is not None and _is_zero(dims)


def _is_zero(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Integer) and node.evaluated_value == 0


def shifted_index(defs: DefUse, index: cst.BaseExpression, depth: int = 0) -> bool:
    """`(i + 1) % B`, `(torch.arange(n) - 1) % n`, `torch.arange(n).roll(1)`, or a name some
    binding reaching it gives one of those (`idx2 = (i + 1) % B` in one branch): positions
    moved by a constant around the batch."""
    if isinstance(index, cst.BinaryOperation) and isinstance(index.operator, cst.Modulo):
        left = index.left
        return (
            isinstance(left, cst.BinaryOperation)
            and isinstance(left.operator, (cst.Add, cst.Subtract))
            and any(
                isinstance(s, cst.Integer) and s.evaluated_value for s in (left.left, left.right)
            )
        )
    if (
        isinstance(index, cst.Call)
        and isinstance(index.func, cst.Attribute)
        and index.func.attr.value in ("roll", "flip")
        and isinstance(index.func.value, cst.Call)
        and isinstance(index.func.value.func, (cst.Name, cst.Attribute))
        and (
            index.func.value.func.value == "arange"
            if isinstance(index.func.value.func, cst.Name)
            else index.func.value.func.attr.value == "arange"
        )
    ):
        return True
    if isinstance(index, cst.Name) and depth < 3:
        return any(
            d.value is not None and shifted_index(defs, d.value, depth + 1)
            for d in defs.reaching(index)
        )
    return False


def _appended_paths(
    defs: DefUse,
    model: cst.Call,
    found: Iterable[Origin],
    position: Callable[[cst.CSTNode], tuple[int, int]],
) -> set[int]:
    """The nodes on the paths of what the model's function appends, before the model's
    call, to a list on the argument's path (`views.append(mixed)` then `student(views)`:
    RIPT_SDMM's `pointsets.append(mixup_pointsets)`, round 11 v3-B), which the def-use
    view's walk does not enter."""
    names = {s.node.value for o in found for s in o.path if isinstance(s.node, cst.Name)}
    around = defs.function_around(model)
    nodes: set[int] = set()
    for call in defs.calls:
        func = call.func
        if (
            isinstance(func, cst.Attribute)
            and func.attr.value in ("append", "extend")
            and isinstance(func.value, cst.Name)
            and func.value.value in names
            and len(call.args) == 1
            and position(call) < position(model)
            and defs.function_around(call) is around
        ):
            for origin in origins(defs, call.args[0].value):
                nodes |= {id(s.node) for s in origin.path} | {id(origin.node)}
    return nodes


def _after_cuts(
    defs: DefUse, origins: list[Origin], cut: Callable[[DefUse, Step], bool]
) -> set[int]:
    """The ids of the path nodes from the first step that takes a batch out of data on:
    values that come from such a batch."""
    data: set[int] = set()
    for origin in origins:
        after = False
        for step in origin.path:
            after = after or cut(defs, step)
            if after:
                data.add(id(step.node))
    return data


def _reads_order(defs: DefUse, subscript: cst.Subscript, drawn: cst.Call) -> bool:
    """`rows[k]` where `rows` is a slice of the drawn order itself (`rows = order[s:s + n]`):
    it reads the order (which rows the batch holds, then the data's `series[rows[k]]`),
    it permutes no batch (round 31, Seanny123/da-rnn@1db1e79: DP147 for nothing)."""
    return any(
        o.node is drawn and not any(step.index for step in o.path)
        for o in origins(defs, subscript.value)
    )
