"""Which torch.nn layers hold parameters, and what a module's names stand for: the
facts partial_forward.py reads `__init__` with (a layer of a parameter-free class left unused
costs DDP nothing)."""

from __future__ import annotations

import ast
from collections.abc import Container, Mapping, Sequence

from dp2ddp.transforms._support.ast_nodes import from_import_base, import_binding

#: torch.nn classes that hold no parameters: a layer of these left unused costs DDP nothing.
PARAMETER_FREE = frozenset(
    {
        "ReLU", "ReLU6", "LeakyReLU", "ELU", "SELU", "CELU", "GELU", "SiLU", "Mish", "Sigmoid",
        "Tanh", "Softmax", "Softmax2d", "LogSoftmax", "Softplus", "Softsign", "Hardtanh",
        "Hardswish", "Hardsigmoid", "Threshold", "Tanhshrink", "Softshrink", "Hardshrink",
        "LogSigmoid", "Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout",
        "FeatureAlphaDropout", "MaxPool1d", "MaxPool2d", "MaxPool3d", "AvgPool1d", "AvgPool2d",
        "AvgPool3d", "AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveAvgPool3d",
        "AdaptiveMaxPool1d", "AdaptiveMaxPool2d", "AdaptiveMaxPool3d", "LPPool1d", "LPPool2d",
        "MaxUnpool1d", "MaxUnpool2d", "MaxUnpool3d", "Identity", "Flatten", "Unflatten",
        "Upsample", "UpsamplingNearest2d", "UpsamplingBilinear2d", "PixelShuffle",
        "PixelUnshuffle", "ZeroPad2d", "ConstantPad1d", "ConstantPad2d", "ConstantPad3d",
        "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d", "ReplicationPad1d",
        "ReplicationPad2d", "ReplicationPad3d", "CosineSimilarity", "PairwiseDistance",
        "ChannelShuffle", "Fold", "Unfold",
    }
)  # fmt: skip
CONTAINERS = frozenset({"ModuleList", "Sequential", "ModuleDict", "ParameterList", "ParameterDict"})


#: Libraries whose callables build models (torchvision's `resnet50`, `VGG`, timm's
#: `create_model`), and their callables that build none.
_MODEL_LIBRARIES = ("torchvision.models.", "timm.models.", "timm.create_model")
_NO_MODEL = frozenset({"get_weight", "get_model_weights", "list_models", "get_model_builder"})


def has_parameters(
    value: ast.expr, imports: Mapping[str, str], local: set[str], prefix: str
) -> str | None:
    """Whether `value` builds a module with parameters (or a parameter): "" for a torch.nn
    layer that has some, a container or nn.Parameter; the qualified name for a class of the
    project (it counts if that is an nn.Module class); None for anything else. Either arm of
    a conditional expression (`vgg16() if pretrained else None`) may be the one built."""
    if isinstance(value, ast.IfExp):
        for arm in (value.body, value.orelse):
            if (holds := has_parameters(arm, imports, local, prefix)) is not None:
                return holds
        return None
    if not isinstance(value, ast.Call):
        return None
    if isinstance(value.func, ast.Attribute) and value.func.attr == "from_pretrained":
        # A library's pretrained model (`BertModel.from_pretrained(...)`): it has weights
        # (Kyubyong/bert_ner@dd0e190 ran it with gradients on one branch only; stop 43 v2-E)
        return ""
    resolved = resolve(value.func, imports, local, prefix)
    if resolved is None:
        return None
    name, project = resolved
    if project:
        return name
    if name.startswith(_MODEL_LIBRARIES) and name.rsplit(".", 1)[-1] not in _NO_MODEL:
        # A library's model constructor (`vgg.vgg16(pretrained=False)`, `timm.create_model`):
        # it has weights (round 30, juhongm999/hsnet@6b1bc12's backbone, run under
        # no_grad(): no DP041 before, "Expected to have finished reduction" at step 2)
        return ""
    if not name.startswith("torch.nn."):
        return None
    last = name.rsplit(".", 1)[-1]
    if last in CONTAINERS:
        return "" if value.args or value.keywords else None
    parameterized = (
        last not in PARAMETER_FREE
        and not last.endswith("Loss")
        and last[:1].isupper()
        and ".functional." not in name
    )
    return "" if parameterized else None


def resolve(
    func: ast.expr, imports: Mapping[str, str], local: set[str], prefix: str
) -> tuple[str, bool] | None:
    """The qualified name `func` names, and whether it may be a class of the project (a
    local class, or a name imported from somewhere that is not torch)."""
    parts: list[str] = []
    node = func
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    parts.reverse()
    head = parts[0]
    if head in local and len(parts) == 1:
        return prefix + head, True
    if head not in imports and "*" in imports and len(parts) == 1 and head[:1].isupper():
        # A class name bound by nothing but a star import of the project's: that module's
        # (it counts only if the program has such an nn.Module class: ClassFacts.partial).
        return f"{imports['*']}.{head}", True
    if head not in imports:
        return None
    name = ".".join([imports[head], *parts[1:]])
    project = not name.startswith(("torch.", "numpy.", "math.", "collections.", "functools."))
    return name, project and parts[-1][:1].isupper()


