"""What one module answers the program's rank-independence questions about itself
(program/uniformity.py asks them of the module's own RankUniformity): whether its calls of
another module's function are reached by every rank (a top-level function's uniform return
is answered by analysis/across_modules.py). Moved out of analysis/uniformity.py whole (stop
47)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from dp2ddp.transforms._support.nodes import enclosing_function

if TYPE_CHECKING:
    from dp2ddp.transforms.analysis.uniformity import RankUniformity


def sites_reached(
    u: RankUniformity, module_name: str, name: str, method: bool, attributes: bool = True
) -> bool:
    """Every call in this module that may call function `name` of module `module_name`
    (`method`: a method of one of its classes, `x.name(...)`) is reached by every rank,
    and so is its function, here and program-wide. `attributes=False`: no value in the
    program may be that module (program/uniformity.py), so an attribute call `x.name()`
    whose qualified names do not name it is not one."""
    for call in u.index.calls:
        if not u.index.may_call(call, module_name, name, method, attributes=attributes):
            continue
        if u.rank_dependent_around(call) is not None:
            return False
        caller = enclosing_function(call, u.view)
        if caller is not None and (
            u.unreached_call(caller) is not None or u.unreached_elsewhere(caller) is not None
        ):
            return False
    return True
