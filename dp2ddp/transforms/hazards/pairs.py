"""Losses that compare samples across the batch (DP040).

DataParallel gathered the model's outputs on one device and the loss, computed outside the
model, saw the whole batch; under DDP each rank's loss sees only its part. For a loss over
single samples that changes nothing (DDP averages the ranks' gradients), but a loss over
pairs of samples (batch-hard triplet mining, contrastive losses, a pairwise distance
matrix) mines among fewer samples: its value and gradients differ
(michuanhaohao/reid-strong-baseline's TripletLoss). What counts, inside a function whose
name, or whose class's name, says loss or metric learning (code in a model's forward ran
per GPU under DataParallel too):

* torch.cdist / torch.pdist;
* a product of two batches, one transposed: `x.mm(y.t())`, `torch.matmul(x, y.T)`,
  `dist.addmm_(1, -2, x, y.t())`, `x @ y.t()`, both plain names (a weight or a table of
  class centres is an attribute: `x.mm(self.centers.t())` compares samples with classes);
* `labels.expand(n, n)` (an n x n mask), `x.unsqueeze(1) - x.unsqueeze(0)`.

A criterion class is also judged by its use, whatever its name (criterion_pairs, stop 33
class P1: mangye16/Unsupervised_Embedding_Learning's `BatchCriterion`, every other row of
the batch a negative): an instance called on a wrapped model's output whose forward()
compares the batch's rows (analysis/batch_pairs.py, told program-wide as ModelClass.pairs)
gets DP040 at the call. A comparison inside the model (attention) ran per GPU under
DataParallel too, and is not called on the wrap's output.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import TypeVar

import libcst as cst
from libcst.metadata import PositionProvider

from dp2ddp.facts import ModelClass
from dp2ddp.transforms._support.base import MigrationTransform
from dp2ddp.transforms._support.names import DATAPARALLEL, DISTRIBUTED_DATA_PARALLEL
from dp2ddp.transforms._support.nodes import (
    code_of,
    name_of,
    nodes_of,
    parsed_or_none,
    unmoved,
    walk,
)
from dp2ddp.transforms.analysis.handed_parameters import handed, wraps
from dp2ddp.transforms.analysis.partial_forward import module_classes
from dp2ddp.transforms.analysis.wrap_calls import own_functions_that_wrap, wrapper_results

_NAMED = re.compile(
    r"loss|triplet|mining|contrastive|metric|pairwise|euclidean|dist_?mat|hard_", re.IGNORECASE
)
_DISTANCES = frozenset({"cdist", "pdist"})
_V = TypeVar("_V")
_PRODUCTS = frozenset({"mm", "matmul", "addmm", "addmm_", "bmm"})


def pair_losses(
    module: cst.Module, code: Callable[[cst.CSTNode], str]
) -> Iterator[tuple[cst.FunctionDef, str, str]]:
    """Each loss-like function comparing samples across the batch, with its name
    (`Class.method` in a class) and the expression."""
    for node, owner in _functions(module.body, None):
        if not (_NAMED.search(node.name.value) or (owner and _NAMED.search(owner))):
            continue
        for inner in walk(node.body, skip_scopes=True):
            if _compares_samples(inner):
                name = f"{owner}.{node.name.value}" if owner else node.name.value
                yield node, name, code(inner)
                break


_MAY_COMPARE = re.compile(r"cdist|pdist|\.t\(\)|\.T\b|transpose|expand\(|unsqueeze")


def pair_loss_sites(source: str) -> list[tuple[int, str, str]]:
    """(line, name, expression) of each DP040 function of `source` (verify names them
    when a migration's updates differ); nothing for a file that does not parse."""
    if not (_NAMED.search(source) and _MAY_COMPARE.search(source)):
        return []
    module = parsed_or_none(source)
    if module is None:
        return []
    wrapper = cst.MetadataWrapper(module, unsafe_skip_copy=True)
    positions = wrapper.resolve(PositionProvider)
    return [
        (positions[node].start.line, name, expression)
        for node, name, expression in pair_losses(wrapper.module, module.code_for_node)
    ]


def _functions(body: object, owner: str | None) -> Iterator[tuple[cst.FunctionDef, str | None]]:
    statements = body if isinstance(body, (list, tuple)) else []
    for stmt in statements:
        if isinstance(stmt, cst.FunctionDef):
            yield stmt, owner
            yield from _functions(_block(stmt), owner)
        elif isinstance(stmt, cst.ClassDef):
            yield from _functions(_block(stmt), stmt.name.value)


def _block(node: cst.FunctionDef | cst.ClassDef) -> tuple[cst.BaseStatement, ...]:
    body = node.body
    return tuple(body.body) if isinstance(body, cst.IndentedBlock) else ()


def _transposed(node: cst.BaseExpression) -> cst.Name | None:
    """`y` of `y.t()`, `y.T`, `y.transpose(0, 1)`, also followed by `.contiguous()`."""
    if (
        isinstance(node, cst.Call)
        and isinstance(node.func, cst.Attribute)
        and node.func.attr.value == "contiguous"
        and not node.args
    ):
        node = node.func.value
    if isinstance(node, cst.Attribute) and node.attr.value == "T":
        value = node.value
    elif isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
        attr = node.func.attr.value
        if not (attr == "t" and not node.args) and not (
            attr == "transpose" and len(node.args) == 2
        ):
            return None
        value = node.func.value
    else:
        return None
    return value if isinstance(value, cst.Name) else None


def _compared(node: cst.CSTNode) -> tuple[str, str] | None:
    """The two names whose rows `node` compares: (`x`, `y`) of `x.mm(y.t())`,
    `torch.matmul(x, y.T)`, `x @ y.t()`, `torch.cdist(x, y)`, `x.unsqueeze(1) -
    y.unsqueeze(0)`, as _compares_samples reads a comparison."""
    pair: list[cst.BaseExpression | None] = []
    if isinstance(node, cst.Call):
        func = node.func
        last = name_of(func)
        values = [a.value for a in node.args if a.keyword is None and not a.star]
        if last in _DISTANCES:
            pair = [*values[:2]] if len(values) >= 2 else [*values[:1], *values[:1]]
        elif last in _PRODUCTS and not last.startswith("addmm") and values:
            if isinstance(func, cst.Attribute) and name_of(func.value) != "torch":
                pair = [func.value, _transposed(values[0])]  # x.mm(y.t())
            elif len(values) >= 2:
                pair = [values[0], _transposed(values[1])]  # torch.matmul(x, y.t())
    elif isinstance(node, cst.BinaryOperation):
        if isinstance(node.operator, cst.MatrixMultiply):
            pair = [node.left, _transposed(node.right)]
        elif isinstance(node.operator, cst.Subtract):
            left, right = _unsqueezed(node.left), _unsqueezed(node.right)
            if left is not None and right is not None and left[1] != right[1]:
                return left[0], right[0]
    first, second = (pair + [None, None])[:2]
    if isinstance(first, cst.Name) and isinstance(second, cst.Name):
        return first.value, second.value
    return None


def _compares_samples(node: cst.CSTNode) -> bool:
    if isinstance(node, cst.Call):
        func = node.func
        last = name_of(func)
        if last in _DISTANCES:
            return True
        values = [a.value for a in node.args if a.keyword is None and not a.star]
        if last in _PRODUCTS:
            if last.startswith("addmm"):  # dist.addmm_(1, -2, x, y.t()): the last two
                operands = values[-2:]
            elif isinstance(func, cst.Attribute) and name_of(func.value) != "torch":
                operands = [func.value, *values[:1]]  # x.mm(y.t())
            else:
                operands = values[:2]  # torch.matmul(x, y.t())
            if len(operands) == 2:
                first, second = operands
                return isinstance(first, cst.Name) and _transposed(second) is not None
        if last == "expand" and len(values) == 2 and isinstance(func, cst.Attribute):
            a, b = values
            return isinstance(a, cst.Name) and isinstance(b, cst.Name) and a.value == b.value
        return False
    if isinstance(node, cst.BinaryOperation):
        if isinstance(node.operator, cst.MatrixMultiply):
            return isinstance(node.left, cst.Name) and _transposed(node.right) is not None
        if isinstance(node.operator, cst.Subtract):
            left, right = _unsqueezed(node.left), _unsqueezed(node.right)
            return (
                left is not None
                and right is not None
                and left[0] == right[0]
                and left[1] != right[1]
            )
    return False


def _unsqueezed(node: cst.BaseExpression) -> tuple[str, str] | None:
    """(`x`, `1`) of `x.unsqueeze(1)`."""
    if (
        isinstance(node, cst.Call)
        and isinstance(node.func, cst.Attribute)
        and node.func.attr.value == "unsqueeze"
        and isinstance(node.func.value, cst.Name)
        and len(node.args) == 1
        and isinstance(node.args[0].value, cst.Integer)
    ):
        return node.func.value.value, node.args[0].value.value
    return None


def criterion_pairs(
    module: cst.Module,
    wrapped: set[str],
    described: Callable[[cst.Call], str],
    transform: MigrationTransform,
) -> Iterator[tuple[cst.CSTNode, str]]:
    """The first call, per scope, of each criterion object on a wrapped model's output whose
    class's forward() compares the rows of its batch (stop 33 class P1), with DP040's
    detail (where its forward compares; "one of the classes" when the name is also bound
    to another construction: Knowledge-Distillation-Zoo's `criterionKD = SP()` in one
    branch, `Logits()` in another). The class is decided by its use, whatever its name: an
    instance bound by `name = Cls(...)` (`described(call)`: ModelClass.pairs of the class,
    "" when not such a class), called with an argument that reads a wrapped model's call
    (`crit(net(x))`) or a name bound, in the same scope, from one (`feats = net(inputs)`,
    then `feats = feats / feats.norm(...)`: the binding closes over names so fed). A class
    whose name already says loss or metric learning is left to pair_losses (DP040 at its
    definition, in its own module). A wrapped model is also one a function returned
    (`snet = define_tsnet(...)`, network.py wrapping: analysis/wrap_calls.py)."""
    yield from _inline_pairs(module, wrapped, transform)
    code = transform.code
    hows: dict[str, dict[str, None]] = {}  # each class's ModelClass.pairs, in order
    others: set[str] = set()  # names also bound to a call building no such class
    assigns = list(nodes_of(module, cst.Assign))
    for assign in assigns:
        built = unmoved(assign.value)  # `Critic(...).to(device)` (stop 48 z3, r2-C)
        if isinstance(built, cst.Call):
            how = described(built)
            named = _NAMED.search(name_of(built.func) or "")
            for target in assign.targets:
                if how and not named:
                    hows.setdefault(code(target.target), {})[how] = None
                else:
                    others.add(code(target.target))
    if not hows:
        return
    wrapped = wrapped | _built_wraps(module, transform)
    if not wrapped:
        return
    # Every such class the name is bound to (KD-Zoo's criterionKD: PKTCosSim, RKD, SP, CC
    # and IRG in one if/elif chain), not the last one only (stop 49 f1).
    instances = {n: ("; ".join(h), n in others or len(h) > 1) for n, h in hows.items()}
    instances = _held(assigns, instances, code)
    wrapped = set(_held(assigns, dict.fromkeys(wrapped, True), code))
    scopes: list[cst.CSTNode] = [module]
    scopes += nodes_of(module, cst.FunctionDef)
    for scope in scopes:
        body = scope.body if isinstance(scope, cst.FunctionDef) else scope
        nodes = list(walk(body, skip_scopes=True))
        fed = _fed_names(nodes, wrapped, code)
        told: set[str] = set()  # one warning per instance and scope
        for node in nodes:
            if not isinstance(node, cst.Call):
                continue
            instance = _entry(node.func, code)
            if (
                instance in instances
                and instance not in told
                and any(_reads_output(arg.value, wrapped, fed, code) for arg in node.args)
            ):
                told.add(instance)
                how, mixed = instances[instance]
                yield node, _detail(instance, how, mixed)


def _inline_pairs(
    module: cst.Module, wrapped: set[str], transform: MigrationTransform
) -> Iterator[tuple[cst.CSTNode, str]]:
    """The first comparison, per scope, of the rows of names bound from a wrapped model's
    output, written in the scope itself (stop 49 a3-B, chingyaoc/DCL@7d6345f main.py:35-37:
    `out = torch.cat([out_1, out_2])`, then `torch.mm(out, out.t().contiguous())`, the
    contrastive loss's negatives computed in the training function): under DataParallel it
    saw the whole batch's gathered outputs, under DDP each rank's part. The model is a
    wrapped one as spelled, or the scope's parameter that a call of the function hands a
    wrap (analysis/handed_parameters.py, the def-use view's call sites). A loss-named
    function is pair_losses' (DP040 at its definition); a model's forward() reads no
    wrapped model's output."""
    if not _MAY_COMPARE.search(transform.state.text or module.code):
        return
    code = transform.code
    names = DATAPARALLEL | DISTRIBUTED_DATA_PARALLEL

    def is_wrap(node: cst.CSTNode) -> bool:
        return isinstance(node, cst.Call) and bool(transform.qualified_names(node.func) & names)

    scopes: list[cst.Module | cst.FunctionDef] = [module, *nodes_of(module, cst.FunctionDef)]
    for scope in scopes:
        if isinstance(scope, cst.FunctionDef) and _NAMED.search(scope.name.value):
            continue
        body = scope.body if isinstance(scope, cst.FunctionDef) else scope
        nodes = list(walk(body, skip_scopes=True))
        found = [
            (n, pair)
            for n in nodes
            if isinstance(n, cst.Call | cst.BinaryOperation) and (pair := _compared(n))
        ]
        if not found:
            continue
        here = set(wrapped)
        if isinstance(scope, cst.FunctionDef):
            params = [*scope.params.params, *scope.params.kwonly_params]
            here |= {
                p.name.value
                for p in params
                if any(v is not None and wraps(v, is_wrap) for v in handed(p, transform, here))
            }
        fed = _fed_names(nodes, here, code) if here else set()
        for node, (first, second) in found:
            if first in fed and second in fed:
                seen = code(node).splitlines()[0][:60]
                rows = first if second == first else f"{first} and {second}"
                yield (
                    node,
                    (
                        f"`{seen}` compares the rows of {rows}, bound from the wrapped model's "
                        "output: each rank computes it on its own part of each batch, "
                        "DataParallel on the whole batch's gathered outputs"
                    ),
                )
                break


def _detail(instance: str, how: str, mixed: bool) -> str:
    if "; " in how:
        return (
            f"{instance}() is called on the wrapped model's output and {how.count('; ') + 1} "
            f"of the classes it is bound to compare the batch's rows in forward() ({how}): "
            "where it is one of them, each rank's loss sees its own part of each batch, "
            "DataParallel's saw the whole batch"
        )
    if not mixed:
        return (
            f"{instance}() is called on the wrapped model's output and its class's forward() "
            f"compares the batch's rows ({how}): each rank's loss sees its own part of each "
            "batch, DataParallel's saw the whole batch"
        )
    return (
        f"{instance}() is called on the wrapped model's output and one of the classes it is "
        f"bound to compares the batch's rows in forward() ({how}): where it is that one, "
        "each rank's loss sees its own part of each batch, DataParallel's saw the whole batch"
    )


def _built_wraps(module: cst.Module, transform: MigrationTransform) -> set[str]:
    """Names bound to the result of a function that returns a DataParallel wrap."""

    def is_wrap(node: cst.CSTNode) -> bool:
        return isinstance(node, cst.Call) and bool(
            transform.qualified_names(node.func) & DATAPARALLEL
        )

    wrappers = own_functions_that_wrap(module, is_wrap) | {*transform.state.facts.wrap_functions}
    if not wrappers:
        return set()
    built = wrapper_results(module, transform, frozenset(wrappers), is_wrap)
    return {code_of(b) for b in built.bindings} | set(built.spelled)


def _held(
    assigns: list[cst.Assign], known: dict[str, _V], code: Callable[[cst.CSTNode], str]
) -> dict[str, _V]:
    """`known` grown, to a fixed point, by what holds the same object as spelled: a name
    bound to one (through `.cuda()`/`.to()`), the entry `d['k']` of a dict literal `d = {'k':
    one}`, a name bound to such an entry (`criterions['sp']`, `nets['snet']`: stop 48 z3,
    AberHu/Knowledge-Distillation-Zoo@65470c8's train_kd.py)."""
    held = dict(known)
    changed = True
    while changed:
        changed = False
        for assign in assigns:
            value = unmoved(assign.value)
            found: list[tuple[str, _V]] = []
            if isinstance(value, cst.Dict):
                for element in value.elements:
                    if isinstance(element, cst.DictElement) and isinstance(
                        element.key, cst.SimpleString
                    ):
                        how = held.get(code(unmoved(element.value)))
                        key = element.key.evaluated_value
                        if how is not None and isinstance(key, str):
                            found += [(f"{code(t.target)}[{key!r}]", how) for t in assign.targets]
            elif (how := held.get(_entry(value, code))) is not None:
                found = [(code(t.target), how) for t in assign.targets]
            for name, how in found:
                if name not in held:
                    held[name] = how
                    changed = True
    return held


def _entry(node: cst.BaseExpression, code: Callable[[cst.CSTNode], str]) -> str:
    """`d['k']` of `d["k"]` (one spelling for an entry of a dict of strings), else as spelled."""
    if isinstance(node, cst.Subscript) and len(node.slice) == 1:
        index = node.slice[0].slice
        if isinstance(index, cst.Index) and isinstance(index.value, cst.SimpleString):
            key = index.value.evaluated_value
            if isinstance(key, str):
                return f"{code(node.value)}[{key!r}]"
    return code(node)


def _fed_names(
    nodes: list[cst.CSTNode], wrapped: set[str], code: Callable[[cst.CSTNode], str]
) -> set[str]:
    """Names the scope binds from a wrapped model's output, to a fixed point."""
    fed: set[str] = set()
    assigns = [n for n in nodes if isinstance(n, cst.Assign)]
    changed = True
    while changed:
        changed = False
        for node in assigns:
            if not _reads_output(node.value, wrapped, fed, code):
                continue
            for target in node.targets:
                for name in walk(target.target):
                    if isinstance(name, cst.Name) and name.value not in fed:
                        fed.add(name.value)
                        changed = True
    return fed


def _reads_output(
    expr: cst.CSTNode, wrapped: set[str], fed: set[str], code: Callable[[cst.CSTNode], str]
) -> bool:
    return any(
        (isinstance(n, cst.Call) and _entry(n.func, code) in wrapped)
        or (isinstance(n, cst.Name) and n.value in fed)
        for n in walk(expr, skip_scopes=True)
    )


class ClassPairs:
    """ModelClass.pairs of the class a call builds, by its qualified names: the program's
    classes as told (ProgramFacts.models), or this file's own for a single file (read once,
    when first asked)."""

    def __init__(
        self,
        models: tuple[ModelClass, ...],
        source: Callable[[], str],
        qualified_names: Callable[[cst.CSTNode], set[str]],
    ) -> None:
        self._told = {c.name: c.pairs for c in models if c.pairs}
        self._single = not models
        self._source = source
        self._qualified_names = qualified_names
        self._own: dict[str, str] | None = None

    def __call__(self, call: cst.Call) -> str:
        known = self._told
        if self._single:
            if self._own is None:
                self._own = {
                    name: facts.pairs
                    for name, facts in module_classes("", "", self._source()).items()
                    if facts.pairs
                }
            known = self._own
        if not known:
            return ""
        qualified = self._qualified_names(call.func)
        bare = name_of(call.func) or ""
        found = next((known[n] for n in sorted(qualified | {bare}) if n in known), "")
        if found or qualified or not bare:
            return found
        # A name no import resolves (`from kd_losses import *`, a package re-exporting
        # its modules' classes: Knowledge-Distillation-Zoo's SP): the program's one
        # class of that name, if one.
        same = {how for name, how in known.items() if name.rpartition(".")[2] == bare}
        return same.pop() if len(same) == 1 else ""
