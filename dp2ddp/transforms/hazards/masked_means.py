"""A mean over a masked selection of the batch: a mean over a count the data decides (DP043).

A depth-completion loss keeps the pixels whose target is valid and averages over them
(fangchangma/self-supervised-depth-completion's `MaskedMSELoss`: `diff = diff[target > 0]`;
`(diff ** 2).mean()`). The mean's denominator is the number of elements the mask selects:
DataParallel took it once over the whole batch; under DDP each rank divides by its own
part's count and DDP averages the ranks, so every element is weighted by its rank's count
(a rank with fewer valid pixels weighs each more), and a part with none gives NaN. As for
`S / mask.sum()` (count_means.py), this is DP043; not rewritten (the mean would become a
sum over a shared count), so it is said.

Found: `X.mean()` or `torch.mean(X)` with no dims, where `X` is, through names (any of their
bindings: `diff = diff[valid]` rebinds one), elementwise arithmetic (`** 2`, `a[m] - b[m]`,
`-`, constant factors) and elementwise calls (`.abs()`, `.pow(2)`, `.square()`, casts), a
selection: `x[m]` with `m` a boolean mask (count_means' proof of a mask), `x[i]` with `i`
from `nonzero()` or one-argument `torch.where`, `x.masked_select(m)` or
`torch.masked_select(x, m)`. A mean that reaches what a scope that may train returns or
backpropagates (count_means decides that and calls `masked_selection`).

Also a loss FUNCTION that averages (JiaRenChang/PSMNet@87ac909: `F.smooth_l1_loss(out[mask],
gt[mask], size_average=True)`, mask = gt < maxdisp): `torch.nn.functional.<loss>` whose
reduction is the mean (no `reduction=`, `reduction='mean'`, no `size_average=False` or
`reduce=False`) with its input or target such a selection: the same mean over a count the
data decides.

Also a loss OBJECT of torch.nn averaging over elements, called on such a selection
(BobLiu20/YOLOv3_PyTorch@c6b4837 nets/yolo_loss.py: `self.bce_loss = nn.BCELoss()` in
`__init__`, `self.bce_loss(pred_cls[mask == 1], tcls[mask == 1])` in forward): the name or
binding the callee reads (MeanLossObjects, through the def-use view: a name, `self.x`, an
alias, an unpacked tuple, a dict's entry, a helper's return, every call's argument) is such a
class built with a mean reduction.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import libcst as cst

from dp2ddp.flow import Definition, view
from dp2ddp.flow.origins import argument_for
from dp2ddp.transforms._support.base import MigrationTransform
from dp2ddp.transforms._support.nodes import unmoved

_Assigned = dict[str, list[cst.BaseExpression]]
_IsMask = Callable[[cst.BaseExpression, _Assigned, int], bool]
_Names = Callable[[cst.CSTNode], set[str]]

#: Calls that keep each selected element one element (no reduction).
_ELEMENTWISE = frozenset(
    "abs pow square sqrt exp log float double half detach clone contiguous to cpu cuda "
    "flatten view reshape".split()
)
_TORCH_ELEMENTWISE = frozenset(f"torch.{name}" for name in ("abs", "pow", "square", "sqrt"))
_INDICES = frozenset({"nonzero", "argwhere"})
#: Loss functions of torch.nn.functional whose default reduction is the mean over elements.
_MEAN_LOSSES = frozenset(
    f"torch.nn.functional.{name}"
    for name in (
        "l1_loss mse_loss smooth_l1_loss huber_loss binary_cross_entropy "
        "binary_cross_entropy_with_logits cross_entropy nll_loss soft_margin_loss "
        "gaussian_nll_loss poisson_nll_loss"
    ).split()
)


#: torch.nn's loss classes averaging over elements by default (the functions' classes).
_MEAN_CLASSES = frozenset(
    (
        "L1Loss MSELoss SmoothL1Loss HuberLoss BCELoss BCEWithLogitsLoss CrossEntropyLoss "
        "NLLLoss SoftMarginLoss GaussianNLLLoss PoissonNLLLoss"
    ).split()
)
#: Those whose first positional parameter is a class `weight` (not a reduction).
_WEIGHT_FIRST = frozenset({"BCELoss", "BCEWithLogitsLoss", "CrossEntropyLoss", "NLLLoss"})


class MeanLossObjects:
    """Whether a callee holds a torch.nn loss object averaging over elements (`nn.BCELoss()`,
    `.cuda()`/`.to()` on it), asked through the module's def-use view (flow/defuse.py): every
    binding the callee may read, to its end, is such a construction (stop 49 g1: stop 48's
    rule matched the callee's spelling, `criterion` or `.bce_loss`, bound module-wide; an
    alias, a tuple unpacked, a dict entry, a helper's return or an argument of every call
    was no such spelling, and one binding in another scope hid every use). The module's
    constructions are found once (`built`), a callee is read when a call asks."""

    def __init__(self, module: cst.Module, names: _Names) -> None:
        self.defs = view(module)
        self._known: dict[int, bool] = {}  # id of an expression -> it holds one
        self.built = frozenset(
            id(call) for call in self.defs.calls if _mean_loss_object(call, names)
        )

    def __call__(self, func: cst.BaseExpression) -> bool:
        return bool(self.built) and self._holds(func)

    def _holds(self, node: cst.BaseExpression) -> bool:
        node = unmoved(node)
        known = self._known.get(id(node))
        if known is None:
            self._known[id(node)] = False  # a cycle (`crit = crit.cuda()` in a loop): not
            known = self._known[id(node)] = self._reads_mean(node)  # proved along it
        return known

    def _reads_mean(self, node: cst.BaseExpression) -> bool:
        if isinstance(node, cst.Call):
            if id(node) in self.built:
                return True
            helpers = self.defs.callees(node) if isinstance(node.func, cst.Name) else []
            return bool(helpers) and all(  # `def make(): return nn.BCELoss()`
                f.owner is None and f.returns and not f.yields
                and all(self._holds(r) for r in f.returns)
                for f in helpers
            )  # fmt: skip
        found = self._bindings(node)
        return bool(found) and all(self._bound(d) for d in found or ())

    def _bindings(self, node: cst.BaseExpression) -> list[Definition] | None:
        """The bindings `node` reads (None: not known): a name's that reach it (not the
        stores into what it holds, `crit.weight = w`), `self.x`'s in its class, `obj.x`'s
        for an instance of a class of the module, a dict's entry at a constant key."""
        defs = self.defs
        if isinstance(node, cst.Name):
            return [d for d in defs.reaching(node) if d.kind != "store"]
        if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name):
            function = defs.function_around(node)
            if function is not None and function.owner is not None:
                if node.value.value == function.self_name:
                    return defs.attribute_definitions(function.owner, node.attr.value)
            owner = self._instance_class(node.value)
            if owner is not None:
                return defs.attribute_definitions(owner, node.attr.value)
            return None
        if isinstance(node, cst.Subscript):
            key = _constant_key(node)
            holders = self._holders(node.value)
            if key is None or holders is None:
                return None
            entries: list[Definition] = []
            for held in holders:
                if held.kind == "store" and held.key == key:
                    entries.append(held)
                elif held.kind == "store" and held.key is None:
                    return None  # `d[k] = v`, any key
                elif held.kind != "store":
                    if not isinstance(held.value, cst.Dict) or held.element:
                        return None
                    entries += [
                        Definition(e.value, e.value, "assign", held.statement)
                        for e in held.value.elements
                        if isinstance(e, cst.DictElement) and _constant_key_of(e.key) == key
                    ]
            return entries
        return None

    def _holders(self, node: cst.BaseExpression) -> list[Definition] | None:
        """The bindings of a dict's name or `self.x`, with the stores into it."""
        if isinstance(node, cst.Name):
            return self.defs.reaching(node)
        return self._bindings(node) if isinstance(node, cst.Attribute) else None

    def _instance_class(self, name: cst.Name) -> cst.ClassDef | None:
        """The class of this module every binding of `name` constructs (`obj = Loss()`)."""
        owners: set[cst.ClassDef] = set()
        for definition in self.defs.definitions(name):
            value = unmoved(definition.value) if definition.value is not None else None
            owner = self.defs.class_called(value) if isinstance(value, cst.Call) else None
            if owner is None or definition.element:
                return None
            owners.add(owner)
        return owners.pop() if len(owners) == 1 else None

    def _bound(self, definition: Definition) -> bool:
        value = definition.value
        if definition.kind == "param":
            function = self.defs.functions.get(self.defs.scope_of(definition.target))
            if function is None or not isinstance(definition.target, cst.Param):
                return False
            sites = self.defs.call_sites(function)
            given = [argument_for(c, function, definition.target) for c in sites]
            return bool(given) and all(
                g is not None and self._holds(g) for g in given
            )  # `train(model, crit)` with `crit = nn.BCELoss()` at every call
        if definition.kind not in ("assign", "annassign", "walrus", "store") or value is None:
            return False
        for index in definition.element:  # `bce, mse = nn.BCELoss(), nn.MSELoss()`
            if not isinstance(value, (cst.Tuple, cst.List)) or index >= len(value.elements):
                return False
            element = value.elements[index]
            if isinstance(element, cst.StarredElement):
                return False
            value = element.value
        return self._holds(value)


