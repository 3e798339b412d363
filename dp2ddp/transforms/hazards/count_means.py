"""A loss divided by a count the batch decides: the whole batch's count, or DP043.

A detection loss sums over its anchors and divides by the batch's number of positive ones
(kuangliu/pytorch-retinanet@2d7c663: `loss = (loc_loss + cls_loss) / num_pos` with
`num_pos = (cls_targets > 0).long().sum()`); a masked loss divides a sum by `mask.sum()`.
DataParallel computed it once, on the gathered outputs: the whole batch's sum over the whole
batch's count. Under DDP each rank divides its own part's sum by its own part's count and
DDP averages the ranks: every element is weighted by its rank's count, and a part with no
positive element divides by 0, an inf whose all-reduced gradient turns every rank's weights
into NaN (the retinanet run under `dp2ddp verify` did; the migration gave no warning for it).

Found: a division `S / C` (or `S /= C`) in a scope that may train (hazards.losses: not
no_grad, not an evaluation function without backward) whose value reaches what the scope
returns or backpropagates, through sums, differences and constant factors only; `C` a total
count of a mask (`m.sum()`, `torch.sum(m)`, `m.count_nonzero()`; `m` a comparison, an
`eq/ne/gt/...` call, `~`, `&`, `|` of such, through casts, views and names) through casts
(`.float()`, `.item()`, `.clamp(min=1)`, `float()`, `max(C, 1)`, `+ eps`) and names; `S` not
itself such a count (`correct / total` is a rate: a figure, not a loss).

Rewritten where it is proved right: `S / C` written as a division (`S /= C`: DP043, as the
name's other bindings decide whether hazards.losses scales its backward), `S` a sum over
the batch (hazards.losses' proof: a summed reduction, a name bound only to such, their sums,
differences and constant weights; also a method of the same class or a function of the
module every return of which is one), and the division reached by every rank as often:
under conditions the same on every rank (analysis/uniformity.py, in this module and the
program's others), or once per step of a loop that backpropagates (every rank takes as
many, or DDP's own all-reduce would wait). Then `C` becomes `ddp_count_share(C)` (a count
floored by a number, `max(C, 1)`: `ddp_count_share(C, floor=1)`, the floor of the whole
batch's count, selection_counts.py; also its spellings through numpy there): the count
summed over the ranks divided by WORLD_SIZE. Each rank's loss is its part's sum times
WORLD_SIZE over the whole batch's count, and DDP's average of the ranks' gradients is
DataParallel's gradient; the inf is gone with the zero count. Evaluated on the same
batches on every rank (an unsharded evaluation loader) it gives the original's value too:
WORLD_SIZE equal counts summed and divided by WORLD_SIZE. Elsewhere DP043, naming the
division and why it was left.

DP071 (never rewritten, batch_ratios.py): a division `S / T` of two sums over the whole
batch (Dice, IoU), reaching the loss as above or through a reduction of the ratio.
"""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst

from dp2ddp.flow import DefUse, view
from dp2ddp.transforms._support.base import MigrationTransform
from dp2ddp.transforms._support.grad_mode import under_grad_off
from dp2ddp.transforms._support.nodes import enclosing_function, method_class, walk
from dp2ddp.transforms.analysis.numpy_values import numpy_value
from dp2ddp.transforms.analysis.sample_code import per_sample_functions
from dp2ddp.transforms.analysis.training import is_backward_call
from dp2ddp.transforms.analysis.uniformity import RankUniformity
from dp2ddp.transforms.hazards.batch_ratios import BatchRatios, constant, no_dims, number
from dp2ddp.transforms.hazards.loss_reach import reaches, reaching_names
from dp2ddp.transforms.hazards.losses import LossChecks, sum_through
from dp2ddp.transforms.hazards.masked_means import (
    MeanLossObjects,
    masked_selection,
    warn_masked_mean,
)
from dp2ddp.transforms.hazards.reductions import whole_statistic
from dp2ddp.transforms.hazards.scopes import ScopeFacts
from dp2ddp.transforms.hazards.selection_counts import (
    kept,
    literal_one,
    selection_count,
    share_call,
)
from dp2ddp.transforms.hazards.size_means import SizeMeans, global_count

