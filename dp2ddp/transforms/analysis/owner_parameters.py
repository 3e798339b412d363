"""Whether an nn.Module that wraps one of its own attributes holds any other parameter, as
DP022 asks (stop 46 class v3-D: WangYueFt/prnet@82d466a's `PRNet`, whose `__init__` does
`self.acpnet = nn.DataParallel(self.acpnet)` beside `self.num_iters = args.n_iters` and
`self.logger = Logger(args)`; seathiefwang/MGN-pytorch@384e820's `Model` beside
`self.device = torch.device(...)`). DP022 said "its other parameters train apart on each
rank" where there are none.

Proved over the class's own text: its only base is nn.Module; nothing in it registers a
parameter or submodule by a call (`register_parameter`, `add_module`, `setattr`, …); and every
other value it stores on `self` (or in its class body) builds no module: literals, option
reads (`args.n_iters`, an attribute of a name other than `self`), and calls of builtins,
`torch.device`, `open`, or a class of the same module that is no nn.Module (`Logger`)."""

from __future__ import annotations

import libcst as cst

from dp2ddp.transforms._support.nodes import name_of, walk
from dp2ddp.transforms.analysis.bare_modules import PLAIN_CALLS, REGISTERING

#: Calls beside the builtins whose value holds no parameter.
_PLAIN = PLAIN_CALLS | {"device", "open", "print", "join", "format"}


def other_attributes(owner: cst.ClassDef, target: str, module: cst.Module) -> list[str] | None:
    """The other attributes `owner` stores on `self` when none of them holds a parameter
    (`target` is the wrapped one, `self.acpnet`); None where one may, or it is not read."""
    if [name_of(b.value) for b in owner.bases] != ["Module"] or owner.keywords:
        return None
    plain = {
        s.name.value
        for s in module.body
        if isinstance(s, cst.ClassDef) and all(name_of(b.value) == "object" for b in s.bases)
    }
    found: list[str] = []
    for node in walk(owner):
        if isinstance(node, cst.Call) and name_of(node.func) in REGISTERING:
            return None
        if isinstance(node, (cst.Assign, cst.AugAssign, cst.AnnAssign)):
            targets = (
                [t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target]
            )
            for stored in targets:
                name = _self_attribute(stored)
                in_body = isinstance(stored, cst.Name) and _class_level(owner, node)
                if name == target or (name is None and not in_body):
                    continue
                if node.value is None or not _builds_nothing(node.value, plain):
                    return None
                if name and name not in found:
                    found.append(name)
    return found


def _class_level(owner: cst.ClassDef, node: cst.CSTNode) -> bool:
    body = owner.body.body if isinstance(owner.body, cst.IndentedBlock) else ()
    return any(
        isinstance(s, cst.SimpleStatementLine) and any(n is node for n in s.body) for s in body
    )


def _self_attribute(target: cst.BaseExpression) -> str | None:
    """`self.x` (also `self.x[i]`) as "self.x"; a tuple target storing on `self` as "" (not
    read); None where nothing is stored on `self`."""
    while isinstance(target, cst.Subscript):
        target = target.value
    if isinstance(target, (cst.Tuple, cst.List)):
        parts = [_self_attribute(e.value) for e in target.elements]
        return None if all(p is None for p in parts) else ""
    if isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name):
        if target.value.value == "self":
            return f"self.{target.attr.value}"
    return None


def _builds_nothing(value: cst.BaseExpression, plain: set[str]) -> bool:
    if isinstance(value, cst.Name):
        return value.value in ("True", "False", "None")
    for node in walk(value):
        if isinstance(node, cst.Call) and name_of(node.func) not in _PLAIN | plain:
            return False
        if isinstance(node, cst.Attribute) and _root(node) == "self":
            return False
        if isinstance(node, (cst.Lambda, cst.Yield, cst.Await)):
            return False
    return True


def _root(node: cst.BaseExpression) -> str:
    while isinstance(node, (cst.Attribute, cst.Subscript, cst.Call)):
        node = node.func if isinstance(node, cst.Call) else node.value
    return node.value if isinstance(node, cst.Name) else ""
