"""A partial wrap's outside code that saw the whole gathered batch (DP115).

DataParallel may wrap only a part of a model: a submodule its unwrapped owner holds
(`self.encoder = nn.DataParallel(enc)` in `__init__`), a score function of a loss module
(`self.nce_func = nn.DataParallel(NCE())`). The owner's code around the wrap (its forward(),
a method, a loss) then ran once, on the whole batch the wrap gathered; and an input
replicated once per GPU (`t.unsqueeze(0).expand(n_gpus, -1, -1)`) handed each replica the
whole batch's `t` beside its own chunk of the other arguments. Under DDP every rank runs
all of it on its own share: an operation there that compares samples with each other
(contrastive or NCE negatives) compares within the rank's share only, and training changes
(round 10 v3-A: Philip-Bachman/amdim-public@8754ae1's `LossMultiNCE`, whose wrapped
`NCE_MI_MULTI` scored each replica's sources against all targets; its loss went from
18.80 to 15.17 with no warning naming the batch). DP022 says the wrap is nested, not this.

What is said, per method of a class that holds such a wrap (and for a module-level wrap, per
function that calls it):

* a comparison of rows (hazards/pairs.py's reading: `torch.mm(a, b.t())`, `a @ b.T`,
  cdist, `a.unsqueeze(1) - b.unsqueeze(0)`) both of whose operands are bound from the
  sub-wrap's output, outside it (in the owner's own code);
* a call of an object the owner holds whose class compares the batch's rows in forward()
  (ModelClass.pairs, as DP040 reads a criterion's), with an argument bound from that output;
* a call of the wrap with an argument replicated along a new first axis (`expand` or
  `repeat` of `x.unsqueeze(0)` / `x[None]`, the count not a literal 1) of a value bound
  from the batch: a parameter of the method or function, an element of a loop, or the
  wrap's output. A replicated parameter or constant (`self.centers`) is the same on every
  rank: not said.

What is per sample is not said: an elementwise operation, `torch.bmm` of each sample with
itself (hazards/pairs.py keeps `bmm` with a transpose that leaves the batch's axis as no
comparison). A top-level wrap's own gathered output compared in a loop is DP040's.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping

import libcst as cst

from dp2ddp.facts import ModelClass
from dp2ddp.flow import DefUse
from dp2ddp.transforms._support.base import MigrationTransform
from dp2ddp.transforms._support.names import DATAPARALLEL
from dp2ddp.transforms._support.nodes import code_of, name_of, nodes_of, walk
from dp2ddp.transforms.analysis.class_facts import ClassFacts
from dp2ddp.transforms.analysis.held_objects import HeldObjects, held
from dp2ddp.transforms.analysis.owner_parameters import other_attributes
from dp2ddp.transforms.analysis.part_wraps import partly_wrapped
from dp2ddp.transforms.hazards.fed_parameters import fed_names as _fed_names
from dp2ddp.transforms.hazards.pairs import (
    ClassPairs,
    _binds_object,
    _compared,
    unknown_class_pairs,
)

#: The count of a replication along a new first axis that copies nothing (any other does).
_ONE = frozenset({"1", "-1"})
#: How deep a chain of the module's own functions is entered from a call on the output.
_DEPTH = 3
_TAIL = (
    ": under DataParallel this line saw the whole gathered batch, under DDP each rank's "
    "share (gather the outputs from every rank with torch.distributed.nn.functional."
    "all_gather before it, or keep per-rank rows)"
)


class PartWraps(ClassPairs):
    """ModelClass.part_wrap of the class a call builds (a class DataParallel wraps only a
    part of), as ClassPairs looks up ModelClass.pairs."""

    @staticmethod
    def told_of(model: ModelClass) -> str:
        return model.part_wrap

    @staticmethod
    def own_of(classes: Mapping[str, ClassFacts]) -> dict[str, str]:
        return partly_wrapped(
            {name: facts.held_wrap for name, facts in classes.items()},
            {name: facts.children for name, facts in classes.items()},
        )


def unproved_pairs(
    module: cst.Module,
    wrapped: set[str],
    transform: MigrationTransform,
    pairs_of: ClassPairs,
) -> Iterator[tuple[cst.CSTNode, str, str]]:
    """Each place (node, code, detail) where rows may be compared across a batch that
    DataParallel gave whole and DDP gives in shares, and DP040's proof does not reach:
    "DP115" where code outside a partial wrap saw the whole batch (once per scope and
    kind); "DP116" where an object of a class not known statically is called on a wrapped
    model's output and may be one that compares rows (hazards/pairs.py)."""
    text = transform.state.text or module.code
    if "DataParallel" in text or any(m.part_wrap for m in transform.state.facts.models):
        objects = held(module)
        for node, detail in _places(module, wrapped, transform, pairs_of, objects):
            yield node, "DP115", detail
        for node, detail in _holders_beside_parts(module, transform):
            yield node, "DP141", detail
    for node, detail in unknown_class_pairs(module, wrapped, pairs_of, transform):
        yield node, "DP116", detail


