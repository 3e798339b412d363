"""DP059's batch statistics that offset or scale per-sample terms (a REINFORCE baseline).

A statistic over the batch's rows (`cost.mean()`, `r.std()`, over dim 0 or every element)
that reaches the loss as a plain additive mean term is reproduced by DDP's gradient
averaging. One that enters a reduction over the batch as an offset or a factor of the
per-sample terms is not: `((cost - cost.mean()) * log_likelihood).mean()` (a REINFORCE
baseline), an exponential moving average of it kept on an object across steps
(`self.v = beta * self.v + (1 - beta) * c.mean()`, jieyibi/AMDKD@e3a3d55's
ExponentialBaseline, round 26), an advantage standardisation `(r - r.mean()) / r.std()`.
DataParallel computed it over the gathered batch; each DDP rank computes it over its own
share (and keeps its own moving average), so the gradient changes with no error.

`baseline_statistics` finds them in what reaches backward(): the reductions over the batch
in the loss (names followed), and within each one's operand a `+ - * /` whose one side holds
such a statistic (through names, `self.x` attributes the enclosing class assigns, and the
return values of a method of the program's own classes called on an object) while the other
side holds none and is no number.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import libcst as cst

from dp2ddp.flow import DefUse, view
from dp2ddp.transforms._support.base import MigrationTransform
from dp2ddp.transforms._support.children import children_of
from dp2ddp.transforms.hazards.reductions import TENSOR_METHODS, Alike, alike_value, reduction

#: The statistics over the batch that make a baseline or a normaliser.
_STATISTICS = frozenset({"mean", "nanmean", "std", "var"})
#: The reductions whose operand's terms are per-sample (the loss's outer mean or sum).
_OUTER = frozenset({"mean", "nanmean", "sum", "nansum"})
_OFFSETS = (cst.Add, cst.Subtract, cst.Multiply, cst.Divide)
#: The bindings of a function outside every class (no `self.x` to follow).
_NONE: Bindings = {}
#: DP059's message for one: what it is and why it differs.
OFFSETS = (
    "is a statistic of the batch that offsets or scales its per-sample terms in the loss "
    "(a baseline, a normaliser): DataParallel computed it over the whole batch, each DDP "
    "rank computes it over its own share (and keeps its own running value), so the "
    "gradient differs; all-reduce the sum and the count (detached) to use the whole batch's"
)

Bindings = dict[str, list[cst.BaseExpression]]
_Node = TypeVar("_Node", bound=cst.CSTNode)
_Key = TypeVar("_Key", bound=tuple[int, ...])


def _over_batch(dims: tuple[int, ...] | None) -> bool:
    return dims is not None and (dims == () or 0 in dims)


class _Program:
    """The module's classes: `self.x` bindings per class, and its methods by name."""

    def __init__(self, module: cst.Module) -> None:
        self.attrs: dict[int, Bindings] = {}
        self.methods: dict[str, list[cst.FunctionDef]] = {}
        self.classes: dict[int, cst.ClassDef] = {}
        for node in _walk(module):
            if isinstance(node, cst.ClassDef):
                bound: Bindings = {}
                for inner in _walk(node.body):
                    if isinstance(inner, cst.FunctionDef):
                        self.methods.setdefault(inner.name.value, []).append(inner)
                        self.classes[id(inner)] = node
                    for target, value in _stores(inner):
                        if isinstance(target, cst.Attribute):
                            key = _attr_key(target)
                            if key:
                                bound.setdefault(key, []).append(value)
                self.attrs[id(node)] = bound


def _walk(node: cst.CSTNode | cst.BaseSuite) -> list[cst.CSTNode]:
    out: list[cst.CSTNode] = []
    stack: list[cst.CSTNode] = [node]
    while stack:
        top = stack.pop()
        out.append(top)
        stack.extend(children_of(top))
    return out


def _stores(node: cst.CSTNode) -> list[tuple[cst.BaseExpression, cst.BaseExpression]]:
    if isinstance(node, cst.Assign):
        return [(t.target, node.value) for t in node.targets]
    if isinstance(node, cst.AnnAssign) and node.value is not None:
        return [(node.target, node.value)]
    return []


def _attr_key(node: cst.Attribute) -> str:
    if isinstance(node.value, cst.Name) and node.value.value == "self":
        return "self." + node.attr.value
    return ""


def _locals(function: cst.FunctionDef) -> Bindings:
    bound: Bindings = {}
    for node in _walk(function.body):
        for target, value in _stores(node):
            if isinstance(target, cst.Name):
                bound.setdefault(target.value, []).append(value)
    return bound


