"""A mask's count spelled by what it selects or through numpy: `len(np.where(m)[0])`.

bubbliiiing/facenet-pytorch@af7d20c's triplet loss keeps the hard triplets by
`hard = np.where(keep == 1)` (`keep` the comparison's mask through `.cpu().numpy()`) and
divides their summed loss by `torch.max(torch.tensor(1), torch.tensor(len(hard[0])))`
(round 20 of issue 28): the same count of a mask the batch decides as `m.sum()`, which
count_means reads (DP043, or the count shared over the ranks), spelled so that it read no
count: each rank divided its part's sum by its own part's count, unsaid. Here the
spellings that count a mask's true elements: `len()` of what a selection by the mask
returns (`np.where(m)[0]`, `torch.nonzero(m)`, `m.nonzero()`, `np.flatnonzero(m)`), numpy's
`np.sum(m)` / `np.count_nonzero(m)`, a count made a tensor (`torch.tensor(C)`) and its
floor by one (`torch.max(torch.tensor(1), C)`).
"""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from dp2ddp.flow.text import code as code_of

#: Calls returning the positions where a mask is true.
_SELECTIONS = frozenset(
    {"numpy.where", "torch.where", "numpy.nonzero", "torch.nonzero", "numpy.flatnonzero",
     "numpy.argwhere", "torch.argwhere"}
)  # fmt: skip
#: numpy's counts of a mask's true elements.
_NUMPY_COUNTS = frozenset({"numpy.sum", "numpy.count_nonzero"})
#: Calls making a number a tensor.
_TENSORS = frozenset({"torch.tensor", "torch.as_tensor", "torch.Tensor", "torch.FloatTensor"})
#: Elementwise maxima of two values (a count floored by one).
_MAXIMA = frozenset({"torch.max", "torch.maximum", "numpy.maximum"})

Names = Callable[[cst.CSTNode], set[str]]
Reads = Callable[[cst.BaseExpression], bool]


def selection_count(
    node: cst.Call,
    names: set[str],
    count: Reads,
    mask: Reads,
    bound: Callable[[str], list[cst.BaseExpression]],
    qualified: Names,
) -> bool:
    """`node` counts a mask's true elements in one of the module docstring's spellings;
    `count` and `mask` are count_means' readings of a count and a mask, `bound` a name's
    values in the scope, `qualified` a node's qualified names."""
    args = [a.value for a in node.args if a.keyword is None]
    if len(args) == 1 and names & _TENSORS:
        return count(args[0])
    if len(args) == 2 and names & _MAXIMA:
        return any(_one(a, qualified) for a in args) and any(count(a) for a in args)
    if len(args) == 1 and names & _NUMPY_COUNTS:
        return mask(args[0])
    if len(args) == 1 and "builtins.len" in names:
        return _selected(args[0], mask, bound, qualified, 0) or _masked(args[0], mask, bound)
    func = node.func
    if isinstance(func, cst.Attribute) and _masked(func.value, mask, bound):
        # `label[mask].size(0)`, `.numel()`: the selected elements' count (round 21,
        # XinJCheng/CSPN@b3e487b's masked L1 depth loss, `sum(...) / label[mask].size(0)`)
        if func.attr.value in ("numel", "nelement") and not args:
            return True
        return func.attr.value == "size" and len(args) == 1 and code_of(args[0]) == "0"
    return False


def _masked(
    node: cst.BaseExpression,
    mask: Reads,
    bound: Callable[[str], list[cst.BaseExpression]],
    depth: int = 0,
) -> bool:
    """`x[m]` with `m` a mask: the elements where it is true; through names bound only to
    such (`_label = label[mask]`, then `_label.size(0)`: CSPN's)."""
    if isinstance(node, cst.Name) and depth < 4:
        values = bound(node.value)
        return bool(values) and all(_masked(v, mask, bound, depth + 1) for v in values)
    if not isinstance(node, cst.Subscript) or len(node.slice) != 1:
        return False
    index = node.slice[0].slice
    return isinstance(index, cst.Index) and mask(index.value)


def _one(node: cst.BaseExpression, qualified: Names) -> bool:
    """A number, or a number made a tensor (`torch.tensor(1)`)."""
    if isinstance(node, cst.Call) and qualified(node.func) & _TENSORS and len(node.args) == 1:
        node = node.args[0].value
    return isinstance(node, (cst.Integer, cst.Float))