#: The inserted call (templates/helpers/count_share.py.j2).
COUNT_SHARE = "ddp_count_share"
#: A mask's truth per element, by method or torch function.
_MASK_CALLS = frozenset(
    "eq ne gt ge lt le logical_and logical_or logical_not logical_xor isfinite isnan isinf "
    "bool".split()
)
#: Calls that keep a mask a mask (casts, views, a copy).
_MASK_KEEPS = frozenset(
    "long float int double byte half data detach clone cpu cuda to type type_as unsqueeze "
    "squeeze expand expand_as view view_as reshape flatten contiguous numpy ravel astype".split()
)
#: Tensors every element of which is 1: a mask that keeps everything (`torch.ones_like(y)`).
_ONES = frozenset({"torch.ones", "torch.ones_like"})
#: A floor against division by zero taken with a tensor (`torch.max(n, one)`), not a number.
_FLOORS = frozenset({"torch.max", "torch.maximum", "torch.clamp", "torch.clamp_min"})
#: Calls that keep a count a count (casts, a floor against division by zero).
_COUNT_KEEPS = frozenset(
    "long float int double half item detach clone cpu cuda to type type_as clamp clamp_min "
    "clamp_".split()
)
_COUNTING = frozenset({"sum", "count_nonzero"})
#: Every value assigned to each name of a scope (ScopeFacts.assigned).
_Assigned = dict[str, list[cst.BaseExpression]]


def _method(call: cst.Call) -> str:
    return call.func.attr.value if isinstance(call.func, cst.Attribute) else ""


