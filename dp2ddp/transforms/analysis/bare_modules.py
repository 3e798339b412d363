"""nn.Module classes that may hold no parameter (a loss over pairs of samples, a metric), as
the model-wrap pass asks at each wrap: DataParallel runs such a module, but
DistributedDataParallel's constructor raises on every rank ("DistributedDataParallel is not
needed when a module doesn't have any parameter that requires a gradient"; stop 46 v1-A:
AbnerHqC/GaitSet@5535943's `nn.DataParallel(TripletLoss(...))`, a crash no warning named).
Such a wrap becomes ddp_wrap_trainable(...), which decides at run time, the same on every rank.

The reading over-approximates on purpose: a class whose bases are nn.Module or torch's loss
bases, whose methods store on `self` only values that build nothing (no call but a
builtin's, no nn.Parameter, no registration) and call nothing stored on `self` but its own
methods (`self.net(x)` calls a module handed in) may hold none. Where such a class does hold
one all the same, the run-time wrap wraps it in DDP."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

import libcst as cst

from dp2ddp.transforms._support.ast_nodes import last_name, parse_python
from dp2ddp.transforms._support.nodes import enclosing_function, unmoved
from dp2ddp.transforms.analysis.built_by import assigned_value
from dp2ddp.transforms.analysis.layer_names import CONTAINERS, PARAMETER_FREE

if TYPE_CHECKING:
    from dp2ddp.transforms._support.base import MigrationTransform

#: The bases a bare module may have: nn.Module, and torch's loss bases (torch.nn.modules.loss).
BARE_BASES = frozenset({"Module", "_Loss", "_WeightedLoss"})
#: Calls whose value builds no module or parameter (`self.margin = float(margin)`).
#: `torch.cuda.is_available()` too: a flag (AnTao97/UnsupervisedPointCloudReconstruction@
#: b589694's ChamferLoss keeps it, stop 56 v4-E).
PLAIN_CALLS = frozenset(
    {"int", "float", "bool", "str", "len", "abs", "min", "max", "round", "tuple", "list",
     "dict", "set", "frozenset", "sum", "range", "isinstance", "getattr", "super",
     "is_available"}
)  # fmt: skip
#: Calls that give a module a parameter or a submodule however they are stored.
REGISTERING = frozenset(
    {"Parameter", "ParameterList", "ParameterDict", "register_parameter", "register_module",
     "add_module", "setattr"}
)  # fmt: skip


def bare_classes(import_name: str, source: str) -> frozenset[str]:
    """The classes of one module (top level, by qualified name: `import_name.Class`, the
    bare name when `import_name` is empty) that define forward() and may hold no parameter."""
    if "forward" not in source:
        return frozenset()
    try:
        tree = parse_python(source)
    except (SyntaxError, ValueError, RecursionError):
        return frozenset()
    prefix = f"{import_name}." if import_name else ""
    classes = [node for node in tree.body if isinstance(node, ast.ClassDef)]
    return frozenset(prefix + name for name in bare_class_names(classes))


def bare_class(cls: ast.ClassDef) -> bool:
    """A class of nn.Module (or torch's loss bases) with a forward() whose methods build and
    store no layer or parameter on `self` (the module's docstring says how far it reads)."""
    return cls.name in bare_class_names([cls])


def bare_class_names(classes: list[ast.ClassDef]) -> frozenset[str]:
    """The names of `classes` (one module's top level) that may hold no parameter and have
    a forward(), their own or a base's. A base may be nn.Module or torch's loss bases, or a
    class of `classes` read the same way (stop 60: `class Scaled(PairDistance)` over a
    parameter-free `PairDistance`: DDP's constructor raised on its wrap as on the base's):
    what a base's methods store or call counts for the subclass, and the subclass's calls
    of `self.<method>` may name the base's methods."""
    methods_of: dict[str, frozenset[str]] = {}  # bare so far -> its methods, inherited too
    changed = True
    while changed:
        changed = False
        for cls in classes:
            if cls.name in methods_of:
                continue
            inherited = _inherited_methods(cls, methods_of)
            if inherited is None:
                continue
            own = frozenset(
                n.name for n in cls.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
            )
            if _bare_body(cls, inherited | own):
                methods_of[cls.name] = inherited | own
                changed = True
    return frozenset(name for name, methods in methods_of.items() if "forward" in methods)


def _inherited_methods(
    cls: ast.ClassDef, methods_of: dict[str, frozenset[str]]
) -> frozenset[str] | None:
    """The methods `cls` inherits from its program bases of `methods_of` (none from torch's
    bare bases); None when a base is neither, or the class has keywords (a metaclass)."""
    if not cls.bases or cls.keywords:
        return None
    inherited: frozenset[str] = frozenset()
    for base in cls.bases:
        if isinstance(base, ast.Name) and base.id != cls.name and base.id in methods_of:
            inherited |= methods_of[base.id]
        elif last_name(base) not in BARE_BASES:
            return None
    return inherited


def _bare_body(cls: ast.ClassDef, methods: frozenset[str]) -> bool:
    """`cls`'s own body builds and stores no layer or parameter on `self`, and calls nothing
    stored on `self` but `methods` (its own and its bases')."""
    for statement in cls.body:
        if isinstance(statement, (ast.Assign, ast.AnnAssign)) and _builds(statement.value):
            return False  # a class attribute built by a call: a layer shared by the instances
    for node in ast.walk(cls):
        if isinstance(node, ast.Call) and last_name(node.func) in REGISTERING:
            return False
        if isinstance(node, ast.Call) and _called_attribute(node.func) not in (
            "",
            "register_buffer",  # a buffer is no parameter (FEDformer's PositionalEmbedding)
            *methods,
        ):
            return False  # `self.net(x)`, `self.body.parameters()`: a module handed in
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            # a store on a local (`pe[:, 0::2] = torch.sin(...)`) builds nothing of self
            if any(_on_self(t) for t in _targets(node)) and _builds(node.value):
                return False
    return True


def _targets(node: ast.Assign | ast.AnnAssign | ast.AugAssign) -> list[ast.expr]:
    return node.targets if isinstance(node, ast.Assign) else [node.target]


def _on_self(target: ast.expr) -> bool:
    """`target` stores on `self` (`self.x`, `self.x[k]`, `self.x.y`)."""
    if not isinstance(target, (ast.Attribute, ast.Subscript)):
        return False
    while isinstance(target, (ast.Attribute, ast.Subscript)):
        target = target.value
    return isinstance(target, ast.Name) and target.id == "self"


def empty_classes(import_name: str, source: str) -> frozenset[str]:
    """The classes of `bare_classes` that surely hold no parameter: besides, nothing a
    method is given or reads is stored on `self` (`self.inner = inner` may keep a module
    handed in); buffers (`self.register_buffer(...)`) and numbers only. A layer of such a
    class that forward() never uses leaves no parameter without a gradient (DP041). Also
    the classes holding only parameter-free layers (_free_holder): a criterion over
    `nn.NLLLoss` is no "unused parameters" either (stop 63 s3, EMANet)."""
    bare = bare_classes(import_name, source)
    prefix = f"{import_name}." if import_name else ""
    if "Module" not in source and "Loss" not in source:
        return bare
    try:
        tree = parse_python(source)
    except (SyntaxError, ValueError, RecursionError):
        return bare
    classes = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}
    found = {
        name
        for name, node in classes.items()
        if prefix + name in bare and not any(_keeps(c) for c in _lineage(node, classes))
    }
    torch_nn = _torch_nn_names(tree)
    changed = True
    while changed:  # holders of parameter-free layers (stop 63 s3, EMANet's criterion)
        changed = False
        for name, node in classes.items():
            if name not in found and _free_holder(node, found, torch_nn):
                found.add(name)
                changed = True
    return frozenset(prefix + name for name in found)


def _torch_nn_names(tree: ast.Module) -> frozenset[str]:
    """The spellings of torch.nn this module binds (`nn` of `from torch import nn` or
    `import torch.nn as nn`, `torch.nn` of `import torch`)."""
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module == "torch":
            names |= {a.asname or a.name for a in node.names if a.name == "nn"}
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == "torch.nn" and alias.asname:
                    names.add(alias.asname)
                elif alias.name in ("torch", "torch.nn") and not alias.asname:
                    names.add("torch.nn")
    return frozenset(names)


def _free_layer(value: ast.expr, torch_nn: frozenset[str], free: set[str]) -> bool:
    """`value` builds a module of no parameter: `nn.ReLU()`, a torch loss (`nn.NLLLoss(w)`:
    its weight is a buffer) of one of `torch_nn`'s spellings, or a class of `free`, moved
    (`.cuda()`, `.to(...)`) or not."""
    while (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Attribute)
        and value.func.attr in ("cuda", "to", "cpu")
    ):
        value = value.func.value
    if not isinstance(value, ast.Call):
        return False
    func = value.func
    if isinstance(func, ast.Name):
        return func.id in free
    if not isinstance(func, ast.Attribute) or ast.unparse(func.value) not in torch_nn:
        return False
    last = func.attr
    return last in PARAMETER_FREE or (
        last.endswith("Loss") and last != "AdaptiveLogSoftmaxWithLoss"
    )