def _selected(
    node: cst.BaseExpression, mask: Reads, bound: Callable[[str], list[cst.BaseExpression]],
    qualified: Names, depth: int,
) -> bool:  # fmt: skip
    """`node` holds the positions where a mask is true (one array of them: `np.where(m)[0]`,
    `torch.nonzero(m)`), through names."""
    if depth > 4:
        return False
    if isinstance(node, cst.Name):
        values = bound(node.value)
        return bool(values) and all(_selected(v, mask, bound, qualified, depth + 1) for v in values)
    if isinstance(node, cst.Subscript) and len(node.slice) == 1:
        index = node.slice[0].slice
        if isinstance(index, cst.Index) and isinstance(index.value, cst.Integer):
            return _selected(node.value, mask, bound, qualified, depth + 1)  # `where(m)[0]`
        return False
    if not isinstance(node, cst.Call):
        return False
    args = [a.value for a in node.args if a.keyword is None]
    if len(args) == 1 and qualified(node.func) & _SELECTIONS:
        return mask(args[0])
    func = node.func
    if isinstance(func, cst.Attribute) and func.attr.value == "nonzero" and not args:
        return mask(func.value)
    return False


def kept(name: str, value: cst.BaseExpression, keeps: frozenset[str]) -> bool:
    """`value` is `name` itself through casts and views (`keeps`: `m.to(device)`, `m.float()`)."""
    while (
        isinstance(value, cst.Call)
        and isinstance(value.func, cst.Attribute)
        and value.func.attr.value in keeps
    ):
        value = value.func.value
    return isinstance(value, cst.Name) and value.value == name


def literal_one(node: cst.BaseExpression) -> bool:
    return isinstance(node, (cst.Integer, cst.Float)) and float(node.value) == 1.0


#: Spellings of a maximum of two values, and of a clamp from below.
_MAX_SPELLED = frozenset({"max", "torch.max", "torch.maximum", "np.maximum", "numpy.maximum"})
_CLAMPS = frozenset({"clamp", "clamp_min", "clamp_"})


def floored(count: cst.BaseExpression) -> tuple[cst.BaseExpression, cst.BaseExpression] | None:
    """(C, k) where `count` floors a count C by a number k (`max(C, 1)`, `torch.max(
    torch.tensor(1), C)`, `C.clamp(min=1)`): DataParallel floored the whole batch's count,
    so the share floors the sum over the ranks (ddp_count_share's `floor=`), not each
    rank's part (a rank with none of them would add a count of its own)."""
    if not isinstance(count, cst.Call):
        return None
    args = [a.value for a in count.args if a.keyword is None]
    spelled = code_of(count.func)
    if spelled in _MAX_SPELLED and len(args) == 2 and len(count.args) == 2:
        for floor, inner in (args, args[::-1]):
            number = _number_in(floor)
            if number is not None:
                return inner, number
        return None
    func = count.func
    if isinstance(func, cst.Attribute) and func.attr.value in _CLAMPS:
        given = [a for a in count.args if a.keyword is None or a.keyword.value == "min"]
        if len(given) == 1 and len(count.args) == 1:
            number = _number_in(given[0].value)
            return (func.value, number) if number is not None else None
    return None


def _number_in(node: cst.BaseExpression) -> cst.BaseExpression | None:
    """The number `node` is (`1`, `1.0`, `torch.tensor(1)`), else None."""
    if isinstance(node, cst.Call) and code_of(node.func) in ("torch.tensor", "torch.as_tensor"):
        node = node.args[0].value if len(node.args) == 1 else node
    return node if isinstance(node, (cst.Integer, cst.Float)) else None


def share_call(count: cst.BaseExpression, helper: str) -> cst.Call:
    """`ddp_count_share(C)` (`helper`); for a count floored by a number (`max(C, 1)`), the floor of
    the whole batch's count: `ddp_count_share(C, floor=1)` (selection_counts.floored)."""
    count = count.with_changes(lpar=[], rpar=[]) if count.lpar else count
    found = floored(count)
    if found is None:
        return cst.Call(func=cst.Name(helper), args=[cst.Arg(count)])
    inner, floor = found
    keyword = cst.Arg(floor, keyword=cst.Name("floor"), equal=cst.AssignEqual(
        whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")
    ))  # fmt: skip
    return cst.Call(func=cst.Name(helper), args=[cst.Arg(inner), keyword])
