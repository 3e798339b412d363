"""The uniformity proof's answer for a function's parameter (uniformity.py `_parameter`):
uniform when every call site in the module passes a uniform value, the same one at every
site or else at sites every rank reaches (`f(True)` on rank 0 and `f(False)` elsewhere give
each rank its own value); a class's `__init__` parameter through its constructions
(across_modules.init_parameter), and a top-level function's the module never calls through
the program's one call of it (across_modules.function_parameter, stop 63); `self` and
`cls` always; a free name as the module's.
Moved out of uniformity.py whole (stop 53)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from dp2ddp.transforms._support.nodes import code_of, enclosing_function
from dp2ddp.transforms.analysis.across_modules import function_parameter, init_parameter
from dp2ddp.transforms.analysis.module_index import argument

if TYPE_CHECKING:
    from dp2ddp.transforms.analysis.uniformity import RankUniformity


def parameter_alike(u: RankUniformity, function: cst.FunctionDef, name: str) -> bool:
    """A parameter: uniform when every call in the module passes a uniform value (a
    class's `__init__` parameter: across_modules.init_parameter)."""
    params = function.params
    positional = [*params.posonly_params, *params.params]
    every = [*positional, *params.kwonly_params]
    param = next((p for p in every if p.name.value == name), None)
    if param is None:
        star = [params.star_arg, params.star_kwarg]
        if any(isinstance(s, cst.Param) and s.name.value == name for s in star):
            return False
        return u._global(name)  # a free name: the module's
    if positional and param is positional[0] and name in ("self", "cls"):
        return True
    index = positional.index(param) if param in positional else None
    owner = u.index.top_level_class(function)
    if owner is not None and function.name.value == "__init__":
        return init_parameter(u, owner, None if index is None else index - 1, name)
    sites = list(u.index.call_sites(function))
    if not sites:  # called from elsewhere: once, with a uniform value, or unknown
        return function_parameter(u, function, index, name)
    method = isinstance(u.view.parent(u.view.parent(function) or function), cst.ClassDef)
    if index is not None and method:
        index -= 1
    passed: set[str] = set()
    for site in sites:
        value = argument(site, name, index)
        if value is None:
            if any(a.star for a in site.args):
                return False
            if param.default is None or not u.value(param.default, function):
                return False
            passed.add(code_of(param.default))
        elif not u.value(value, site):
            return False
        else:
            passed.add(code_of(value))
    # Each site passes a value every rank agrees on, but two sites may pass two values
    # (`f(True)` on rank 0, `f(False)` elsewhere): then which one a rank gets depends on
    # which site it reaches, so every site must be reached by every rank.
    if len(passed) == 1:
        return True
    key = (id(function), name)
    if key in u._judging_sites:
        return False  # a question that loops back on itself: not proven
    u._judging_sites.add(key)
    try:
        return all(_reached_by_every_rank(u, site) for site in sites)
    finally:
        u._judging_sites.discard(key)


def _reached_by_every_rank(u: RankUniformity, call: cst.Call) -> bool:
    if u.rank_dependent_around(call) is not None:
        return False
    caller = enclosing_function(call, u.view)
    return caller is None or u.unreached_call(caller) is None