def _free_holder(cls: ast.ClassDef, free: set[str], torch_nn: frozenset[str]) -> bool:
    """A class of nn.Module (or torch's loss bases, or of `free`) whose methods store on
    `self` only parameter-free layers (_free_layer) and values that build and read nothing,
    register nothing, and call on `self` only its methods and those layers: it holds no
    parameter, nor does anything below it (EMANet's `CrossEntropyLoss2d` over
    `nn.NLLLoss`)."""
    if not cls.bases or cls.keywords:
        return False
    for base in cls.bases:
        if (
            not (isinstance(base, ast.Name) and base.id in free)
            and last_name(base) not in BARE_BASES
        ):
            return False
    layers: set[str] = set()
    for node in ast.walk(cls):
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)) and node.value:
            in_class = any(node is s for s in cls.body)
            targets = _targets(node)
            if not (in_class or any(_on_self(t) for t in targets)):
                continue
            if _free_layer(node.value, torch_nn, free) and not in_class:
                layers |= {t.attr for t in targets if isinstance(t, ast.Attribute)}
            elif _builds(node.value) or _reads(node.value):
                return False
    methods = {n.name for n in cls.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    for node in ast.walk(cls):
        if isinstance(node, ast.Call):
            if last_name(node.func) in REGISTERING:
                return False
            called = _called_attribute(node.func)
            if called not in ("", "register_buffer", *methods, *layers):
                return False
    return True


def _lineage(cls: ast.ClassDef, classes: dict[str, ast.ClassDef]) -> list[ast.ClassDef]:
    """`cls` and its bases among `classes` (by bare name), transitively."""
    found = [cls]
    for each in found:
        for base in each.bases:
            parent = classes.get(base.id) if isinstance(base, ast.Name) else None
            if parent is not None and all(parent is not f for f in found):
                found.append(parent)
    return found


def _keeps(cls: ast.ClassDef) -> bool:
    """Some statement stores on `self` (or in the class body) a value that reads a name."""
    for node in ast.walk(cls):
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)) and node.value:
            in_class = any(node is s for s in cls.body)
            if (in_class or any(_on_self(t) for t in _targets(node))) and _reads(node.value):
                return True
    return False