def _constant_key(node: cst.Subscript) -> str | None:
    if len(node.slice) != 1 or not isinstance(node.slice[0].slice, cst.Index):
        return None
    return _constant_key_of(node.slice[0].slice.value)


def _constant_key_of(node: cst.BaseExpression | None) -> str | None:
    if isinstance(node, cst.SimpleString):
        value = node.evaluated_value
        return value if isinstance(value, str) else None
    return None


def _mean_loss_object(node: cst.Call, names: _Names) -> bool:
    classes = {
        n.rsplit(".", 1)[-1] for n in names(node.func) if n.startswith("torch.nn.")
    } & _MEAN_CLASSES
    if not classes:
        return False
    positional = [a for a in node.args if a.keyword is None]
    if len(positional) > (1 if classes <= _WEIGHT_FIRST else 0) or any(a.star for a in node.args):
        return False
    for arg in node.args:
        keyword = arg.keyword.value if arg.keyword is not None else None
        if keyword == "reduction" and not _literal(arg.value, "mean"):
            return False
        if keyword in ("size_average", "reduce") and not _literal(arg.value, True, None):
            return False
    return True


def masked_selection(
    call: cst.Call,
    assigned: _Assigned,
    is_mask: _IsMask,
    names: _Names,
    mean_objects: Callable[[cst.BaseExpression], bool] | None = None,
) -> str | None:
    """The code of the selection `call` (a mean with no dims) averages over, or None;
    `mean_objects` whether a callee holds a mean loss object (MeanLossObjects)."""
    if names(call.func) & _MEAN_LOSSES or (mean_objects is not None and mean_objects(call.func)):
        return _loss_selection(call, assigned, is_mask, names)
    if names(call.func) & {"torch.mean"}:
        if len(call.args) != 1 or call.args[0].keyword is not None:
            return None
        return _selected(call.args[0].value, assigned, is_mask, names, set())
    if any(a.keyword is None or a.keyword.value in ("dim", "axis") for a in call.args):
        return None
    if isinstance(call.func, cst.Attribute) and call.func.attr.value == "mean":
        return _selected(call.func.value, assigned, is_mask, names, set())
    return None


