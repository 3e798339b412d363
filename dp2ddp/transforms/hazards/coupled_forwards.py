"""A wrapped model whose forward() couples the rows of its batch (DP217).

DataParallel ran the model's forward() on each GPU's chunk of the batch: a statistic over
the batch's rows computed inside it (a class prototype or covariance over the support rows
of a few-shot episode, `feats.mean(0)`; a hand-written normalisation over dim 0) or a
comparison of rows (`x @ x.t()`, cdist) took each chunk's rows only, as each DDP rank now
takes its share's. On one GPU (or CPU) it took the whole batch. So the migrated program
keeps what DataParallel did on several GPUs, not what one device did, and `dp2ddp verify`
on CPU (the original run on one device) cannot show it equivalent: round 21 (cls),
WenbinLee/CovaMNet@d65d0bc's covariance over `torch.cat(support)` and a prototype net's
`enc(support).mean((0, 1))` gave different weights under torchrun with nothing said, and
verify named no cause. DP217 says it at the wrap, where the class is known: the wrapped
construction's class (in this module; across modules the program's classes as told) whose
forward() compares rows (ModelClass.pairs, analysis/batch_pairs.py) or reduces a value of
its inputs over the wrap's dim 0 (`.mean(0)`, `.sum(dim=(0, 2, 3))`, `torch.std(x, 0)`).
It is a note: the training is DataParallel's on several GPUs; where the whole batch's
statistic is meant, gather it over the ranks (torch.distributed.nn.functional.all_gather).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import libcst as cst

from dp2ddp.transforms._support.nodes import code_of, name_of, nodes_of, walk

#: Reductions over the dims given (first argument or dim=) that mix the rows they reduce.
_REDUCTIONS = frozenset(
    {"mean", "sum", "std", "var", "logsumexp", "norm", "prod", "amax", "amin", "median"}
)


def coupled_wraps(
    module: cst.Module,
    is_wrap: Callable[[cst.Call], bool],
    pairs_of: Callable[[cst.Call], str],
) -> Iterator[tuple[cst.Call, str, str]]:
    """(wrap, "DP217", detail) for each DataParallel wrap along dim 0 of a construction
    (directly or through a name bound to it in this module) whose class couples its batch's
    rows. The module's bindings are read only where it has such a wrap."""
    wraps = [c for c in nodes_of(module, cst.Call) if is_wrap(c) and c.args and _dim(c) == 0]
    if not wraps:
        return  # most modules: no bindings or classes read
    classes = {c.name.value: c for c in nodes_of(module, cst.ClassDef)}
    built: dict[str, cst.Call] = {}
    for assign in nodes_of(module, cst.Assign):
        if isinstance(assign.value, cst.Call) and len(assign.targets) == 1:
            built.setdefault(code_of(assign.targets[0].target), assign.value)
    for wrap in wraps:
        made = wrap.args[0].value
        while isinstance(made, cst.Call) and isinstance(made.func, cst.Attribute):
            if made.func.attr.value not in ("to", "cuda", "cpu", "float", "double"):
                break
            made = made.func.value  # `Net().to(device)`
        if not isinstance(made, cst.Call):
            made = built.get(code_of(made), made)
        if not isinstance(made, cst.Call):
            continue
        how = pairs_of(made)
        if not how:
            cls = classes.get(name_of(made.func) or "")
            how = _statistic(cls) if cls is not None else ""
        if how:
            yield wrap, "DP217", _detail(name_of(made.func) or code_of(made.func), how)


def _detail(name: str, how: str) -> str:
    return (
        f"{name}.forward(), {how}: DataParallel on several "
        "GPUs computed it over each GPU's chunk, as each rank now computes it over its "
        "share; on one device it took the whole batch, so a run of the original there "
        "(dp2ddp verify on CPU) differs. Where the whole batch's value is meant, gather "
        "over the ranks (torch.distributed.nn.functional.all_gather)"
    )


