"""Names reached through `importlib.import_module(...)`: `importlib.import_module(
"tensorboardX").SummaryWriter` is `tensorboardX.SummaryWriter`.

pytorch-template's TensorboardWriter (victoresque/pytorch-template and the projects built
on it) makes its writer with `for module in ["torch.utils.tensorboard", "tensorboardX"]:
self.writer = importlib.import_module(module).SummaryWriter(log_dir)`. No import binds the
name, so no rule saw a SummaryWriter: every rank wrote every scalar into the one run folder,
with no warning (round 34, fourson/DeblurGAN-pytorch@41696fc). The module's name is read
where it is spelled: a string literal, or the variable of a `for` loop over a list or tuple
of string literals around the call (each may be the one imported).
"""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

_IMPORT_MODULE = "importlib.import_module"


def imported_attribute_names(
    node: cst.Attribute,
    qualified_names: Callable[[cst.CSTNode], set[str]],
    parent: Callable[[cst.CSTNode], cst.CSTNode | None],
) -> set[str]:
    """`M.attr` for each module `M` the call `node.value` may import (see above); empty
    where `node` is no attribute of an `importlib.import_module(...)` call."""
    call = node.value
    if not isinstance(call, cst.Call) or not call.args or call.args[0].keyword is not None:
        return set()
    if _IMPORT_MODULE not in qualified_names(call.func):
        return set()
    return {f"{module}.{node.attr.value}" for module in _spelled(call.args[0].value, parent)}


def _spelled(
    value: cst.BaseExpression, parent: Callable[[cst.CSTNode], cst.CSTNode | None]
) -> set[str]:
    if isinstance(value, cst.SimpleString):
        text = value.evaluated_value
        return {text} if isinstance(text, str) else set()
    if not isinstance(value, cst.Name):
        return set()
    node: cst.CSTNode | None = parent(value)
    while node is not None and not isinstance(node, (cst.FunctionDef, cst.Module)):
        if (
            isinstance(node, cst.For)
            and isinstance(node.target, cst.Name)
            and node.target.value == value.value
            and isinstance(node.iter, (cst.List, cst.Tuple))
        ):
            found = {
                e.value.evaluated_value
                for e in node.iter.elements
                if isinstance(e.value, cst.SimpleString)
                and isinstance(e.value.evaluated_value, str)
            }
            return found if len(found) == len(node.iter.elements) else set()
        node = parent(node)
    return set()