def _places(
    module: cst.Module,
    wrapped: set[str],
    transform: MigrationTransform,
    pairs_of: ClassPairs,
    objects: HeldObjects,
) -> Iterator[tuple[cst.CSTNode, str]]:
    def is_dataparallel(node: cst.BaseExpression) -> bool:
        return isinstance(node, cst.Call) and bool(
            transform.qualified_names(node.func) & DATAPARALLEL
        )

    defs = objects.defs
    for cls in nodes_of(module, cst.ClassDef):
        methods = [s for s in _body(cls) if isinstance(s, cst.FunctionDef)]
        subs = _held(methods, is_dataparallel)
        for method in methods if subs else ():
            if method.name.value == "__init__":
                continue
            me = method.params.params[0].name.value if method.params.params else "self"
            spelled = {f"{me}.{attr}" for attr in subs}

            def is_sub(call: cst.Call, spelled: set[str] = spelled) -> bool:
                return code_of(call.func) in spelled

            nodes = list(walk(method.body, skip_scopes=True))
            yield from _replicas(method, nodes, is_sub, skip=1)
            fed = _fed_names(nodes, is_sub)  # its own comparisons of them are DP040's
            whose = f"{' and '.join(sorted(spelled))}'s output in {cls.name.value}'s own code"
            yield from _entered(defs, nodes, fed, whose)
    module_wraps = {w for w in wrapped if "." not in w and "[" not in w}
    for function in nodes_of(module, cst.FunctionDef) if module_wraps else ():
        nodes = list(walk(function.body, skip_scopes=True))
        yield from _replicas(function, nodes, lambda c: code_of(c.func) in module_wraps, 0)
    parts_of = _part_wraps(module, transform)
    if not parts_of.any():
        return
    parts = {
        id(call): how
        for call in defs.calls
        if _binds_object(call, defs) and (how := parts_of(call))
    }
    if parts:
        yield from _part_outputs(module, objects, parts, pairs_of, wrapped)


def _part_outputs(
    module: cst.Module,
    objects: HeldObjects,
    parts: dict[int, str],
    pairs_of: ClassPairs,
    wrapped: set[str],
) -> Iterator[tuple[cst.CSTNode, str]]:
    """Per scope, the first comparison of rows of a partly wrapped model's output (and of
    a call handing it to a criterion that compares rows, or to the module's own function
    that does): an instance of such a class stands for a wrapped model."""

    def is_part(call: cst.Call) -> bool:  # a wrapped name's output is DP040's
        spelled = code_of(call.func)
        return spelled not in wrapped and any(id(c) in parts for c in objects(call.func).calls)

    scopes: list[cst.CSTNode] = [module, *nodes_of(module, cst.FunctionDef)]
    for scope in scopes:
        body = scope.body if isinstance(scope, cst.FunctionDef) else scope
        nodes = list(walk(body, skip_scopes=True))
        calls = [n for n in nodes if isinstance(n, cst.Call) and is_part(n)]
        if not calls:
            continue
        how = parts[next(id(c) for c in objects(calls[0].func).calls if id(c) in parts)]
        model = f"{code_of(calls[0].func)}() (DataParallel wraps only {how})"
        fed = _fed_names(nodes, is_part)
        for node in nodes:
            pair = _compared(node) if isinstance(node, cst.Call | cst.BinaryOperation) else None
            if pair is not None and pair[0] in fed and pair[1] in fed:
                rows = pair[0] if pair[0] == pair[1] else f"{pair[0]} and {pair[1]}"
                seen = code_of(node).splitlines()[0][:60]
                yield node, f"`{seen}` compares the rows of {rows}, bound from {model}{_TAIL}"
                break
        for node in nodes:
            if not isinstance(node, cst.Call) or not any(_reads(a.value, fed) for a in node.args):
                continue
            found = {pairs_of(c) for c in objects(node.func).calls} - {""}
            if found:
                yield (
                    node,
                    (
                        f"{code_of(node.func)}() is called on the output of {model} and its "
                        f"class's forward() compares the batch's rows ({'; '.join(sorted(found))})"
                        f"{_TAIL}"
                    ),
                )
                break
        yield from _entered(objects.defs, nodes, fed, f"the output of {model}")