def _reads(value: ast.expr) -> bool:
    """`value` reads a name other than what it calls (`torch.cuda.is_available()` reads
    none: its `torch` names the function)."""
    called: set[int] = set()
    for node in ast.walk(value):
        if isinstance(node, ast.Call):
            func = node.func
            while isinstance(func, ast.Attribute):
                func = func.value
            called.add(id(func))
    return any(isinstance(n, ast.Name) and id(n) not in called for n in ast.walk(value))


def _called_attribute(func: ast.expr) -> str:
    """`x` of a call of `self.x(...)` or `self.x.y(...)`; "" for any other callee."""
    while isinstance(func, ast.Attribute) and isinstance(func.value, ast.Attribute):
        func = func.value
    if (
        isinstance(func, ast.Attribute)
        and isinstance(func.value, ast.Name)
        and func.value.id == "self"
    ):
        return func.attr
    return ""


def _builds(value: ast.expr | None) -> bool:
    """`value` calls something that may build a module or a parameter."""
    if value is None:
        return False
    return any(
        isinstance(node, ast.Call) and last_name(node.func) not in PLAIN_CALLS
        for node in ast.walk(value)
    )


def wrapped_call(t: MigrationTransform, module: cst.BaseExpression) -> cst.Call | None:
    """The call that built the wrapped `module` (`Net(...)` of `Net(...).cuda()`), also
    through a name assigned once from one earlier in the same function (built_by's rule) or
    an attribute (`self.loss = DataParallel(self.loss)` after `self.loss = Loss(...)`, or
    `self.losses = nn.ModuleList()` filled later); None if unknown."""
    # Bindings before the wrap's statement (its first line: `self.x = DataParallel(\n
    # self.x)` is no binding of the `self.x` it wraps).
    statement: cst.CSTNode | None = module
    while statement is not None and not isinstance(statement, cst.SimpleStatementLine):
        statement = t.parent(statement)
    at: cst.CSTNode = statement if statement is not None else module
    node: cst.BaseExpression = module
    for _ in range(3):
        node = unmoved(node)
        if isinstance(node, cst.Call):
            return node
        value: cst.BaseExpression | None = None
        if isinstance(node, cst.Name):
            value = assigned_value(t, at, node.value)
        elif isinstance(node, cst.Attribute) and enclosing_function(at, t) is not None:
            value = assigned_value(t, at, t.code(node))
        if value is None:
            return None
        node = value
    return None


def bare_reason(names: set[str], bare: frozenset[str], call: cst.Call) -> str:
    """How a wrap's module, built by `call` of one of `names`, may hold no parameter: a
    program class in `bare` (bare_classes) or a torch.nn one (library_bare); "" otherwise."""
    for name in sorted(names):
        if name in bare:
            return f"its class {name.rsplit('.', 1)[-1]} stores no layer or parameter"
    return library_bare(names, call)


def library_bare(names: set[str], call: cst.Call) -> str:
    """How a torch.nn call may build a module of no parameter: a loss (`nn.CrossEntropyLoss`),
    a parameter-free layer, or a container built empty and filled later (`nn.ModuleList()`,
    MGN-pytorch's list of losses); "" otherwise."""
    for name in sorted(names):
        if not name.startswith("torch.nn.") or ".functional." in name:
            continue
        last = name.rsplit(".", 1)[-1]
        if (last.endswith("Loss") and last != "AdaptiveLogSoftmaxWithLoss") or (
            last in PARAMETER_FREE
        ):
            return f"it is built by {last}, which holds none"
        if last in CONTAINERS and not call.args:
            return f"it is built by an empty {last} filled later"
    return ""
