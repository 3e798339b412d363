"""Summed losses: scaled by WORLD_SIZE where they are backpropagated, or DP004.

DDP averages gradients over ranks, where DataParallel's one process summed the whole batch,
so a summed loss updates WORLD_SIZE times less. Found: `reduction="sum"` /
`size_average=False` on torch.nn losses, unless the loss is only evaluated (under no_grad,
turned into a number with `.item()`, or in an evaluate()/test() that calls no backward),
and a `.sum()` whose result reaches `.backward()` (a sum of separate loss terms,
`torch.stack(losses).sum()`, is not a batch reduction and is not flagged).

Where what reaches `X.backward()` is summed on every path (each value the name is assigned
in the scope is a summed loss, or a sum/difference of summed losses, possibly weighted),
the backward call becomes `(X * WORLD_SIZE).backward()`: DataParallel's updates, and `X`
itself (printed, logged) unchanged. Anything less certain (a mean mixed in, a division, a
loss built elsewhere) keeps DP004, as does every summed loss with `keep_summed_loss`.
"""

from __future__ import annotations

import re

import libcst as cst

from dp2ddp.transforms._support.base import MigrationTransform
from dp2ddp.transforms._support.nodes import NO_GRAD
from dp2ddp.transforms.hazards.scopes import ScopeFacts

_STACKING = frozenset(
    f"torch.{name}" for name in "stack cat concat hstack vstack tensor as_tensor".split()
)
#: How the change record of a scaled loss starts (the CLI's summary finds them by it).
SCALED_LOSS = "scaled the summed loss"
_EVALUATION = re.compile(r"eval|valid|test|infer|predict|metric|score", re.IGNORECASE)


def string_value(node: cst.BaseExpression) -> str | None:
    if isinstance(node, cst.SimpleString):
        value = node.evaluated_value
        return value if isinstance(value, str) else None
    return None


class LossChecks:
    """DP004 for FlagHazards, which owns one and feeds it its visits: scopes that train, and
    the sums reaching backward(). Warnings go through the owning pass."""

    def __init__(self, transform: MigrationTransform) -> None:
        self.t = transform
        #: Per enclosing scope: may a loss computed there reach backward()? Not in a
        #: no_grad function, nor in an evaluate()/test() that calls no backward itself.
        self._trains: list[bool] = []
        #: Per enclosing `with`: does it turn gradients off?
        self._no_grad: list[bool] = []
        #: Loss objects built with a sum reduction: name -> the offending argument.
        self.sum_losses: dict[str, tuple[cst.Arg, str]] = {}
        #: backward() calls whose loss is scaled by WORLD_SIZE.
        self.scaled: set[cst.Call] = set()
        #: Loss calls inside a scaled loss: no DP004 for them.
        self._covered: set[cst.Call] = set()

    def enter_module(self, node: cst.Module) -> None:
        node.visit(_LossConstructors(self))
        self._check_sums(node)
        self._trains.append(True)

    def enter_function(self, node: cst.FunctionDef) -> None:
        no_grad = any(self._turns_off_grad(d.decorator) for d in node.decorators)
        backward = self._check_sums(node)
        evaluates = not backward and bool(_EVALUATION.search(node.name.value))
        self._trains.append(not no_grad and not evaluates)

    def leave_function(self) -> None:
        self._trains.pop()

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
            ):
                self.t.warn(*offending)
        loss = self.sum_losses.get(loss_key(node.func))
        if loss is not None and self.feeds_backward(node):
            self.t.warn(loss[0], "DP004", loss[1])

    def enter_with(self, node: cst.With) -> None:
        self._no_grad.append(any(self._turns_off_grad(item.item) for item in node.items))

    def leave_with(self) -> None:
        self._no_grad.pop()

    def _turns_off_grad(self, node: cst.BaseExpression) -> bool:
        func = node.func if isinstance(node, cst.Call) else node
        return self.t.matches(func, NO_GRAD)

    def feeds_backward(self, call: cst.Call) -> bool:
        """The loss value may reach backward(): gradients on, not `.item()`, not evaluation."""
        parent = self.t.parent(call)
        itemized = isinstance(parent, cst.Attribute) and parent.attr.value in ("item", "tolist")
        return self._trains[-1] and not any(self._no_grad) and not itemized

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
        scope.visit(facts)
        keep = self.t.state.options.keep_summed_loss
        for receiver, backward in zip(facts.backward, facts.backward_calls, strict=True):
            if _scaled_by_world_size(receiver):
                continue  # scaled by an earlier run (a program's modules are passed again)
            value = _unscale(receiver)
            values = facts.assigned.get(value.value, []) if isinstance(value, cst.Name) else [value]
            losses: list[cst.Call] = []
            if (
                not keep
                and values
                and all(self._summed(v, facts.assigned, losses, 0) for v in values)
                and not _inside_no_grad(backward, self.t)
            ):
                self.scaled.add(backward)
                self._covered.update(losses)
                self.t.record(
                    backward,
                    f"{SCALED_LOSS} {self.t.code(receiver)} by WORLD_SIZE for backward: "
                    "DDP averages gradients over the ranks, DataParallel summed over the whole "
                    "batch (the loss value itself is unchanged)",
                )
                continue
            for candidate in values:
                if self._is_loss_sum(candidate):
                    self.t.warn(candidate, "DP004", f"{self.t.code(candidate)} before backward()")
        return bool(facts.backward)

    def _summed(
        self,
        node: cst.BaseExpression,
        assigned: dict[str, list[cst.BaseExpression]],
        losses: list[cst.Call],
        depth: int,
    ) -> bool:
        """`node` is a loss summed over the batch: a summed reduction, a name bound only to
        such, their sums and differences, or one weighted by a factor."""
        if depth > 4:
            return False
        if isinstance(node, cst.Name):
            bound = assigned.get(node.value, [])
            return bool(bound) and all(self._summed(v, assigned, losses, depth + 1) for v in bound)
        if isinstance(node, cst.BinaryOperation):
            if isinstance(node.operator, (cst.Add, cst.Subtract)):
                return self._summed(node.left, assigned, losses, depth + 1) and self._summed(
                    node.right, assigned, losses, depth + 1
                )
            if isinstance(node.operator, cst.Multiply):
                left = self._summed(node.left, assigned, losses, depth + 1)
                return left or self._summed(node.right, assigned, losses, depth + 1)
            return False
        if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
            return self._summed(node.expression, assigned, losses, depth + 1)
        if not isinstance(node, cst.Call):
            return False
        names = self.t.qualified_names(node.func)
        if (
            self._is_loss_sum(node)
            or loss_key(node.func) in self.sum_losses
            or (
                any(n.startswith("torch.nn.functional.") for n in names)
                and self.sum_reduction(node) is not None
            )
        ):
            losses.append(node)
            return True
        return False

    def _is_loss_sum(self, node: cst.BaseExpression) -> bool:
        if not isinstance(node, cst.Call):
            return False
        func = node.func
        if "torch.sum" in self.t.qualified_names(func):
            summed = node.args[0].value if node.args else None
        elif isinstance(func, cst.Attribute) and func.attr.value == "sum":
            summed = func.value
        else:
            return False
        if summed is None or isinstance(
            summed, (cst.List, cst.Tuple, cst.ListComp, cst.GeneratorExp)
        ):
            return False
        return not (isinstance(summed, cst.Call) and self.t.matches(summed.func, _STACKING))


