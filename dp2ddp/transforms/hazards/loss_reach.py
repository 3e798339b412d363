"""What reaches the loss: whether a value is a term of what a scope that may train returns
or backpropagates (hazards.count_means asks it of a division by a count, a mean over a
masked selection and a ratio of batch sums; size_means of a mean over a rank's batch size).

A term reaches through sums, differences and negation, through factors the caller accepts,
and through the collections a loss is summed from: an element of a list or tuple, the
element of a comprehension, a list `L.append(term)` fills, and the sum of such a collection
(`sum(L)`, `torch.stack(L).sum()` or `.mean()`, `torch.sum(torch.stack(L))`). A stereo or
depth network's deep supervision sums one masked mean per output, each weighted by an entry
of a list (mileyan/AnyNet@83badc7 finetune.py:163: `loss = [args.loss_weights[x] *
F.smooth_l1_loss(outputs[x][mask], disp_L[mask], size_average=True) for x in
range(num_out)]`, then `sum(loss).backward()`): each term's count is in the gradient, as a
lone term's is.

Two factor rules (`factor`): a rewrite keeps the loss linear in the term, so only a constant
weight (a number, a name, an attribute) may multiply it (count_means' `_constant`); a warning
needs only that the term's value flows into the gradient, so any factor that is not itself a
count does (`w[k] * mean`, a weight a list holds: the term's count is still the rank's own;
a count factor, `masked.mean() * mask.sum()`, would undo the mean into a sum).

A warning may also ask for the reach through a reduction of the term (`reduced`): a
per-class Dice's ratios, one per class, averaged into the loss (`1 - (inter / denom).mean()`,
round 22 (seg), ooooverflow/BiSeNet@284a8f6) are in the gradient each.
"""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from dp2ddp.flow import DefUse
from dp2ddp.flow.returned import kept_values, returned_binding
from dp2ddp.transforms._support.nodes import walk
from dp2ddp.transforms.hazards.scopes import ScopeFacts

_Names = Callable[[cst.CSTNode], set[str]]
_Parent = Callable[[cst.CSTNode], "cst.CSTNode | None"]
#: The calls that stack a collection of terms into one tensor, to be summed or averaged.
_STACKS = frozenset({"torch.stack", "torch.cat"})
#: What a stacked collection is reduced with to a total (no dims: every term once).
_TOTALS = frozenset({"sum", "mean"})
#: Reductions a term reaches the loss through, for a warning (`reduced`).
_REDUCED = frozenset({"sum", "mean", "nansum", "nanmean"})


def reaching_names(
    scope: cst.CSTNode,
    facts: ScopeFacts,
    names: _Names,
    reduced: bool = False,
    flow: DefUse | None = None,
) -> set[str]:
    """Names whose value flows (through sums, products, tuples and summed collections; a
    reduction too where `reduced`, `iou.mean()`) into what the scope returns or
    backpropagates; given the module's `flow`, a returned `self.loss` the method binds is
    read as what it binds (flow.returned)."""
    reaching: set[str] = set()
    function = flow.functions.get(scope) if flow is not None else None
    for node in walk(scope, skip_scopes=True):
        if isinstance(node, cst.Return) and node.value is not None:
            reaching |= operands(node.value, names, reduced)
            kept = kept_values(flow, function, node.value) if flow and function else []
            for value in kept:
                reaching |= operands(value, names, reduced)
    for receiver in facts.backward:
        reaching |= operands(receiver, names, reduced)
    changed = True
    while changed:
        changed = False
        for name in list(reaching):
            for value in facts.assigned.get(name, []):
                more = operands(value, names, reduced) - reaching
                if more:
                    reaching |= more
                    changed = True
    return reaching


def operands(node: cst.BaseExpression, names: _Names, reduced: bool = False) -> set[str]:
    """Names in `node` reached through arithmetic, tuples, comprehensions and a collection's
    sum only (not a call's arguments: `loss.item()`, `print(loss)` use a value, they do not
    become it); where `reduced`, through a reduction of a value too (`iou.mean()`)."""
    if isinstance(node, cst.Name):
        return {node.value}
    if isinstance(node, cst.BinaryOperation):
        return operands(node.left, names, reduced) | operands(node.right, names, reduced)
    if isinstance(node, cst.UnaryOperation):
        return operands(node.expression, names, reduced)
    if isinstance(node, (cst.Tuple, cst.List)):
        return set().union(*(operands(e.value, names, reduced) for e in node.elements))
    if isinstance(node, (cst.ListComp, cst.GeneratorExp)):
        return operands(node.elt, names, reduced)
    collection = _summed_collection(node, names)
    if collection is None and reduced:
        collection = _reduced_value(node, names)
    return operands(collection, names, reduced) if collection is not None else set()


def _reduced_value(node: cst.BaseExpression, names: _Names) -> cst.BaseExpression | None:
    """`X` of `X.mean()`, `X.sum(dim)`, `torch.mean(X)`; None for anything else."""
    if not isinstance(node, cst.Call):
        return None
    func = node.func
    if isinstance(func, cst.Attribute) and func.attr.value in _REDUCED:
        return func.value
    if node.args and node.args[0].keyword is None:
        if {f"torch.{r}" for r in _REDUCED} & names(func):
            return node.args[0].value
    return None


