"""Losses whose reduction is a value, not a literal, and not proved a mean (DP121).

meetps/pytorch-semseg@801fb20: `cross_entropy2d(input, target, weight=None,
size_average=True)` calls `F.cross_entropy(..., size_average=size_average)`
(ptsemseg/loss/loss.py:16), and the program builds its loss as `functools.partial(
key2loss[name], **params)` from the YAML config (loss/__init__.py:35), whose shipped
`size_average: False` makes it a sum. DP004 reads a literal `reduction='sum'` /
`size_average=False` and DP043 a literal mean; a value passed in was neither, and DDP's
update was half DataParallel's with nothing said (validation round 1 of stop 49, r1-A).

For a torch loss (a `torch.nn.functional` loss call that may reach backward(), or a
`torch.nn.*Loss` built where losses train) given `reduction=`, `size_average=` or
`reduce=` as anything but a literal, or a `**mapping` that may hold them: the value's
origins (flow/origins.py) must all be constants, none a sum, and none a parameter's default
taken where the callers are not all in view (the function has no call in its module, or is
also handed on as a value: `functools.partial(f, **config)`, `{"ce": f}`, a constructor
called only from another module). Otherwise the reduction is decided where dp2ddp cannot
see it, and DP121 says so at the argument.
"""

from __future__ import annotations

import libcst as cst

from dp2ddp.flow import DefUse, Function, Origin, code, origins
from dp2ddp.transforms.hazards.losses import string_value

#: (the program imports the module, its classes no other module names): who may call.
Imported = tuple[bool, frozenset[str]]
#: The keywords that decide a torch loss's reduction.
_KEYWORDS = ("reduction", "size_average", "reduce")


def is_torch_loss(names: set[str]) -> bool:
    """A `torch.nn.functional` loss (by its name: `*loss*`, `*entropy*`, `kl_div`) or a
    `torch.nn` loss class."""
    for name in names:
        last = name.rsplit(".", 1)[-1]
        if name.startswith("torch.nn.functional."):
            if "loss" in last or "entropy" in last or last == "kl_div":
                return True
        elif name.startswith("torch.nn.") and last.endswith("Loss") and last[:1].isupper():
            return True
    return False


def chosen_reduction(
    flow: DefUse, call: cst.Call, imported: bool, home: frozenset[str] = frozenset()
) -> tuple[cst.Arg, str] | None:
    """(the argument, the warning's detail) for a torch loss `call` whose reduction is not
    proved a mean, or None where every reduction argument is a literal or proved one.
    `home`: its classes no other module names (ProgramHints.home_classes): an `__init__`
    of one is called only here, imported or not (EMANet's CrossEntropyLoss2d, stop 63 s3).
    `imported`: the program imports this module, so its top-level functions and classes may
    be called from the other modules too."""
    func = code(call.func)
    for arg in call.args:
        if arg.star == "**":
            if _passed_on_empty(flow, call, arg.value, (imported, home)):
                continue
            return arg, f"{func}(..., **{code(arg.value)}): the mapping may set its reduction"
        keyword = arg.keyword.value if arg.keyword is not None else ""
        if keyword not in _KEYWORDS or _literal(arg.value):
            continue
        why = _not_proved(flow, keyword, arg.value, (imported, home))
        if why is not None:
            return arg, f"{func}(..., {keyword}={code(arg.value)}): {why}"
    return None


def _literal(node: cst.BaseExpression) -> bool:
    return string_value(node) is not None or (
        isinstance(node, cst.Name) and node.value in ("True", "False", "None")
    )


def _not_proved(
    flow: DefUse, keyword: str, value: cst.BaseExpression, imported: Imported
) -> str | None:
    """Why `keyword=value` is not proved a mean reduction, or None where it is."""
    found = origins(flow, value)
    if not found:
        return "its value is not known here"
    for origin in found:
        if origin.kind != "constant":
            return f"its value comes from {_source(origin)}"
        elsewhere = _default_for_callers_elsewhere(flow, origin, imported)
        if elsewhere is not None:
            return elsewhere
        if _sums(keyword, origin.node):
            return f"one of its values is {code(origin.node)}, a sum"
    return None


