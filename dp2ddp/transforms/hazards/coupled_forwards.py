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

import ast
from collections.abc import Callable, Iterator

import libcst as cst

from dp2ddp.facts import ProgramFacts
from dp2ddp.transforms._support.ast_nodes import parse_python
from dp2ddp.transforms._support.nodes import code_of, name_of, nodes_of
from dp2ddp.transforms.analysis.batch_axis import class_pools
from dp2ddp.transforms.analysis.wrapped_classes import held_classes, module_wraps


def coupled_wraps(
    module: cst.Module,
    is_wrap: Callable[[cst.Call], bool],
    pairs_of: Callable[[cst.Call], str],
    facts: ProgramFacts,
    text: str,
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
        how = pairs_of(made) if isinstance(made, cst.Call) else ""
        if isinstance(made, cst.Call) and not how:
            how = _statistic(name_of(made.func) or "", text)
        if how and isinstance(made, cst.Call):
            yield wrap, "DP217", _detail(name_of(made.func) or code_of(made.func), how)
            continue
        known = isinstance(made, cst.Call) and _known_class(made, classes, facts)
        held = [] if known else _held_pooling(facts, text)  # a class it may hold pools them
        if held:
            name, where = held[0]
            site, _, expression = where.partition(": ")
            more = f" (and {len(held) - 1} more)" if len(held) > 1 else ""
            how = f"`{expression}` at {site}{more}, a class this wrap may hold"
            yield wrap, "DP217", _detail(name.rpartition(".")[2], how)


def _known_class(made: cst.Call, classes: dict[str, cst.ClassDef], facts: ProgramFacts) -> bool:
    """The wrapped construction's class is known (this module's, or the program's by its
    last name): its own forward() was read; what it builds is not (a note left)."""
    name = name_of(made.func)
    return name in classes or any(m.name.rpartition(".")[2] == name for m in facts.models)


def _held_pooling(facts: ProgramFacts, text: str) -> list[tuple[str, str]]:
    """(class, "path:line: expression") of the classes a DataParallel may hold (itself or
    a class it builds, ModelClass.held) whose forward() pools its batch's rows: the
    program's as told, a single file's own."""
    if facts.models:
        found = {m.pools: m.name for m in facts.models if m.pools and m.held}
        return sorted((name, where) for where, name in found.items())
    try:
        tree = parse_python(text)
    except (SyntaxError, ValueError, RecursionError):
        return []
    held = held_classes([module_wraps(tree)])
    return [
        (node.name, where)
        for node in tree.body
        if isinstance(node, ast.ClassDef)
        and (held is None or node.name in held)
        and (where := class_pools(node, "line").replace("line:", "line ", 1))
    ]


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


def _statistic(name: str, text: str) -> str:
    """`expression` of the first reduction in the forward() of this module's class `name`
    that pools the rows of a value of its inputs and reaches what forward() returns
    (analysis/batch_axis: over dim 0, or over the dim a permute or view moved them to); ""
    when none. Read from the module's own `ast` (parse_python's, kept: parsed once), not
    by printing the class and parsing it again."""
    try:
        tree = parse_python(text)
    except (SyntaxError, ValueError, RecursionError):
        return ""
    named = [n for n in ast.walk(tree) if isinstance(n, ast.ClassDef) and n.name == name]
    if not named:
        return ""
    found = class_pools(max(named, key=lambda n: n.lineno), "")  # the last, as bound
    return f"`{found.partition(': ')[2]}`" if found else ""