def _inside_no_grad(node: cst.CSTNode, transform: MigrationTransform) -> bool:
    current = transform.parent(node)
    while current is not None:
        if isinstance(current, cst.With) and any(
            transform.matches(
                item.item.func if isinstance(item.item, cst.Call) else item.item, NO_GRAD
            )
            for item in current.items
        ):
            return True
        current = transform.parent(current)
    return False


def loss_key(node: cst.BaseExpression) -> str:
    """How a loss object is referred to: `criterion`, or `.criterion` for any `x.criterion`."""
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        return "." + node.attr.value
    return ""


class _LossConstructors(cst.CSTVisitor):
    """Pre-pass: `criterion = nn.XLoss(reduction="sum")` only matters where criterion trains."""

    def __init__(self, checks: LossChecks) -> None:
        super().__init__()
        self.checks = checks
        self.t = checks.t

    def visit_Call(self, node: cst.Call) -> None:
        names = self.t.qualified_names(node.func)
        if not any(n.startswith("torch.nn.") and n.rsplit(".", 1)[-1][:1].isupper() for n in names):
            return
        offending = self.checks.sum_reduction(node)
        if offending is None:
            return
        parent = self.t.parent(node)
        if isinstance(parent, cst.Assign) and len(parent.targets) == 1:
            target: cst.BaseExpression | None = parent.targets[0].target
        elif isinstance(parent, cst.AnnAssign):
            target = parent.target
        else:
            target = None
        key = loss_key(target) if target is not None else ""
        if key:
            self.checks.sum_losses[key] = (offending[0], offending[2])
        else:
            self.t.warn(*offending)


def _scaled_by_world_size(node: cst.BaseExpression) -> bool:
    """`(X * WORLD_SIZE)`, as this pass writes it, possibly inside `scaler.scale(...)` or a
    division: the loss was scaled already."""
    while True:
        if (
            isinstance(node, cst.BinaryOperation)
            and isinstance(node.operator, cst.Multiply)
            and isinstance(node.right, cst.Name)
            and node.right.value == "WORLD_SIZE"
        ):
            return True
        unscaled = _unscale_once(node)
        if unscaled is node:
            return False
        node = unscaled


def _unscale_once(node: cst.BaseExpression) -> cst.BaseExpression:
    """One layer of `scaler.scale(x)`, `x / k` or `x * w` -> `x` (else `node` itself)."""
    if (
        isinstance(node, cst.Call)
        and isinstance(node.func, cst.Attribute)
        and node.func.attr.value == "scale"
        and len(node.args) == 1
    ):
        return node.args[0].value
    if isinstance(node, cst.BinaryOperation) and isinstance(
        node.operator, (cst.Divide, cst.Multiply)
    ):
        return node.left
    return node


def _unscale(node: cst.BaseExpression) -> cst.BaseExpression:
    """`scaler.scale(loss)`, `loss / accumulation` and `loss * w` -> `loss`."""
    while (unscaled := _unscale_once(node)) is not node:
        node = unscaled
    return node
