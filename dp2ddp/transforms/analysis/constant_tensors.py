"""A tensor a function builds from constants alone, never from the batch (DP040's evidence).

An SSIM loss builds its Gaussian window as `_1D_window.mm(_1D_window.t())`: the product of a
value with its own transpose, which batch_pairs.py reads as every row of a batch against
every other. But `_1D_window = gaussian(window_size, 1.5).unsqueeze(1)`, and `gaussian`
returns `gauss / gauss.sum()` of `gauss = torch.Tensor([exp(...) for x in
range(window_size)])`: a tensor made of Python numbers, whose rows are the window's, not
the batch's samples (round 14 v1-D, gcharvi31/Future-Frame-Prediction-and-Segmentation@
b64a0c3's ssim_loss; DP040 failed `--check` on it). Proved here, over `ast`: a name whose
every binding in its function is made of constants: numbers, a tensor constructor of a
list, tuple or comprehension (`torch.Tensor([...])`, `torch.tensor(...)`), of sizes
(`torch.ones(n)`, `arange`, `linspace`, `eye`...), such values combined by arithmetic, put
through a method that keeps their values (`unsqueeze`, `float`, `t()`, `sum()`,
`expand(...)`...) or `Variable(...)`, and the returns of the module's own functions so made
(called by name) or of the class's own methods (`self.gaussian(...)`, stop 62's real
losses.py). A parameter, an attribute, anything else: not proved.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping

from dp2ddp.transforms._support import ast_nodes

#: torch constructors whose arguments are data as Python values or sizes: no batch in them.
_CONSTRUCTORS = frozenset(
    {"Tensor", "FloatTensor", "DoubleTensor", "LongTensor", "tensor", "as_tensor"}
)
_SIZED = frozenset({"ones", "zeros", "full", "arange", "linspace", "logspace", "eye", "empty"})
#: Methods (and torch functions) that keep a constant value constant, whatever their
#: arguments (sizes, dtypes, devices).
_KEEPING = frozenset(
    {
        "unsqueeze", "squeeze", "float", "double", "half", "t", "view", "reshape", "expand",
        "contiguous", "sum", "mean", "repeat", "clone", "detach", "to", "cuda", "cpu",
        "transpose", "permute", "flatten", "exp", "sqrt", "pow", "abs", "type", "outer",
    }
)  # fmt: skip
#: How deep the module's functions are followed.
_DEPTH = 4


def constant_made(
    name: str,
    function: ast.FunctionDef | ast.AsyncFunctionDef,
    own: Mapping[str, ast.FunctionDef],
    depth: int = _DEPTH,
) -> bool:
    """Every binding of `name` in `function` is made of constants (module docstring)."""
    values: list[ast.expr] = []
    for node in ast_nodes.walk(function):
        if isinstance(node, ast.Assign):
            if any(_binds(t, name) for t in node.targets):
                if not (len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)):
                    return False  # unpacked, or chained: not followed
                values.append(node.value)
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.For, ast.With, ast.NamedExpr)):
            targets = (
                [node.target]
                if not isinstance(node, ast.With)
                else [i.optional_vars for i in node.items if i.optional_vars is not None]
            )
            if any(_binds(t, name) for t in targets):
                return False
        elif isinstance(node, (ast.Global, ast.Nonlocal)) and name in node.names:
            return False
    arguments = function.args
    params = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]
    if any(p.arg == name for p in params) or not values:
        return False
    return all(_constant(v, function, own, depth) for v in values)


def _binds(target: ast.expr, name: str) -> bool:
    if isinstance(target, ast.Name):
        return target.id == name
    if isinstance(target, (ast.Tuple, ast.List)):
        return any(_binds(e, name) for e in target.elts)
    if isinstance(target, ast.Starred):
        return _binds(target.value, name)
    return False


def _last(func: ast.expr) -> str:
    if isinstance(func, ast.Attribute):
        return func.attr
    return func.id if isinstance(func, ast.Name) else ""


def _constant(
    node: ast.expr,
    function: ast.FunctionDef | ast.AsyncFunctionDef,
    own: Mapping[str, ast.FunctionDef],
    depth: int,
) -> bool:
    if isinstance(node, ast.Constant):
        return isinstance(node.value, (int, float)) and not isinstance(node.value, bool)
    if isinstance(node, ast.Name):
        return depth > 0 and constant_made(node.id, function, own, depth - 1)
    if isinstance(node, ast.BinOp):
        return all(_constant(side, function, own, depth) for side in (node.left, node.right))
    if isinstance(node, ast.UnaryOp):
        return _constant(node.operand, function, own, depth)
    if isinstance(node, ast.Attribute):  # `w.T`
        return node.attr == "T" and _constant(node.value, function, own, depth)
    if not isinstance(node, ast.Call):
        return False
    func, last = node.func, _last(node.func)
    torch_call = isinstance(func, ast.Attribute) and ast_nodes.dotted(func.value) == ["torch"]
    if torch_call and last in _CONSTRUCTORS:
        return bool(node.args) and isinstance(node.args[0], (ast.List, ast.Tuple, ast.ListComp))
    if torch_call and last in _SIZED:
        return True
    if torch_call and last in _KEEPING:  # torch.exp(w)
        return bool(node.args) and _constant(node.args[0], function, own, depth)
    if isinstance(func, ast.Name) and func.id == "Variable" and node.args:
        return _constant(node.args[0], function, own, depth)
    if isinstance(func, ast.Attribute) and last in _KEEPING and not torch_call:
        operands = [func.value, *node.args[:1]] if last == "outer" else [func.value]
        return all(_constant(o, function, own, depth) for o in operands)
    # the module's own function by name, or the class's own method (`self.gaussian(...)`,
    # told as ".gaussian")
    key = func.id if isinstance(func, ast.Name) else ""
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
        key = f".{func.attr}"
    if key in own and depth > 0:
        callee = own[key]
        returns = [
            n.value
            for n in ast_nodes.walk(callee)
            if isinstance(n, ast.Return) and n.value is not None
        ]
        return bool(returns) and all(_constant(r, callee, own, depth - 1) for r in returns)
    return False