def _entered(
    defs: DefUse, nodes: list[cst.CSTNode], fed: set[str], whose: str
) -> Iterator[tuple[cst.CSTNode, str]]:
    """The first call handing `fed` rows to a function of this module (or a method of its
    class) that compares the rows of what it is handed, a few calls deep."""
    for node in nodes:
        if not isinstance(node, cst.Call):
            continue
        found = _compares_handed(defs, node, fed, _DEPTH, set())
        if found is not None:
            seen = code_of(found).splitlines()[0][:60]
            callee = code_of(node.func)
            yield (
                node,
                (
                    f"{callee}() is handed rows of {whose}, and compares them (`{seen}`, "
                    f"reached from {callee}()){_TAIL}"
                ),
            )
            return


def _compares_handed(
    defs: DefUse, call: cst.Call, fed: set[str], depth: int, seen: set[int]
) -> cst.CSTNode | None:
    """The comparison of rows, in a function `call` may run, of two values derived from the
    parameters it binds to arguments reading `fed` (entering its own calls likewise)."""
    if depth == 0 or not isinstance(call.func, cst.Name | cst.Attribute):
        return None
    if isinstance(call.func, cst.Attribute) and not isinstance(call.func.value, cst.Name):
        return None
    for callee in defs.callees(call):
        node = callee.node
        if not isinstance(node, cst.FunctionDef) or id(node) in seen:
            continue
        seen.add(id(node))
        params = callee.params[1:] if callee.self_name is not None else callee.params
        handed = _handed(call, params, fed)
        if not handed:
            continue
        nodes = list(walk(node.body, skip_scopes=True))
        derived = _derived(nodes, handed)
        for inner in nodes:
            pair = _compared(inner) if isinstance(inner, cst.Call | cst.BinaryOperation) else None
            if pair is not None and pair[0] in derived and pair[1] in derived:
                return inner
        for inner in nodes:
            if isinstance(inner, cst.Call):
                deeper = _compares_handed(defs, inner, derived, depth - 1, seen)
                if deeper is not None:
                    return deeper
    return None


def _handed(call: cst.Call, params: list[cst.Param], fed: set[str]) -> set[str]:
    """The names of `params` bound to an argument of `call` that reads `fed`."""
    names: set[str] = set()
    by_name = {p.name.value for p in params}
    positional = [a for a in call.args if a.keyword is None and not a.star]
    for param, arg in zip(params, positional, strict=False):
        if _reads(arg.value, fed):
            names.add(param.name.value)
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value in by_name and _reads(arg.value, fed):
            names.add(arg.keyword.value)
    return names


def _holders_beside_parts(
    module: cst.Module, transform: MigrationTransform
) -> Iterator[tuple[cst.CSTNode, str]]:
    """`self.twin = Twin()` in a class's `__init__`, where Twin is partly wrapped (its own
    `self.encoder = nn.DataParallel(...)`, or a class it builds has one: ModelClass.
    part_wrap) and the holder stores other attributes that may hold parameters (`self.head
    = nn.Linear(...)`), the holder not wrapping anything itself (that owner is DP022's):
    the migration turns the inner wrap into a DDP, which averages the gradients of the
    wrapped part only, and the holder's own parameters train apart on each rank (helper
    s1's left class of stop 58, its `Pipeline` beside `Twin`)."""
    parts_of = _part_wraps(module, transform)
    if not parts_of.any():
        return
    for cls in nodes_of(module, cst.ClassDef):
        init = next(
            (
                s
                for s in _body(cls)
                if isinstance(s, cst.FunctionDef) and s.name.value == "__init__"
            ),
            None,
        )
        if init is None or not init.params.params:
            continue
        me = init.params.params[0].name.value
        if _held([init], lambda v: "DataParallel" in code_of(v)):
            continue  # the wrap's own owner: DP022 says it
        for assign in nodes_of(init, cst.Assign):
            target = assign.targets[0].target if len(assign.targets) == 1 else None
            if not (
                isinstance(target, cst.Attribute)
                and isinstance(target.value, cst.Name)
                and target.value.value == me
                and isinstance(assign.value, cst.Call)
            ):
                continue
            how = parts_of(assign.value)
            spelled = f"{me}.{target.attr.value}"
            if how and other_attributes(cls, spelled, module) is None:
                yield (
                    assign,
                    f"{spelled} ({code_of(assign.value.func)}) is partly wrapped (DataParallel "
                    f"wraps {how}) and {cls.name.value} holds other attributes that may hold "
                    "parameters beside it: after the migration only the wrapped part's "
                    f"gradients are averaged, {cls.name.value}'s own parameters train apart "
                    "on each rank; wrap the whole model the optimizer trains in DDP instead "
                    "of its part",
                )
                break


def _body(node: cst.ClassDef) -> tuple[cst.BaseStatement, ...]:
    body = node.body
    return tuple(body.body) if isinstance(body, cst.IndentedBlock) else ()


