"""A DataParallel device list the caller passes (DP045).

shenweichen/DeepCTR-Torch's `BaseModel(..., device="cuda:0", gpus=[0, 1])` keeps `gpus` and
wraps `DataParallel(model, device_ids=self.gpus)` in `fit()`. The wrap becomes DDP with
`device_ids=DEVICE_IDS`, but the list lives on: the library still checks
`str(gpus[0]) in device` (raises on rank 1, where the device is cuda:1, and on CPU) and
multiplies the batch by `len(gpus)`. What the list means is the caller's business (its
length is the number of GPUs one process drove, its first entry that process's device), so
it is warned, not rewritten: under torchrun the processes are the device list.

The wrap is warned when its `device_ids=` is a value a caller gives (an attribute of `self`,
a parameter of the enclosing function, or an attribute of one) and the code still reads the
list elsewhere: its length (`len(X)`) or an entry (`X[0]`). A read in the condition of a
guard around a wrap (`if len(opt.gpu_ids): model = DataParallel(...)`) is the wrap's own
business, not such a read; a list passed to the wrap alone means nothing after migration and
is not warned.
"""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst
import libcst.matchers as m

from dp2ddp.transforms._support.nodes import (
    NodeView,
    code_of,
    enclosing_class,
    enclosing_function,
)


def device_list_reads(
    call: cst.Call, is_wrap: Callable[[cst.CSTNode], bool], view: NodeView
) -> tuple[str, list[cst.CSTNode]] | None:
    """(the device list as spelled, the places its length or entries are read) for a
    wrap whose `device_ids=` a caller gives; None when there is no such read."""
    value = _device_ids(call)
    if value is None:
        return None
    scope = _scope_of(call, value, view)
    if scope is None:
        return None
    spelled = code_of(value)
    reads: list[cst.CSTNode] = []
    for node in m.findall(scope, m.Call(func=m.Name("len")) | m.Subscript()):
        if isinstance(node, cst.Call):
            if len(node.args) != 1 or code_of(node.args[0].value) != spelled:
                continue
        elif not (isinstance(node, cst.Subscript) and code_of(node.value) == spelled):
            continue
        if not _in_wrap_guard(node, is_wrap, view):
            reads.append(node)
    return (spelled, reads) if reads else None


def _device_ids(call: cst.Call) -> cst.BaseExpression | None:
    for index, arg in enumerate(call.args):
        keyword = arg.keyword.value if arg.keyword else None
        if keyword == "device_ids" or (keyword is None and index == 1 and not arg.star):
            return arg.value
    return None


def _root(value: cst.BaseExpression) -> cst.Name | None:
    while isinstance(value, cst.Attribute):
        value = value.value
    return value if isinstance(value, cst.Name) else None


def _scope_of(call: cst.Call, value: cst.BaseExpression, view: NodeView) -> cst.CSTNode | None:
    """Where the list is read: the class for `self.x`, the function whose parameter it is
    (or hangs from); None for anything else (a literal, a local list, the command line)."""
    if not isinstance(value, (cst.Name, cst.Attribute)):
        return None
    root = _root(value)
    if root is None:
        return None
    if root.value == "self" and isinstance(value, cst.Attribute):
        return enclosing_class(call, view)
    function = enclosing_function(call, view)
    if function is None:
        return None
    params = function.params
    names = {p.name.value for p in (*params.posonly_params, *params.params, *params.kwonly_params)}
    return function if root.value in names else None


def _in_wrap_guard(
    node: cst.CSTNode, is_wrap: Callable[[cst.CSTNode], bool], view: NodeView
) -> bool:
    """`node` is in the condition of an if (or a conditional expression) that holds a wrap."""
    child, parent = node, view.parent(node)
    while parent is not None:
        if isinstance(parent, (cst.If, cst.IfExp, cst.While)) and child is parent.test:
            return bool(m.findall(parent, m.MatchIfTrue(is_wrap)))
        child, parent = parent, view.parent(parent)
    return False