class _Search:
    """One module's search. Each fact is computed once per (node, bindings) and cached: a
    name rebound from itself (`x = lam * x + (1 - lam) * x[perm]`) is followed once, not
    once per path to it (a depth bound alone made that exponential: a 51-line mixup loop
    ran for minutes). A fact met again while it is being computed (a cycle through the
    bindings) adds nothing."""

    def __init__(
        self, transform: MigrationTransform, program: _Program, alike: Alike, flow: DefUse
    ) -> None:
        self.t = transform
        self.flow = flow
        self.program = program
        self.alike = alike
        self._statistics: dict[tuple[int, int, int], list[cst.Call]] = {}
        self._offsets: dict[tuple[int, int, int], list[cst.Call]] = {}
        self._outer: dict[tuple[int, int], list[cst.BaseExpression]] = {}
        self._locals: dict[int, Bindings] = {}

    def _bound(self, name: cst.Name, names: Bindings) -> list[cst.BaseExpression]:
        """The values of `names` bound to `name` that may reach this use of it (the def-use
        view's reaching bindings): `loss = loss.mean()` reads the criterion's loss bound
        before it, not `loss = loss / steps` after it, which holds that mean (round 38,
        lonePatient/BERT-chinese-text-classification-pytorch@2f9ae40: the identity
        `.mean()` of a scalar loss was said to offset per-sample terms, a false DP059)."""
        bound = names.get(name.value, [])
        if len(bound) <= 1 or self.flow.parent(name) is None:  # not in the view's tree
            return bound
        reached = {id(d.value) for d in self.flow.reaching(name) if d.value is not None}
        return [b for b in bound if id(b) in reached]

    def statistics(self, node: cst.CSTNode, names: Bindings, attrs: Bindings) -> list[cst.Call]:
        """The statistics over the batch `node` holds (names, attributes, methods followed)."""
        key = (id(node), id(names), id(attrs))
        return _once_per(self._statistics, key, lambda: self._statistics_of(node, names, attrs))

    def _statistics_of(self, node: cst.CSTNode, names: Bindings, attrs: Bindings) -> list[cst.Call]:
        if isinstance(node, (cst.Lambda, cst.FunctionDef, cst.ClassDef)):
            return []
        if isinstance(node, cst.Name):
            return [s for b in self._bound(node, names) for s in self.statistics(b, names, attrs)]
        if isinstance(node, cst.Attribute) and _attr_key(node) in attrs:
            bound = attrs[_attr_key(node)]
            return [s for b in bound for s in self.statistics(b, names, attrs)]
        found: list[cst.Call] = []
        if isinstance(node, cst.Call):
            reduced = reduction(node, self.t)
            if reduced is not None and reduced[0] in _STATISTICS and _over_batch(reduced[1]):
                return [node]
            found += self._method(node)
        for child in children_of(node):
            found += self.statistics(child, names, attrs)
        return found

    def _method(self, call: cst.Call) -> list[cst.Call]:
        """What a method of the program's own classes returns (`baseline.eval(x, cost)`)."""
        func = call.func
        if not isinstance(func, cst.Attribute) or func.attr.value in TENSOR_METHODS:
            return []
        if self.t.qualified_names(func) & {"torch"}:
            return []
        defs = self.program.methods.get(func.attr.value, [])
        if len(defs) != 1:
            return []
        function = defs[0]
        cls = self.program.classes[id(function)]
        names = self._locals.get(id(function))
        if names is None:
            names = self._locals[id(function)] = _locals(function)
        attrs = self.program.attrs.get(id(cls), _NONE)
        found: list[cst.Call] = []
        for node in _walk(function.body):
            if isinstance(node, cst.Return) and node.value is not None:
                found += self.statistics(node.value, names, attrs)
        return found

    def outer(self, node: cst.CSTNode, names: Bindings) -> list[cst.BaseExpression]:
        """The operands of the reductions over the batch in `node` (names followed)."""
        return _once_per(self._outer, (id(node), id(names)), lambda: self._outer_of(node, names))

    def _outer_of(self, node: cst.CSTNode, names: Bindings) -> list[cst.BaseExpression]:
        if isinstance(node, (cst.Lambda, cst.FunctionDef, cst.ClassDef)):
            return []
        if isinstance(node, cst.Name):
            return [o for b in self._bound(node, names) for o in self.outer(b, names)]
        found: list[cst.BaseExpression] = []
        if isinstance(node, cst.Call):
            reduced = reduction(node, self.t)
            if reduced is not None and reduced[0] in _OUTER and _over_batch(reduced[1]):
                operand = _operand(node, self.t)
                if operand is not None:
                    found.append(operand)
        for child in children_of(node):
            found += self.outer(child, names)
        return found

    def offsets(self, node: cst.CSTNode, names: Bindings, attrs: Bindings) -> list[cst.Call]:
        """The statistics that offset or scale per-sample terms within an outer operand."""
        key = (id(node), id(names), id(attrs))
        return _once_per(self._offsets, key, lambda: self._offsets_of(node, names, attrs))

    def _offsets_of(self, node: cst.CSTNode, names: Bindings, attrs: Bindings) -> list[cst.Call]:
        if isinstance(node, (cst.Lambda, cst.FunctionDef, cst.ClassDef)):
            return []
        if isinstance(node, cst.Name):
            return [s for b in self._bound(node, names) for s in self.offsets(b, names, attrs)]
        found: list[cst.Call] = []
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, _OFFSETS):
            sides = (node.left, node.right)
            stats = [self.statistics(s, names, attrs) for s in sides]
            for own, other in ((0, 1), (1, 0)):
                batch = [s for s in stats[own] if not self._of_alike(s, names)]
                if batch and not stats[other] and not self._alike(sides[other], batch, names):
                    found += batch
        if isinstance(node, cst.Call):
            reduced = reduction(node, self.t)
            if reduced is not None and _over_batch(reduced[1]):
                return found  # a statistic itself: its own terms are not the loss's rows
        for child in children_of(node):
            found += self.offsets(child, names, attrs)
        return found

    def _of_alike(self, statistic: cst.Call, names: Bindings) -> bool:
        """`statistic` reduces a value the same on every rank (a dataset tensor held whole,
        `real.mean(0)`: round 38's variant of akanimax/Variational_Discriminator_
        Bottleneck@26a39dd, a false DP059): no statistic of this rank's batch."""
        func = statistic.func
        if isinstance(func, cst.Attribute) and not self.t.qualified_names(func):
            operand: cst.BaseExpression = func.value  # `x.mean(0)`
        elif statistic.args:
            operand = statistic.args[0].value  # `torch.mean(x)`
        else:
            return False
        return alike_value(operand, statistic, names, self.t, self.alike)

    def _alike(self, other: cst.BaseExpression, stats: list[cst.Call], names: Bindings) -> bool:
        """The other side is the same on every rank (a number, a hyperparameter): it scales
        a statistic, no per-sample term (`lam * x.mean()`)."""
        return _number(other) or alike_value(other, stats[0], names, self.t, self.alike)


