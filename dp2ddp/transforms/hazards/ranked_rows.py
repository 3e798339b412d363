"""A loss that ranks the batch's samples against each other and keeps some (DP040).

Online hard example mining keeps the K hardest samples of the batch: `v, _ =
torch.sort(per_sample, descending=True); loss = v[:k].mean()`, `per_sample.topk(k)`.
DataParallel gathered the outputs and ranked the whole batch; under DDP each rank ranks its
own part and keeps its K hardest, other samples (with K at least the part's size, no mining
at all). Round 35, huaijin-chen/pytorch-PersonReID@719bc94's TripletLoss with `use_ohem`
(`v, idx = torch.sort(dist_hinge, descending=True); loss = torch.mean(v[0:self.ohem_bs])`):
the updates differed, unsaid.

Counted, in a function named a loss (pairs.LOSS_NAMED, as DP040's other comparisons): a
`sort`/`topk`/`argsort`/`kthvalue`/`msort` whose dim is 0 (`dim=0`), or whose operand is a
name the function binds to a value per sample: a loss called with `reduction="none"`, or a
hinge (`F.relu(...)`, `torch.clamp(..., min=...)`, `.clamp(min=...)`) of one; a ranking of
classes (`logits.topk(5, dim=1)`) is none.
"""

from __future__ import annotations

import libcst as cst

from dp2ddp.transforms._support.nodes import name_of, walk

#: Calls ordering the values they are given.
_RANKS = frozenset({"sort", "topk", "argsort", "kthvalue", "msort"})
#: Calls keeping the rows of what they are given, a value per sample (a hinge).
_HINGES = frozenset({"relu", "clamp", "clamp_min", "softplus"})


def ranked_rows(function: cst.FunctionDef) -> cst.Call | None:
    """The first call in `function` ranking the batch's samples (the module docstring)."""
    per_sample = _per_sample_names(function)
    for node in walk(function.body, skip_scopes=True):
        if not isinstance(node, cst.Call) or name_of(node.func) not in _RANKS:
            continue
        dim = _dim(node)
        if dim is not None:
            if dim == "0":
                return node
            continue
        operand = _operand(node)
        if isinstance(operand, cst.Name) and operand.value in per_sample:
            return node
    return None


def _dim(call: cst.Call) -> str | None:
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == "dim":
            return arg.value.value if isinstance(arg.value, cst.Integer) else "?"
    return None


def _operand(call: cst.Call) -> cst.BaseExpression | None:
    func = call.func
    if isinstance(func, cst.Attribute) and name_of(func.value) != "torch":
        return func.value  # `per_sample.sort()`
    values = [a.value for a in call.args if a.keyword is None and not a.star]
    return values[0] if values else None  # `torch.sort(per_sample)`


def _per_sample_names(function: cst.FunctionDef) -> set[str]:
    """Names `function` binds to a loss per sample or a hinge of one."""
    found: set[str] = set()
    for node in walk(function.body, skip_scopes=True):
        if not (isinstance(node, cst.Assign) and len(node.targets) == 1):
            continue
        target = node.targets[0].target
        if isinstance(target, cst.Name) and _per_sample(node.value):
            found.add(target.value)
    return found


def _per_sample(value: cst.BaseExpression) -> bool:
    if not isinstance(value, cst.Call):
        return False
    for arg in value.args:
        if (
            arg.keyword is not None
            and arg.keyword.value == "reduction"
            and isinstance(arg.value, cst.SimpleString)
            and arg.value.evaluated_value == "none"
        ):
            return True
    return name_of(value.func) in _HINGES
