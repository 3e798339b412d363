"""The wrapped model's state written from the wrapped model's output (DP063): said.

DataParallel gathered its replicas' outputs: the output a training step read after the
call was the whole batch's. A value computed from it and written back into the model's own
state (a buffer or an attribute of the wrapped model, `self.net.module.emau.mu += mu * (1 -
momentum)` after `loss, mu = self.net(image, label)` and `mu = mu.mean(dim=0)`:
XiaLiPKU/EMANet@f09ffac train.py:129, the moving average of its attention bases, stop 62
v1-B) was the whole batch's value, one update of the one copy. Under DDP each rank's output
is its own share's: each rank writes its own value, the copies differ, and at the next
forward DDP copies rank 0's buffers over every rank's (broadcast_buffers): the update
becomes rank 0's share's alone, with nothing said.

The class, by the flow: a write whose target is reached through a wrapped model's name (as
the wrap assigned it: `self.net.module.emau.mu`, `model.centers[k]`) -- an assignment, an
augmented assignment, or an in-place method (`x.copy_(v)`, `x.data.mul_(m).add_(v)`) -- and
whose written value comes, on a data path of the module's def-use view
(flow/origins.py), from that model's call. A value the output only selects or shapes (an
index, a size) is not the output's data. Not proved equivalent (averaging over the ranks
is the equivalent of a mean over the batch, not of any value); said, with the flow.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import libcst as cst

from dp2ddp.flow import origins, view
from dp2ddp.flow.children import module_nodes_of


def output_state_writes(
    module: cst.Module,
    wrapped: set[str],
    code: Callable[[cst.CSTNode], str],
    position: Callable[[cst.CSTNode], tuple[int, int]],
) -> Iterator[tuple[cst.CSTNode, str, str]]:
    """(node, "DP063", detail) for each write of a wrapped model's state (its name as
    spelled in `wrapped`, then an attribute) whose value flows from that model's call."""
    if not wrapped:
        return
    defs = view(module)

    def stop(call: cst.Call) -> bool:
        return code(call.func) in wrapped

    for node in module_nodes_of(module, (cst.Assign, cst.AugAssign, cst.Call)):
        for target, value in _writes(node):
            owner = _owner(code(target), wrapped)
            if owner is None:
                continue
            for origin in origins(defs, value, stop=stop):
                called = origin.node
                if origin.selects or not (
                    origin.kind == "call" and isinstance(called, cst.Call) and stop(called)
                ):
                    continue
                yield (
                    node,
                    "DP063",
                    f"`{code(target)}` is written from {owner}'s output: "
                    f"{origin.flow(position)}; DataParallel's output was the whole batch's, "
                    "each rank's is its own share's, so each rank writes its own value "
                    "(DDP then copies rank 0's buffers to every rank)",
                )
                break
            else:
                continue
            break


def _writes(node: cst.CSTNode) -> Iterator[tuple[cst.BaseExpression, cst.BaseExpression]]:
    """(target, written value) pairs of an assignment or of an in-place method call."""
    if isinstance(node, cst.AugAssign):
        yield node.target, node.value
    elif isinstance(node, cst.Assign):
        for t in node.targets:
            if isinstance(t.target, (cst.Attribute, cst.Subscript)):
                yield t.target, node.value
    elif isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
        method = node.func.attr.value
        if method.endswith("_") and not method.startswith("_") and node.args:
            target = node.func.value
            # `x.data.mul_(m).add_(v)`: the target is the chain's first object
            while isinstance(target, cst.Call) and isinstance(target.func, cst.Attribute):
                target = target.func.value
            for arg in node.args:
                yield target, arg.value


def _owner(target: str, wrapped: set[str]) -> str | None:
    """The wrapped model's name the target is an attribute of (`self.net` for
    `self.net.module.emau.mu`), else None. The wrapped name itself is not its state."""
    for name in wrapped:
        if target.startswith(name + ".") or target.startswith(name + "["):
            return name
    return None
