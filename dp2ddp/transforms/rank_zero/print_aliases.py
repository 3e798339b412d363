"""A name or `self` attribute that holds the builtin `print` bound above the setup block.

`print` read as a value becomes `ddp_print` where it is read (RankZeroOnly._print_value:
`self.log = print if verbose else lambda *args: None`, GT-RIPL/Continual-Learning-
Benchmark@d78b997's agent, stop 61 v3-B and stop 62), so every call through the alias, in
any module, prints on rank 0 with its arguments evaluated on every rank. Above the setup
block (`log = print` between the module's imports) no `ddp_print` exists yet: the value
stays, and the calls through it are prints for the guards; a call whose arguments do work
every rank needs becomes `ddp_print(...)` (alias_print_call; stop 63 s2), as a `print`
call's does. The callee is asked of the
shared def-use view (dp2ddp/flow/, `origins`): where every value it may hold is such a
`print` or a lambda whose body is a constant (a switched-off log), and at least one is
`print`, the call is a print. Any other value (a logger's method, a function of the
program, a parameter some caller binds, a `print` that became `ddp_print`) leaves the call
to the other rules.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from dp2ddp.flow import origins, view
from dp2ddp.transforms._support.nodes import module_of

if TYPE_CHECKING:
    from dp2ddp.transforms.rank_zero import RankZeroOnly


def print_alias(transform: RankZeroOnly, func: cst.BaseExpression) -> bool:
    """`func` (a plain name other than `print`, or `self.name`) holds the builtin print
    bound above the setup block on every path that gives it a value, and on one at least."""
    return alias_values(transform, func) is not None


def alias_values(transform: RankZeroOnly, func: cst.BaseExpression) -> frozenset[str] | None:
    """What a print alias may hold: "print", and "off" where a do-nothing lambda may be
    bound instead; None where `func` is not such an alias."""
    if isinstance(func, cst.Attribute):
        if not (isinstance(func.value, cst.Name) and func.value.value == "self"):
            return None
    elif not isinstance(func, cst.Name) or func.value == "print":
        return None
    module = module_of(func, transform)
    if not isinstance(module, cst.Module) or not transform.facts.early:
        return None
    found: set[str] = set()
    for origin in origins(view(module), func):
        node = origin.node
        if origin.kind == "global" and isinstance(node, cst.Name) and node.value == "print":
            if not transform.facts.before_setup(node):
                return None  # ddp_print where it is bound (RankZeroOnly._print_value)
            found.add("print")
        elif (
            origin.kind == "definition"
            and isinstance(node, cst.Lambda)
            and isinstance(node.body, (cst.Name, cst.BaseNumber, cst.BaseString))
            and (not isinstance(node.body, cst.Name) or node.body.value == "None")
        ):
            found.add("off")
        else:
            return None
    return frozenset(found) if "print" in found else None


def alias_print_call(
    transform: RankZeroOnly, original: cst.Call, call: cst.Call, rank0_print: str
) -> cst.Call | None:
    """A call through a print alias bound above the setup block whose arguments do work
    every rank needs (`log('...', timer.toc())` of `log = print` between the imports):
    `ddp_print(...)` (`rank0_print`), or `(ddp_print if log is print else log)(...)`
    where a do-nothing lambda may be bound instead. Every rank evaluates the callee and
    then the arguments, as the original did; rank 0 alone prints (stop 63 s2, stop 62
    s1's leftover). None where `original` is no such call, or runs above the setup block
    (no ddp_print yet)."""
    values = alias_values(transform, original.func)
    if values is None or transform.facts.before_setup(original):
        return None
    printer: cst.BaseExpression = cst.Name(rank0_print)
    if "off" in values:
        test = cst.Comparison(
            left=call.func,
            comparisons=[cst.ComparisonTarget(operator=cst.Is(), comparator=cst.Name("print"))],
        )
        printer = cst.IfExp(
            test=test,
            body=printer,
            orelse=call.func,
            lpar=[cst.LeftParen()],
            rpar=[cst.RightParen()],
        )
    return call.with_changes(func=printer)
