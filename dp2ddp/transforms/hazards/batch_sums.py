"""A `.sum()` of the loss and whether it sums the batch: `is_loss_sum` (a sum of one tensor,
not of a list of loss terms) and `batch_sum` (over dim 0, no reduction over the batch
beneath), hazards.losses' proof, read also by hazards.batch_sum_returns."""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from dp2ddp.transforms._support.base import MigrationTransform
from dp2ddp.transforms.hazards.reductions import SUMS
from dp2ddp.transforms.hazards.reductions import receiver as _receiver
from dp2ddp.transforms.hazards.reductions import reduction as _reduction

STACKING = frozenset(
    f"torch.{name}" for name in "stack cat concat hstack vstack tensor as_tensor".split()
)


def is_loss_sum(node: cst.BaseExpression, transform: MigrationTransform) -> bool:
    """`node` is a `.sum()` / `torch.sum()` of one tensor (not of a list of loss terms)."""
    if not isinstance(node, cst.Call):
        return False
    func = node.func
    if "torch.sum" in transform.qualified_names(func):
        summed = node.args[0].value if node.args else None
    elif isinstance(func, cst.Attribute) and func.attr.value == "sum":
        summed = func.value
    else:
        return False
    if summed is None or isinstance(summed, (cst.List, cst.Tuple, cst.ListComp, cst.GeneratorExp)):
        return False
    return not (isinstance(summed, cst.Call) and transform.matches(summed.func, STACKING))


def batch_sum(
    node: cst.BaseExpression,
    assigned: dict[str, list[cst.BaseExpression]],
    transform: MigrationTransform,
) -> bool | None:
    """Is the sum `node` a sum over the batch? True where it sums dim 0 (or every element)
    of a tensor whose dim 0 no reduction beneath took away (`(out - y).pow(2).sum()`,
    `x.mean(1).sum()`); False where it sums other dims only (`.sum(1)`) or sums what a
    mean (max, norm) over the batch left (`(p.mean(0) * p.mean(0).log()).sum()`, an
    entropy of the batch's mean prediction: scaling it by WORLD_SIZE would double its
    gradient); None where a dim is not a literal or is negative, or a sum over the batch
    lies beneath (`(x / x.sum()).sum()`): DP004 then, not a silent choice."""
    reduction = _reduction(node, transform)
    if reduction is None or not isinstance(node, cst.Call):
        return None
    dims = reduction[1]
    if dims is None or any(d < 0 for d in dims):
        return None
    if dims and 0 not in dims:
        return False
    receiver = _receiver(node, transform)
    if receiver is None:
        return None
    return batch_intact(receiver, assigned, transform, 0, node)


def batch_intact(
    node: cst.CSTNode,
    assigned: dict[str, list[cst.BaseExpression]],
    transform: MigrationTransform,
    depth: int,
    root: cst.Call,
    following: frozenset[str] = frozenset(),
) -> bool | None:
    """No reduction in `node` (names followed through the scope) takes dim 0 away. The
    binding that is the sum itself (`loss = loss.sum()`) is not what it sums, and a name
    met again while it is followed (`model = nn.DataParallel(model)`) adds nothing."""
    if depth > 6:
        return None
    if isinstance(node, cst.Name):
        if node.value in following:
            return True
        result: bool | None = True
        for bound in assigned.get(node.value, []):
            if bound is root:
                continue
            found = batch_intact(
                bound, assigned, transform, depth + 1, root, following | {node.value}
            )
            if found is False:
                return False
            if found is None:
                result = None
        return result
    if isinstance(node, (cst.Lambda, cst.FunctionDef, cst.ClassDef)):
        return True
    if isinstance(node, cst.Call) and is_gradient(node, transform.qualified_names):
        # A gradient has its inputs' rows whatever its outputs sum (`grad(D(x).sum(), x)`,
        # an R1 penalty's: round 39, tomguluson92/StyleGAN_PyTorch@4fd0711, a batch sum of
        # it left unscaled and unsaid): only the inputs decide.
        inputs = gradient_inputs(node)
        if inputs is None:
            return None
        return batch_intact(inputs, assigned, transform, depth, root, following)
    result = True
    reduction = _reduction(node, transform)
    if reduction is not None:
        dims = reduction[1]
        if dims is None or any(d < 0 for d in dims):
            result = None
        elif not dims or 0 in dims:
            if reduction[0] not in SUMS:
                return False  # a batch mean (max, norm): what is left is no batch to sum
            result = None  # a batch sum beneath (`x / x.sum()`): not proved either way
    for child in node.children:
        found = batch_intact(child, assigned, transform, depth, root, following)
        if found is False:
            return False
        if found is None:
            result = None
    return result


def is_gradient(call: cst.Call, qualified_names: Callable[[cst.CSTNode], set[str]]) -> bool:
    """`call` is `torch.autograd.grad(...)`, by qualified name."""
    return "torch.autograd.grad" in qualified_names(call.func)


def gradient_inputs(call: cst.Call) -> cst.BaseExpression | None:
    """The `inputs` argument of a gradient's call (second positional, or by keyword): the
    rows of what it returns."""
    keyed = [a.value for a in call.args if a.keyword is not None and a.keyword.value == "inputs"]
    positional = [a.value for a in call.args if a.keyword is None and not a.star]
    return keyed[0] if keyed else (positional[1] if len(positional) > 1 else None)
