"""Whether a call's arguments can bind to a function's parameters: what narrows a method's
callers found by name (`x.train()` is no call of a `train(path, epochs)` defined in a class
of the module, whatever `x` is: the arguments do not fit).

A may-answer kept conservative: a call with `*args` or `**kwargs` may fit anything; a method
(not a staticmethod) may be called bound (`obj.m(...)`: the first parameter is the object)
or through its class (`Cls.m(...)`: every parameter from the call), and fits if either does.
"""

from __future__ import annotations

import libcst as cst


def may_call(call: cst.Call, function: cst.FunctionDef, method: bool) -> bool:
    """`call`'s arguments may bind to `function`'s parameters (`method`: it is defined in a
    class, so it may also be called bound)."""
    if any(arg.star for arg in call.args) or _fits(call, function.params, False):
        return True
    return method and may_bind(call, function)


def may_bind(call: cst.Call, method: cst.FunctionDef) -> bool:
    """`call` (`x.name(...)`) may be a call of `method` bound to an instance (a
    staticmethod: through it, unbound). `self.model.train()` is no call of an experiment's
    `def train(self, setting)` (zhouhaoyi/Informer2020@29f2a73): bound to it, the missing
    `setting` would raise TypeError. Star arguments fit anything."""
    if any(arg.star for arg in call.args):
        return True
    static = any(
        isinstance(d.decorator, cst.Name) and d.decorator.value == "staticmethod"
        for d in method.decorators
    )
    return _fits(call, method.params, not static)


def _fits(call: cst.Call, params: cst.Parameters, bound: bool) -> bool:
    positional = [*params.posonly_params, *params.params]
    if bound:
        if not positional:
            return isinstance(params.star_arg, cst.Param)
        positional = positional[1:]
    given = [arg for arg in call.args if arg.keyword is None]
    if len(given) > len(positional) and not isinstance(params.star_arg, cst.Param):
        return False
    filled = {p.name.value for p in positional[: len(given)]}
    by_keyword = {p.name.value for p in params.params if p in positional}
    by_keyword |= {p.name.value for p in params.kwonly_params}
    for arg in call.args:
        if arg.keyword is None:
            continue
        name = arg.keyword.value
        if name in filled or (name not in by_keyword and params.star_kwarg is None):
            return False
        filled.add(name)
    required = [*positional, *params.kwonly_params]
    return all(p.default is not None or p.name.value in filled for p in required)
