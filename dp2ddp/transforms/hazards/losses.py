"""Summed losses: scaled by WORLD_SIZE where they are backpropagated, or DP004.

DDP averages gradients over ranks, where DataParallel's one process summed the whole batch,
so a summed loss updates WORLD_SIZE times less. Found: `reduction="sum"` /
`size_average=False` on torch.nn losses, unless the loss is only evaluated (under no_grad,
turned into a number with `.item()`, or in an evaluate()/test() that calls no backward),
and a `.sum()` whose result reaches `.backward()` (a sum of separate loss terms,
`torch.stack(losses).sum()`, is not a batch reduction and is not flagged, nor is a sum over
other dims only, `.sum(1)`, or a sum of what a reduction over the batch left: the entropy
`-(p.mean(0) * p.mean(0).log()).sum()` sums over the classes, and multiplying it by
WORLD_SIZE would double its gradient).

Where what reaches `X.backward()` is summed on every path (each value the name is assigned
in the scope is a summed loss, or a sum/difference of summed losses, possibly weighted),
the backward call becomes `(X * WORLD_SIZE).backward()`: DataParallel's updates, and `X`
itself (printed, logged) unchanged. Anything less certain (a mean mixed in, a division, a
loss built elsewhere) keeps DP004, as does every summed loss with `keep_summed_loss`.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import libcst as cst

from dp2ddp.flow import Function, view
from dp2ddp.transforms._support.base import MigrationTransform
from dp2ddp.transforms._support.grad_mode import grad_off, under_grad_off
from dp2ddp.transforms._support.names import SCALED_LOSS
from dp2ddp.transforms._support.nodes import calls_under, enclosing_function, walk
from dp2ddp.transforms._support.visiting import read_tree
from dp2ddp.transforms.analysis.training import is_backward_call
from dp2ddp.transforms.analysis.uniformity import RankUniformity
from dp2ddp.transforms.hazards.batch_baselines import OFFSETS, baseline_statistics
from dp2ddp.transforms.hazards.batch_sums import batch_sum as _batch_sum
from dp2ddp.transforms.hazards.batch_sums import is_loss_sum
from dp2ddp.transforms.hazards.batch_terms import BatchGiven, penalty
from dp2ddp.transforms.hazards.input_gradients import input_arguments
from dp2ddp.transforms.hazards.loss_bindings import LossConstructors, loss_key
from dp2ddp.transforms.hazards.masked_means import MeanLossObjects, averaging_loss
from dp2ddp.transforms.hazards.pairs import LOSS_NAMED
from dp2ddp.transforms.hazards.per_row_sums import divided_by_its_rows
from dp2ddp.transforms.hazards.reductions import (
    MEANS,
    Alike,
    Means,
    alike_operand,
    batch_means,
    wrapped_models,
)
from dp2ddp.transforms.hazards.reductions import receiver as _receiver
from dp2ddp.transforms.hazards.reductions import reduction as _reduction
from dp2ddp.transforms.hazards.replica_means import MEAN, ReplicaMeans
from dp2ddp.transforms.hazards.scopes import ScopeFacts
from dp2ddp.transforms.hazards.summed_terms import mixed_sums, scale_terms, unpacked_loss
from dp2ddp.transforms.hazards.told_sums import Told
from dp2ddp.transforms.hazards.uniform_counts import uniform_count
from dp2ddp.transforms.hazards.world_scaled import scaled_by_world_size, unscale

#: How the change record of a scaled loss starts (the CLI's summary finds them by it).
#: Methods whose value carries no gradient: a figure, not a term of the loss.
_NO_GRADIENT = frozenset({"item", "detach", "tolist", "numpy"})
#: A function named a metric and not a loss (`_metrics`, `get_metric`): its figures train
#: nothing (round 36, yassouali/CCT@65d4e5b's mean IoU of numpy totals, a false DP059).
_METRIC_ONLY = re.compile(r"^(?!.*loss).*metric", re.IGNORECASE)
_EVALUATION = re.compile(r"eval|valid|test|infer|predict|metric|score", re.IGNORECASE)


_Bound = dict[str, list[cst.BaseExpression]]
#: DP221's end where a sum of what a wrapped model of a class not read returns is scaled.
_SCALED_UNREAD = (
    "scaled by WORLD_SIZE as a sum over the batch (if each replica returns a mean over its "
    "rows, unscaled is DataParallel's)"
)

#: A loss object's sum reduction: (the offending argument, its text).
_Sums = tuple[cst.Arg, str]
#: The proof of a summed call of one scope (its bindings, how deep it is followed).
SummedCall = Callable[[cst.Call, dict[str, list[cst.BaseExpression]], int], bool]


def sum_through(
    node: cst.BaseExpression,
    assigned: dict[str, list[cst.BaseExpression]],
    summed: SummedCall,
    factor: Callable[[cst.BaseExpression], bool],
    depth: int = 0,
    divisor: Callable[[cst.BaseExpression], bool] | None = None,
) -> bool:
    """`node` is a sum over the batch built from calls `summed` proves: a name every binding
    of which in the scope (`assigned`) is one, their sums and differences, a negation, or one
    times a weight `factor` accepts (or divided by one `divisor` accepts); followed four
    levels deep. The one proof of DP004's scaling (any factor, a divisor alike on every rank
    that counts no data) and of hazards.count_means' numerator (constant factors, and calls
    of the module's own functions, which `summed` follows with their own bindings)."""
    if depth > 4:
        return False

    def inner(operand: cst.BaseExpression) -> bool:
        return sum_through(operand, assigned, summed, factor, depth + 1, divisor)

    if isinstance(node, cst.Name):
        bound = assigned.get(node.value, [])
        return bool(bound) and all(inner(v) for v in bound)
    if isinstance(node, cst.BinaryOperation):
        if isinstance(node.operator, (cst.Add, cst.Subtract)):
            return inner(node.left) and inner(node.right)
        if isinstance(node.operator, cst.Multiply):
            return (factor(node.right) and inner(node.left)) or (
                factor(node.left) and inner(node.right)
            )
        if isinstance(node.operator, cst.Divide) and divisor is not None:
            return divisor(node.right) and inner(node.left)
        return False
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        return inner(node.expression)
    if isinstance(node, cst.IfExp):  # `crit(a, y) if full else crit(a, y[:n])`: either sums
        return inner(node.body) and inner(node.orelse)
    return isinstance(node, cst.Call) and summed(node, assigned, depth)


