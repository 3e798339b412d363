"""Is each tensor of a loop's batch one whole argument of the wrapped model's call? Then the
split at the loop's top is DataParallel's scatter itself, tensor by tensor.

DataParallel's scatter cuts every tensor it is given along its dim into as many parts as
there are GPUs, each tensor on its own: tensors of unequal sizes are cut each by its own
(round 35, lonePatient/chinese-word2vec-pytorch@22c9b3f: a skip-gram batch of `pos_u,
pos_v` pairs and `neg_u, neg_v` with k negatives per pair, `len(neg_v) == k * len(pos_v)`).
`ddp_shard_batch` refuses a batch whose tensors disagree in size (where the split is not at
the call, such a batch is a sign of a wrong split: a part cut twice, tokens beside their
lengths), so that batch stopped every rank at its first step (ValueError), unsaid at
migration. Proved here: every statement of the loop's body up to the wrapped call reads the
batch only as
* `a, b, c = batch` (the batch's tensors bound to names),
* `batch = tuple(t.to(device) for t in batch)` / a list comprehension of a conversion
  (`.to()`, `.cuda()`, `.float()`, ...: flow/carriers.METHODS) of each element,
* `a = a.to(device)` (a conversion of one tensor),
and the call is given those names, each as one whole argument (or `*batch`), and nothing
after it reads them: then `ddp_shard_batch(..., each=True)` cuts each tensor by its own size,
as DataParallel did. Anything else: no proof, the helper refuses as before.
"""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from dp2ddp.flow.carriers import METHODS
from dp2ddp.transforms._support.nodes import name_of, walk


def parts_are_arguments(
    body: cst.BaseSuite, target: cst.BaseExpression, is_model_call: Callable[[cst.Call], bool]
) -> bool:
    """The batch `target` binds reaches one wrapped-model call in `body`, each of its
    tensors as one whole argument (the module docstring)."""
    if not isinstance(body, cst.IndentedBlock):
        return False
    wholes: set[str] = set()
    parts: set[str] = set()
    if isinstance(target, cst.Name):
        wholes.add(target.value)
    elif isinstance(target, (cst.Tuple, cst.List)):
        names = _names(target)
        if names is None or len(names) < 2:
            return False  # one tensor: nothing to cut apart
        parts.update(names)
    else:
        return False
    called = False
    for statement in body.body:
        read = _reads(statement) & (wholes | parts)
        calls = [n for n in walk(statement) if isinstance(n, cst.Call) and is_model_call(n)]
        if called:
            if read or calls:
                return False  # read after the call, or a second call: not proved
            continue
        if calls:
            if len(calls) != 1 or not isinstance(statement, cst.SimpleStatementLine):
                return False
            uses = [n for n in walk(statement) if isinstance(n, cst.Name)]
            if len([n for n in uses if n.value in wholes | parts]) != len(calls[0].args):
                return False  # read beside the call too (`model(a, b) + a.sum()`)
            if not _given_each(calls[0], wholes, parts):
                return False
            called = True
            continue
        if not read:
            continue
        if not _conversion_step(statement, wholes, parts):
            return False
    return called


def held_model_call(call: cst.Call) -> bool:
    """`self.model(...)`, `self.net.forward(...)`: a model the object holds, where the
    module sees no wrap (a trainer handed the wrapped model: round 35's word2vec)."""
    func = call.func
    if isinstance(func, cst.Attribute) and func.attr.value == "forward":
        func = func.value
    return (
        isinstance(func, cst.Attribute)
        and isinstance(func.value, cst.Name)
        and func.value.value == "self"
        and func.attr.value not in METHODS
    )


def _names(target: cst.BaseExpression) -> list[str] | None:
    if not isinstance(target, (cst.Tuple, cst.List)):
        return None
    names = [e.value for e in target.elements if not isinstance(e, cst.StarredElement)]
    if len(names) != len(target.elements) or not all(isinstance(n, cst.Name) for n in names):
        return None
    return [n.value for n in names if isinstance(n, cst.Name)]


def _reads(node: cst.CSTNode) -> set[str]:
    return {n.value for n in walk(node) if isinstance(n, cst.Name)}


def _converted(value: cst.BaseExpression, names: set[str]) -> str | None:
    """`x.to(d)`, `x.cuda().float()` of a name in `names`: that name."""
    while (
        isinstance(value, cst.Call)
        and isinstance(value.func, cst.Attribute)
        and value.func.attr.value in METHODS
    ):
        if any(_reads(a.value) & names for a in value.args):
            return None
        value = value.func.value
    return value.value if isinstance(value, cst.Name) and value.value in names else None


def _conversion_step(statement: cst.BaseStatement, wholes: set[str], parts: set[str]) -> bool:
    """One of the statements the module docstring allows; the names it binds recorded."""
    if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
        return False
    assign = statement.body[0]
    if not isinstance(assign, cst.Assign) or len(assign.targets) != 1:
        return False
    target, value = assign.targets[0].target, assign.value
    if isinstance(value, cst.Name) and value.value in wholes:
        names = _names(target)  # `a, b, c = batch`
        if names is None:
            return False
        parts.update(names)
        return True
    if isinstance(target, cst.Name) and _converted(value, parts) is not None:
        parts.add(target.value)  # `a = a.to(device)`
        return True
    if isinstance(target, cst.Name) and _each_converted(value, wholes):
        wholes.add(target.value)  # `batch = tuple(t.to(device) for t in batch)`
        return True
    return False


def _each_converted(value: cst.BaseExpression, wholes: set[str]) -> bool:
    """`tuple(t.to(d) for t in batch)`, `[t.to(d) for t in batch]` of a whole batch."""
    if isinstance(value, cst.Call) and name_of(value.func) in ("tuple", "list"):
        if len(value.args) != 1:
            return False
        value = value.args[0].value
    if not isinstance(value, (cst.GeneratorExp, cst.ListComp)):
        return False
    loop = value.for_in
    if loop.inner_for_in is not None or loop.ifs or not isinstance(loop.target, cst.Name):
        return False
    if not (isinstance(loop.iter, cst.Name) and loop.iter.value in wholes):
        return False
    return _converted(value.elt, {loop.target.value}) is not None


def _given_each(call: cst.Call, wholes: set[str], parts: set[str]) -> bool:
    """`model(a, b, c)` / `model(*batch)`: each argument one whole tensor of the batch."""
    if not call.args:
        return False
    for arg in call.args:
        value = arg.value
        if arg.star == "*":
            if not (isinstance(value, cst.Name) and value.value in wholes):
                return False
        elif arg.star or not (isinstance(value, cst.Name) and value.value in parts):
            return False
    return True
