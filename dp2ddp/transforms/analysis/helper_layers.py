"""Layers `__init__` builds through a helper function of the module (DP041).

`self.convs = clones(nn.Conv1d(c, c, 3), 3)` with `def clones(module, n): return
nn.ModuleList([copy.deepcopy(module) for _ in range(n)])` (the Annotated Transformer's
helper; emadeldeen24/AttnSleep@6b4d266 model/model.py, issue 28 round 23): the attribute
holds a container of three layers, as the helper's one `return` says once its parameters
are read as the call's arguments. partial_forward.py registers such an attribute as it does
the expression the helper returns, and fixed_entries.py counts its entries.

Inlined only where the helper is a module-level function whose body (past a docstring) is
one `return <expression>` and the call binds every parameter the expression reads (by
position, keyword or default; no `*args`/`**kwargs` on either side).

A method of the class called on `self` is read the same way (`self.layer5 =
self._make_pred_layer(Classifier_Module, 1024, ...)` whose one `return block(inplanes, ...)`
builds the class handed in: ZJULearning/MaxSquareLoss@2fbc18f's DeepLab, round 37, whose
auxiliary head fed only the second output and got no DP041); so is one whose every `return`
gives the same layer expression that reads no parameter (torchvision's `_make_layer`, which
builds a list and returns `nn.Sequential(*layers)`).
"""

from __future__ import annotations

import ast
import copy
from collections.abc import Mapping

Functions = Mapping[str, ast.FunctionDef | ast.AsyncFunctionDef]


def inlined(value: ast.expr, functions: Functions) -> ast.expr | None:
    """The expression `value` (a call of one of the module's `functions`) returns, with the
    helper's parameters replaced by the call's arguments; None where it is no such call."""
    if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Name)):
        return None
    helper = functions.get(value.func.id)
    if helper is None or isinstance(helper, ast.AsyncFunctionDef):
        return None
    body = helper.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]  # the docstring
    if len(body) != 1 or not isinstance(body[0], ast.Return) or body[0].value is None:
        return None
    bound = _bind(helper.args, value)
    stored = {
        n.id if isinstance(n, ast.Name) else n.arg
        for n in ast.walk(body[0].value)
        if (isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)) or isinstance(n, ast.arg)
    }
    if bound is None or stored & bound.keys():
        return None  # a comprehension rebinding a parameter's name: not substituted
    result = _Substitute(bound).visit(copy.deepcopy(body[0].value))
    return result if isinstance(result, ast.expr) else None


def method_inlined(value: ast.expr, methods: Functions, me: str) -> ast.expr | None:
    """The expression `value` (a call `me.method(...)` of one of the class's `methods`)
    returns: its one `return` with the parameters past the first replaced by the call's
    arguments, or the one expression every `return` of a longer body gives, where it reads
    no parameter; None otherwise."""
    if not (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Attribute)
        and isinstance(value.func.value, ast.Name)
        and value.func.value.id == me
    ):
        return None
    method = methods.get(value.func.attr)
    if method is None or isinstance(method, ast.AsyncFunctionDef) or not method.args.args:
        return None
    arguments = copy.copy(method.args)
    arguments.args = method.args.args[1:]  # `self` is the receiver, not an argument
    shorn = ast.FunctionDef(
        name=method.name, args=arguments, body=method.body, decorator_list=[], returns=None
    )
    if (
        single := inlined(
            ast.Call(ast.Name(method.name), value.args, value.keywords), {method.name: shorn}
        )
    ) is not None:
        return single
    returned = [
        n.value for n in ast.walk(method) if isinstance(n, ast.Return) and n.value is not None
    ]
    spelled = {ast.dump(r) for r in returned}
    if len(spelled) != 1:
        return None
    parameters = {a.arg for a in (*method.args.args, *method.args.kwonlyargs)}
    reads = {n.id for n in ast.walk(returned[0]) if isinstance(n, ast.Name)}
    return None if reads & parameters else returned[0]


def _bind(arguments: ast.arguments, call: ast.Call) -> dict[str, ast.expr] | None:
    """Parameter name -> the argument the call gives it (or its default)."""
    if arguments.vararg or arguments.kwarg or arguments.posonlyargs:
        return None
    if any(isinstance(a, ast.Starred) for a in call.args) or any(
        k.arg is None for k in call.keywords
    ):
        return None
    names = [a.arg for a in arguments.args]
    if len(call.args) > len(names):
        return None
    bound: dict[str, ast.expr] = dict(zip(names, call.args, strict=False))
    defaulted = names[len(names) - len(arguments.defaults) :]
    defaults = dict(zip(defaulted, arguments.defaults, strict=True))
    for keyword in call.keywords:
        known = names + [a.arg for a in arguments.kwonlyargs]
        if keyword.arg in bound or keyword.arg not in known:
            return None
        bound[str(keyword.arg)] = keyword.value
    for name, default in defaults.items():
        bound.setdefault(name, default)
    for kwonly, given in zip(arguments.kwonlyargs, arguments.kw_defaults, strict=True):
        if given is not None:
            bound.setdefault(kwonly.arg, given)
    return bound


class _Substitute(ast.NodeTransformer):
    def __init__(self, bound: dict[str, ast.expr]) -> None:
        self.bound = bound

    def visit_Name(self, node: ast.Name) -> ast.expr:
        if isinstance(node.ctx, ast.Load) and node.id in self.bound:
            return ast.copy_location(copy.deepcopy(self.bound[node.id]), node)
        return node
