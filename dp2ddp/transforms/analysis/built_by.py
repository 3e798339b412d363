"""What built a wrapped model: the callee of the call that made it (through a name assigned
once before the wrap), and the children of a torch container built of models, each judged as
a model of its own (analysis/wrapped_model.py asks, for DP041/DP102)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

import libcst as cst

from dp2ddp.transforms._support.names import DATAPARALLEL
from dp2ddp.transforms._support.nodes import code_of, unmoved, walk

if TYPE_CHECKING:
    from dp2ddp.transforms._support.base import MigrationTransform

#: torch's container whose forward() calls each child in order, on every step.
SEQUENTIAL = frozenset({"torch.nn.Sequential", "torch.nn.modules.container.Sequential"})


#: A copy of a module is of its class.
_COPIES = frozenset({"copy.deepcopy", "copy.copy"})


def built_by(t: MigrationTransform, module: cst.BaseExpression) -> cst.BaseExpression | None:
    """The callee that built `module` (`Net` of `Net(...).cuda()`, also through a name
    assigned once from such a call earlier in the same function); None if unknown. A name
    last assigned a DataParallel wrap (another branch's `model = nn.DataParallel(model)`
    above `else: model = nn.DataParallel(model)`, loeweX/Greedy_InfoMax@22d17e4) was built
    by what built the wrap's module: judged as the library's class, only the first wrap got
    find_unused_parameters=True and the CPU branch's DDP raised at step 2 (stop 65 v3). A copy
    (`copy.deepcopy(model1)`) was built by what built the original (round 37, KaiyangZhou/
    deep-person-reid@f8cd150's mutual learning: model2's wrap got no DP041 beside model1's).
    An attribute (`self.model`) is followed as a name is, and an element of an unpacking
    (`self.model, params = get_model(args)`: built by the factory `get_model`, round 38's
    ZJULearning/MaxSquareLoss@2fbc18f)."""
    node: cst.BaseExpression = module
    at: cst.CSTNode = module
    for _ in range(4):
        node = unmoved(node)
        if isinstance(node, cst.Call) and node.args:
            names = t.qualified_names(node.func)
            if node is not module and names & DATAPARALLEL or names & _COPIES:
                node = node.args[0].value
                continue
        if isinstance(node, cst.Call):
            return node.func
        if not isinstance(node, (cst.Name, cst.Attribute)):
            return None
        spelled = node.value if isinstance(node, cst.Name) else t.code(node)
        value = assigned_value(t, at, spelled)
        if value is None:
            return None
        node = at = value  # what reaches this binding was assigned before it
    return None


def assigned_value(t: MigrationTransform, at: cst.CSTNode, name: str) -> cst.BaseExpression | None:
    """The value last assigned to `name` before `at` in its function (or module); `name`
    may be an attribute chain as spelled (`self.loss`). Unpacked (`model, params = ...`):
    the element of a tuple literal at its place, or the call whose result is unpacked
    (what built the element is that call's callee, a factory)."""
    scope: cst.CSTNode | None = t.parent(at)
    while scope is not None and not isinstance(scope, (cst.FunctionDef, cst.Module)):
        scope = t.parent(scope)
    if scope is None:
        return None
    line = t._position(at)[0]
    found: cst.BaseExpression | None = None
    for node in walk(scope, skip_scopes=True):
        if isinstance(node, cst.Assign) and len(node.targets) == 1 and t._position(node)[0] < line:
            target = node.targets[0].target
            if _spelled(t, target, name):
                found = node.value
            elif isinstance(target, (cst.Tuple, cst.List)):
                found = _unpacked(t, target, node.value, name) or found
    return found


def _unpacked(
    t: MigrationTransform,
    target: cst.Tuple | cst.List,
    value: cst.BaseExpression,
    name: str,
) -> cst.BaseExpression | None:
    """What `target`'s element spelled `name` is assigned from `value`: the element of a
    literal of the same length at its place, or a call's result (the call); None when it
    is not there, or starred."""
    if any(isinstance(e, cst.StarredElement) for e in target.elements):
        return None
    places = [i for i, e in enumerate(target.elements) if _spelled(t, e.value, name)]
    if len(places) != 1:
        return None
    if isinstance(value, (cst.Tuple, cst.List)) and len(value.elements) == len(target.elements):
        element = value.elements[places[0]]
        return None if isinstance(element, cst.StarredElement) else element.value
    return value if isinstance(value, cst.Call) else None


def _spelled(t: MigrationTransform, target: cst.BaseExpression, name: str) -> bool:
    """`target` is `name`: the bare name, or an attribute chain spelled so."""
    if isinstance(target, cst.Name):
        return target.value == name
    return "." in name and isinstance(target, cst.Attribute) and t.code(target) == name


def sequential_parts(
    t: MigrationTransform, built: cst.BaseExpression | None
) -> list[cst.BaseExpression]:
    """The children handed to `nn.Sequential(a, b, ...)` when `built` is that class: its
    forward() calls each in order, so what leaves a parameter without a gradient is what a
    child's own class leaves (euwern/proxynca_pp@217233d's `nn.Sequential(feat, emb)`, `feat`
    a program class taking a torchvision ResNet apart, never its `fc`: no DP041 and both ranks
    failed at step 2 before stop 44, v1-A). [] for any other callee."""
    if built is None or not SEQUENTIAL & t.qualified_names(built):
        return []
    call = t.parent(built)
    if not isinstance(call, cst.Call) or call.func is not built:
        return []
    return [a.value for a in call.args if a.keyword is None and a.star == ""]


def library_built(names: Iterable[str], classes: Iterable[str]) -> bool:
    """Whether a wrapped model built by one of `names` (qualified) is a library's class
    (torch, torchvision...: not judged). A callable of the program's own packages (Cysu/
    open-reid's `models.create(args.arch)`, a factory in reid/models/) builds a class of
    the program, any of them; so does a local's attribute (`model_dict[args.model].Model(
    args)`, a dict of the program's modules: MAZiqing/FEDformer@c0f6b97's exp_main.py)."""
    roots = {c.split(".", 1)[0] for c in classes if "." in c and not c.startswith(".")}
    return any(
        not name.startswith(".") and ".<locals>." not in name and name.split(".", 1)[0] not in roots
        for name in names
    )


def handed_builders(
    t: MigrationTransform, module: cst.BaseExpression
) -> tuple[str, list[cst.BaseExpression]]:
    """The construction of the wrapped `module` (`Diffusion(Unet())`, also through a name
    assigned from it) as the callee's text, with the callees that built its arguments
    (`Unet`): the models it is handed to keep and run; ("", []) where it is no call."""
    call: cst.BaseExpression | None = unmoved(module)
    if isinstance(call, cst.Name):
        call = assigned_value(t, module, call.value)
    if not isinstance(call, cst.Call):
        return "", []
    parts = [built_by(t, arg.value) for arg in call.args]
    return code_of(call.func), [p for p in parts if p is not None]