def _loss_selection(
    call: cst.Call, assigned: _Assigned, is_mask: _IsMask, names: _Names
) -> str | None:
    """A loss function averaging over elements (its reduction the mean) whose input or
    target is a masked selection: the selection's code, or None."""
    operands: list[cst.BaseExpression] = []
    for position, arg in enumerate(call.args):
        keyword = arg.keyword.value if arg.keyword is not None else None
        if keyword is None and position < 2 or keyword in ("input", "target"):
            operands.append(arg.value)
        elif keyword == "reduction" and not _literal(arg.value, "mean"):
            return None
        elif keyword in ("size_average", "reduce") and not _literal(arg.value, True, None):
            return None
    for operand in operands:
        found = _selected(operand, assigned, is_mask, names, set())
        if found is not None:
            return found
    return None


def _literal(node: cst.BaseExpression, *values: object) -> bool:
    """`node` is a literal among `values` (a string, True/False/None)."""
    if isinstance(node, cst.SimpleString):
        return node.evaluated_value in values
    if isinstance(node, cst.Name) and node.value in ("True", "False", "None"):
        return {"True": True, "False": False, "None": None}[node.value] in values
    return False


def _selected(
    node: cst.BaseExpression, assigned: _Assigned, is_mask: _IsMask, names: _Names, seen: set[str]
) -> str | None:
    def again(inner: cst.BaseExpression) -> str | None:
        return _selected(inner, assigned, is_mask, names, seen)

    if isinstance(node, cst.Name):
        if node.value in seen or len(seen) > 8:
            return None
        seen.add(node.value)
        for value in assigned.get(node.value, []):
            found = again(value)
            if found is not None:
                return found
        return None
    if isinstance(node, cst.BinaryOperation):
        return again(node.left) or (
            None if isinstance(node.operator, cst.Power) else again(node.right)
        )
    if isinstance(node, cst.UnaryOperation):
        return again(node.expression)
    if isinstance(node, cst.Subscript):
        return _indexed(node, assigned, is_mask, names)
    if not isinstance(node, cst.Call):
        return None
    qualified = names(node.func)
    if qualified & {"torch.masked_select"} or (
        isinstance(node.func, cst.Attribute) and node.func.attr.value == "masked_select"
    ):
        return cst.Module([]).code_for_node(node)
    if qualified & _TORCH_ELEMENTWISE and node.args:
        return again(node.args[0].value)
    if isinstance(node.func, cst.Attribute) and node.func.attr.value in _ELEMENTWISE:
        return again(node.func.value)
    return None


