"""Calls of a function returning a DataParallel wrap whose result is dropped (DP225).

Round 36, hanyoseob/pytorch-WGAN-GP@311745b: `init_net(netG, ...)` as a statement, its
`init_net` wrapping the net in DataParallel (and initialising its weights in place) and
returning the wrapper: the program trains the bare module. The original ran on one device
over each whole batch; migrated, the DDP wrapper was thrown away as DataParallel's had
been, each rank stepped on its own shard's gradient and the ranks drifted apart (weights
3.154003 under the original, 3.233453 migrated), unsaid.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence

import libcst as cst

from dp2ddp.transforms._support.nodes import name_of, nodes_of, walk


def dropped_wraps(
    module: cst.Module,
    is_wrap: Callable[[cst.CSTNode], bool],
    wrapping: Iterable[str],
    told: Iterable[str] = (),
) -> Iterator[cst.Call]:
    """Each call of a function returning a wrap that stands alone as a statement: its
    wrapper is thrown away. The functions: `module`'s own that wrap (`wrapping`, by name)
    and return the wrap (returning_wraps), and `told`, the program's other modules'
    (ProgramFacts.wrap_returns, by name)."""
    returning = returning_wraps(module, is_wrap, set(wrapping))
    returning |= {name.rpartition(".")[2] for name in told}
    if not returning:
        return
    blocks: list[Sequence[cst.CSTNode]] = [module.body]
    blocks += [f.body.body for f in nodes_of(module, cst.FunctionDef)]
    for body in blocks:
        for index, statement in enumerate(body):
            call = _dropped_call(statement, returning)
            if call is not None and _used_after(call, body[index + 1 :]):
                yield call


def _dropped_call(statement: cst.CSTNode, returning: set[str]) -> cst.Call | None:
    """The call of one of `returning` that `statement` is, its result unused."""
    if not (isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1):
        return None
    expression = statement.body[0]
    call = expression.value if isinstance(expression, cst.Expr) else None
    return call if isinstance(call, cst.Call) and name_of(call.func) in returning else None


def _used_after(call: cst.Call, rest: Sequence[cst.CSTNode]) -> bool:
    """A model the call is handed by name is used by a later statement: the program goes on
    with the bare module (`init_net(net)`, then `net(x)`); a call handed no name it reads
    again (`sweep(loader.dataset)`, a wrapper that trains and returns) drops nothing used."""
    handed = {a.value.value for a in call.args if isinstance(a.value, cst.Name)}
    return bool(handed) and any(
        isinstance(n, cst.Name) and n.value in handed for s in rest for n in walk(s)
    )


def returning_wraps(
    module: cst.Module, is_wrap: Callable[[cst.CSTNode], bool], wrapping: set[str]
) -> set[str]:
    """The names of `module`'s functions among `wrapping` (those whose body wraps) that
    return a wrap `is_wrap` accepts: `return DataParallel(m)`, or a name the function binds
    to one (`net = DataParallel(net)`)."""
    found: set[str] = set()
    for function in nodes_of(module, cst.FunctionDef) if wrapping else ():
        if function.name.value not in wrapping:
            continue
        body = list(walk(function.body, skip_scopes=True))
        wrapped = {
            t.target.value
            for n in body
            if isinstance(n, cst.Assign) and is_wrap(n.value)
            for t in n.targets
            if isinstance(t.target, cst.Name)
        }
        for n in body:
            value = n.value if isinstance(n, cst.Return) else None
            if value is not None and (
                is_wrap(value) or isinstance(value, cst.Name) and value.value in wrapped
            ):
                found.add(function.name.value)
    return found
