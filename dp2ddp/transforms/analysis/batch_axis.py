"""Where the batch's rows are in each value a forward() computes from its inputs.

DataParallel scatters a model's inputs along the wrap's dim 0: a forward() is row-wise
(what each chunk, each rank's share, computes is the whole batch's cut) until it reduces
over the dim that holds the rows. A reduction spelled over dim 0 of an input is the easy
case; round 21's WenbinLee/CovaMNet@d65d0bc spelled its covariance as
`x.permute(1, 0, 2, 3).contiguous().view(C, -1)` and then `torch.mean(x, 1, True)`: the rows
moved to dim 1, merged with the pixels, and were pooled there. This module follows the
rows' dim through a forward() in source order (permute, transpose, .t(), view/reshape,
flatten, squeeze/unsqueeze, reductions keeping or dropping dims, elementwise arithmetic,
submodule and helper calls, elements of an input list) to the reductions that pool them,
and answers those whose value reaches what forward() returns (a statistic only stored on
`self`, DP007's, couples no output). A value whose rows it cannot place is dropped (no
finding): the proof is of a coupling, and DP217 is a note. One reader, on `ast`, for the
program's classes (ModelClass.pools) and a single file's (hazards/coupled_forwards.py).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

#: Reductions over the dims given (first argument or dim=) that mix the rows they reduce.
REDUCTIONS = frozenset(
    {"mean", "sum", "std", "var", "logsumexp", "norm", "prod", "amax", "amin", "median"}
)
#: Methods that keep every dim where it is.
_KEEPING = frozenset(
    {
        "contiguous", "float", "double", "half", "clone", "detach", "to", "cuda", "cpu",
        "abs", "exp", "log", "sqrt", "pow", "relu", "sigmoid", "tanh", "softmax",
        "log_softmax", "clamp", "type_as", "add", "sub", "mul", "div", "neg",
    }
)  # fmt: skip
_MODULES = frozenset({"torch", "F", "functional"})


@dataclass(frozen=True)
class Rows:
    """The rows are dim `at` of the value; `merged`: that dim also holds other elements
    (a view folded them together)."""

    at: int
    merged: bool = False


def class_pools(cls: ast.ClassDef, path: str) -> str:
    """`path:line: expression` of the first reduction in the class's forward() (or in a
    method of its own that forward() calls, `self.cal_covariance(x2)`) that pools the rows
    of a value of forward()'s inputs and reaches what forward() returns; "" if none."""
    methods = {n.name: n for n in cls.body if isinstance(n, ast.FunctionDef)}
    forward = methods.get("forward")
    if forward is None:
        return ""
    found = _pooled(forward, [Rows(0)] * len(forward.args.args[1:]), methods, 0)
    if not found:
        return ""
    return f"{path}:{found[0][1].lineno}: {ast.unparse(found[0][1])[:70]}"


@dataclass
class _Scope:
    rows: dict[str, Rows]
    sizes: set[str] = field(default_factory=set)  # names bound to the row count
    #: names a loop over the row count binds (`for i in range(B)`): `x[i]` is one row
    row_indices: set[str] = field(default_factory=set)
    found: list[tuple[ast.Call, ast.Call]] = field(default_factory=list)
    methods: dict[str, ast.FunctionDef] = field(default_factory=dict)
    depth: int = 0


def _pooled(
    function: ast.FunctionDef,
    given: list[Rows | None],
    methods: dict[str, ast.FunctionDef],
    depth: int,
) -> list[tuple[ast.Call, ast.Call]]:
    """(call to follow to the return, the reduction) for each pooling in `function` whose
    value reaches its return; `given`: the rows of its parameters after `self`."""
    params = [a.arg for a in function.args.args[1:]]
    rows = {name: r for name, r in zip(params, given, strict=False) if r is not None}
    rows |= {a.arg: Rows(0) for a in function.args.kwonlyargs} if depth == 0 else {}
    scope = _Scope(rows, methods=methods, depth=depth)
    for statement in function.body:
        _statement(statement, scope)
    return [(call, inner) for call, inner in scope.found if _returned(function, call)]