def _held(
    methods: list[cst.FunctionDef], is_dataparallel: Callable[[cst.BaseExpression], bool]
) -> set[str]:
    """The attributes of `self` a method binds to a DataParallel wrap."""
    wraps: set[str] = set()
    for method in methods:
        me = method.params.params[0].name.value if method.params.params else ""
        for assign in nodes_of(method, cst.Assign):
            for target in assign.targets:
                node = target.target
                if (
                    isinstance(node, cst.Attribute)
                    and isinstance(node.value, cst.Name)
                    and node.value.value == me
                    and is_dataparallel(assign.value)
                ):
                    wraps.add(node.attr.value)
    return wraps


def _replicas(
    scope: cst.FunctionDef,
    nodes: list[cst.CSTNode],
    is_wrap: Callable[[cst.Call], bool],
    skip: int,
) -> Iterator[tuple[cst.CSTNode, str]]:
    """The first call of the wrap handed a value from the batch replicated along a new
    first axis: each replica saw all of it under DataParallel."""
    calls = [n for n in nodes if isinstance(n, cst.Call) and is_wrap(n)]
    if not calls:
        return
    seeds = {p.name.value for p in scope.params.params[skip:]} | _fed_names(nodes, is_wrap)
    for loop in nodes:
        if isinstance(loop, cst.For):
            seeds |= {n.value for n in walk(loop.target) if isinstance(n, cst.Name)}
    data = _derived(nodes, seeds)
    replicated = _replicated_names(nodes, data)
    for call in calls:
        for arg in call.args:
            base = _replica(arg.value)
            if (base is not None and _reads(base, data)) or (
                isinstance(arg.value, cst.Name) and arg.value.value in replicated
            ):
                value = code_of(arg.value if base is None else base)
                model = code_of(call.func)
                yield (
                    call,
                    f"{model}() is handed `{value}` replicated once per GPU: under "
                    f"DataParallel each replica of {model} saw the whole batch's `{value}` "
                    "beside its own chunk of the other arguments; under DDP each rank's is "
                    "its own share (gather it from every rank with torch.distributed.nn."
                    "functional.all_gather before the call, or keep per-rank rows)",
                )
                return


def _reads(expr: cst.CSTNode, names: set[str]) -> bool:
    return any(isinstance(n, cst.Name) and n.value in names for n in walk(expr))


def _derived(nodes: list[cst.CSTNode], seeds: set[str]) -> set[str]:
    """`seeds` and the names bound from them, to a fixed point (flow-insensitive)."""
    found = set(seeds)
    assigns = [n for n in nodes if isinstance(n, cst.Assign)]
    changed = True
    while changed:
        changed = False
        for node in assigns:
            if not _reads(node.value, found):
                continue
            for target in node.targets:
                for name in walk(target.target):
                    if isinstance(name, cst.Name) and name.value not in found:
                        found.add(name.value)
                        changed = True
    return found


def _replicated_names(nodes: list[cst.CSTNode], data: set[str]) -> set[str]:
    """Names bound to a replica of a value from the batch (`t = t.unsqueeze(0).expand(n,
    -1)`)."""
    names: set[str] = set()
    for node in nodes:
        if isinstance(node, cst.Assign) and len(node.targets) == 1:
            target = node.targets[0].target
            base = _replica(node.value)
            if isinstance(target, cst.Name) and base is not None and _reads(base, data):
                names.add(target.value)
    return names


def _replica(expr: cst.BaseExpression) -> cst.BaseExpression | None:
    """`x` of `x.unsqueeze(0).expand(n, ...)`, `x[None].repeat(n, 1)`, `x.unsqueeze(dim=0)
    .expand(...)`: a copy of all of `x` per entry of a new first axis, n not a literal 1."""
    if not (
        isinstance(expr, cst.Call)
        and isinstance(expr.func, cst.Attribute)
        and expr.func.attr.value in {"expand", "repeat"}
        and expr.args
        and code_of(expr.args[0].value) not in _ONE
    ):
        return None
    inner = expr.func.value
    if isinstance(inner, cst.Call) and name_of(inner.func) == "unsqueeze" and len(inner.args) == 1:
        if isinstance(inner.func, cst.Attribute) and code_of(inner.args[0].value) == "0":
            return inner.func.value
    if isinstance(inner, cst.Subscript) and inner.slice:
        first = inner.slice[0].slice
        if isinstance(first, cst.Index) and code_of(first.value) == "None":
            return inner.value
    return None


def _part_wraps(module: cst.Module, transform: MigrationTransform) -> PartWraps:
    """The program's partly wrapped classes, as this module's pass reads them."""
    return PartWraps(
        transform.state.facts.models,
        lambda: transform.state.text or module.code,
        transform.qualified_names,
    )