def module_imports(tree: ast.Module, import_name: str, is_package: bool) -> dict[str, str]:
    """Name bound at module level -> the qualified name it stands for."""
    package = import_name if is_package else import_name.rpartition(".")[0]
    bound: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.Import):
            bound.update(import_binding(alias) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = from_import_base(package, node)
            if base is None:
                continue
            for alias in node.names:
                if alias.name != "*":
                    bound[alias.asname or alias.name] = f"{base}.{alias.name}".lstrip(".")
                elif "*" not in bound and not base.startswith(("torch", "numpy")):
                    # `from module import *` (soobinseo/Transformer-TTS's network.py, whose
                    # layers are module.py's `Linear`, `Conv`): see _resolve.
                    bound["*"] = base.lstrip(".")
    if "nn" not in bound:
        bound["nn"] = "torch.nn"  # `from torch import nn` is the usual; a star import too
    # an import inside a method (`from transformers import BertModel` in __init__: round
    # 37, kamalkraj/BERT-NER@e5be564's pattern): what the method binds, where the module
    # binds nothing of that name
    for method in (n for c in tree.body if isinstance(c, ast.ClassDef) for n in c.body):
        if isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for inner in _statements(method.body):
                if isinstance(inner, ast.Import):
                    for name, qualified in (import_binding(a) for a in inner.names):
                        bound.setdefault(name, qualified)
                elif isinstance(inner, ast.ImportFrom) and inner.level == 0 and inner.module:
                    for alias in inner.names:
                        if alias.name != "*":
                            bound.setdefault(
                                alias.asname or alias.name, f"{inner.module}.{alias.name}"
                            )
    return bound


def _statements(body: list[ast.stmt]) -> list[ast.stmt]:
    """The statements of `body` and of the blocks nested in them (`if`, `try`, `with`,
    loops), not their expressions: an import is a statement (cheaper than a full walk)."""
    found: list[ast.stmt] = []
    pending = list(body)
    while pending:
        statement = pending.pop()
        found.append(statement)
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        for field in ("body", "orelse", "finalbody"):
            pending.extend(getattr(statement, field, ()))
        for handler in getattr(statement, "handlers", ()):
            pending.extend(handler.body)
    return found


#: Calls whose argument a container's layers pass through whole (`list(self.convs.values())`).
_WHOLE = frozenset({"list", "tuple", "ModuleList", "Sequential", "ModuleDict"})


def contents_of(
    statement: ast.Assign | ast.AnnAssign, me: str, layers: Container[str]
) -> frozenset[str]:
    """The attributes of `me` whose contents `statement`'s value holds whole: `self.net =
    nn.ModuleList(list(self.convs.values()))` (a plain dict of layers, registered through a
    ModuleList: SC-SfMLearner's PoseDecoder, stop 40), `nn.Sequential(*self.layers)`,
    `nn.ModuleList(self.blocks)`. forward() reaching the layers through either name uses
    them (an alias, as a chained assignment's). Not an attribute read as a size
    (`nn.Linear(self.hidden, 2)`): only a container's values, items, a spread or the whole
    argument of a container call. Not one of `layers` (the attributes registered as
    layers): only a plain dict or list; a layer held by a Sequential is its holders' affair
    (layer_holders.holders)."""
    found: set[str] = set()
    for node in ast.walk(statement.value) if statement.value is not None else ():
        container: ast.expr | None = None
        if isinstance(node, ast.Starred):
            container = node.value
        elif isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Attribute) and func.attr in ("values", "items"):
                container = func.value
            else:
                name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
                if name in _WHOLE and len(node.args) == 1:
                    container = node.args[0]
        if (
            isinstance(container, ast.Attribute)
            and isinstance(container.value, ast.Name)
            and container.value.id == me
            and container.attr not in layers
        ):
            found.add(container.attr)
    return frozenset(found)


#: Tensor methods whose value is a new tensor, never a parameter (`p.detach()` neither).
_NEW_TENSOR_METHODS = frozenset(
    {"detach", "clone", "new_zeros", "new_ones", "new_full", "new_empty", "new_tensor"}
)


def made_tensor(node: ast.expr) -> bool:
    """`node` is a tensor the expression makes, no parameter of a model: a call of a
    function of `torch` itself (`torch.zeros_like(x)`, not `torch.nn.Parameter(...)`) or a
    tensor method that returns a new one (`x.detach()`). Its `requires_grad_(False)` (a
    loss mask, key2miao/TSTNN@ed1b212's compLossMask, stop 59 s2) freezes no layer."""
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
        return False
    func = node.func
    if isinstance(func.value, ast.Name) and func.value.id == "torch":
        return func.attr != "Parameter"
    return func.attr in _NEW_TENSOR_METHODS