def _statement(node: ast.stmt, scope: _Scope) -> None:
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return
    if isinstance(node, ast.Assign):
        value = _rows(node.value, scope)
        for target in node.targets:
            _bind(target, node.value, value, scope)
        return
    if isinstance(node, ast.AnnAssign) and node.value is not None:
        _bind(node.target, node.value, _rows(node.value, scope), scope)
        return
    if isinstance(node, (ast.For, ast.AsyncFor)):
        each = _rows(node.iter, scope)
        if isinstance(node.iter, ast.Call) and isinstance(node.iter.func, ast.Name):
            each = None if node.iter.func.id in ("range", "enumerate", "zip") else each
        _bind(node.target, node.iter, each, scope)
        if isinstance(node.target, ast.Name):
            scope.row_indices.discard(node.target.id)
            if _over_rows(node.iter, scope):
                scope.row_indices.add(node.target.id)
    for name, value in ast.iter_fields(node):
        if name in ("body", "orelse", "finalbody", "handlers"):
            for child in value:
                if isinstance(child, ast.ExceptHandler):
                    for inner in child.body:
                        _statement(inner, scope)
                elif isinstance(child, ast.stmt):
                    _statement(child, scope)
        elif isinstance(value, ast.expr) and name != "target":
            _rows(value, scope)
        elif name == "items" and isinstance(value, list):  # with-items
            for item in value:
                _rows(item.context_expr, scope)


def _bind(target: ast.expr, value: ast.expr, rows: Rows | None, scope: _Scope) -> None:
    if isinstance(target, ast.Name):
        scope.sizes.discard(target.id)
        scope.rows.pop(target.id, None)
        if rows is not None:
            scope.rows[target.id] = rows
        elif _counts_rows(value, scope):
            scope.sizes.add(target.id)
    elif isinstance(target, (ast.Tuple, ast.List)):
        shaped = _shape_of(value, scope)
        for index, element in enumerate(target.elts):
            if isinstance(element, ast.Name):
                scope.rows.pop(element.id, None)
                scope.sizes.discard(element.id)
                if rows is not None:  # `support, query = input`: each scattered alike
                    scope.rows[element.id] = rows
                elif shaped is not None and shaped.at == index and not shaped.merged:
                    scope.sizes.add(element.id)


def _over_rows(iterated: ast.expr, scope: _Scope) -> bool:
    """`range(B)` / `range(x.size(0))` of the row count: its index picks one row."""
    if not (isinstance(iterated, ast.Call) and isinstance(iterated.func, ast.Name)):
        return False
    if iterated.func.id != "range" or len(iterated.args) != 1:
        return False
    count = iterated.args[0]
    return (isinstance(count, ast.Name) and count.id in scope.sizes) or _counts_rows(count, scope)


def _shape_of(value: ast.expr, scope: _Scope) -> Rows | None:
    """The rows of the tensor whose shape `value` is (`x.size()`, `x.shape`)."""
    if isinstance(value, ast.Call) and not value.args:
        value = value.func
    if isinstance(value, ast.Attribute) and value.attr in ("size", "shape"):
        return _rows(value.value, scope)
    return None


def _counts_rows(value: ast.expr, scope: _Scope) -> bool:
    """`x.size(0)` / `x.shape[0]` of a value whose rows are that dim (not `len(x)`: an
    input may be a list of tensors, each scattered, whose length counts tensors)."""
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute):
        if value.func.attr == "size" and len(value.args) == 1:
            held = _rows(value.func.value, scope)
            return held is not None and _literal(value.args[0]) == held.at
    if isinstance(value, ast.Subscript):
        held = _shape_of(value.value, scope)
        return held is not None and _literal(value.slice) == held.at
    return False


def _literal(expr: ast.expr) -> int | None:
    if isinstance(expr, ast.Constant) and type(expr.value) is int:
        return expr.value
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.USub):
        inner = _literal(expr.operand)
        return None if inner is None else -inner
    return None


