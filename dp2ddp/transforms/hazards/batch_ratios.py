"""A loss dividing one sum over the batch by another (DP071, never rewritten).

A division `S / T` whose denominator is itself a sum over the whole batch as is its
numerator, reaching the loss of a scope that may train (hazards/count_means.py decides the
reach): a Dice or IoU loss (Beckschen/TransUNet@02ef001's `DiceLoss`: `x.sum()`,
`torch.sum(x)` with no dims, through names, `+ smooth` and constant factors). DDP's mean of
the ranks' gradients of their parts' ratios is not the gradient of the whole batch's ratio,
and no count share makes it one. Not for a ratio per sample (`.sum(dim=1)`), averaged over
the batch: unchanged under DDP; nor for a rate of two mask counts (`correct / total`).

A sum over some dims pools the batch as well where those dims hold its rows: round 22
(seg), ooooverflow/BiSeNet@284a8f6's per-class Dice flattens (N, C, H, W) to (C, N*H*W) in
a `flatten` helper (`x.permute(1, 0, 2, 3).contiguous().view(C, -1)`) and sums `.sum(-1)`
above and below: each class's ratio over the whole batch's pixels, with no DP071 before
(verify: NOT EQUIVALENT, no cause named). Where the rows are is analysis/batch_axis.py's
answer (one home, on `ast`: through permute/transpose/view/reshape/flatten/squeeze, the
module's helpers, in a loss function, a loss class's forward or a loop over batches); a sum
over dims it says pool them (`.sum(0)` of an (N, C) value, `.sum(-1)` after that flatten) is
a total here. The per-class ratios are then averaged (`1 - (inter / denom).mean()`): the
warning's reach goes through a reduction of the ratio (loss_reach.py).
"""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst
from libcst.metadata import PositionProvider

from dp2ddp.transforms._support.ast_nodes import parse_python
from dp2ddp.transforms._support.base import MigrationTransform
from dp2ddp.transforms._support.nodes import name_of
from dp2ddp.transforms.analysis.batch_axis import pooling_reductions

#: Every value assigned to each name of a scope (ScopeFacts.assigned).
Assigned = dict[str, list[cst.BaseExpression]]
#: A proof of a mask's count (CountMeans._count).
Counts = Callable[[cst.BaseExpression, Assigned, int], bool]
#: Calls that keep a total a total (casts, a floor against division by zero; not `.item()`
#: or `.detach()`: a detached value trains nothing).
_TOTAL_KEEPS = frozenset(
    "long float int double half clone cpu cuda to type type_as clamp clamp_min clamp_".split()
)

#: A divisor taken as a number still divides the gradient (round 36, castorini/d-bert@
#: d39fe65's `mask_tot = m.sum().item()`, the loss `(l * m).sum() / mask_tot`: unsaid).
_DIVISOR_KEEPS = _TOTAL_KEEPS | {"item", "detach", "data"}


def no_dims(call: cst.Call, tensors: int = 0) -> bool:
    """A total: `tensors` arguments by position (`m.sum()` none, `torch.sum(m)` one), no
    `dim=`/`axis=` (`m.sum(1)` counts per row); a dtype keeps it one (stop 60 v3-A)."""
    dims = any(a.keyword is not None and a.keyword.value in ("dim", "axis") for a in call.args)
    return not dims and sum(a.keyword is None for a in call.args) == tensors


def number(node: cst.BaseExpression) -> bool:
    return isinstance(node, (cst.Integer, cst.Float))


def constant(node: cst.BaseExpression) -> bool:
    """A factor the same for every element: a number, a name or an attribute (`self.alpha`,
    `args.weight`), not a tensor computed here."""
    if isinstance(node, cst.UnaryOperation):
        return constant(node.expression)
    return number(node) or (
        isinstance(node, (cst.Name, cst.Attribute)) and not name_of(node).endswith("]")
    )


