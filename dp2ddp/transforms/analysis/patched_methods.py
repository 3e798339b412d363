"""A function bound onto the wrapped model's object after it was built (DP041).

GT-RIPL/Continual-Learning-Benchmark@d78b997 builds its backbone by a computed name
(`models.__dict__[type].__dict__[name]()`), then replaces its head and one of its methods
from outside the class: `model.last = nn.ModuleDict()` (one head per task) and
`model.logits = MethodType(new_logits, model)`, a function of the builder that runs every
head. The loss of a step reads the head of the batch's task alone, so the other heads get
no gradient; the backbone classes' forward() use every layer, and nothing said it: DDP
raised at the second step ("Expected to have finished reduction", stop 61 v3-C). What runs
in forward() is no longer the class's code, so which layers a step reaches is not proved.

The proof asked: the sources of the wrapped value (dp2ddp/flow `origins`, which follows
`obj.attr = v` stores into what `obj` holds) include a function object stored as an
attribute of it: `MethodType(f, obj)` (`types.MethodType`), or a `def` / lambda reaching the
value through an attribute store (`model.forward = f`). Then find_unused_parameters=True,
said with the store's line: it runs whatever the bound function reaches.
"""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from dp2ddp.flow import code, origins, view


def patched_method(
    module: cst.Module | None, value: cst.BaseExpression, line: Callable[[cst.CSTNode], int]
) -> str:
    """Why the wrapped `value` may run code its class does not define ("" if not seen)."""
    if module is None:
        return ""
    for origin in origins(view(module), value):
        steps = origin.path
        for index, step in enumerate(steps):
            bound = isinstance(step.node, cst.Call) and code(step.node.func).split(".")[-1] == (
                "MethodType"
            )
            stored = origin.kind == "definition" and isinstance(
                origin.node, (cst.FunctionDef, cst.Lambda)
            )
            if not (bound or (stored and index == 0)):
                continue
            target = next(
                (s for s in steps[index + 1 :] if isinstance(s.node, cst.Attribute)), None
            )
            if target is None:
                continue
            what = code(target.node).strip()
            return (
                f"`{what}` is bound to a function of the program at line {line(target.node)}: "
                "what forward() runs is not its class's code alone, so which layers a step "
                "reaches is not proved"
            )
    return ""