def _rows(expr: ast.expr, scope: _Scope) -> Rows | None:
    """Where `expr`'s rows are (None: not a value of the inputs, or not placed); records
    the reductions that pool them on the way."""
    if isinstance(expr, ast.Name):
        return scope.rows.get(expr.id)
    if isinstance(expr, ast.Subscript):
        _rows(expr.slice, scope)
        if isinstance(expr.slice, ast.Name) and expr.slice.id in scope.row_indices:
            return None  # one row of it
        return _rows(expr.value, scope)  # an element of an input list, a slice of columns
    if isinstance(expr, ast.BinOp):
        left, right = _rows(expr.left, scope), _rows(expr.right, scope)
        return None if isinstance(expr.op, ast.MatMult) else left or right
    if isinstance(expr, (ast.UnaryOp, ast.Await)):
        return _rows(expr.operand if isinstance(expr, ast.UnaryOp) else expr.value, scope)
    if isinstance(expr, (ast.Tuple, ast.List)):
        return _first_of(expr.elts, scope)
    if isinstance(expr, ast.Call):
        return _call(expr, scope)
    for child in ast.iter_child_nodes(expr):  # reductions inside anything else are read
        if isinstance(child, ast.expr):
            _rows(child, scope)
    return None


def _own(call: ast.Call, func: ast.Attribute, scope: _Scope) -> Rows | None:
    """A submodule of its own (row-wise), or a method of its own read with its arguments'
    rows (a pooling there whose value it returns is this call's)."""
    given = [_rows(a, scope) for a in call.args]
    method = scope.methods.get(func.attr) if ast.unparse(func.value) == "self" else None
    if method is None or scope.depth >= 3:
        return next((r for r in given if r is not None), None)
    inner = _pooled(method, given, scope.methods, scope.depth + 1)
    if inner:
        scope.found.append((call, inner[0][1]))
        return None
    return next((r for r in given if r is not None), None)


def _first_of(values: list[ast.expr], scope: _Scope) -> Rows | None:
    found = [_rows(v, scope) for v in values]
    return next((r for r in found if r is not None), None)


def _call(call: ast.Call, scope: _Scope) -> Rows | None:
    func = call.func
    keywords = [k.value for k in call.keywords]
    if isinstance(func, ast.Attribute) and ast.unparse(func.value) in _MODULES:
        if not call.args:
            _first_of(keywords, scope)
            return None
        held = _rows(call.args[0], scope)
        args = call.args[1:]
        _first_of(args + keywords, scope)
        if func.attr == "cat" and isinstance(call.args[0], (ast.List, ast.Tuple)):
            return held
    elif isinstance(func, ast.Attribute):
        held, args = _rows(func.value, scope), call.args
        _first_of(args + keywords, scope)
        if held is None and ast.unparse(func.value).split(".")[0] == "self":
            return _own(call, func, scope)
    else:
        return _first_of(call.args + keywords, scope)  # a helper or layer on the inputs
    if held is None:
        return None
    return _method(call, func.attr, args, held, scope)


def _method(
    call: ast.Call, method: str, args: list[ast.expr], held: Rows, scope: _Scope
) -> Rows | None:
    if method in _KEEPING:
        return held
    if method in REDUCTIONS:
        return _reduced(call, args, held, scope)
    numbers = [_literal(a) for a in args]
    if len(args) == 1 and isinstance(args[0], (ast.Tuple, ast.List)):
        numbers = [_literal(e) for e in args[0].elts]
    if method == "permute":
        if held.at not in numbers or None in numbers:
            return None
        return Rows(numbers.index(held.at), held.merged)
    if method in ("transpose", "swapaxes") and len(numbers) == 2 and None not in numbers:
        first, second = numbers
        if held.at == first and second is not None and second >= 0:
            return Rows(second, held.merged)
        if held.at == second and first is not None and first >= 0:
            return Rows(first, held.merged)
        return held if first != held.at and second != held.at else None
    if method == "t" and held.at in (0, 1):
        return Rows(1 - held.at, held.merged)
    if method in ("view", "reshape"):
        return _reshaped(args, held, scope)
    if method == "flatten":
        start = numbers[0] if numbers else 0
        if start is None or start < 0:
            return None
        return held if held.at < start else Rows(start, merged=True)
    if method in ("unsqueeze", "squeeze") and numbers and numbers[0] is not None:
        if numbers[0] < 0:
            return None
        if method == "unsqueeze":
            return Rows(held.at + 1, held.merged) if numbers[0] <= held.at else held
        return Rows(held.at - 1, held.merged) if numbers[0] < held.at else held
    return None


