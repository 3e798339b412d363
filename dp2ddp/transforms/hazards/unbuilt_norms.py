"""BatchNorm layers no construction builds (DP008 is about the BatchNorms a model holds).

A BatchNorm built in a class's `__init__` only under a parameter (`self.bn =
nn.BatchNorm2d(c) if bn else None`, `if bn: self.bn = ...`) whose default is a falsy
literal (False, None, 0) and that the method never rebinds, is built by no construction
of the class when every one of them leaves that parameter so (absent, or a falsy literal
by keyword or position) and the class is named nowhere else: no other use of its name in
its module (a base, an alias, a handed reference) and, in a program, no other module that
names it (ProgramHints.home_classes). swz30/MIRNet@6934e83's `BasicConv(..., bn=False)`,
built once as `BasicConv(2, 1, k, stride=1, padding=..., relu=False)`: DP008 said the
model held BatchNorm, which it does not (round 14, v1-C). Anything else keeps its DP008.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

import libcst as cst

from dp2ddp.facts import ModelClass
from dp2ddp.transforms._support.nodes import walk

Parent = Callable[[cst.CSTNode], cst.CSTNode | None]


def unbuilt(
    module: cst.Module,
    norms: Iterable[cst.Call],
    parent: Parent,
    home: frozenset[str] | None,
    models: Iterable[ModelClass] = (),
) -> set[cst.Call]:
    """The calls of `norms` no construction runs (see the module docstring); `home`: the
    module's classes no other module names (None: a single file, all of them); those in a
    class the program never builds (in_unbuilt_classes over `models`)."""
    norms = list(norms)
    found = in_unbuilt_classes(norms, parent, models)
    uses: dict[str, list[cst.Name]] | None = None
    for call in norms:
        guard = _guard(call, parent)
        if guard is None:
            continue
        cls, init, flag = guard
        if home is not None and cls.name.value not in home:
            continue
        if uses is None:
            uses = _name_uses(module)
        if _every_construction_off(cls, init, flag, uses.get(cls.name.value, []), parent):
            found.add(call)
    return found


def in_unbuilt_classes(
    norms: Iterable[cst.Call], parent: Parent, models: Iterable[ModelClass]
) -> set[cst.Call]:
    """The calls of `norms` in a top-level class of this module the program never builds
    (ModelClass.built, analysis/class_reach.py: no code the program runs names it, nor a
    subclass of it): happen2me/genda@858cea8's models/generator.py `Generator`, imported by
    train_dafl.py and never called there, said DP008 (stop 63 s3). `models`: the program's
    (this module's own by bare names); a single file tells none. A class told only for its
    layer-running methods (`runs`) is told built=False for DP041 alone: not read."""
    never = {m.name for m in models if "." not in m.name and not m.built and not m.runs}
    found: set[cst.Call] = set()
    for call in norms if never else ():
        node, top = parent(call), None
        while node is not None:
            if isinstance(node, cst.ClassDef):
                top = node
            node = parent(node)
        if top is not None and top.name.value in never:
            found.add(call)
    return found


def _guard(call: cst.Call, parent: Parent) -> tuple[cst.ClassDef, cst.FunctionDef, str] | None:
    """(class, its `__init__`, the parameter) where `call` is built only when a bare
    parameter of a top-level class's `__init__` is true."""
    flags: list[str] = []
    child: cst.CSTNode = call
    node = parent(call)
    while node is not None and not isinstance(node, cst.FunctionDef):
        if isinstance(node, cst.IfExp) and child is node.body and isinstance(node.test, cst.Name):
            flags.append(node.test.value)
        elif isinstance(node, cst.If) and child is node.body and isinstance(node.test, cst.Name):
            flags.append(node.test.value)
        child, node = node, parent(node)
    if not isinstance(node, cst.FunctionDef) or node.name.value != "__init__":
        return None
    body = parent(node)
    cls = parent(body) if isinstance(body, cst.IndentedBlock) else None
    if not isinstance(cls, cst.ClassDef) or not isinstance(parent(cls), cst.Module):
        return None
    for flag in flags:
        if _falsy_default(node, flag) and not _rebound(node, flag):
            return cls, node, flag
    return None


def _falsy(value: cst.BaseExpression | None) -> bool:
    if isinstance(value, cst.Name):
        return value.value in ("False", "None")
    return isinstance(value, cst.Integer) and value.value == "0"


def _params(init: cst.FunctionDef) -> list[cst.Param]:
    return [*init.params.posonly_params, *init.params.params]


def _falsy_default(init: cst.FunctionDef, flag: str) -> bool:
    for param in [*_params(init), *init.params.kwonly_params]:
        if param.name.value == flag:
            return _falsy(param.default)
    return False


def _rebound(init: cst.FunctionDef, flag: str) -> bool:
    """`flag` is bound again in the method (an assignment, a loop, a `with`, a walrus...)."""
    for node in walk(init.body):
        if isinstance(node, (cst.Global, cst.Nonlocal)):
            return True
        if isinstance(node, cst.AssignTarget | cst.AugAssign | cst.AnnAssign | cst.For):
            if flag in _bound(node.target):
                return True
        if isinstance(node, (cst.NamedExpr, cst.AsName)):
            name = node.target if isinstance(node, cst.NamedExpr) else node.name
            if isinstance(name, cst.Name) and name.value == flag:
                return True
    return False


def _bound(target: cst.BaseExpression) -> set[str]:
    """The names an assignment target binds (`a`, `a, (b, *c)`; not `self.a`, `d[a]`)."""
    if isinstance(target, cst.Name):
        return {target.value}
    if isinstance(target, (cst.Tuple, cst.List)):
        return {n for e in target.elements for n in _bound(e.value)}
    return set()


def _name_uses(module: cst.Module) -> dict[str, list[cst.Name]]:
    uses: dict[str, list[cst.Name]] = {}
    for node in walk(module):  # the tree's nodes, listed once per tree
        if isinstance(node, cst.Name):
            uses.setdefault(node.value, []).append(node)
    return uses


def _every_construction_off(
    cls: cst.ClassDef, init: cst.FunctionDef, flag: str, uses: list[cst.Name], parent: Parent
) -> bool:
    """Every use of the class's name in its module, but its own definition, is a call that
    leaves `flag` falsy (absent, or a falsy literal by keyword or position)."""
    positional = [p.name.value for p in _params(init)][1:]  # not `self`
    keyword_only = flag in (p.name.value for p in init.params.kwonly_params)
    for name in uses:
        if name is cls.name or _super_argument(name, parent):
            continue  # its definition, `super(BasicConv, self)` (MIRNet's own spelling)
        call = parent(name)
        if not isinstance(call, cst.Call) or call.func is not name:
            return False
        if any(arg.star for arg in call.args):
            return False
        value: cst.BaseExpression | None = None
        for index, arg in enumerate(call.args):
            if arg.keyword is not None:
                if arg.keyword.value == flag:
                    value = arg.value
            elif not keyword_only and index < len(positional) and positional[index] == flag:
                value = arg.value
        if value is not None and not _falsy(value):
            return False
    return True


def _super_argument(name: cst.Name, parent: Parent) -> bool:
    """`name` is the first argument of a `super(...)` call: no construction."""
    arg = parent(name)
    call = parent(arg) if isinstance(arg, cst.Arg) else None
    return (
        isinstance(call, cst.Call)
        and isinstance(call.func, cst.Name)
        and call.func.value == "super"
        and bool(call.args)
        and call.args[0] is arg
    )