def _dim(wrap: cst.Call) -> int | None:
    """The wrap's scatter dim: 0 unless `dim=` says another literal (None: not known)."""
    for arg in wrap.args:
        if arg.keyword is not None and arg.keyword.value == "dim":
            value = arg.value
            return int(value.value) if isinstance(value, cst.Integer) else None
    return 0


def _statistic(cls: cst.ClassDef) -> str:
    """`line-free expression` of the first reduction over dim 0 of a value of forward()'s
    inputs in the class's forward() ("" when none): a value rooted at `self` alone (a
    weight, a table) is no input's."""
    forward = next(
        (
            s
            for s in nodes_of(cls.body, cst.FunctionDef, skip_scopes=True)
            if s.name.value == "forward"
        ),
        None,
    )
    if forward is None or not forward.params.params:
        return ""
    inputs = {p.name.value for p in forward.params.params[1:]}
    inputs |= {p.name.value for p in forward.params.kwonly_params}
    for node in walk(forward.body, skip_scopes=True):  # names bound from the inputs
        if isinstance(node, cst.Assign) and _reads(node.value, inputs):
            for target in node.targets:
                inputs |= {n.value for n in walk(target.target) if isinstance(n, cst.Name)}
    for call in nodes_of(forward.body, cst.Call, skip_scopes=True):
        func = call.func
        if isinstance(func, cst.Attribute) and func.attr.value in _REDUCTIONS:
            if name_of(func.value) == "torch" or code_of(func.value) in ("torch", "F"):
                held, dims = (call.args[0].value if call.args else None), call.args[1:]
            else:
                held, dims = func.value, call.args
            if held is None or not _reads(held, inputs):
                continue  # a weight or a table of its own (`self.w.mean(0)`) is no input's
            if _over_rows(list(dims)) and _returned(forward, call):
                return f"`{code_of(call)[:70]}`"
    return ""


def _returned(forward: cst.FunctionDef, reduction: cst.Call) -> bool:
    """The reduction's value reaches what forward() returns (in a `return`, or through the
    names bound from it): a statistic only stored on `self` (`self.state += x.sum(0)`,
    DP007's) couples no output."""
    statements = list(walk(forward.body, skip_scopes=True))
    holder = next(
        (
            s
            for s in statements
            if isinstance(s, (cst.Assign, cst.AugAssign, cst.Return))
            and any(n is reduction for n in walk(s))
        ),
        None,
    )
    if isinstance(holder, cst.Return):
        return True
    if isinstance(holder, cst.Assign):
        targets = [t.target for t in holder.targets]
    elif isinstance(holder, cst.AugAssign):
        targets = [holder.target]
    else:
        return False
    tainted = {t.value for t in targets if isinstance(t, cst.Name)}
    for _ in range(4):  # through the names bound from it, a few steps deep
        for s in statements:
            if isinstance(s, cst.Assign) and _reads(s.value, tainted):
                tainted |= {t.target.value for t in s.targets if isinstance(t.target, cst.Name)}
    return any(
        isinstance(s, cst.Return) and s.value is not None and _reads(s.value, tainted)
        for s in statements
    )


def _reads(node: cst.CSTNode, names: set[str]) -> bool:
    return any(isinstance(n, cst.Name) and n.value in names for n in walk(node))


def _over_rows(args: list[cst.Arg]) -> bool:
    """The dims given (first positional or dim=/axis=) include a literal 0."""
    given = next(
        (
            a.value
            for a in args
            if (a.keyword is None and a is args[0])
            or (a.keyword is not None and a.keyword.value in ("dim", "axis"))
        ),
        None,
    )
    if isinstance(given, cst.Integer):
        return given.value == "0"
    if isinstance(given, (cst.Tuple, cst.List)):
        return any(
            isinstance(e.value, cst.Integer) and e.value.value == "0" for e in given.elements
        )
    return False