def _reshaped(args: list[ast.expr], held: Rows, scope: _Scope) -> Rows | None:
    """view/reshape: the rows stay where a dim is given as their count; folded into the
    `-1` dim (merged) where no dim is."""
    shape = args
    if len(shape) == 1 and isinstance(shape[0], (ast.Tuple, ast.List)):
        shape = shape[0].elts
    for index, dim in enumerate(shape):
        if (isinstance(dim, ast.Name) and dim.id in scope.sizes) or _counts_rows(dim, scope):
            return Rows(index, held.merged)
    unknown = [i for i, d in enumerate(shape) if _literal(d) == -1]
    if held.at == 0 and unknown == [0]:
        return Rows(0, merged=True)
    return Rows(unknown[0], merged=True) if len(unknown) == 1 else None


def _reduced(call: ast.Call, args: list[ast.expr], held: Rows, scope: _Scope) -> Rows | None:
    """Records `call` where its dims pool the rows; the rows' dim after it otherwise."""
    named = {k.arg: k.value for k in call.keywords}
    if isinstance(call.func, ast.Attribute) and call.func.attr == "norm" and "p" not in named:
        args = args[1:]  # norm(p, dim, keepdim)
    given = args[0] if args else named.get("dim", named.get("axis"))
    if given is None:
        return None  # over every element: a loss, not a statistic (other passes)
    dims = (
        [_literal(e) for e in given.elts]
        if isinstance(given, (ast.Tuple, ast.List))
        else [_literal(given)]
    )
    if None in dims:
        return None
    if held.at in dims:
        scope.found.append((call, call))
        return None
    keep = "keepdim" in named or len(args) > 1
    below = sum(1 for d in dims if d is not None and 0 <= d < held.at)
    return held if keep else Rows(held.at - below, held.merged)


def _returned(forward: ast.FunctionDef, reduction: ast.Call) -> bool:
    """The reduction's value reaches what forward() returns (in a `return`, or through the
    names bound from it, a few steps deep)."""
    statements = [
        s
        for s in ast.walk(forward)
        if isinstance(s, (ast.Assign, ast.AugAssign, ast.Return, ast.Expr))
    ]
    holder = next((s for s in statements if any(n is reduction for n in ast.walk(s))), None)
    if isinstance(holder, ast.Return):
        return True
    if isinstance(holder, ast.Assign):
        targets = holder.targets
    elif isinstance(holder, ast.AugAssign):
        targets = [holder.target]
    else:
        return False
    tainted = {t.id for t in targets if isinstance(t, ast.Name)}
    for _ in range(4):
        for s in statements:
            if isinstance(s, ast.Assign) and _reads(s.value, tainted):
                tainted |= {n.id for t in s.targets for n in ast.walk(t) if isinstance(n, ast.Name)}
            elif isinstance(s, ast.AugAssign) and _reads(s.value, tainted):
                if isinstance(s.target, ast.Name):
                    tainted.add(s.target.id)
            elif isinstance(s, ast.Expr) and _appended(s.value, tainted):
                tainted.add(_appended(s.value, tainted))
    return any(
        isinstance(s, ast.Return) and s.value is not None and _reads(s.value, tainted)
        for s in statements
    )


def _appended(value: ast.expr, tainted: set[str]) -> str:
    """The list a tainted value is put in (`S.append(cov)`), "" when none."""
    if (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Attribute)
        and value.func.attr in ("append", "extend", "insert")
        and isinstance(value.func.value, ast.Name)
        and any(_reads(a, tainted) for a in value.args)
    ):
        return value.func.value.id
    return ""


def _reads(node: ast.AST, names: set[str]) -> bool:
    return any(isinstance(n, ast.Name) and n.id in names for n in ast.walk(node))
