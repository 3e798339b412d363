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
`torch.masked_select(x, m)`, the data of a packed sequence (`pack_padded_sequence(x,
lengths).data` or its `[0]`: each sequence's first `length` steps). A mean that reaches
what a scope that may train returns or backpropagates (count_means decides that and calls
`masked_selection`).

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

Not where the tensor the mask selects from is ONE sample (davyneven/SpatialEmbeddings@39ea249
criterions/my_loss.py:90, stop 51: `sigma = prediction[b, 2:4]` in `for b in
range(batch_size)`, `sigma[in_mask...]` one instance's pixels of that sample): the count is
that sample's, and a rank holds whole samples, so it is the count DataParallel's device had;
the split of the batch does not change it. One sample: `T[i]` or `T[i, ...]` whose first
index is a name every binding of which (the def-use view) is a `for` target over
`range(n)` with n T's size along dim 0, the dim DataParallel scatters (`T.size(0)`,
`T.shape[0]`, through names; not `len(T)`, a list's length too),
through names and shape-keeping methods (`.unsqueeze(0)`, `.view(...)`, `.detach()`). A
loop over a list of outputs (`preds[i]` of multi-scale heads, each a whole batch) is no such
loop.

Not where the tensor the mask selects from is a SCALAR (zswldxb/PCCLS@77dac77
pccls/losses/SmoothCrossEntropyLoss.py:22, stop 62: `loss = -(...).sum(dim=1).mean()`, then
`loss = loss[torch.isfinite(loss)].mean()`, a guard against a non-finite loss): the selection
holds at most one element, so its mean is the loss itself (or NaN) on a rank as on
DataParallel's device, whatever the split. A scalar: every binding of the name (the scope's
assignments) is a reduction with no dims (`x.mean()`, `x.sum()`, `torch.mean(x)`, a
`torch.nn.functional` loss averaging over its elements), a sign or a product of such values
and numbers. A selection from a per-element loss (`reduction='none'`) is still DP043.
"""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from dp2ddp.flow import DefUse, view
from dp2ddp.transforms._support.base import MigrationTransform, one_line_code
from dp2ddp.transforms._support.nodes import nodes_of
from dp2ddp.transforms.analysis.held_objects import held

_Assigned = dict[str, list[cst.BaseExpression]]
_IsMask = Callable[[cst.BaseExpression, _Assigned, int], bool]
_Names = Callable[[cst.CSTNode], set[str]]
_Sample = Callable[[cst.Name, str], bool]

#: Calls that keep each selected element one element (no reduction).
_ELEMENTWISE = frozenset(
    "abs pow square sqrt exp log float double half detach clone contiguous to cpu cuda "
    "flatten view reshape".split()
)
_TORCH_ELEMENTWISE = frozenset(
    f"torch.{name}"
    for name in "abs pow square sqrt exp log atan2 sin cos tanh sigmoid clamp".split()
)  # their first argument's rows are theirs (atan2: BinauralSpeechSynthesis's phase loss)
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
    `.cuda()`/`.to()` on it): every construction it may hold is one, through the def-use
    view (analysis/held_objects.py; stop 49 g1: stop 48's rule matched the callee's
    spelling, `criterion` or `.bce_loss`, bound module-wide; an alias, a tuple unpacked, a
    dict entry, a helper's return or an argument of every call was no such spelling, and
    one binding in another scope hid every use). The module's constructions are found once
    (`built`), a callee is read when a call asks."""

    def __init__(self, module: cst.Module, names: _Names) -> None:
        self._module = module
        self.built = frozenset(
            id(call) for call in nodes_of(module, cst.Call) if _mean_loss_object(call, names)
        )

    def __call__(self, func: cst.BaseExpression) -> bool:
        if not self.built:
            return False  # the view is read only where such a loss is built
        found = held(self._module)(func)
        return found.complete and all(id(c) in self.built for c in found.sources)

    def sample_index(self, name: cst.Name, tensor: str) -> bool:
        """`name` picks one sample of `tensor`: at every binding that may reach this read
        it is the target of a `for` over `range(n)` (or `range(0, n)`) with `n` the
        tensor's size along dim 0, the dim DataParallel scatters and gathers
        (`tensor.size(0)`, `tensor.shape[0]`, or a name bound to one: `batch_size, h, w =
        prediction.size(0), ...`); not `len(tensor)`, a list's length too."""
        flow = view(self._module)
        found = flow.reaching(name) if flow.parent(name) is not None else []
        return bool(found) and all(
            d.kind == "for"
            and not d.element
            and isinstance(d.value, cst.Call)
            and isinstance(d.value.func, cst.Name)
            and d.value.func.value == "range"
            and len(d.value.args) in (1, 2)
            and (len(d.value.args) == 1 or _literal_zero(d.value.args[0].value))
            and _sample_count(flow, d.value.args[-1].value, tensor, 0)
            for d in found
        )


def _literal_zero(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Integer) and node.evaluated_value == 0


def _sample_count(flow: DefUse, node: cst.BaseExpression, tensor: str, depth: int) -> bool:
    """`node` is `tensor`'s size along its first dimension, through names."""
    if depth > 4:
        return False
    if isinstance(node, cst.Name):
        found = flow.reaching(node) if flow.parent(node) is not None else []
        return bool(found) and all(
            d.kind == "assign"
            and (value := _element(d.value, d.element)) is not None
            and _sample_count(flow, value, tensor, depth + 1)
            for d in found
        )
    if isinstance(node, cst.Subscript):  # `tensor.shape[0]`, `tensor.size()[0]`
        inner = node.value
        first = node.slice[0].slice if len(node.slice) == 1 else None
        shape = (isinstance(inner, cst.Attribute) and inner.attr.value == "shape") or (
            isinstance(inner, cst.Call)
            and isinstance(inner.func, cst.Attribute)
            and inner.func.attr.value == "size"
            and not inner.args
        )
        receiver = inner.value if isinstance(inner, cst.Attribute) else getattr(inner, "func", None)
        if isinstance(receiver, cst.Attribute):
            receiver = receiver.value
        return (
            shape
            and isinstance(first, cst.Index)
            and _literal_zero(first.value)
            and isinstance(receiver, cst.Name)
            and receiver.value == tensor
        )
    if not isinstance(node, cst.Call) or len(node.args) != 1:
        return False  # not `len(x)`: a list's length (`preds[i]` of multi-scale heads)
    func, arg = node.func, node.args[0].value
    return (
        isinstance(func, cst.Attribute)
        and func.attr.value == "size"
        and _literal_zero(arg)
        and isinstance(func.value, cst.Name)
        and func.value.value == tensor
    )


def _element(value: cst.BaseExpression | None, path: tuple[int, ...]) -> cst.BaseExpression | None:
    """The part of `value` an unpacking target takes (`a, b = x, y`: b is y), or None."""
    for index in path:
        if not isinstance(value, (cst.Tuple, cst.List)) or index >= len(value.elements):
            return None
        value = value.elements[index].value
    return value


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


def averaging_loss(
    call: cst.Call, names: _Names, mean_objects: MeanLossObjects | None = None
) -> bool:
    """`call` is a loss of torch.nn averaging over every element, the batch's included:
    a `torch.nn.functional` loss with no reduction but the mean (`F.mse_loss(p, y)`), or
    a call of what holds a torch.nn loss object built so (MeanLossObjects). Its value is
    a mean over the samples, as `x.mean()` is: DP059 when a non-linear call encloses it
    (`torch.log10(F.mse_loss(p, y))`, an RMSE's `torch.sqrt(criterion(p, y))`)."""
    if mean_objects is not None and mean_objects(call.func):
        return True
    if not names(call.func) & _MEAN_LOSSES:
        return False
    if sum(a.keyword is None for a in call.args) > 3:
        return False  # a legacy size_average/reduce/reduction given by position
    for arg in call.args:
        keyword = arg.keyword.value if arg.keyword is not None else None
        if arg.star or keyword == "reduction" and not _literal(arg.value, "mean"):
            return False
        if keyword in ("size_average", "reduce") and not _literal(arg.value, True, None):
            return False
    return True


def masked_selection(
    call: cst.Call,
    assigned: _Assigned,
    is_mask: _IsMask,
    names: _Names,
    mean_objects: MeanLossObjects | None = None,
) -> str | None:
    """The code of the selection `call` (a mean with no dims) averages over, or None;
    `mean_objects` whether a callee holds a mean loss object (MeanLossObjects)."""
    sample = mean_objects.sample_index if mean_objects is not None else None
    if names(call.func) & _MEAN_LOSSES or (mean_objects is not None and mean_objects(call.func)):
        return _loss_selection(call, assigned, is_mask, names, sample)
    if names(call.func) & {"torch.mean"}:
        if len(call.args) != 1 or call.args[0].keyword is not None:
            return None
        return _selected(call.args[0].value, assigned, is_mask, names, set(), sample)
    if any(a.keyword is None or a.keyword.value in ("dim", "axis") for a in call.args):
        return None
    if isinstance(call.func, cst.Attribute) and call.func.attr.value == "mean":
        return _selected(call.func.value, assigned, is_mask, names, set(), sample)
    return None


def _loss_selection(
    call: cst.Call,
    assigned: _Assigned,
    is_mask: _IsMask,
    names: _Names,
    sample: _Sample | None = None,
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
        found = _selected(operand, assigned, is_mask, names, set(), sample)
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
    node: cst.BaseExpression,
    assigned: _Assigned,
    is_mask: _IsMask,
    names: _Names,
    seen: set[str],
    sample: _Sample | None = None,
) -> str | None:
    def again(inner: cst.BaseExpression) -> str | None:
        return _selected(inner, assigned, is_mask, names, seen, sample)

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
    if _packed(node, names, assigned):
        return cst.Module([]).code_for_node(node)
    if isinstance(node, cst.Subscript):
        if sample is not None and _one_sample(node.value, assigned, sample, 0):
            return None  # a selection of one sample: its count is no split's (docstring)
        if _scalar(node.value, assigned, names, 0):
            return None  # a selection from a scalar: at most one element (docstring)
        found = _indexed(node, assigned, is_mask, names)
        if found is None and _every_row(node):
            return again(node.value)  # `x[:, 0]` of a selection keeps its rows (round 32)
        return found
    if not isinstance(node, cst.Call):
        return None
    qualified = names(node.func)
    if qualified & {"torch.masked_select"} or (
        isinstance(node.func, cst.Attribute) and node.func.attr.value == "masked_select"
    ):
        return cst.Module([]).code_for_node(node)
    chosen = _index_selected(node, qualified)
    if chosen is not None and _indices(chosen, assigned, names, 0):
        return cst.Module([]).code_for_node(node)  # rows picked by the indices of a mask
    if qualified & _TORCH_ELEMENTWISE and node.args:
        return again(node.args[0].value)
    if isinstance(node.func, cst.Attribute) and node.func.attr.value in _ELEMENTWISE:
        return again(node.func.value)
    return None


#: torch's packing of padded sequences: the packed data holds each sequence's first `length`
#: steps, as many rows as the lengths sum to (round 27: a captioning loss over the packed
#: tokens of decoded captions).
_PACKING = frozenset(
    f"torch.nn.utils.rnn.{name}" for name in ("pack_padded_sequence", "pack_sequence")
)


def _packed(node: cst.BaseExpression, names: _Names, assigned: _Assigned) -> bool:
    """`node` is the data of a packed sequence, `pack_padded_sequence(x, lengths).data` or
    its `[0]`, also of a name every binding of which is such a call (`scores =
    pack_padded_sequence(...)`, then `criterion(scores.data, targets.data)`, the common
    captioning spelling): a selection of the padded batch's steps whose count the lengths
    decide."""
    if isinstance(node, cst.Attribute) and node.attr.value == "data":
        packing = node.value
    elif (
        isinstance(node, cst.Subscript)
        and len(node.slice) == 1
        and isinstance(node.slice[0].slice, cst.Index)
        and isinstance(node.slice[0].slice.value, cst.Integer)
        and node.slice[0].slice.value.evaluated_value == 0
    ):
        packing = node.value
    else:
        return False
    if isinstance(packing, cst.Name):
        bound = assigned.get(packing.value, [])
        return bool(bound) and all(_packing(value, names) for value in bound)
    return _packing(packing, names)


def _packing(node: cst.BaseExpression, names: _Names) -> bool:
    return isinstance(node, cst.Call) and bool(names(node.func) & _PACKING)


#: Tensor methods that, called with no arguments, reduce every element to one (a 0-dim tensor).
_FULL_REDUCTIONS = frozenset("mean sum prod max min norm std var amax amin".split())


def _scalar(node: cst.BaseExpression, assigned: _Assigned, names: _Names, depth: int) -> bool:
    """`node` is a 0-dim tensor at every binding: a reduction with no dims (`x.mean()`,
    `torch.sum(x)`, an averaging `torch.nn.functional` loss), through names (every binding),
    signs and arithmetic of such values and numbers."""
    if depth > 6:
        return False
    if isinstance(node, (cst.Integer, cst.Float)):
        return True
    if isinstance(node, cst.Name):
        bound = assigned.get(node.value, [])
        return bool(bound) and all(_scalar(v, assigned, names, depth + 1) for v in bound)
    if isinstance(node, cst.UnaryOperation):
        return _scalar(node.expression, assigned, names, depth + 1)
    if isinstance(node, cst.BinaryOperation):
        return _scalar(node.left, assigned, names, depth + 1) and _scalar(
            node.right, assigned, names, depth + 1
        )
    if not isinstance(node, cst.Call):
        return False
    if isinstance(node.func, cst.Attribute) and node.func.attr.value in _FULL_REDUCTIONS:
        return not node.args
    if names(node.func) & {"torch.mean", "torch.sum"}:
        return len(node.args) == 1 and node.args[0].keyword is None and not node.args[0].star
    return averaging_loss(node, names)


def _one_sample(node: cst.BaseExpression, assigned: _Assigned, sample: _Sample, depth: int) -> bool:
    """`node` is one sample of a batch: `T[i]`/`T[i, ...]` with `i` a `range` loop's index
    over T's sample count (`sample`), through names and shape-keeping methods."""
    if depth > 6:
        return False
    if isinstance(node, cst.Name):
        bound = assigned.get(node.value, [])
        return bool(bound) and all(_one_sample(v, assigned, sample, depth + 1) for v in bound)
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
        keeps = node.func.attr.value in _ELEMENTWISE | {"unsqueeze", "squeeze", "expand_as"}
        return keeps and _one_sample(node.func.value, assigned, sample, depth + 1)
    if not isinstance(node, cst.Subscript) or not isinstance(node.slice[0].slice, cst.Index):
        return False
    first, tensor = node.slice[0].slice.value, node.value
    return (
        isinstance(first, cst.Name) and isinstance(tensor, cst.Name) and sample(first, tensor.value)
    )


def _every_row(node: cst.Subscript) -> bool:
    """`x[:, j]`, `x[:, a:b]`: the first index takes every row (a column pick of what `x`
    holds: BinauralSpeechSynthesis@81d0765's phase loss, `data[:, 0]` of the selected rows)."""
    first = node.slice[0].slice
    return (
        len(node.slice) > 1
        and isinstance(first, cst.Slice)
        and first.lower is None
        and first.upper is None
        and first.step is None
    )


def _index_selected(node: cst.Call, qualified: set[str]) -> cst.BaseExpression | None:
    """The indices of `torch.index_select(x, dim, idx)` / `x.index_select(dim, idx)` (round
    32, facebookresearch/BinauralSpeechSynthesis@81d0765's phase loss: `indices =
    th.nonzero(mask).view(-1)`, `th.index_select(x, 0, indices)`, a mean over them)."""
    args = [a.value for a in node.args]
    if qualified & {"torch.index_select"} and len(args) >= 3:
        return args[2]
    if isinstance(node.func, cst.Attribute) and node.func.attr.value == "index_select":
        return args[1] if len(args) >= 2 else None
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
    mean = one_line_code(transform.code(call))
    if len(mean) > 100:
        mean = f"{one_line_code(transform.code(call.func))}(...)"
    transform.warn(
        call,
        "DP043",
        f"{mean} averages over {one_line_code(selected)}, a selection whose size the data decides: "
        "each rank divides by its own part's count, DataParallel by the whole batch's; take "
        "the sum over the selection and divide by its count all-reduced over the ranks",
    )