Function = ast.FunctionDef | ast.AsyncFunctionDef
#: A function's parameters, its bindings of each name, and the values it assigns each.
_Bindings = tuple[set[str], dict[str, int], dict[str, list[ast.expr]]]


class PlainToggles:
    """Which `name.requires_grad = ...` statements set the flag of a tensor no parameter can
    be: in a function around it, every binding of the name (but an augmented assignment's,
    which keeps what it was) is a plain assignment of arithmetic or a part (`torch.rand(n,
    3) * 2.2 - 1`, `f(x) * 1.1`, `x[mask]`: an operation on a Parameter, or a part of one,
    is a plain tensor) or of a tensor made anew (made_tensor), and the name is no parameter
    of the function. Its `requires_grad = False` freezes no layer (marian42/shapegan@090a6a8
    model/sdf_net.py:143, `points.requires_grad = False` after the surface normals'
    backward, stop 62 v3-B: said to switch a model's parameters off, DP041 and
    find_unused_parameters on every wrap). Only the functions around such a statement are
    read (their bindings once each), not every function of the module."""

    def __init__(self) -> None:
        self._read: dict[int, _Bindings] = {}

    def holds(self, node: ast.AST, functions: Sequence[Function]) -> bool:
        """`node` is such a statement, read in `functions`, those around it."""
        flag = node.targets[0] if isinstance(node, ast.Assign) else None
        if not isinstance(flag, ast.Attribute) or flag.attr != "requires_grad":
            return False
        if not isinstance(flag.value, ast.Name):
            return False
        return any(self._plain(function, flag.value.id) for function in functions)

    def _plain(self, function: Function, name: str) -> bool:
        read = self._read.get(id(function))
        if read is None:
            read = self._read[id(function)] = _bindings(function)
        arguments, stores, values = read
        bound = values.get(name, [])
        return (
            bool(bound)
            and name not in arguments
            and stores.get(name) == len(bound)
            and all(isinstance(v, _NO_PARAMETER) or made_tensor(v) for v in bound)
        )


def _bindings(function: Function) -> _Bindings:
    """(PlainToggles) the function's parameters, stores of each name, values assigned."""
    arguments = {a.arg for a in ast.walk(function.args) if isinstance(a, ast.arg)}
    stores: dict[str, int] = {}
    values: dict[str, list[ast.expr]] = {}
    # `x -= y` keeps what x was: its target is no binding here
    kept = {id(n.target) for n in ast.walk(function) if isinstance(n, ast.AugAssign)}
    for node in ast.walk(function):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            if id(node) not in kept:
                stores[node.id] = stores.get(node.id, 0) + 1
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if isinstance(target, ast.Name):
                values.setdefault(target.id, []).append(node.value)
    return arguments, stores, values


#: Expressions whose value is never a Parameter: an operation on one, or a part of one.
_NO_PARAMETER = (ast.BinOp, ast.UnaryOp, ast.Subscript)


def bound_layer_call(
    value: ast.expr, function: ast.FunctionDef | ast.AsyncFunctionDef
) -> ast.Call | None:
    """`norm_layer(width)` where `function` binds the name `norm_layer` to a class, by a
    plain assignment (`if norm_layer is None: norm_layer = nn.BatchNorm1d`) or as its
    parameter's default (`norm_layer=nn.BatchNorm2d`): the call as of that class,
    `nn.BatchNorm1d(width)`, for has_parameters to read; None otherwise. torchvision's
    ResNet idiom (round 34, y-zheng18/Image-classification@c5b91ae: `self.bn1 =
    norm_layer(w)` never used in forward() was not seen as a layer, no DP041, and DDP failed
    at the second step)."""
    if not isinstance(value, ast.Call) or not isinstance(value.func, ast.Name):
        return None
    name = value.func.id
    classes: list[ast.expr] = [
        node.value
        for node in ast.walk(function)
        if isinstance(node, ast.Assign)
        and len(node.targets) == 1
        and isinstance(node.targets[0], ast.Name)
        and node.targets[0].id == name
    ]
    arguments = function.args
    positional = [*arguments.posonlyargs, *arguments.args]
    defaults: list[tuple[ast.arg, ast.expr | None]] = [
        *zip(
            positional[len(positional) - len(arguments.defaults) :], arguments.defaults, strict=True
        ),
        *zip(arguments.kwonlyargs, arguments.kw_defaults, strict=True),
    ]
    classes += [default for arg, default in defaults if arg.arg == name and default is not None]
    for found in classes:
        if isinstance(found, (ast.Attribute, ast.Name)):
            return ast.Call(func=found, args=value.args, keywords=value.keywords)
    return None