def _source(origin: Origin) -> str:
    kinds = {
        "parameter": "a parameter no call of its module passes",
        "import": "another module",
        "call": "a call",
        "attribute": "an attribute",
    }
    what = kinds.get(origin.kind, "a value dp2ddp does not follow")
    return f"{what} ({code(origin.node)})" if origin.kind != "parameter" else what


def _default_for_callers_elsewhere(flow: DefUse, origin: Origin, imported: Imported) -> str | None:
    """The origin is a parameter's default, and the function's callers are not all in its
    module: it has no call there, is handed on as a value (`partial(f, **config)`), or is a
    top-level function (a top-level class's method) of a module the program imports."""
    for step in origin.path:
        param = flow.parent(step.node)
        if not (isinstance(param, cst.Param) and param.default is step.node):
            continue
        function = flow.function_around(param)
        if function is None:
            return f"{param.name.value}'s default, set by callers dp2ddp does not see"
        why = _elsewhere_why(flow, function, imported)
        if why:
            return (
                f"{param.name.value}={code(step.node)} is the default of {function.name}(), {why}"
            )
    return None


def _callers_elsewhere(flow: DefUse, function: Function, imported: Imported) -> bool:
    """Not every call of `function` is one of its module's calls."""
    return bool(_elsewhere_why(flow, function, imported))


def _elsewhere_why(flow: DefUse, function: Function, imported: Imported) -> str:
    """Why not every call of `function` is in view, as DP121 says it (what was found, not
    the three ways at once: stop 63 s3, EMANet's `CrossEntropyLoss2d`); "" where all are."""
    if _handed_on(flow, function.node):
        return "which is handed on as a value (functools.partial, a table): callers not read"
    if not flow.call_sites(function):
        return "which no call of this module makes (its callers are not read)"
    top = function.owner if function.owner is not None else function.node
    owned = function.name == "__init__" and top is not function.node  # built only here:
    owned = owned and isinstance(top, cst.ClassDef) and top.name.value in imported[1]
    if imported[0] and flow.parent(top) is flow.module and not owned:
        return "in a module the program imports: other modules may call it with another value"
    return ""


def _passed_on_empty(
    flow: DefUse, call: cst.Call, mapping: cst.BaseExpression, imported: Imported
) -> bool:
    """`**kwargs` of the enclosing function, every call of which is in view and passes no
    keyword beyond the function's named parameters: the mapping is empty."""
    function = flow.function_around(call)
    if function is None or not isinstance(mapping, cst.Name):
        return False
    star = function.node.params.star_kwarg
    if not isinstance(star, cst.Param) or star.name.value != mapping.value:
        return False
    if _callers_elsewhere(flow, function, imported):
        return False
    sites = flow.call_sites(function)
    named = {p.name.value for p in function.params}
    return all(
        a.star != "**" and (a.keyword is None or a.keyword.value in named)
        for site in sites
        for a in site.args
    )


def _handed_on(flow: DefUse, node: cst.CSTNode) -> bool:
    """A function (or the class of an `__init__`) named somewhere other than as a callee."""
    owner = node
    if isinstance(node, cst.FunctionDef) and node.name.value == "__init__":
        owner = next((a for a in flow.ancestors(node) if isinstance(a, cst.ClassDef)), node)
    if not isinstance(owner, (cst.FunctionDef, cst.ClassDef)):
        return False
    scope = flow.scope_of(owner)
    for use in flow.uses(scope, owner.name.value):
        parent = flow.parent(use)
        if isinstance(parent, cst.Arg) and _super_call(flow.parent(parent)):
            continue  # `super(C, self).__init__()`: no handing on
        if not (isinstance(parent, cst.Call) and parent.func is use):
            return True
    return False


def _super_call(node: cst.CSTNode | None) -> bool:
    return isinstance(node, cst.Call) and code(node.func) == "super"


def _sums(keyword: str, node: cst.CSTNode) -> bool:
    if keyword == "reduction":
        return isinstance(node, cst.SimpleString) and string_value(node) == "sum"
    # size_average=False sums (unless reduce=False, which keeps each element: no sum)
    return keyword == "size_average" and isinstance(node, cst.Name) and node.value == "False"
