"""Recognise code that already runs on rank 0 only, and build dp2ddp's own guards.

Scripts guard with many spellings (`if rank == 0`, `if args.local_rank in [-1, 0]`,
`if dist.get_rank() == 0`, `if master_process`, `accelerator.is_main_process`, ...). A
statement under any of them is left alone, which also makes the rank-0 rewrite idempotent.
Erring towards "guarded" is the safe side: it only means a message may print twice.
"""

from __future__ import annotations

import re

import libcst as cst
import libcst.matchers as m

from dp2ddp.transforms._support.nodes import NodeView, code_of, name_of

MAIN_FUNCTION = "ddp_is_main"

_RANK = re.compile(
    r"(?<![A-Za-z0-9])(global_|local_|node_|world_|process_)?rank(?![A-Za-z0-9])"
    r"|get_(local_|global_)?rank\s*\(",
    re.IGNORECASE,
)
_MAIN_NAME = re.compile(
    r"^(ddp_)?(is_)?(local_|global_|world_)?(main|master)(_process|_proc|_rank|_worker|_node)?$"
    r"|^(is_)?(rank_?(0|zero)|zero_rank|(world_|local_)?process_zero)$",
    re.IGNORECASE,
)


def is_main_call(node: cst.CSTNode) -> bool:
    """`ddp_is_main()` exactly: what this package inserts."""
    return m.matches(node, m.Call(func=m.Name(MAIN_FUNCTION), args=[]))


def main_call() -> cst.Call:
    return cst.Call(func=cst.Name(MAIN_FUNCTION))


def not_main() -> cst.UnaryOperation:
    return cst.UnaryOperation(operator=cst.Not(), expression=main_call())


def mentions_rank(node: cst.CSTNode) -> bool:
    """The expression refers to a rank or a main-process flag somewhere."""
    code = code_of(node)
    if _RANK.search(code):
        return True
    return any(_MAIN_NAME.match(name_of(n, through=(cst.Call,))) for n in m.findall(node, m.Name()))


def _is_rank(node: cst.BaseExpression) -> bool:
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Modulo):
        node = node.left  # args.rank % ngpus_per_node == 0
    return bool(_RANK.search(code_of(node)))


def _is_int(node: cst.BaseExpression, value: int) -> bool:
    if isinstance(node, cst.Integer):
        return node.evaluated_value == value
    if (
        isinstance(node, cst.UnaryOperation)
        and isinstance(node.operator, cst.Minus)
        and isinstance(node.expression, cst.Integer)
    ):
        return -node.expression.evaluated_value == value
    return False


def _zero_set(node: cst.BaseExpression) -> bool:
    """`[-1, 0]`, `(0,)`, `{-1, 0}`: only rank 0 (or -1, "not distributed") is in it."""
    if not isinstance(node, (cst.List, cst.Tuple, cst.Set)) or not node.elements:
        return False
    values = [e.value for e in node.elements]
    return any(_is_int(v, 0) for v in values) and all(
        _is_int(v, 0) or _is_int(v, -1) for v in values
    )


def _compare(node: cst.Comparison, main: bool) -> bool:
    if len(node.comparisons) != 1:
        return False
    op = node.comparisons[0].operator
    left, right = node.left, node.comparisons[0].comparator
    if isinstance(op, (cst.Equal, cst.Is, cst.NotEqual, cst.IsNot)):
        equal = isinstance(op, (cst.Equal, cst.Is))
        zero_vs_rank = (_is_int(right, 0) and _is_rank(left)) or (
            _is_int(left, 0) and _is_rank(right)
        )
        return zero_vs_rank and equal == main
    if isinstance(op, (cst.In, cst.NotIn)):
        return _zero_set(right) and _is_rank(left) and isinstance(op, cst.In) == main
    if main and isinstance(op, (cst.LessThanEqual, cst.LessThan)):
        bound = 0 if isinstance(op, cst.LessThanEqual) else 1
        return _is_int(right, bound) and _is_rank(left)
    if not main and isinstance(op, (cst.GreaterThan, cst.GreaterThanEqual)):
        bound = 0 if isinstance(op, cst.GreaterThan) else 1
        return _is_int(right, bound) and _is_rank(left)
    return False


def is_main_test(node: cst.BaseExpression) -> bool:
    """True when the condition only holds on rank 0 (or is meant to: see the module doc)."""
    if isinstance(node, cst.BooleanOperation):
        return is_main_test(node.left) or is_main_test(node.right)
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Not):
        return is_not_main_test(node.expression)
    if isinstance(node, cst.Comparison):
        return _compare(node, main=True)
    if isinstance(node, (cst.Name, cst.Attribute, cst.Call)):
        return bool(_MAIN_NAME.match(name_of(node, through=(cst.Call,))))
    return False


def is_not_main_test(node: cst.BaseExpression) -> bool:
    """True when the condition holds on every rank but 0 (`if rank != 0: return`)."""
    if isinstance(node, cst.BooleanOperation):
        if isinstance(node.operator, cst.Or):
            return is_not_main_test(node.left) or is_not_main_test(node.right)
        return is_not_main_test(node.left) and is_not_main_test(node.right)
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Not):
        return is_main_test(node.expression)
    if isinstance(node, cst.Comparison):
        return _compare(node, main=False)
    return False


def exits_block(node: cst.If) -> bool:
    """`if <test>: return` (or continue/break/raise) with nothing else and no else branch."""
    if node.orelse is not None:
        return False
    body = node.body
    if isinstance(body, cst.IndentedBlock):
        if len(body.body) != 1 or not isinstance(body.body[0], cst.SimpleStatementLine):
            return False
        small = list(body.body[0].body)
    elif isinstance(body, cst.SimpleStatementSuite):
        small = list(body.body)
    else:
        return False
    exits = (cst.Return, cst.Continue, cst.Break, cst.Raise)
    return len(small) == 1 and isinstance(small[0], exits)


#: Progress bars: iterating one gives its iterable's items, whatever the bar's own options.
PROGRESS_BARS = frozenset(
    f"tqdm.{module}{name}"
    for module in ("", "auto.", "std.", "notebook.", "autonotebook.", "rich.")
    for name in ("tqdm", "trange")
)


def bar_iterable(expr: cst.BaseExpression, view: NodeView) -> cst.BaseExpression | None:
    """What a progress bar (`tqdm(range(n), disable=not ddp_is_main())`) iterates, for
    uniformity.py: the same on every rank when that is, whatever the bar's options (the
    migration's `disable=` differs by rank by design; Beckschen/TransUNet@02ef001's epochs
    came from `tqdm(range(max_epoch))` and got a false DP032). None for anything else, and
    for a bar without an iterable (`tqdm(total=n)`, updated by hand)."""
    if not (isinstance(expr, cst.Call) and view.qualified_names(expr.func) & PROGRESS_BARS):
        return None
    args = [a for a in expr.args if a.keyword is None or a.keyword.value == "iterable"]
    return args[0].value if args and args[0].star == "" else None
