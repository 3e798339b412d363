"""Values handed to DataParallel that are tensors, not modules (stop 55, v4-A's sibling
v4-B, oroojlooy/RL_pytorch@854fdc3: `loss = torch.nn.DataParallel(loss_model)` under
`if device.type == 'cuda'`, where `loss_model = F.mse_loss(...)`).

DataParallel keeps whatever it is given as `.module` and fails only when it is called or
its missing methods are reached; DistributedDataParallel refuses a value without
parameters at once. Once the device guard is dropped (DDP always wraps) the wrap of a
tensor would stop every rank at that line, on the CPU path too where the original never
reached it. A name every binding of which in its scope is a call of a function that
returns a tensor is proved a tensor: the wrap is dropped (the value passes as it is) and
said (DP188)."""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from dp2ddp.transforms.analysis.module_index import bound_values

#: torch functions (not torch.nn.functional's, all of which return tensors) that return
#: a tensor and never a module.
TENSOR_FUNCTIONS = frozenset(
    f"torch.{name}"
    for name in (
        "stack cat tensor as_tensor from_numpy mean sum matmul mm bmm zeros ones empty "
        "full rand randn randint arange linspace where exp log sqrt abs clamp softmax"
    ).split()
)


def tensor_binding(
    argument: cst.BaseExpression,
    scope: cst.CSTNode,
    qualified: Callable[[cst.CSTNode], set[str]],
    parent: Callable[[cst.CSTNode], cst.CSTNode | None],
) -> cst.Call | None:
    """The first call binding `argument` (a bare name) in `scope` (a def or the module of
    the tree `parent` reads) when every binding of the name there is a call of a function
    returning a tensor; else None."""
    if not isinstance(argument, cst.Name):
        return None
    module = scope
    while (above := parent(module)) is not None:
        module = above
    # the module's bindings of the name are listed once per tree; those under `scope` are
    # kept (a walk of the def's body for each wrap cost more than the rest of this pass)
    values = [v for v in bound_values(module, argument.value) if _under(v, scope, parent)]
    if not values or not all(isinstance(v, cst.Call) for v in values):
        return None
    for value in values:
        assert isinstance(value, cst.Call)
        names = qualified(value.func)
        if not names or not all(
            n.startswith("torch.nn.functional.") or n in TENSOR_FUNCTIONS for n in names
        ):
            return None
    first = values[0]
    assert isinstance(first, cst.Call)
    return first


def _under(
    node: cst.CSTNode, scope: cst.CSTNode, parent: Callable[[cst.CSTNode], cst.CSTNode | None]
) -> bool:
    """`node` is `scope` or inside it."""
    current: cst.CSTNode | None = node
    while current is not None and current is not scope:
        current = parent(current)
    return current is not None