class BatchRatios:
    """DP071's proof of the ratio and its warning, for CountMeans (which decides the reach);
    `count` is its proof of a mask's count."""

    def __init__(self, transform: MigrationTransform, count: Counts) -> None:
        self.t = transform
        self._count = count
        self._pooling: frozenset[tuple[int, int]] | None = None

    def ratio(
        self, numerator: cst.BaseExpression, denominator: cst.BaseExpression, assigned: Assigned
    ) -> bool:
        """Both totals over the batch, the numerator no mask's count (a rate)."""
        return (
            self._total(numerator, assigned, 0)
            and self._total(denominator, assigned, 0, _DIVISOR_KEEPS)
            and not self._count(numerator, assigned, 0)
        )

    def warn(self, node: cst.BinaryOperation, denominator: cst.BaseExpression) -> None:
        division = self.t.code(node).strip().splitlines()[0][:80]
        self.t.warn(
            denominator,
            "DP071",
            f"{division}: each rank divides its own part's sum by its own part's "
            f"{self.t.code(denominator)} and DDP averages the ranks' gradients; "
            "DataParallel took the whole batch's ratio: the gradient differs",
        )

    def _total(
        self,
        node: cst.BaseExpression,
        assigned: Assigned,
        depth: int,
        keeps: frozenset[str] = _TOTAL_KEEPS,
    ) -> bool:
        """`node` is a total over the batch: `x.sum()` or `torch.sum(x)` with no dims, or
        over dims that hold the batch's rows (batch_axis), through names, sums and
        differences of totals (`+ smooth`, `+ eps` beside one) and constant factors."""
        if depth > 6:
            return False
        if isinstance(node, cst.Name):
            bound = assigned.get(node.value, [])
            return bool(bound) and all(self._total(v, assigned, depth + 1, keeps) for v in bound)
        if isinstance(node, cst.BinaryOperation):
            sides = (node.left, node.right)
            if isinstance(node.operator, (cst.Add, cst.Subtract)):
                totals = [self._total(s, assigned, depth + 1, keeps) for s in sides]
                return any(totals) and all(
                    t or constant(s) for t, s in zip(totals, sides, strict=True)
                )
            if isinstance(node.operator, cst.Multiply):
                return any(
                    constant(a) and self._total(b, assigned, depth + 1, keeps)
                    for a, b in (sides, sides[::-1])
                )
            return False
        if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
            return self._total(node.expression, assigned, depth + 1, keeps)
        if not isinstance(node, cst.Call):
            return False
        if self.t.qualified_names(node.func) & {"torch.sum"} and no_dims(node, 1):
            return True
        if not isinstance(node.func, cst.Attribute):
            return False
        method = node.func.attr.value
        if method == "sum" and no_dims(node):
            return True
        if method == "sum":  # over dims: a total where they pool the rows
            return self._pools(node.func)
        if method in keeps:
            return self._total(node.func.value, assigned, depth + 1, keeps)
        return False

    def _pools(self, func: cst.Attribute) -> bool:
        """batch_axis places the reduction named at `func` (matched by where its name ends
        in the pass's input) among those that pool the batch's rows."""
        if self._pooling is None:
            self._pooling = _pooling_ends(self.t.state.text)
        try:
            end = self.t.get_metadata(PositionProvider, func.attr).end
        except KeyError:
            return False
        return (end.line, end.column) in self._pooling


def _pooling_ends(text: str) -> frozenset[tuple[int, int]]:
    """(line, column in characters) where the name of each pooling reduction ends."""
    try:
        tree = parse_python(text)
    except (SyntaxError, ValueError, RecursionError):
        return frozenset()
    lines = text.splitlines()
    ends = set()
    for call in pooling_reductions(tree):
        line, offset = call.func.end_lineno, call.func.end_col_offset
        if line is None or offset is None or line > len(lines):
            continue
        column = len(lines[line - 1].encode()[:offset].decode(errors="ignore"))
        ends.add((line, column))
    return frozenset(ends)
