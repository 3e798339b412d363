"""A name or `self` attribute that holds the builtin `print`: its calls are prints.

GT-RIPL/Continual-Learning-Benchmark@d78b997's agent logs through
`self.log = print if agent_config['print_freq'] > 0 else lambda *args: None` and calls
`self.log(...)` for every line it prints (epochs, running loss and accuracy, validation);
the call names no `print`, so the rank-0 rules left it, and under torchrun every rank
printed each line (stop 61 v3-B). The callee is asked of the shared def-use view
(dp2ddp/flow/, `origins`): where every value it may hold is the builtin `print` (a name
the module never binds) or a lambda whose body is a constant (a switched-off log), and at
least one is `print`, the call is a print. Any other value (a logger's method, a function
of the program, a parameter some caller binds) leaves the call to the other rules.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from dp2ddp.flow import origins, view
from dp2ddp.transforms._support.nodes import module_of

if TYPE_CHECKING:
    from dp2ddp.transforms.rank_zero import RankZeroOnly


def print_alias(transform: RankZeroOnly, func: cst.BaseExpression) -> bool:
    """`func` (a plain name other than `print`, or `self.name`) holds the builtin print on
    every path that gives it a value, and on one at least."""
    if isinstance(func, cst.Attribute):
        if not (isinstance(func.value, cst.Name) and func.value.value == "self"):
            return False
    elif not isinstance(func, cst.Name) or func.value == "print":
        return False
    module = module_of(func, transform)
    if not isinstance(module, cst.Module):
        return False
    found = False
    for origin in origins(view(module), func):
        node = origin.node
        if origin.kind == "global" and isinstance(node, cst.Name) and node.value == "print":
            found = True
        elif not (
            origin.kind == "definition"
            and isinstance(node, cst.Lambda)
            and isinstance(node.body, (cst.Name, cst.BaseNumber, cst.BaseString))
            and (not isinstance(node.body, cst.Name) or node.body.value == "None")
        ):
            return False
    return found