def _indexed(
    node: cst.Subscript, assigned: _Assigned, is_mask: _IsMask, names: _Names
) -> str | None:
    """`x[m]`: a boolean mask or the indices of one (`m.nonzero()`, `torch.where(m)`)."""
    if len(node.slice) != 1 or not isinstance(node.slice[0].slice, cst.Index):
        return None
    index = node.slice[0].slice.value
    if is_mask(index, assigned, 0) or _indices(index, assigned, names, 0):
        return cst.Module([]).code_for_node(node)
    return None


def _indices(node: cst.BaseExpression, assigned: _Assigned, names: _Names, depth: int) -> bool:
    if depth > 6:
        return False
    if isinstance(node, cst.Name):
        bound = assigned.get(node.value, [])
        return bool(bound) and all(_indices(v, assigned, names, depth + 1) for v in bound)
    if isinstance(node, cst.Subscript):  # `m.nonzero(as_tuple=True)[0]`
        return _indices(node.value, assigned, names, depth + 1)
    if not isinstance(node, cst.Call):
        return False
    if isinstance(node.func, cst.Attribute) and node.func.attr.value in _INDICES:
        return True
    qualified = names(node.func)
    if qualified & {"torch.nonzero", "torch.argwhere"}:
        return True
    if isinstance(node.func, cst.Attribute) and node.func.attr.value in ("squeeze", "view"):
        return _indices(node.func.value, assigned, names, depth + 1)
    return bool(qualified & {"torch.where"}) and len(node.args) == 1


def warn_masked_mean(transform: MigrationTransform, call: cst.Call, selected: str) -> None:
    """DP043 quoting the mean and the selection whole (on one line), or, where the mean is
    long, its function and the selection: a quote is never cut inside an expression (stop
    47 v1: yolov4-tiny-pytorch's `torch.mean(self.BCELoss(…)[noobj_mask.bool() | obj_ma`)."""
    mean = _one_line(transform.code(call))
    if len(mean) > 100:
        mean = f"{_one_line(transform.code(call.func))}(...)"
    transform.warn(
        call,
        "DP043",
        f"{mean} averages over {_one_line(selected)}, a selection whose size the data decides: "
        "each rank divides by its own part's count, DataParallel by the whole batch's; take "
        "the sum over the selection and divide by its count all-reduced over the ranks",
    )


def _one_line(code: str) -> str:
    """`code` on one line: its runs of white space one space, none inside brackets' ends."""
    text = re.sub(r"\s+", " ", code.strip())
    return re.sub(r" ([)\]}])", r"\1", re.sub(r"([(\[{]) ", r"\1", text))