def _once_per(
    known: dict[_Key, list[_Node]], key: _Key, compute: Callable[[], list[_Node]]
) -> list[_Node]:
    """`compute()`'s nodes, each once, computed once per key: a key met again while it is
    computed (a cycle through the bindings) gives nothing."""
    found = known.get(key)
    if found is None:
        known[key] = []  # under way
        found = known[key] = list(dict.fromkeys(compute()))
    return found


def _operand(call: cst.Call, transform: MigrationTransform) -> cst.BaseExpression | None:
    if isinstance(call.func, cst.Attribute) and not any(
        n.startswith("torch.") for n in transform.qualified_names(call.func)
    ):
        return call.func.value
    positional = [a for a in call.args if a.keyword is None]
    return positional[0].value if positional else None


def _number(node: cst.BaseExpression) -> bool:
    if isinstance(node, cst.UnaryOperation):
        return _number(node.expression)
    if isinstance(node, cst.BinaryOperation):
        return _number(node.left) and _number(node.right)
    return isinstance(node, (cst.Integer, cst.Float))


def _enclosing_class(node: cst.CSTNode, transform: MigrationTransform) -> cst.ClassDef | None:
    parent = transform.parent(node)
    while parent is not None and not isinstance(parent, cst.ClassDef):
        parent = transform.parent(parent)
    return parent


#: The last module's _Program (one module is migrated at a time).
_PROGRAM: dict[int, tuple[cst.Module, _Program]] = {}


def baseline_statistics(
    values: list[cst.BaseExpression],
    assigned: Bindings,
    transform: MigrationTransform,
    module: cst.Module,
    alike: Alike,
) -> list[cst.Call]:
    """The batch statistics that offset or scale the per-sample terms of the loss `values`
    (see the module docstring), each once."""
    if transform.state.text_count("mean") == 0 and transform.state.text_count("std") == 0:
        return []
    cached = _PROGRAM.get(id(module))
    if cached is None or cached[0] is not module:
        _PROGRAM.clear()
        cached = _PROGRAM[id(module)] = (module, _Program(module))
    program = cached[1]
    search = _Search(transform, program, alike, view(module))
    found: list[cst.Call] = []
    for value in values:
        cls = _enclosing_class(value, transform)
        attrs = program.attrs.get(id(cls), _NONE) if cls is not None else _NONE
        for operand in search.outer(value, assigned):
            found += search.offsets(operand, assigned, attrs)
    return list(dict.fromkeys(found))