class CountMeans:
    """DP043 (hand-written) or `ddp_count_share`, for FlagHazards beside its LossChecks."""

    def __init__(self, transform: MigrationTransform, losses: LossChecks) -> None:
        self.t = transform
        self.losses = losses
        #: Divisions whose count becomes the whole batch's.
        self.shares: set[cst.CSTNode] = set()
        #: Divisions of a mean by the rank's batch size that becomes the whole batch's.
        self.totals: set[cst.CSTNode] = set()
        self._sizes = SizeMeans(transform, cst.Module([]))
        self._uniform: RankUniformity | None = None
        self._module: cst.Module | None = None
        self._per_sample: frozenset[int] | None = None
        self._active = True
        self._mean_objects: MeanLossObjects | None = None
        self._ratios = BatchRatios(transform, self._count)

    # -- visits ---------------------------------------------------------------------------
    def enter_module(self, node: cst.Module) -> None:
        text = self.t.state.text
        self._active = not text or ("sum(" in text or "count_nonzero" in text) and "/" in text
        self._active = self._active or "mean(" in text or "_loss(" in text  # masked_means.py
        self._module = node
        self._mean_objects = None
        self._sizes = SizeMeans(self.t, node)
        self._active = self._active or "/" in text and ("size(" in text or "shape[" in text)
        if "Loss(" in text:  # a loss object on a masked selection (masked_means.py)
            self._mean_objects = MeanLossObjects(node, self.t.qualified_names)
            self._active = self._active or bool(self._mean_objects.built)
        self._uniform = None
        self._per_sample = None
        if self._active:
            self._check_scope(node, None)

    def enter_function(self, node: cst.FunctionDef) -> None:
        if self._active and not self._runs_per_sample(node):
            self._check_scope(node, node)

    def _runs_per_sample(self, function: cst.FunctionDef) -> bool:
        """A Dataset's per-sample code (analysis/sample_code.py: `__getitem__`, what it
        calls, not called elsewhere) sees one sample, never the batch: a mean there
        (Tencent/MedicalNet's `pixels = volume[volume > 0]; pixels.mean()` normalising a
        volume) is one sample's, the same under DDP, and no loss (stop 39, v4-A)."""
        if self._per_sample is None:
            assert self._module is not None
            self._per_sample = per_sample_functions(
                self._module, self.t, self.t.state.hints.per_sample
            )
        return id(function) in self._per_sample

    def rewrite(self, original: cst.CSTNode, updated: cst.CSTNode) -> cst.CSTNode:
        """The division with its count replaced by `ddp_count_share(count)`."""
        if original not in self.shares and original not in self.totals:
            return updated
        if isinstance(updated, cst.BinaryOperation):
            total = original in self.totals
            return updated.with_changes(
                right=global_count(updated.right)
                if total
                else share_call(updated.right, COUNT_SHARE)
            )
        return updated

    # -- the check ------------------------------------------------------------------------
    def _numpy(self, numerator: cst.BaseExpression) -> bool:
        """A numpy figure: no gradient reaches it (analysis/numpy_values.py); asked only
        where a warning or a rewrite would follow, so the def-use view is built only there."""
        assert self._module is not None
        return numpy_value(numerator, view(self._module), self.t.qualified_names)

    def _check_scope(
        self, scope: cst.Module | cst.FunctionDef, function: cst.FunctionDef | None
    ) -> None:
        if not self.losses.trains:
            return
        facts = ScopeFacts(scope, self.t.qualified_names)
        scope.visit(facts)
        reaching = reaching_names(scope, facts, self.t.qualified_names, flow=self._flow())
        for node in walk(scope, skip_scopes=True):
            if isinstance(node, cst.Call):  # a mean over a masked selection (masked_means.py)
                selected = masked_selection(
                    node, facts.assigned, self._mask, self.t.qualified_names, self._mean_objects
                )
                if (
                    selected
                    and self._reaches(node, reaching, facts.assigned)
                    and not under_grad_off(node, self.t.parent, self.t.matches)
                ):
                    warn_masked_mean(self.t, node, selected)
                continue
            if isinstance(node, cst.BinaryOperation) and isinstance(
                node.operator, (cst.Multiply, cst.Power)
            ):
                self._batch_product(node, facts, reaching)
                continue
            if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Divide):
                numerator, count = node.left, node.right
            elif (
                isinstance(node, cst.AugAssign)
                and isinstance(node.operator, cst.DivideAssign)
                and isinstance(node.target, cst.Name)
            ):
                numerator, count = node.target, node.value
            else:
                continue
            if not self._count(count, facts.assigned, 0):
                if isinstance(node, cst.BinaryOperation) and self._sizes.check(
                    self, node, (numerator, count), facts.assigned, reaching, function
                ):
                    continue
                if isinstance(node, cst.BinaryOperation) and self._batch_ratio(
                    node, numerator, count, facts, scope
                ):
                    if not self._numpy(numerator):
                        self._ratios.warn(node, count)
                    continue
                loose = self._loose_count(count, facts.assigned, 0)
                if (
                    loose
                    and not self._loose_count(numerator, facts.assigned, 0)
                    and self._reaches(node, reaching, facts.assigned)
                    and not under_grad_off(node, self.t.parent, self.t.matches)
                    and not self._numpy(numerator)
                ):
                    self._warn_loose(node, count, loose)
                continue
            if self._count(numerator, facts.assigned, 0):
                continue
            if not self._reaches(node, reaching, facts.assigned) or under_grad_off(
                node, self.t.parent, self.t.matches
            ):
                continue
            if self._numpy(numerator):
                continue
            self._decide(node, numerator, count, facts, function, self._reaches(node, reaching))

    def _decide(
        self,
        node: cst.CSTNode,
        numerator: cst.BaseExpression,
        count: cst.BaseExpression,
        facts: ScopeFacts,
        function: cst.FunctionDef | None,
        linear: bool = True,
    ) -> None:
        """Rewrite the count as the whole batch's where that is proved right, else DP043;
        not `linear`: the term reaches the loss only through a factor not shown constant
        (loss_reach), so its share would not be proved DataParallel's."""
        losses: list[cst.Call] = []
        summed = self._sum(numerator, facts.assigned, losses)
        division = self.t.code(node).strip().splitlines()[0][:80]
        shown = self.t.code(count)
        why: str | None
        if isinstance(node, cst.AugAssign):
            # `loss /= n`: the name's other bindings decide whether backward() is scaled by
            # WORLD_SIZE as a summed loss (hazards.losses); a share here could scale twice.
            why = f"an in-place division of {self.t.code(numerator)} (write it as a / b)"
            self.losses.cover(losses)  # a count mean, said here: no DP004 for its sum too
        elif not summed:
            why = f"{self.t.code(numerator)} is not shown to be a sum over the batch"
        elif not linear:
            why = "it reaches the loss through a factor not shown to be a constant"
        else:
            why = self._unreached(node, function)
        if why is None:
            self.shares.add(node)
            self.losses.cover(losses)
            self.t.state.helpers.add("count_share")
            self.t.record(
                node,
                f"{division}: the count {shown} is the whole batch's "
                f"({COUNT_SHARE}: summed over the ranks, over WORLD_SIZE), as DataParallel "
                "divided the whole batch's sum by it",
            )
            return
        self.t.warn(
            count,
            "DP043",
            f"{division}: each rank divides by its own part's count ({shown}), DataParallel "
            "by the whole batch's; a part with none divides by 0. Not rewritten: " + why,
        )

    def _unreached(self, node: cst.CSTNode, function: cst.FunctionDef | None) -> str | None:
        """Why not every rank may reach `node` as often (None: every rank does).

        Every rank reaches it as often when it is reached under conditions the same on every
        rank (analysis/uniformity.py), or once per step of a loop whose body backpropagates
        at its own level: the loop over a sharded loader is not proved uniform, but each of
        its steps all-reduces the DDP model's gradients, so every rank takes as many steps
        (or DDP itself would wait). Its function's calls are judged so in this module (its
        callers' too) and in the program's other modules (uniformity.unreached_elsewhere)."""
        if self._uniform is None:
            assert self._module is not None
            self._uniform = RankUniformity.for_pass(self.t, self._module)
        uniform = self._uniform
        if not self._per_step(node) or uniform.left_before(node) is not None:
            return "not every rank reaches it (a condition or loop of this rank's own values)"
        if function is None:
            return None
        for call in uniform.index.call_sites(function):
            caller = enclosing_function(call, self.t)
            if (
                not self._per_step(call)
                or uniform.left_before(call) is not None
                or (caller is not None and uniform.unreached_call(caller) is not None)
            ):
                line = self.t.line_of(call)
                name = function.name.value
                return f"{name}() is called at line {line} where not every rank arrives"
        elsewhere = uniform.unreached_elsewhere(function)
        if elsewhere is not None:
            return f"{function.name.value}() is called in {elsewhere} where not every rank arrives"
        return None

    def _per_step(self, node: cst.CSTNode) -> bool:
        """Every statement around `node` (in its function) whose condition may differ between
        ranks is a `for` loop whose body calls backward() at its own level."""
        assert self._uniform is not None
        return all(
            isinstance(s, cst.For) and _backpropagates(s.body, self.t)
            for s in self._uniform.rank_dependent_statements(node)
        )

    # -- a ratio of two batch sums (DP071) ----------------------------------------------------
    def _batch_ratio(
        self,
        node: cst.BinaryOperation,
        numerator: cst.BaseExpression,
        denominator: cst.BaseExpression,
        facts: ScopeFacts,
        scope: cst.Module | cst.FunctionDef,
    ) -> bool:
        """`S / T` with both a sum over the whole batch (Dice, IoU) whose value reaches the
        loss of a scope that may train (a reduction of it too: per-class ratios averaged),
        out of no_grad. Not a rate of two mask counts (`correct / total`: a figure), nor a
        ratio per sample (a sum within each row, `p.sum(dim=(1, 2))`: averaged over the
        batch, it is unchanged under DDP); batch_ratios.py proves the sums."""
        assigned = facts.assigned
        if not self._ratios.ratio(numerator, denominator, assigned):
            return False
        reaching = reaching_names(scope, facts, self.t.qualified_names, True, self._flow())
        return self._reaches(node, reaching, assigned, reduced=True) and not under_grad_off(
            node, self.t.parent, self.t.matches
        )

    # -- a product of two batch statistics (DP059) ---------------------------------------------
    def _batch_product(
        self, node: cst.BinaryOperation, facts: ScopeFacts, reaching: set[str]
    ) -> None:
        """DP059: `A * B` (or `A ** k`, k not 1) with both a mean or a total over every
        element of the batch, reaching the loss of a scope that may train, out of no_grad:
        the scale-invariant loss `torch.mean(d * d) - λ * torch.mean(d) * torch.mean(d)`
        (manjotms10/PatchGAN@83de605's ScaleInvariantError, class v2-C of stop 53). Each
        rank multiplies its own part's statistics and DDP averages the ranks' gradients;
        DataParallel multiplied the whole batch's. A constant factor (`λ * mean`) is
        linear, a statistic per sample (`.mean(1)`) is not one over the batch."""
        assigned = facts.assigned
        left = whole_statistic(node.left, assigned, self.t)
        if left is None:
            return
        if isinstance(node.operator, cst.Power):
            if number(node.right) and self.t.code(node.right).strip() in ("1", "1.0"):
                return
            right = left
        else:
            found = whole_statistic(node.right, assigned, self.t)
            if found is None:
                return
            right = found
        if not self._reaches(node, reaching, assigned) or under_grad_off(
            node, self.t.parent, self.t.matches
        ):
            return
        product = self.t.code(node).strip().splitlines()[0][:80]
        self.t.warn(
            right,
            "DP059",
            f"{self.t.code(right)} feeds a non-linear loss: {product} multiplies statistics "
            "over the whole batch; each rank multiplies its own part's and DDP averages the "
            "ranks' gradients, DataParallel multiplied the whole batch's",
        )

    # -- what reaches the loss ------------------------------------------------------------
    def _reaches(
        self,
        node: cst.CSTNode,
        reaching: set[str],
        assigned: _Assigned | None = None,
        reduced: bool = False,
    ) -> bool:
        """The value is (a term of) what the scope returns or backpropagates (loss_reach):
        with constant factors only; given the scope's `assigned`, with any factor that is
        not a count (a warning's reach: the term's count is still in the gradient); where
        `reduced`, also through a reduction of it (DP071's per-class ratios averaged)."""

        def not_a_count(other: cst.BaseExpression) -> bool:
            return assigned is not None and not self._count(other, assigned, 0)

        def factor(other: cst.BaseExpression) -> bool:
            return constant(other) or not_a_count(other)

        names = self.t.qualified_names
        return reaches(node, reaching, self.t.parent, names, factor, reduced, self._flow())

    def _flow(self) -> DefUse | None:
        return view(self._module) if self._module is not None else None

    # -- counts, masks, sums ----------------------------------------------------------------
    def _count(self, node: cst.BaseExpression, assigned: _Assigned, depth: int) -> bool:
        """`node` is a total count of a mask (see the module's docstring)."""
        if depth > 6:
            return False
        if isinstance(node, cst.Name):
            bound = assigned.get(node.value, [])
            return bool(bound) and all(self._count(v, assigned, depth + 1) for v in bound)
        if isinstance(node, cst.Attribute) and node.attr.value == "data":
            return self._count(node.value, assigned, depth + 1)
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Add):
            sides = (node.left, node.right)
            return any(number(s) for s in sides) and any(
                self._count(s, assigned, depth + 1) for s in sides
            )
        if not isinstance(node, cst.Call):
            return False
        method = _method(node)
        names = self.t.qualified_names(node.func)
        args = [a.value for a in node.args if a.keyword is None]
        if method in _COUNTING and no_dims(node):
            assert isinstance(node.func, cst.Attribute)
            receiver = node.func.value
            return self._mask(receiver, assigned, depth + 1) or self._partial(receiver, assigned, 0)
        if names & {"torch.sum", "torch.count_nonzero"}:
            return no_dims(node, 1) and (
                self._mask(args[0], assigned, depth + 1) or self._partial(args[0], assigned, 0)
            )
        if method in _COUNT_KEEPS:
            assert isinstance(node.func, cst.Attribute)
            return self._count(node.func.value, assigned, depth + 1)
        if names & {"builtins.float", "builtins.int"} and len(args) == 1:
            return self._count(args[0], assigned, depth + 1)
        if "builtins.max" in names and len(args) == 2:
            return any(number(a) for a in args) and any(
                self._count(a, assigned, depth + 1) for a in args
            )
        return selection_count(  # `len(np.where(m)[0])`, `torch.tensor(C)`, `np.sum(m)`
            node,
            names,
            lambda c: self._count(c, assigned, depth + 1),
            lambda m: self._mask(m, assigned, depth + 1),
            lambda name: assigned.get(name, []),
            self.t.qualified_names,
        )

    def _loose_count(
        self, node: cst.BaseExpression, assigned: _Assigned, depth: int, floored: bool = False
    ) -> str:
        """Why `node` is a count of a mask that _count could not prove a whole-part total
        ("" when it is none): floored by a tensor (`torch.max(n, one)`: DataParallel floored
        the whole batch's count, a share of per-rank floors is not it), also of a count
        along a dim (`torch.max(torch.sum(m, dim=-1), one)`: the total of a 1-D mask). A
        count along a dim alone is left (`(l * m).sum(-1) / m.sum(-1)`, averaged later, is a
        ratio per sample: unchanged under DDP). Such a division is said (DP043), not
        rewritten."""
        if depth > 6:
            return ""
        if isinstance(node, cst.Name):
            bound = assigned.get(node.value, [])
            found = [self._loose_count(v, assigned, depth + 1, floored) for v in bound]
            return found[0] if found and all(found) else ""
        if self._count(node, assigned, depth):
            return "a count"
        if not isinstance(node, cst.Call):
            return ""
        method = _method(node)
        names = self.t.qualified_names(node.func)
        args = [a.value for a in node.args if a.keyword is None]
        shown = self.t.code(node)
        if floored and method in _COUNTING and isinstance(node.func, cst.Attribute):
            if self._mask(node.func.value, assigned, 0):
                return f"{shown} counts along a dim"
        if floored and names & {"torch.sum", "torch.count_nonzero"} and args:
            if self._mask(args[0], assigned, 0):
                return f"{shown} counts along a dim"
        if names & _FLOORS and args:
            if self._loose_count(args[0], assigned, depth + 1, True):
                return f"{shown} floors each rank's own count"
        if method in _COUNT_KEEPS and isinstance(node.func, cst.Attribute):
            return self._loose_count(node.func.value, assigned, depth + 1, floored)
        if names & {"builtins.float", "builtins.int", "builtins.max"} and args:
            return self._loose_count(args[0], assigned, depth + 1, floored)
        return ""

    def _warn_loose(self, node: cst.CSTNode, count: cst.BaseExpression, why: str) -> None:
        division = self.t.code(node).strip().splitlines()[0][:80]
        self.t.warn(
            count,
            "DP043",
            f"{division}: each rank divides by its own part's count ({self.t.code(count)}), "
            "DataParallel by the whole batch's; a part with none divides by its floor. Not "
            f"rewritten: {why}, not proved the whole part's total",
        )

    def _partial(self, node: cst.BaseExpression, assigned: _Assigned, depth: int) -> bool:
        """`node` counts a mask along some dims (`m.long().sum(1, keepdim=True)`: the positive
        anchors per image of Retinaface's MultiBoxLoss, biubug6/Pytorch_Retinaface@b984b4b):
        its total is the mask's total count. Through names, `.data` and casts (its own depth:
        it never calls _count)."""
        if depth > 6:
            return False
        if isinstance(node, cst.Name):
            bound = assigned.get(node.value, [])
            return bool(bound) and all(self._partial(v, assigned, depth + 1) for v in bound)
        if isinstance(node, cst.Attribute) and node.attr.value == "data":
            return self._partial(node.value, assigned, depth + 1)
        if not isinstance(node, cst.Call) or not isinstance(node.func, cst.Attribute):
            return False
        method = _method(node)
        if method in _COUNTING:
            return self._mask(node.func.value, assigned, 0)
        if method in _COUNT_KEEPS:
            return self._partial(node.func.value, assigned, depth + 1)
        return False

    def _mask(self, node: cst.BaseExpression, assigned: _Assigned, depth: int) -> bool:
        """`node` is a boolean mask of the batch's elements (a comparison, through casts,
        views, `~`, `&`, `|` and names)."""
        if depth > 8:
            return False
        if isinstance(node, cst.Comparison):
            return True
        if isinstance(node, cst.Name):
            # `m = m.to(device)` keeps whatever m was bound to before
            bound = [
                v for v in assigned.get(node.value, []) if not kept(node.value, v, _MASK_KEEPS)
            ]
            return bool(bound) and all(self._mask(v, assigned, depth + 1) for v in bound)
        if isinstance(node, cst.Attribute) and node.attr.value == "data":
            return self._mask(node.value, assigned, depth + 1)
        if isinstance(node, cst.Subscript):
            return self._mask(node.value, assigned, depth + 1)
        if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.BitInvert):
            return self._mask(node.expression, assigned, depth + 1)
        if isinstance(node, cst.BinaryOperation) and isinstance(
            node.operator, (cst.BitAnd, cst.BitOr, cst.Multiply)
        ):
            return self._mask(node.left, assigned, depth + 1) and self._mask(
                node.right, assigned, depth + 1
            )
        if (  # the complement of a 0/1 mask, `1 - m.float()` (UDA_pytorch's TSA mask)
            isinstance(node, cst.BinaryOperation)
            and isinstance(node.operator, cst.Subtract)
            and literal_one(node.left)
        ):
            return self._mask(node.right, assigned, depth + 1)
        if not isinstance(node, cst.Call):
            return False
        method = _method(node)
        if method in _MASK_CALLS:
            return True
        names = self.t.qualified_names(node.func)
        if names & _ONES:
            return True
        if any(n.startswith("torch.") and n.rsplit(".", 1)[-1] in _MASK_CALLS for n in names):
            return True
        if method in _MASK_KEEPS:
            assert isinstance(node.func, cst.Attribute)
            return self._mask(node.func.value, assigned, depth + 1)
        return False

    def _sum(
        self,
        node: cst.BaseExpression,
        assigned: dict[str, list[cst.BaseExpression]],
        losses: list[cst.Call],
    ) -> bool:
        """A sum over the batch: hazards.losses' proof with constant weights only, also
        down to a call of a method of the same class or a function of the module every
        return of which is such a sum (`self.focal_loss(x, y)`), through its own names."""

        def summed(call: cst.Call, bound: dict[str, list[cst.BaseExpression]], depth: int) -> bool:
            if self.losses.summed(call, bound, losses):
                return True
            helper = self._helper(call)
            if helper is None:
                return False
            facts = ScopeFacts(helper, self.t.qualified_names)
            helper.visit(facts)
            returns = list(_returns(helper))
            return bool(returns) and all(
                r.value is not None
                and sum_through(r.value, facts.assigned, summed, constant, depth + 1)
                for r in returns
            )

        return sum_through(node, assigned, summed, constant)

    def _helper(self, call: cst.Call) -> cst.FunctionDef | None:
        """The function `call` calls: `self.m(...)` a method of the enclosing class, `f(...)`
        a top-level function of the module; None for anything else or more than one."""
        func = call.func
        if (
            isinstance(func, cst.Attribute)
            and isinstance(func.value, cst.Name)
            and func.value.value == "self"
        ):
            function = enclosing_function(call, self.t)
            owner = method_class(function, self.t) if function is not None else None
            body = owner.body.body if owner is not None else ()
            name = func.attr.value
        elif isinstance(func, cst.Name) and self._module is not None:
            body, name = self._module.body, func.value
        else:
            return None
        found = [s for s in body if isinstance(s, cst.FunctionDef) and s.name.value == name]
        return found[0] if len(found) == 1 and not found[0].decorators else None


def _backpropagates(body: cst.BaseSuite, transform: MigrationTransform) -> bool:
    """A statement of `body` itself (not one nested in a branch) calls backward()."""
    if not isinstance(body, cst.IndentedBlock):
        return False
    return any(
        isinstance(line, cst.SimpleStatementLine)
        and any(
            isinstance(small, cst.Expr)
            and isinstance(small.value, cst.Call)
            and is_backward_call(small.value, transform.qualified_names)
            for small in line.body
        )
        for line in body.body
    )


def _returns(function: cst.FunctionDef) -> Iterator[cst.Return]:
    for node in walk(function.body, skip_scopes=True):
        if isinstance(node, cst.Return):
            yield node
