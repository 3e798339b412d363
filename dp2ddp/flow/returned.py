"""What a function returns, a loss kept on the module read through (issue 28, round 26).

A criterion nn.Module may keep its loss on itself before returning it (yxgeee/DepthComplete
@6d8f139 util/criterion.py: `self.loss = (diff ** 2).sum(); return self.loss`, and `diff =
(target - pred)[valid]; self.loss = (diff ** 2).mean(); return self.loss`). That returns
what `loss = ...; return loss` returns; the loss readers (hazards.summed_terms and
batch_sum_returns for DP004, hazards.loss_reach for DP043) ask here, so a returned `self.attr`
the same method binds is read as the values bound there, one way for all of them.
"""

from __future__ import annotations

import libcst as cst

from dp2ddp.flow.defuse import DefUse, Function


def kept_values(
    flow: DefUse, function: Function, value: cst.BaseExpression
) -> list[cst.BaseExpression]:
    """The values `function` binds `value` to where `value` is `self.attr` of the method
    and the method itself binds it (`self.loss = v`, not unpacked): each `v`; [] for any
    other value (a name: the scope's own bindings are followed by its readers)."""
    owner, self_name = function.owner, function.self_name
    if (
        owner is None
        or self_name is None
        or not isinstance(value, cst.Attribute)
        or not isinstance(value.value, cst.Name)
        or value.value.value != self_name
    ):
        return []
    return [
        d.value
        for d in flow.attribute_definitions(owner, value.attr.value)
        if d.kind == "assign"
        and not d.element
        and d.value is not None
        and flow.function_around(d.target) is function
    ]


def returned_values(flow: DefUse, function: Function) -> list[cst.BaseExpression]:
    """What `function` returns, each returned `self.attr` the method binds read as the
    values it binds (kept_values), every other returned value as it is."""
    found: list[cst.BaseExpression] = []
    for value in function.returns:
        found += kept_values(flow, function, value) or [value]
    return found


def returned_binding(flow: DefUse, target: cst.BaseExpression) -> bool:
    """`target` (an assignment's) is a `self.attr` its method binds and returns: the value
    bound there is (a term of) what the method returns."""
    function = flow.function_around(target)
    if (
        function is None
        or not isinstance(target, cst.Attribute)
        or not isinstance(target.value, cst.Name)
        or target.value.value != function.self_name
    ):
        return False
    return any(
        isinstance(r, cst.Attribute)
        and r.attr.value == target.attr.value
        and kept_values(flow, function, r)
        for r in function.returns
    )
