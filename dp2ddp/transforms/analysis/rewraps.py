"""A model wrapped again under its own name keeps what its first wrap was found to need.

`model = model.module` to evaluate the bare network, then `model = DataParallel(model)` for
the next epoch: the second wrap's argument is the name, whose class no construction in
reach says, so UnusedParameters.why() found nothing there, and the re-wrap lost the
`find_unused_parameters=True` the first wrap had (round 34, y-zheng18/Image-classification@
c5b91ae: a library model with a head forward() never uses; "Expected to have finished
reduction" at the first step of epoch 2, no warning). The network is the one the earlier
wraps of that name in the same function held, so their reason holds for it too.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import libcst as cst

from dp2ddp.transforms._support.nodes import code_of, enclosing_function, nodes_of, wrap_target

if TYPE_CHECKING:
    from dp2ddp.transforms._support.base import MigrationTransform
    from dp2ddp.transforms.analysis.wrapped_model import UnusedParameters


def rewrap_why(
    t: MigrationTransform,
    unused: UnusedParameters,
    is_wrap: Callable[[cst.CSTNode], bool],
    call: cst.Call,
    target: str | None,
) -> str:
    """Why `call`, a wrap of the name it is assigned to (`model = DP(model)`), may leave
    parameters without a gradient: an earlier wrap of that name in the same function may
    (UnusedParameters.why of its argument); "" otherwise."""
    first = call.args[0].value if call.args and call.args[0].keyword is None else None
    if target is None or first is None or code_of(first) != target or unused.module is None:
        return ""
    function = enclosing_function(call, t)
    line = t._position(call)[0]
    for other in nodes_of(unused.module, cst.Call):
        if other is call or not is_wrap(other) or not other.args:
            continue
        if enclosing_function(other, t) is not function or t._position(other)[0] >= line:
            continue
        if wrap_target(other, t) != target:
            continue
        why = unused.why(other.args[0].value, target)
        if why:
            at = t.state.line_map(t._position(other)[0])
            return f"{why} (the model the wrap at line {at} held, wrapped again)"
    return ""
