"""Batch sums another module's loss returns, among the terms of a loss this module leaves
unscaled (DP004 across modules, stop 48 x).

VAE-Tacotron's train.py (xcmyz/VAE-Tacotron@d57dd0a:152, 183): `mel_loss, linear_loss, kl_div
= criterion(...)` with `criterion = VAE_TacotronLoss()` imported from loss.py, whose forward
returns `kl_div` as `-0.5 * torch.sum(...)` of its `mu` and `log_var`
(ProgramFacts.batch_sum_returns, hazards.batch_sum_returns), then `loss = mel_loss + 0.5 *
linear_loss + kl_div`; loss.backward(). A term of such a loss that is a call of a told
function (`vae_loss(out, x, mu, log_var)`: the value returned whole), a told class's
instance (`criterion(...)`: its forward), or a name bound to one (or to the told element
of its tuple, in a nested unpacking too: `rec, (kl, pen) = criterion(...)`, stop 48 y) is
said where the arguments passed for the summed parameters are proved the batch
(hazards.batch_terms.BatchGiven: a wrapped model's output, a DataLoader's batches,
constants). A weight passed for a summed parameter (`model.module.dec.weight`) is no batch:
no warning. A class or function imported relatively (`from .loss import VAELoss`: its
qualified name `.loss.VAELoss`) is the told one whose name ends so, where only one does.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping

import libcst as cst

from dp2ddp.flow import origins
from dp2ddp.flow.text import code
from dp2ddp.loss_facts import BatchSumReturn
from dp2ddp.transforms._support.names import DATAPARALLEL, DISTRIBUTED_DATA_PARALLEL
from dp2ddp.transforms._support.qualified import told_matches
from dp2ddp.transforms.hazards.batch_terms import BatchGiven

Told = Mapping[str, tuple[BatchSumReturn, ...]]
_WRAPS = DATAPARALLEL | DISTRIBUTED_DATA_PARALLEL


def told_sum_terms(
    given: BatchGiven,
    terms: Iterable[cst.BaseExpression],
    told: Told,
    batch_first: bool = True,
) -> Iterator[tuple[cst.BaseExpression, str]]:
    """Each term that holds a batch sum a told loss returns, with DP004's detail; one divided
    by a row's size (BatchSumReturn.divided) only where the wraps scatter along dimension 0
    (`batch_first`: elsewhere `t.size(1)` may count the rows, a hand mean)."""
    if not told:
        return  # nothing told: no term to follow (a single file, a module without backward)
    for term in terms:
        for call, position in _calls(given, term):
            names = _callees(given, call)
            matched = told_matches(names, told)
            if len(matched) > 1 and matched[0] not in names:
                continue  # several modules' names end so: which one runs is not known
            for name in matched:
                for summed in told[name]:
                    if not _at(summed, position) or (summed.divided and not batch_first):
                        continue
                    passed = [_argument(call, param) for param in summed.params]
                    if all(a is not None and given(a) for a in passed):
                        yield term, _detail(term, call, summed)
                        break


def _at(summed: BatchSumReturn, position: tuple[int, ...]) -> bool:
    """The picked path names the told element: each position counted from the start or, where
    negative (`parts[-1]`), from the end of its tuple (stop 50 s4)."""
    if len(position) != len(summed.position) or len(summed.back) not in (0, len(position)):
        return False
    back = summed.back or summed.position
    return all(p in (f, b) for p, f, b in zip(position, summed.position, back, strict=True))


def _detail(term: cst.BaseExpression, call: cst.Call, summed: BatchSumReturn) -> str:
    path = summed.position
    at = str(path[0]) if len(path) == 1 else "".join(f"[{i}]" for i in path)
    what = f"element {at} of what" if path else "what"
    return (
        f"`{code(term)}` holds the term `{summed.text}` ({what} `{code(call.func)}(...)` "
        f"returns, {summed.where}), a sum over the batch passed to it: left unscaled (its "
        "gradient 1/WORLD_SIZE of DataParallel's)"
    )


def _calls(
    given: BatchGiven, term: cst.BaseExpression, path: tuple[int, ...] = (), depth: int = 0
) -> Iterator[tuple[cst.Call, tuple[int, ...]]]:
    """The calls whose value (()) or tuple element (its path, nested unpackings too: `a,
    (b, c) = f()`'s c is (1, 1)) the term is: picked by constant positions too
    (`criterion(...)[1]`, `pair[0]` of `pair = parts[1]` of `parts = criterion(...)`: stop
    49 f1), through names' bindings four deep."""
    base, path_in = picked(term)
    if isinstance(base, cst.Call):
        yield base, (*path_in, *path)
    elif isinstance(base, cst.Name) and depth < 4:
        for definition in given.flow.definitions(base):
            if definition.kind == "assign" and definition.value is not None:
                yield from _calls(
                    given, definition.value, (*definition.element, *path_in, *path), depth + 1
                )


def picked(node: cst.BaseExpression) -> tuple[cst.BaseExpression | None, tuple[int, ...]]:
    """What `node` picks an element of by constant positions (`criterion(...)[1]`,
    `f(...)[1][0]`, `pair[0]`: stop 49 f1; `parts[-1]`, from the end: stop 50 s4), with the
    path (`node` itself and () when it picks nothing); None for a position not proved (a
    name, a slice)."""
    path: list[int] = []
    while isinstance(node, cst.Subscript):
        if len(node.slice) != 1 or not isinstance(node.slice[0].slice, cst.Index):
            return None, ()
        index = node.slice[0].slice.value
        sign = 1
        if isinstance(index, cst.UnaryOperation) and isinstance(index.operator, cst.Minus):
            index, sign = index.expression, -1
        if not isinstance(index, cst.Integer):
            return None, ()
        path.insert(0, sign * int(index.value))
        node = node.value
    return node, tuple(path)


def _callees(given: BatchGiven, call: cst.Call) -> set[str]:
    """The told names the call may run: a function's, the forward (or `__call__`) of the
    class whose instance it calls, or the method of the class whose instance the call's
    receiver holds, a wrap's module included (`model.module.get_loss(pts, out)` with
    `model = nn.DataParallel(Net())`: `Net.get_loss`, stop 56 v4-D)."""
    names = set(given.qualified_names(call.func))
    for built in _built(given, call.func):
        names |= {f"{n}.forward" for n in built} | {f"{n}.__call__" for n in built}
    func = call.func
    if isinstance(func, cst.Attribute):
        receiver = func.value
        if isinstance(receiver, cst.Attribute) and receiver.attr.value == "module":
            receiver = receiver.value  # a wrap's module: what the wrap was given
        for built in _built(given, receiver):
            names |= {f"{n}.{func.attr.value}" for n in built}
    return names


def _built(given: BatchGiven, value: cst.BaseExpression) -> Iterator[set[str]]:
    """The qualified names of the classes `value` may hold an instance of, through a
    DataParallel or DDP wrap of one (its first argument); a class of this module too
    (an `instance` origin: its own loss class, stop 67)."""
    for origin in origins(given.flow, value):
        kind = origin.kind
        if kind not in ("call", "instance") or not isinstance(origin.node, cst.Call):
            continue
        if origin.selects:
            continue
        names = set(given.qualified_names(origin.node.func))
        if names & _WRAPS and origin.node.args:
            yield from _built(given, origin.node.args[0].value)
        else:
            yield names


def _argument(call: cst.Call, param: tuple[int, str]) -> cst.BaseExpression | None:
    """What `call` passes for the parameter (position without `self`, name)."""
    index, name = param
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == name:
            return arg.value
    positional = [a for a in call.args if a.keyword is None]
    if any(a.star for a in positional[: index + 1]) or index >= len(positional):
        return None
    return positional[index].value
