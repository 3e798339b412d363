"""A gradient taken with respect to a model's inputs, not its weights (`torch.autograd.grad(loss,
x)`): its scale is no parameter update's, so a summed loss it is taken of is not DP004's."""

from __future__ import annotations

import libcst as cst

from dp2ddp.transforms._support.nodes import walk

#: Attributes that name a model's weights: a gradient with respect to one is a parameter's.
WEIGHTS = frozenset({"parameters", "named_parameters", "weight", "bias", "state_dict"})


def input_arguments(grad: cst.Call, function: cst.FunctionDef) -> bool:
    """`torch.autograd.grad(loss, inputs, ...)`: no `create_graph=True` (a gradient that is
    backpropagated again scales with the loss), and `inputs` names no weight, through one
    level of the function's plain bindings of its names (`adv_bx = bx.detach()`)."""
    for arg in grad.args:
        if arg.keyword is not None and arg.keyword.value == "create_graph":
            if not (isinstance(arg.value, cst.Name) and arg.value.value == "False"):
                return False
    inputs = [a.value for a in grad.args[1:2] if a.keyword is None]
    inputs += [a.value for a in grad.args if a.keyword is not None and a.keyword.value == "inputs"]
    if len(inputs) != 1:
        return False
    names = {n.value for n in walk(inputs[0]) if isinstance(n, cst.Name)}
    values: list[cst.CSTNode] = [inputs[0]]
    for node in walk(function):
        if isinstance(node, cst.Assign) and any(
            isinstance(t.target, cst.Name) and t.target.value in names for t in node.targets
        ):
            values.append(node.value)
        elif isinstance(node, cst.AugAssign) and isinstance(node.target, cst.Name):
            values += [node.value] if node.target.value in names else []
        elif isinstance(node, (cst.For, cst.CompFor)) and any(
            isinstance(n, cst.Name) and n.value in names for n in walk(node.target)
        ):
            return False  # `for p in model.parameters()`
    return not any(
        isinstance(n, cst.Attribute) and n.attr.value in WEIGHTS
        for value in values
        for n in walk(value)
    )