def _summed_collection(node: cst.BaseExpression, names: _Names) -> cst.BaseExpression | None:
    """The collection `node` totals: `sum(C)`, `torch.stack(C).sum()`/`.mean()`,
    `torch.sum(torch.stack(C))`/`torch.mean(...)`; None for anything else."""
    if not isinstance(node, cst.Call):
        return None
    if not node.args:
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value in _TOTALS:
            return _stacked(func.value, names)
        return None
    if node.args[0].keyword is not None:
        return None
    first, called = node.args[0].value, names(node.func)
    if "builtins.sum" in called:
        return first
    if called & {"torch.sum", "torch.mean"} and len(node.args) == 1:
        return _stacked(first, names)
    return None


def _stacked(node: cst.BaseExpression, names: _Names) -> cst.BaseExpression | None:
    """`C` of `torch.stack(C)` or `torch.cat(C)` with no other positional argument."""
    if (
        isinstance(node, cst.Call)
        and names(node.func) & _STACKS
        and node.args
        and node.args[0].keyword is None
        and not any(a.keyword is None for a in node.args[1:])
    ):
        return node.args[0].value
    return None


def reaches(
    node: cst.CSTNode,
    reaching: set[str],
    parent_of: _Parent,
    names: _Names,
    factor: Callable[[cst.BaseExpression], bool],
    reduced: bool = False,
    flow: DefUse | None = None,
) -> bool:
    """`node`'s value is (a term of) what the scope returns or backpropagates: through sums,
    differences, negation, factors `factor` accepts (on either side of a product; a
    division only of the term, by such a factor), summed collections (the module's
    docstring) and, where `reduced`, a reduction of the term (`.mean()`, `torch.sum(t)`)."""
    if isinstance(node, cst.AugAssign):
        return isinstance(node.target, cst.Name) and node.target.value in reaching
    child, parent = node, parent_of(node)
    while parent is not None:
        if isinstance(parent, cst.BinaryOperation):
            if isinstance(parent.operator, (cst.Multiply, cst.Divide)):
                other = parent.right if parent.left is child else parent.left
                divided = isinstance(parent.operator, cst.Divide) and parent.right is child
                if divided or not factor(other):
                    return False
            elif not isinstance(parent.operator, (cst.Add, cst.Subtract)):
                return False
        elif isinstance(parent, cst.UnaryOperation):
            if not isinstance(parent.operator, cst.Minus):
                return False
        elif isinstance(parent, (cst.ListComp, cst.GeneratorExp)):
            if parent.elt is not child:
                return False
        elif reduced and isinstance(parent, cst.Attribute) and parent.attr.value in _REDUCED:
            call = parent_of(parent)
            if not (isinstance(call, cst.Call) and call.func is parent):
                return False
            child, parent = call, parent_of(call)
            continue
        elif isinstance(parent, cst.Arg):
            call = parent_of(parent)
            if not isinstance(call, cst.Call) or not call.args or call.args[0] is not parent:
                return False
            if _appends_to(call, reaching):
                return True
            if reduced and {f"torch.{r}" for r in _REDUCED} & names(call.func):
                child, parent = call, parent_of(call)
                continue
            total = _total_of(call, parent_of, names)
            if total is None:
                return False
            child, parent = total, parent_of(total)
            continue
        elif not isinstance(parent, (cst.Element, cst.Tuple, cst.List)):
            break
        child, parent = parent, parent_of(parent)
    if isinstance(parent, cst.Return):
        return True
    if isinstance(parent, cst.Attribute) and parent.attr.value == "backward":
        return True
    if isinstance(parent, cst.Assign) and len(parent.targets) == 1:
        target = parent.targets[0].target
        if flow is not None and returned_binding(flow, target):
            return True  # `self.loss = term; return self.loss` (flow.returned)
        return isinstance(target, cst.Name) and target.value in reaching
    if isinstance(parent, cst.AugAssign) and isinstance(parent.target, cst.Name):
        return parent.target.value in reaching
    return False


def _appends_to(call: cst.Call, reaching: set[str]) -> bool:
    """`L.append(term)` with `L` a name that reaches the loss."""
    func = call.func
    return (
        isinstance(func, cst.Attribute)
        and func.attr.value == "append"
        and isinstance(func.value, cst.Name)
        and func.value.value in reaching
        and len(call.args) == 1
    )


def _total_of(call: cst.Call, parent_of: _Parent, names: _Names) -> cst.BaseExpression | None:
    """The expression totalling the collection `call` takes first: `call` itself for
    `sum(C)`; for `torch.stack(C)`, the `.sum()`/`.mean()` on it or the `torch.sum(...)`
    around it; None when the collection is not totalled there."""
    if _summed_collection(call, names) is not None and "builtins.sum" in names(call.func):
        return call
    if _stacked(call, names) is None:
        return None
    above = parent_of(call)
    if isinstance(above, cst.Attribute) and above.value is call:
        total = parent_of(above)
        if isinstance(total, cst.Call) and _summed_collection(total, names) is not None:
            return total
        return None
    if isinstance(above, cst.Arg):
        total = parent_of(above)
        if isinstance(total, cst.Call) and _summed_collection(total, names) is not None:
            return total
    return None
