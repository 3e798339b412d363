"""DP004: a loss reduced with a sum, where the reduction reaches backward().

DDP averages gradients over ranks, where DataParallel's one process summed the whole batch,
so a summed loss updates WORLD_SIZE times less. Flagged: `reduction="sum"` /
`size_average=False` on torch.nn losses, unless the loss is only evaluated (under no_grad,
turned into a number with `.item()`, or in an evaluate()/test() that calls no backward),
and a `.sum()` whose result reaches `.backward()` (a sum of separate loss terms,
`torch.stack(losses).sum()`, is not a batch reduction and is not flagged).
"""

from __future__ import annotations

import re

import libcst as cst

from dp2ddp.transforms.base import MigrationTransform
from dp2ddp.transforms.hazard_scopes import ScopeFacts

_STACKING = frozenset(
    f"torch.{name}" for name in "stack cat concat hstack vstack tensor as_tensor".split()
)
_EVALUATION = re.compile(r"eval|valid|test|infer|predict|metric|score", re.IGNORECASE)
_NO_GRAD = frozenset(
    {
        "torch.no_grad",
        "torch.inference_mode",
        "torch.autograd.no_grad",
        "torch.autograd.grad_mode.no_grad",
        "torch.autograd.grad_mode.inference_mode",
    }
)


def string_value(node: cst.BaseExpression) -> str | None:
    if isinstance(node, cst.SimpleString):
        value = node.evaluated_value
        return value if isinstance(value, str) else None
    return None


class LossReductionChecks(MigrationTransform):
    """The DP004 half of FlagHazards: scopes that train, and the sums reaching backward()."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        #: Per enclosing scope: may a loss computed there reach backward()? Not in a
        #: no_grad function, nor in an evaluate()/test() that calls no backward itself.
        self._trains: list[bool] = []
        #: Per enclosing `with`: does it turn gradients off?
        self._no_grad: list[bool] = []
        #: Loss objects built with a sum reduction: name -> the offending argument.
        self._sum_losses: dict[str, tuple[cst.Arg, str]] = {}

    def _enter_module(self, node: cst.Module) -> None:
        self._check_sums(node)
        self._trains.append(True)
        node.visit(_LossConstructors(self))

    def _enter_function(self, node: cst.FunctionDef) -> None:
        no_grad = any(self._turns_off_grad(d.decorator) for d in node.decorators)
        backward = self._check_sums(node)
        evaluates = not backward and bool(_EVALUATION.search(node.name.value))
        self._trains.append(not no_grad and not evaluates)

    def _leave_function(self) -> None:
        self._trains.pop()

    def _check_loss_call(self, node: cst.Call, names: set[str]) -> None:
        if any(n.startswith("torch.nn.functional.") for n in names):
            offending = self._sum_reduction(node)
            if offending is not None and self._feeds_backward(node):
                self.warn(*offending)
        loss = self._sum_losses.get(_key(node.func))
        if loss is not None and self._feeds_backward(node):
            self.warn(loss[0], "DP004", loss[1])

    def visit_With(self, node: cst.With) -> None:
        self._no_grad.append(any(self._turns_off_grad(item.item) for item in node.items))

    def leave_With(self, original_node: cst.With, updated_node: cst.With) -> cst.With:
        self._no_grad.pop()
        return updated_node

    def _turns_off_grad(self, node: cst.BaseExpression) -> bool:
        func = node.func if isinstance(node, cst.Call) else node
        return self.matches(func, _NO_GRAD)

    def _feeds_backward(self, call: cst.Call) -> bool:
        """The loss value may reach backward(): gradients on, not `.item()`, not evaluation."""
        parent = self.parent(call)
        itemized = isinstance(parent, cst.Attribute) and parent.attr.value in ("item", "tolist")
        return self._trains[-1] and not any(self._no_grad) and not itemized

    def _sum_reduction(self, node: cst.Call) -> tuple[cst.Arg, str, str] | None:
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
            and not (reduce is not None and self.code(reduce.value) == "False")
        ):
            return (size_average, "DP004", "size_average=False")
        return None

    def _check_sums(self, scope: cst.Module | cst.FunctionDef) -> bool:
        """DP004: a `.sum()` / `torch.sum()` whose result reaches `.backward()`.

        Returns whether the scope calls backward() at all.
        """
        facts = ScopeFacts(scope, self.qualified_names)
        scope.visit(facts)
        for receiver in facts.backward:
            value = _unscale(receiver)
            values = facts.assigned.get(value.value, []) if isinstance(value, cst.Name) else [value]
            for candidate in values:
                if self._is_loss_sum(candidate):
                    self.warn(candidate, "DP004", f"{self.code(candidate)} before backward()")
        return bool(facts.backward)

    def _is_loss_sum(self, node: cst.BaseExpression) -> bool:
        if not isinstance(node, cst.Call):
            return False
        func = node.func
        if "torch.sum" in self.qualified_names(func):
            summed = node.args[0].value if node.args else None
        elif isinstance(func, cst.Attribute) and func.attr.value == "sum":
            summed = func.value
        else:
            return False
        if summed is None or isinstance(
            summed, (cst.List, cst.Tuple, cst.ListComp, cst.GeneratorExp)
        ):
            return False
        return not (isinstance(summed, cst.Call) and self.matches(summed.func, _STACKING))


def _key(node: cst.BaseExpression) -> str:
    """How a loss object is referred to: `criterion`, or `.criterion` for any `x.criterion`."""
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        return "." + node.attr.value
    return ""


class _LossConstructors(cst.CSTVisitor):
    """Pre-pass: `criterion = nn.XLoss(reduction="sum")` only matters where criterion trains."""

    def __init__(self, transform: LossReductionChecks) -> None:
        super().__init__()
        self.t = transform

    def visit_Call(self, node: cst.Call) -> None:
        names = self.t.qualified_names(node.func)
        if not any(n.startswith("torch.nn.") and n.rsplit(".", 1)[-1][:1].isupper() for n in names):
            return
        offending = self.t._sum_reduction(node)
        if offending is None:
            return
        parent = self.t.parent(node)
        if isinstance(parent, cst.Assign) and len(parent.targets) == 1:
            target: cst.BaseExpression | None = parent.targets[0].target
        elif isinstance(parent, cst.AnnAssign):
            target = parent.target
        else:
            target = None
        key = _key(target) if target is not None else ""
        if key:
            self.t._sum_losses[key] = (offending[0], offending[2])
        else:
            self.t.warn(*offending)


def _unscale(node: cst.BaseExpression) -> cst.BaseExpression:
    """`scaler.scale(loss)`, `loss / accumulation` and `loss * w` -> `loss`."""
    while True:
        if (
            isinstance(node, cst.Call)
            and isinstance(node.func, cst.Attribute)
            and node.func.attr.value == "scale"
            and len(node.args) == 1
        ):
            node = node.args[0].value
        elif isinstance(node, cst.BinaryOperation) and isinstance(
            node.operator, (cst.Divide, cst.Multiply)
        ):
            node = node.left
        else:
            return node
