"""A name or `self` attribute that holds the builtin `print` bound above the setup block.

`print` read as a value becomes `ddp_print` where it is read (RankZeroOnly._print_value:
`self.log = print if verbose else lambda *args: None`, GT-RIPL/Continual-Learning-
Benchmark@d78b997's agent, stop 61 v3-B and stop 62), so every call through the alias, in
any module, prints on rank 0 with its arguments evaluated on every rank. Above the setup
block (`log = print` between the module's imports) no `ddp_print` exists yet: the value
stays, and the calls through it are prints for the guards. The callee is asked of the
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
    if isinstance(func, cst.Attribute):
        if not (isinstance(func.value, cst.Name) and func.value.value == "self"):
            return False
    elif not isinstance(func, cst.Name) or func.value == "print":
        return False
    module = module_of(func, transform)
    if not isinstance(module, cst.Module) or not transform.facts.early:
        return False
    found = False
    for origin in origins(view(module), func):
        node = origin.node
        if origin.kind == "global" and isinstance(node, cst.Name) and node.value == "print":
            if not transform.facts.before_setup(node):
                return False  # ddp_print where it is bound (RankZeroOnly._print_value)
            found = True
        elif not (
            origin.kind == "definition"
            and isinstance(node, cst.Lambda)
            and isinstance(node.body, (cst.Name, cst.BaseNumber, cst.BaseString))
            and (not isinstance(node.body, cst.Name) or node.body.value == "None")
        ):
            return False
    return found