def _any_factor(node: cst.BaseExpression) -> bool:
    return True


def string_value(node: cst.BaseExpression) -> str | None:
    if isinstance(node, cst.SimpleString):
        value = node.evaluated_value
        return value if isinstance(value, str) else None
    return None


class LossChecks:
    """DP004 for FlagHazards, which owns one and feeds it its visits: scopes that train, and
    the sums reaching backward(). Warnings go through the owning pass."""

    def __init__(
        self, transform: MigrationTransform, own_sums: Callable[[cst.Module], Told] | None = None
    ) -> None:
        self.t = transform
        #: reads a module's own returned batch sums (hazards.batch_sum_returns.own_sums)
        self.own_sums: Callable[[cst.Module], Told] = own_sums or (lambda _: {})
        #: Per enclosing scope: may a loss computed there reach backward()? Not in a
        #: no_grad function, nor in an evaluate()/test() that calls no backward itself.
        self._trains: list[bool] = []
        #: Per enclosing `with`: does it turn gradients off?
        self._no_grad: list[bool] = []
        #: Loss objects built with a sum reduction: name -> the offending argument.
        self.sum_losses: dict[str, _Sums] = {}
        #: Every loss object's binding by name: (its function, None at module level; the
        #: offending argument where it sums, else None). A name bound in two functions
        #: (a training criterion and an evaluation one) is read in the call's own.
        self.loss_bindings: dict[str, list[tuple[cst.CSTNode | None, _Sums | None]]] = {}
        #: The same names bound to calls of anything else (loss_bindings.py).
        self.other_bindings: dict[str, list[tuple[cst.CSTNode | None, _Sums | None]]] = {}
        #: backward() calls whose loss is scaled by WORLD_SIZE.
        self.scaled: set[cst.Call] = set()
        #: Loss calls inside a scaled loss: no DP004 for them.
        self._covered: set[cst.Call] = set()
        #: Batch means already reported (DP059), and the module's rank-uniformity proof
        #: (built at the first one: a mean over what every rank holds alike is none).
        self._statistics: set[cst.Call] = set()
        self._alike: Alike | None = None
        self._averaging: MeanLossObjects | None = None
        #: Batch sums said among a loss's terms (batch_terms), and the module's proof.
        self._said_terms: set[cst.CSTNode] = set()
        #: Batch sums of a mixed loss scaled alone (summed_terms): each one's record.
        self.term_scales: dict[cst.CSTNode, str] = {}
        self._given: BatchGiven | None = None
        self._module: cst.Module | None = None
        self._own: Told | None = None
        self._replica: ReplicaMeans | None = None

    def read_module(self, node: cst.Module) -> None:
        """Learn `node`'s loss objects (what enter_module does before it checks)."""
        self._module, self._given, self._alike, self._averaging = node, None, None, None
        self._own, self.term_scales = None, {}
        self._backward_scopes: dict[int, bool] = {}  # _called_to_train's, per loop
        self._sites: dict[str, list[cst.Call]] | None = None  # _called_to_train's
        read_tree(node, LossConstructors(self))

    def enter_module(self, node: cst.Module) -> None:
        self.read_module(node)
        self._check_sums(node)
        self._trains.append(True)

    def enter_function(self, node: cst.FunctionDef) -> None:
        no_grad = any(grad_off(d.decorator, self.t.matches) for d in node.decorators)
        backward = self._check_sums(node)
        evaluates = (
            not backward
            and bool(_EVALUATION.search(node.name.value))
            and not self._called_to_train(node)
        )
        self._trains.append(not no_grad and not evaluates)

    def _called_to_train(self, node: cst.FunctionDef) -> bool:
        """`node`, a function of the module (not a method) whatever its name says, is
        called in a loop that backpropagates: a loss (round 38, foamliu/Deep-Image-
        Matting-PyTorch@db6a96d's `alpha_prediction_loss`, taken for an evaluation by the
        word `prediction`: its masked ratio of batch sums got no DP071, unsaid)."""
        if self._module is None or not isinstance(self.t.parent(node), cst.Module):
            return False  # a method, or a function inside another: judged by its name
        if self._sites is None:  # one walk: this module's calls by the bare name they call
            self._sites = {}
            for call in walk(self._module):
                if isinstance(call, cst.Call) and isinstance(call.func, cst.Name):
                    self._sites.setdefault(call.func.value, []).append(call)
        sites = self._sites.get(node.name.value, [])
        if not sites and "loss" in node.name.value.lower():
            return True  # named a loss, called by other modules only (the matting's utils)
        for site in sites:
            loop: cst.CSTNode | None = self.t.parent(site)
            while loop is not None and not isinstance(loop, (cst.FunctionDef, cst.ClassDef)):
                if isinstance(loop, (cst.For, cst.While)):
                    if id(loop) not in self._backward_scopes:
                        self._backward_scopes[id(loop)] = any(
                            is_backward_call(c, self.t.qualified_names)
                            for c in calls_under(loop.body)
                        )
                    if self._backward_scopes[id(loop)]:
                        return True
                loop = self.t.parent(loop)
        return False

    def leave_function(self) -> None:
        self._trains.pop()

    @property
    def trains(self) -> bool:
        """A loss computed in the current scope may reach backward()."""
        return bool(self._trains) and self._trains[-1]

    def summed(
        self,
        node: cst.Call,
        assigned: dict[str, list[cst.BaseExpression]],
        losses: list[cst.Call],
    ) -> bool:
        """`node` is a loss call summed over the batch: a sum over dim 0, a loss object built
        with a sum reduction, a torch.nn.functional loss reducing with a sum. It is added to
        `losses` when it is one."""
        names = self.t.qualified_names(node.func)
        if (
            (self._is_loss_sum(node) and _batch_sum(node, assigned, self.t) is True)
            or self.summed_object(node) is not None
            or (
                any(n.startswith("torch.nn.functional.") for n in names)
                and self.sum_reduction(node) is not None
            )
        ):
            losses.append(node)
            return True
        return False

    def cover(self, losses: list[cst.Call]) -> None:
        """No DP004 for these summed loss calls: another pass made their loss right."""
        self._covered.update(losses)

    def check_call(self, node: cst.Call, names: set[str]) -> None:
        if node in self._covered:
            return
        functional = any(n.startswith("torch.nn.functional.") for n in names)
        if functional or not any(n.startswith("torch.") for n in names):
            # A loss called through a name of the program's own (`loss_func = F.mse_loss`
            # chosen at run time, `self.loss_func(y_pred, y, reduction="sum")`) sums as
            # surely as a torch.nn.functional one; its `size_average=` is not known to mean
            # torch's, so only `reduction="sum"` counts there.
            offending = self.sum_reduction(node)
            if (
                offending is not None
                and (functional or offending[2] == "reduction='sum'")
                and self.feeds_backward(node)
                and not self.per_row(node)
            ):
                self.t.warn(*offending)
        loss = self.summed_object(node)
        if loss is not None and self.feeds_backward(node) and not self.per_row(node):
            self.t.warn(loss[0], "DP004", loss[1])
        elif loss is None and (some := self._some_summed(node)) and self.feeds_backward(node):
            self.t.warn(
                some[0],
                "DP004",
                f"{some[1]}, one of the losses {self.t.code(node.func)} may be (another binding "
                "of it is a call dp2ddp cannot read): left unscaled",
            )

    def summed_object(self, node: cst.Call) -> _Sums | None:
        """The sum reduction of the loss object `node` calls, read in the call's function's
        bindings, else the module's, else all (round 21, jzhou316/Unsupervised-Sentence-
        Summarization@2f62975: DP004 at validating()'s `criterion`, not train()'s)."""
        key = loss_key(node.func)
        bindings = self._bindings(node)
        summed = [s for _, s in bindings]
        if summed and all(summed):
            return summed[0]
        return self.sum_losses.get(key) if not self.loss_bindings.get(key) else None

    def _bindings(self, node: cst.Call) -> list[tuple[cst.CSTNode | None, _Sums | None]]:
        """The bindings of the loss object `node` calls that may reach it: the call's own
        function's, else the module's, else all; a binding of the name to a call of anything
        else counted (None) where the name is bound to a torch loss at all (other_bindings:
        `criterion = MixLoss()` in another branch)."""
        key = loss_key(node.func)
        bindings = self.loss_bindings.get(key, [])
        bindings = bindings + self.other_bindings.get(key, []) if bindings else bindings
        if isinstance(node.func, cst.Name) and bindings:
            here = enclosing_function(node, self.t)
            for where in (here, None):
                own = [binding for binding in bindings if binding[0] is where]
                if own:
                    return own
        return bindings

    def _some_summed(self, node: cst.Call) -> _Sums | None:
        """A summed binding of the loss object `node` calls beside a call of something else
        (a reaching binding is None): summed under one option only (DP004, unscaled)."""
        summed = [s for _, s in self._bindings(node)]
        return next((s for s in summed if s is not None), None) if None in summed else None

    def per_row(self, node: cst.Call) -> bool:
        """A loss summed over its rows and divided by their count (per_row_sums.py): a
        mean, no DP004. Asked only of a call divided by something or bound to a name (a
        term of a sum divided later), the view built once."""
        parent = self.t.parent(node)
        if isinstance(parent, cst.Call) and parent.func is node:
            node, parent = parent, self.t.parent(parent)  # `nn.MSELoss(reduction="sum")(a, b)`
        if self._module is None or not isinstance(parent, cst.BinaryOperation | cst.Assign):
            return False
        if divided_by_its_rows(node, view(self._module), self.t.parent):
            return True
        return self.replicas().divided(node, self.t.parent)  # `/ self.batch_size` of its rows

    def replicas(self) -> ReplicaMeans:
        """The module's proof of replica means (hazards.replica_means), built once."""
        assert self._module is not None
        if self._replica is None or self._replica.flow.module is not self._module:
            flow, names, told = (
                view(self._module),
                self.t.qualified_names,
                self.t.state.facts.models,
            )
            alike = lambda d: uniform_count(flow, self._alike_proof().uniform, d, d)  # noqa: E731
            self._replica = ReplicaMeans(flow, names, self._sums_in, alike, told, self._means_in)
        return self._replica

    def _means_in(self, function: Function, value: cst.BaseExpression) -> bool:
        """`value` is a loss averaged over the batch (a mean over dim 0 or every element, a
        torch.nn loss averaging so): each replica's, a mean over its own rows."""
        if not isinstance(value, cst.Call):
            return False
        reduced = _reduction(value, self.t)
        if reduced is not None:
            return (
                reduced[0] in MEANS
                and reduced[1] is not None
                and (0 in reduced[1] or not reduced[1])
            )
        return averaging_loss(value, self.t.qualified_names, self._mean_objects())

    def _sums_in(self, function: Function, value: cst.BaseExpression) -> bool:
        """`value` is a loss summed over the batch in `function` (its own bindings)."""
        if not isinstance(function.node, cst.FunctionDef):
            return False
        scope = ScopeFacts(function.node, self.t.qualified_names)
        read_tree(function.node, scope)
        return sum_through(
            value, scope.assigned, lambda c, bound, _: self.summed(c, bound, []), _any_factor
        )

    def _replica_losses(
        self, backward: cst.Call, receiver: cst.BaseExpression, losses: list[cst.Call]
    ) -> bool:
        """hazards.replica_means: a sum of a wrapped model's replica means is left unscaled,
        unsaid; of quotients not proved either way, unscaled and said (DP004). False: scale."""
        reason = None if self._module is None else self.replicas().outputs(unscale(receiver))
        if reason is None:
            self.unread_sum(backward, unscale(receiver), _SCALED_UNREAD)
            return False
        self._covered.update(losses)
        if reason != MEAN:
            self.t.warn(backward, "DP004", f"{self.t.code(receiver)} sums {reason}")
        return True

    def unread_sum(self, at: cst.CSTNode, loss: cst.BaseExpression, done: str) -> bool:
        """DP221 at `at` where `loss` sums the output of a wrapped model whose class is not
        read (replica_means.unread): a sum over the batch or each replica's mean, not known."""
        built = self.replicas().unread(loss) if self._module is not None else None
        if built is not None:
            what = f"`{self.t.code(loss)}` sums what a wrapped `{built}(...)` returns"
            self.t.warn(at, "DP221", f"{what}, its forward() not read: {done}")
        return built is not None

    def enter_with(self, node: cst.With) -> None:
        self._no_grad.append(any(grad_off(item.item, self.t.matches) for item in node.items))

    def leave_with(self) -> None:
        self._no_grad.pop()

    def feeds_backward(self, call: cst.Call) -> bool:
        """The loss value may reach backward(): gradients on, not `.item()`, not evaluation,
        not only differentiated with respect to an input (_input_gradient_only)."""
        parent = self.t.parent(call)
        itemized = isinstance(parent, cst.Attribute) and parent.attr.value in ("item", "tolist")
        if not self._trains[-1] or any(self._no_grad) or itemized:
            return False
        return not self._input_gradient_only(call)

    def _input_gradient_only(self, call: cst.Call) -> bool:
        """The summed loss is bound to a name whose every read in its function is
        `torch.autograd.grad(name, inputs)` with inputs no parameter and no
        `create_graph=True`, or `.item()`: a gradient with respect to the input (a PGD
        attack's `grad = torch.autograd.grad(loss, adv_bx)[0]`, then `.sign()`). Each
        row's gradient is its own row's under DataParallel as under DDP, and no parameter
        gradient is scaled (hendrycks/ss-ood@8051356 attacks.py, round 13 v4-D: DP004 x3)."""
        node: cst.CSTNode = call
        parent = self.t.parent(node)
        while isinstance(parent, (cst.BinaryOperation, cst.UnaryOperation)):
            node, parent = parent, self.t.parent(parent)
        if isinstance(parent, cst.Call) and parent.func is node:  # `nn.X(reduction=..)(a, b)`
            node, parent = parent, self.t.parent(parent)
        if isinstance(parent, cst.Assign) and len(parent.targets) == 1:
            target = parent.targets[0].target
        elif isinstance(parent, cst.AugAssign):
            target = parent.target
        else:
            return False
        function = enclosing_function(call, self.t)
        if not isinstance(target, cst.Name) or function is None:
            return False
        name, differentiated = target.value, False
        for use in (n for n in walk(function) if isinstance(n, cst.Name) and n.value == name):
            up = self.t.parent(use)
            if isinstance(up, cst.AssignTarget) or (isinstance(up, cst.AugAssign)):
                continue  # a binding (`loss += ...` adds a summed term, seen at its call)
            if isinstance(up, cst.Attribute) and up.attr is use:
                continue  # `self.loss`: another value
            if isinstance(up, cst.Attribute) and up.value is use:
                if up.attr.value in ("item", "tolist"):
                    continue
                return False
            grad = self.t.parent(up) if isinstance(up, cst.Arg) else None
            if not (isinstance(grad, cst.Call) and up is grad.args[0] and up.keyword is None):
                return False
            if "torch.autograd.grad" not in self.t.qualified_names(grad.func):
                return False
            if not input_arguments(grad, function):
                return False
            differentiated = True
        return differentiated

    def sum_reduction(self, node: cst.Call) -> tuple[cst.Arg, str, str] | None:
        """(argument, code, detail) when a torch.nn loss call reduces with a sum."""
        keywords = {arg.keyword.value: arg for arg in node.args if arg.keyword is not None}
        reduction = keywords.get("reduction")
        if reduction is not None and string_value(reduction.value) == "sum":
            return (reduction, "DP004", "reduction='sum'")
        size_average = keywords.get("size_average")
        reduce = keywords.get("reduce")
        if (
            size_average is not None
            and isinstance(size_average.value, cst.Name)
            and size_average.value.value == "False"
            and not (reduce is not None and self.t.code(reduce.value) == "False")
        ):
            return (size_average, "DP004", "size_average=False")
        return None

    def _check_sums(self, scope: cst.Module | cst.FunctionDef) -> bool:
        """DP004: a `.sum()` / `torch.sum()` whose result reaches `.backward()`.

        Returns whether the scope calls backward() at all.
        """
        facts = ScopeFacts(scope, self.t.qualified_names)
        read_tree(scope, facts)
        keep = self.t.state.options.keep_summed_loss
        for receiver, backward in zip(facts.backward, facts.backward_calls, strict=True):
            value = unscale(receiver)
            values = facts.assigned.get(value.value, []) if isinstance(value, cst.Name) else [value]
            losses: list[cst.Call] = []
            if scaled_by_world_size(receiver):  # by an earlier run: its sums are covered
                if all(self._summed(v, facts.assigned, losses) for v in values):
                    self._covered.update(losses)
                    self.unread_sum(backward, unscale(receiver), _SCALED_UNREAD)
                continue
            statistic = self._batch_statistics(values, facts.assigned)
            unpacked = unpacked_loss(self, value)  # `loss, rec, kl = crit(...)`, then `+=`
            if (
                not keep
                and values
                and not unpacked
                and all(self._summed(v, facts.assigned, losses) for v in values)
                and not under_grad_off(backward, self.t.parent, self.t.matches)
            ):
                if self._replica_losses(backward, receiver, losses):
                    continue
                self.scaled.add(backward)
                self._covered.update(losses)
                self.t.record(
                    backward,
                    f"{SCALED_LOSS} {self.t.code(receiver)} by WORLD_SIZE for backward: "
                    "DDP averages gradients over the ranks, DataParallel summed over the whole "
                    "batch (the loss value itself is unchanged)",
                )
                self._penalties(losses, self.t.code(receiver))
                continue
            for candidate in values:
                if self._is_loss_sum(candidate) and self._maybe_batch_sum(
                    candidate, facts.assigned, statistic
                ):
                    self._said_terms.add(candidate)
                    self.t.warn(candidate, "DP004", f"{self.t.code(candidate)} before backward()")
            if not under_grad_off(backward, self.t.parent, self.t.matches):
                self._batch_sum_terms(
                    values or [value], facts.assigned, value if values and unpacked else None
                )
        if isinstance(scope, cst.FunctionDef) and not facts.backward and self._names_loss(scope):
            results = [
                n.value
                for n in walk(scope.body, skip_scopes=True)
                if isinstance(n, cst.Return) and n.value is not None
            ]
            self._batch_statistics(results, facts.assigned, returned=True)
        return bool(facts.backward)

    def _detached(self, node: cst.CSTNode) -> bool:
        """`node` is read through `.item()`, `.detach()`, `.tolist()` or `.numpy()` before
        its statement ends: a number carrying no gradient."""
        above = self.t.parent(node)
        while isinstance(above, (cst.Attribute, cst.Call)):
            if isinstance(above, cst.Attribute) and above.attr.value in _NO_GRADIENT:
                return True
            above = self.t.parent(above)
        return False

    def _names_loss(self, function: cst.FunctionDef) -> bool:
        """`function`, or the class it is a method of, is named a loss (pairs.LOSS_NAMED):
        what it returns is a loss, and a statistic over the batch in it is DP059's as in a
        scope that calls backward() (round 29, QuocThangNguyen/deep-metric-learning-
        tsinghua-dogs@fca6beb's proxy-anchor loss, a log of per-class sums over the batch
        in its forward(): each rank's own share's, unsaid)."""
        if LOSS_NAMED.search(function.name.value) and not _METRIC_ONLY.search(function.name.value):
            return True
        owner = self.t.parent(self.t.parent(function) or function)
        return isinstance(owner, cst.ClassDef) and bool(LOSS_NAMED.search(owner.name.value))

    def _batch_sum_terms(
        self,
        values: list[cst.BaseExpression],
        assigned: dict[str, list[cst.BaseExpression]],
        loss: cst.BaseExpression | None = None,
    ) -> None:
        """A batch sum among the terms of a loss not summed on every term: scaled alone, or
        DP004 (hazards.summed_terms)."""
        mixed_sums(self, values, assigned, loss)

    def scale_terms(self, module: cst.Module) -> cst.Module:
        """`module` (the pass's result) with the batch sums of mixed losses scaled alone;
        one a whole-scaled loss holds too, or that the pass changed, said (DP004)."""
        kept = {n for n in self.term_scales if n not in self._covered}
        module, done = scale_terms(module, kept)
        for term, record in self.term_scales.items():
            if term in done:
                self.t.record(term, record)
            else:
                why = "a loss scaled whole holds it too" if term not in kept else "changed"
                detail = f"{self.t.code(term)} sums the batch beside terms that do not"
                self.t.warn(term, "DP004", f"{detail}: left unscaled ({why})")
        return module

    def _own_sums(self) -> Told:
        """The batch sums this module's own loss classes and functions return, by the name
        a call in the module resolves (`WGANGP.criterion`: a method of a class of its own
        called on its instance, round 20 of issue 28), read once a module (`own_sums`, the
        package's reader: hazards.batch_sum_returns reads with this module's proofs)."""
        if self._own is None:
            self._own = self.own_sums(self._module) if self._module is not None else {}
        return self._own

    def _penalties(self, losses: list[cst.Call], loss: str) -> None:
        """DP120 at a sum of the scaled loss that sums no batch (batch_terms.penalty)."""
        for term in losses:
            receiver = _receiver(term, self.t) if self._is_loss_sum(term) else None
            if receiver is not None and self._module is not None:
                if penalty(view(self._module), self.t.qualified_names, receiver):
                    its = "its gradient WORLD_SIZE times DataParallel's"
                    detail = f"`{self.t.code(term)}` in the summed loss `{loss}` ({its})"
                    self.t.warn(term, "DP120", detail)

    def _summed(
        self,
        node: cst.BaseExpression,
        assigned: dict[str, list[cst.BaseExpression]],
        losses: list[cst.Call],
    ) -> bool:
        """`node` is a loss summed over the batch: a summed loss call (`summed`), a name
        bound only to such, their sums and differences, or one weighted by any factor."""
        return sum_through(
            node,
            assigned,
            lambda call, bound, _: self.summed(call, bound, losses),
            _any_factor,
            divisor=lambda d: (
                self._module is not None
                and uniform_count(view(self._module), self._alike_proof().uniform, d, node)
            ),
        )

    def _batch_statistics(
        self,
        values: list[cst.BaseExpression],
        assigned: dict[str, list[cst.BaseExpression]],
        returned: bool = False,
    ) -> bool:
        """DP059: a mean over the batch dimension (`p.mean(0)`, `torch.mean(p, 0)`) under a
        non-linear call (`torch.log`, an `entropy()` helper) in what reaches backward().
        DataParallel computed it on the gathered batch; each DDP rank computes it on its
        own share, so the loss is a different function of the samples. A plain `.mean()` of
        per-sample losses is linear and is not flagged, nor a mean of what every rank holds
        alike (reductions.alike_operand: a wrapped model's weight rows). Returns whether one
        was found.

        An averaging loss under a non-linear call counts as such a mean (round 13 v1-A:
        `torch.log10(F.mse_loss(pred, output))` is each rank's own log of its own mean).

        `returned`: `values` are what a loss function returns (_names_loss), its dim 0 the
        batch's: a sum over dim 0 under a non-linear call counts too; a baseline (a
        statistic offsetting the terms, batch_baselines.py) is left to the scope that
        backpropagates (`1e-3 * mask.float().mean()` added inside a loss changes no
        gradient).

        A module that spells neither "mean" nor "loss" (nor re-exports one under another
        name) has none:
        following every name back through its bindings would find nothing, at a cost that
        grows with each binding's size (a list of 40 model builds, followed six levels)."""
        if self.t.state.text_count("mean") == 0 and self.t.state.text_count("loss") == 0:
            return False
        found = False
        memo: Means = {}
        objects = self._mean_objects()
        for value in values:
            for stat in batch_means(value, assigned, self.t, False, 0, memo, objects, returned):
                if alike_operand(stat, assigned, self.t, self._alike_proof()):
                    continue  # the same tensor on every rank: no share of the batch
                if returned and self._detached(stat):
                    continue  # a figure returned beside the loss (`err.mean().item()`)
                found = True
                if stat not in self._statistics:
                    self._statistics.add(stat)
                    self.t.warn(stat, "DP059", f"{self.t.code(stat)} feeds a non-linear loss")
        assert self._module is not None
        if returned:
            return found
        for stat in baseline_statistics(
            values, assigned, self.t, self._module, self._alike_proof()
        ):
            if stat in self._statistics or alike_operand(
                stat, assigned, self.t, self._alike_proof()
            ):
                continue
            found = True
            self._statistics.add(stat)
            self.t.warn(stat, "DP059", f"{self.t.code(stat)} {OFFSETS}")
        return found

    def _mean_objects(self) -> MeanLossObjects | None:
        """Which callees hold a torch.nn loss object averaging over elements (built once
        a module)."""
        if self._averaging is None and self._module is not None:
            self._averaging = MeanLossObjects(self._module, self.t.qualified_names)
        return self._averaging

    def _alike_proof(self) -> Alike:
        """The module's proof of values alike on every rank, built at its first batch mean."""
        if self._alike is None:
            assert self._module is not None
            flow = view(self._module)
            uniform = RankUniformity.for_pass(self.t, self._module)
            self._alike = Alike(uniform, wrapped_models(list(flow.calls), self.t))
        return self._alike

    def _maybe_batch_sum(
        self,
        node: cst.BaseExpression,
        assigned: dict[str, list[cst.BaseExpression]],
        statistic: bool,
    ) -> bool:
        """DP004 for an unscaled sum unless it is proved no batch sum: over other dims only,
        or over what a batch mean left where DP059 already tells why (a batch mean found
        through a name bound elsewhere in the scope proves too little to stay silent)."""
        proved = _batch_sum(node, assigned, self.t)
        if proved is not False:
            return True
        reduction = _reduction(node, self.t)
        dims = reduction[1] if reduction is not None else None
        return not statistic and dims is not None and (not dims or 0 in dims)

    def _is_loss_sum(self, node: cst.BaseExpression) -> bool:
        return is_loss_sum(node, self.t)
