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
`torch.device`, `open`, or a class of the same module that is no nn.Module (`Logger`).

Also (round 13 v2-C, gjy3035/C-3-Framework@f8e21fa `CrowdCounter`: `self.CCN =
DataParallel(net)` beside `self.loss_mse_fn = nn.MSELoss().cuda()`, and `forward()` storing
`self.loss_mse = self.build_loss(density_map.squeeze(), gt_map.squeeze())`): a torch.nn
loss built in `__init__` (`nn.MSELoss()`, moved by `.cuda()`/`.to()`; torch.nn's losses hold
no parameter, AdaptiveLogSoftmaxWithLoss aside), and a value a method other than `__init__`
computes (`_Computed`): made only of calls of the wrapped attribute, of such a loss, of the
class's own methods whose every return is so made, and of methods of the method's
parameters and of locals so bound (`density_map = self.CCN(img)`, `gt_map.squeeze()`): a
tensor, no module."""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from dp2ddp.transforms._support.nodes import code_of, module_of, name_of, walk
from dp2ddp.transforms.analysis.bare_modules import PLAIN_CALLS, REGISTERING
from dp2ddp.transforms.analysis.wrapped_classes import never_held

if TYPE_CHECKING:
    from dp2ddp.transforms._support.base import MigrationTransform

#: Calls beside the builtins whose value holds no parameter.
_PLAIN = PLAIN_CALLS | {"device", "open", "print", "join", "format", "cuda", "cpu", "to"}


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
    computed = _Computed(owner, target)
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
                if node.value is None or not (
                    _builds_nothing(node.value, plain)
                    or name in computed.losses
                    or computed.value(node, node.value)
                ):
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


def _torch_loss(call: cst.Call) -> bool:
    """`nn.MSELoss(...)` / `torch.nn.MSELoss(...)`: a loss of torch.nn, no parameter (not a
    program's own `CenterLoss`, which may hold one)."""
    func = call.func
    if not isinstance(func, cst.Attribute) or not func.attr.value.endswith("Loss"):
        return False
    if func.attr.value == "AdaptiveLogSoftmaxWithLoss":
        return False
    owner = func.value
    if isinstance(owner, cst.Name):
        return owner.value == "nn"
    return (
        isinstance(owner, cst.Attribute)
        and owner.attr.value == "nn"
        and isinstance(owner.value, cst.Name)
        and owner.value.value == "torch"
    )


class _Computed:
    """Values a module's methods compute from its wrapped attribute and its torch.nn losses
    (see the module's docstring): tensors, which no store registers as a parameter."""

    def __init__(self, owner: cst.ClassDef, target: str) -> None:
        body = owner.body.body if isinstance(owner.body, cst.IndentedBlock) else ()
        self.methods = {s.name.value: s for s in body if isinstance(s, cst.FunctionDef)}
        self.target = target
        self.losses: set[str] = set()
        init = self.methods.get("__init__")
        for node in walk(init) if init is not None else ():
            if isinstance(node, cst.Assign) and len(node.targets) == 1:
                name = _self_attribute(node.targets[0].target)
                calls = [c for c in walk(node.value) if isinstance(c, cst.Call)]
                if name and calls and any(_torch_loss(c) for c in calls):
                    if all(_torch_loss(c) or name_of(c.func) in _PLAIN for c in calls):
                        self.losses.add(name)
        self._seen: set[str] = set()

    def value(self, store: cst.CSTNode, value: cst.BaseExpression) -> bool:
        """`value`, stored by `store` in a method other than `__init__`, is computed."""
        method = self._method_of(store)
        if method is None or method.name.value == "__init__":
            return False
        return self._made(value, method)

    def _method_of(self, node: cst.CSTNode) -> cst.FunctionDef | None:
        return next((m for m in self.methods.values() if any(n is node for n in walk(m))), None)

    def _made(self, value: cst.BaseExpression, method: cst.FunctionDef, depth: int = 2) -> bool:
        params = {p.name.value for p in method.params.params} - {"self"}
        for node in walk(value):
            if isinstance(node, (cst.Lambda, cst.Yield, cst.Await)):
                return False
            if isinstance(node, cst.Call) and not self._call(node, method, params, depth):
                return False
        return True

    def _call(self, call: cst.Call, method: cst.FunctionDef, params: set[str], depth: int) -> bool:
        func = call.func
        if not isinstance(func, cst.Attribute):
            return name_of(func) in PLAIN_CALLS
        receiver = func.value
        if isinstance(receiver, cst.Name) and receiver.value == "self":
            attribute = f"self.{func.attr.value}"
            if attribute == self.target or attribute in self.losses:
                return True
            return depth > 0 and self._returns(func.attr.value, depth - 1)
        root = _root(receiver)
        if root == "self":
            return False
        if root in params:
            return True
        return depth > 0 and self._local(root, method, depth - 1)

    def _returns(self, name: str, depth: int) -> bool:
        method = self.methods.get(name)
        if method is None or name in self._seen or name == "__init__":
            return False
        self._seen.add(name)
        try:
            returns = [n for n in walk(method) if isinstance(n, cst.Return)]
            return bool(returns) and all(
                r.value is not None and self._made(r.value, method, depth) for r in returns
            )
        finally:
            self._seen.discard(name)

    def _local(self, name: str, method: cst.FunctionDef, depth: int) -> bool:
        values = [
            n.value
            for n in walk(method)
            if isinstance(n, cst.Assign)
            and len(n.targets) == 1
            and isinstance(n.targets[0].target, cst.Name)
            and n.targets[0].target.value == name
        ]
        return bool(values) and all(self._made(v, method, depth) for v in values)


def _root(node: cst.BaseExpression) -> str:
    while isinstance(node, (cst.Attribute, cst.Subscript, cst.Call)):
        node = node.func if isinstance(node, cst.Call) else node.value
    return node.value if isinstance(node, cst.Name) else ""


def owner_wrap_text(t: MigrationTransform, call: cst.Call, owner: cst.ClassDef, target: str) -> str:
    """DP022's text for `self.x = DataParallel(self.x)` in nn.Module class `owner`; "" where
    nothing is to be said: the owner holds no other parameter (other_attributes) and no
    DataParallel of the program holds an owner (analysis/wrapped_classes.py: its wrap
    averages all it holds, and there is no DDP around it; C-3-Framework's `CrowdCounter`,
    stop 63 s3). Where no DataParallel holds it but it may hold other parameters, the text
    says that half alone; where that is not known, both halves (D1, stop 30)."""
    name = owner.name.value
    module = module_of(call, t)
    others = other_attributes(owner, target, module) if isinstance(module, cst.Module) else None
    alone = isinstance(module, cst.Module) and never_held(t, module, name)
    if alone and others is not None:
        return ""
    if alone:
        return (
            f"{target} is wrapped inside {name}, an nn.Module no DataParallel of the program "
            f"holds: only {target}'s gradients are averaged; other parameters it may hold "
            "train apart on each rank; wrap it whole instead"
        )
    if others is not None:  # v3-D (stop 46): it holds no other parameter
        told = f" (its other attributes {', '.join(others)} build none)" * bool(others)
        return (
            f"{target} is wrapped inside {name}, an nn.Module that holds no other "
            f"parameter{told}: its wrap averages them all; where a {name} is wrapped as "
            "well (not read here), it would hold a DDP in a DDP: wrap only one of them"
        )
    return (
        f"{target} is wrapped inside {name}, an nn.Module: wrapped too, it would hold a DDP in "
        f"a DDP; not wrapped, only {target}'s gradients are averaged, its other parameters "
        "train apart on each rank; wrap it whole instead"
    )


def rebound_whole(
    t: MigrationTransform, cls: cst.ClassDef, where: cst.CSTNode, what: cst.CSTNode
) -> bool:
    """DP007's write `self.x = v` (an assignment of a plain attribute of self, not an item,
    an augmented or an in-place update) in the forward() of class `cls` that wraps its child
    (`self.c = DataParallel(self.c)`), holds no other parameter (other_attributes: `v`
    builds none) and that no DataParallel of the program holds: that forward() ran in the
    one process under DataParallel as under DDP, and the attribute is rebound whole at each
    call (C-3-Framework's `CrowdCounter.forward()`'s `self.loss_mse = self.build_loss(...)`,
    stop 63 s3); so too in a class that wraps nothing, no DataParallel holding it (a
    criterion keeping its loss, `self.loss = (diff ** 2).sum()`, round 26)."""
    if not isinstance(where, cst.Assign) or not code_of(what).replace(".", "", 1).isidentifier():
        return False
    module = module_of(cls, t)
    if not isinstance(module, cst.Module) or not never_held(t, module, cls.name.value):
        return False
    if "DataParallel" not in code_of(cls):
        return True  # a criterion applied to the gathered output: DataParallel copies none
    for node in walk(cls):
        if isinstance(node, cst.Assign) and "DataParallel" in code_of(node.value):
            targets = [code_of(each.target) for each in node.targets]
            if any(other_attributes(cls, each, module) is not None for each in targets):
                return True
    return False
