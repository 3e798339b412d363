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

A value's number of dims is kept where a permute, view or flatten tells it, so a reduction
over a negative dim is placed: round 22 (seg), ooooverflow/BiSeNet@284a8f6's per-class Dice
`flatten(x)` helper (`x.permute(1, 0, 2, 3).contiguous().view(C, -1)`) then `.sum(-1)`
pools the rows it merged into the last dim. A helper function of the module (or a method of
the class) is read for where its return holds the rows it was handed. `pooling_reductions`
answers every such reduction of a module, wherever its value goes, in each function (its
tensor parameters hold the rows at dim 0) and in each loop over batches (the loop's targets
do): hazards/count_means.py's DP071 asks it of a ratio's sums over some dims.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field, replace

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
    (a view folded them together); `ndim`: the value's number of dims where known."""

    at: int
    merged: bool = False
    ndim: int | None = None

    def dim(self, given: int) -> int:
        """`given` counted from the front (a negative dim needs the known ndim)."""
        return given + self.ndim if given < 0 and self.ndim is not None else given


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
    #: the module's functions (`flatten(x)`, a helper read for where it returns the rows)
    functions: dict[str, ast.FunctionDef] = field(default_factory=dict)
    #: every reduction that pools the rows, in this read and those it makes of helpers
    sink: list[ast.Call] = field(default_factory=list)
    #: a loop over anything but a count binds a batch: its targets hold rows at dim 0
    batches: bool = False
    returned: list[Rows | None] = field(default_factory=list)
    #: names bound to a dim order whose leading dims are literals (`axis_order = (1, 0) +
    #: tuple(range(2, x.dim()))`: BiSeNet's flatten), None for each dim not known
    orders: dict[str, list[int | None]] = field(default_factory=dict)


def _pooled(
    function: ast.FunctionDef,
    given: list[Rows | None],
    methods: dict[str, ast.FunctionDef],
    depth: int,
    outer: _Scope | None = None,
    skip: int = 1,
) -> list[tuple[ast.Call, ast.Call]]:
    """(call to follow to the return, the reduction) for each pooling in `function` whose
    value reaches its return; `given`: the rows of its parameters after the first `skip`
    (`self`); `outer`: the read whose helper this is (its sink, functions and returns)."""
    params = [a.arg for a in function.args.args[skip:]]
    rows = {name: r for name, r in zip(params, given, strict=False) if r is not None}
    rows |= {a.arg: Rows(0) for a in function.args.kwonlyargs} if depth == 0 else {}
    scope = _read(function, rows, methods, depth, outer)
    return [(call, inner) for call, inner in scope.found if _returned(function, call)]


def _read(
    function: ast.FunctionDef,
    rows: dict[str, Rows],
    methods: dict[str, ast.FunctionDef],
    depth: int,
    outer: _Scope | None,
) -> _Scope:
    scope = _Scope(rows, methods=methods, depth=depth)
    if outer is not None:
        scope.functions, scope.sink, scope.batches = outer.functions, outer.sink, outer.batches
    for statement in function.body:
        _statement(statement, scope)
    return scope


def _handed(
    function: ast.FunctionDef, given: list[Rows | None], scope: _Scope, skip: int
) -> tuple[list[tuple[ast.Call, ast.Call]], Rows | None]:
    """A helper (`skip` 0) or method of the class (`skip` 1) read with the rows handed to
    it: its poolings that reach its return, and where every return of it holds the rows
    (None where they differ or are not placed)."""
    params = [a.arg for a in function.args.args[skip:]]
    rows = {name: r for name, r in zip(params, given, strict=False) if r is not None}
    inner = _read(function, rows, scope.methods, scope.depth + 1, scope)
    found = [(c, i) for c, i in inner.found if _returned(function, c)]
    placed = set(inner.returned)
    return found, placed.pop() if len(placed) == 1 else None


def pooling_reductions(tree: ast.Module) -> list[ast.Call]:
    """Every reduction of the module that pools the batch's rows: in each function and
    method (its parameters but `self`/`cls` and those defaulting to a constant hold the rows
    at dim 0; its class's methods and the module's helpers it calls are read with the rows
    handed to them) and at the module's level, where a loop's targets over anything but a
    count hold them."""
    functions = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    scope = _Scope({}, functions=functions, batches=True)
    for statement in tree.body:
        _statement(statement, scope)
    owners = [(None, list(functions.values()))] + [
        (n, [f for f in n.body if isinstance(f, ast.FunctionDef)])
        for n in tree.body
        if isinstance(n, ast.ClassDef)
    ]
    for owner, read in owners:
        methods = {f.name: f for f in read} if owner is not None else {}
        for function in read:
            args = function.args.args
            skip = 1 if args and args[0].arg in ("self", "cls") else 0
            defaults: list[ast.expr | None] = [None] * (len(args) - len(function.args.defaults))
            defaults += function.args.defaults
            given: list[Rows | None] = [
                None if isinstance(d, ast.Constant) else Rows(0) for d in defaults[skip:]
            ]
            _pooled(function, given, methods, 1, scope, skip)
    return list({id(c): c for c in scope.sink}.values())


def _statement(node: ast.stmt, scope: _Scope) -> None:
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return
    if isinstance(node, ast.Return) and node.value is not None:
        scope.returned.append(_rows(node.value, scope))
        return
    if isinstance(node, ast.Assign):
        value = _rows(node.value, scope)
        for target in node.targets:
            _bind(target, node.value, value, scope)
            if isinstance(target, ast.Name) and (order := _order(node.value)):
                scope.orders[target.id] = order
        return
    if isinstance(node, ast.AnnAssign) and node.value is not None:
        _bind(node.target, node.value, _rows(node.value, scope), scope)
        return
    if isinstance(node, (ast.For, ast.AsyncFor)):
        each = _rows(node.iter, scope)
        if isinstance(node.iter, ast.Call) and isinstance(node.iter.func, ast.Name):
            each = None if node.iter.func.id in ("range", "enumerate", "zip") else each
        _bind(node.target, node.iter, each, scope)
        if scope.batches and each is None:
            _batch_targets(node.target, node.iter, scope)
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


#: Iterations that yield no batch (a model's parameters, a dict's entries).
_NOT_BATCHES = frozenset(
    {"parameters", "named_parameters", "modules", "named_modules", "children", "items",
     "keys", "values", "state_dict", "range", "len", "split", "chunk", "unbind"}
)  # fmt: skip


def _batch_targets(target: ast.expr, iterated: ast.expr, scope: _Scope) -> None:
    """`for x, y in loader` / `for i, (x, y) in enumerate(loader)`: the batch's tensors
    hold their rows at dim 0 (a loop over a count, or over a model's parameters, binds
    none)."""
    named = iterated.func if isinstance(iterated, ast.Call) else None
    name = named.attr if isinstance(named, ast.Attribute) else getattr(named, "id", "")
    if name in _NOT_BATCHES or isinstance(iterated, (ast.Constant, ast.Tuple, ast.List)):
        return
    if name == "enumerate" and isinstance(target, ast.Tuple) and len(target.elts) == 2:
        assert isinstance(iterated, ast.Call)
        if iterated.args:
            _batch_targets(target.elts[1], iterated.args[0], scope)
        return
    for element in ast.walk(target):
        if isinstance(element, ast.Name):
            scope.rows[element.id] = Rows(0)


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
    inner, placed = _handed(method, given, scope, 1)
    if inner:
        scope.found.append((call, inner[0][1]))
        return None
    return placed or next((r for r in given if r is not None), None)


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
    else:  # a helper or layer on the inputs: row-wise unless a helper read says where
        given = [_rows(a, scope) for a in call.args]
        _first_of(keywords, scope)
        helper = scope.functions.get(func.id) if isinstance(func, ast.Name) else None
        placed = None
        if helper is not None and scope.depth < 3 and any(given):
            placed = _handed(helper, given, scope, 0)[1]
        return placed or next((r for r in given if r is not None), None)
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
    if method == "permute" and len(args) == 1 and isinstance(args[0], ast.Name):
        given = scope.orders.get(args[0].id, [])
        if held.at not in given:
            return None
        ndim = len(given) if None not in given else None
        return Rows(given.index(held.at), held.merged, ndim)
    if method == "permute":
        order = [n + len(numbers) if n is not None and n < 0 else n for n in numbers]
        if held.at not in order or None in order:
            return None
        return Rows(order.index(held.at), held.merged, len(order))
    if method in ("transpose", "swapaxes") and len(numbers) == 2:
        if numbers[0] is None or numbers[1] is None:
            return None
        first, second = held.dim(numbers[0]), held.dim(numbers[1])
        if held.at == first:
            return replace(held, at=second) if second >= 0 else None
        if held.at == second:
            return replace(held, at=first) if first >= 0 else None
        return held
    if method == "t" and held.at in (0, 1):
        return Rows(1 - held.at, held.merged, 2)
    if method in ("view", "reshape"):
        return _reshaped(args, held, scope)
    if method == "flatten":
        return _flattened(numbers, held)
    if method in ("unsqueeze", "squeeze") and numbers and numbers[0] is not None:
        grown = 1 if method == "unsqueeze" else -1
        ndim = None if held.ndim is None else held.ndim + grown
        at = numbers[0]
        if at < 0:  # unsqueeze(-1) adds a last dim: counted in the new ndim
            at = at + (ndim or 0) if method == "unsqueeze" else held.dim(at)
        if at < 0:
            return None
        if method == "unsqueeze":
            return Rows(held.at + 1 if at <= held.at else held.at, held.merged, ndim)
        return Rows(held.at - 1 if at < held.at else held.at, held.merged, ndim)
    return None


def _flattened(numbers: list[int | None], held: Rows) -> Rows | None:
    """`flatten(start, end)`: dims start..end become one (merged where the rows are among
    them; the value then has `start + 1` dims where `end` is the last)."""
    given = [*numbers, *(0, -1)[len(numbers) :]][:2]  # flatten(start=0, end=-1)
    if given[0] is None or given[1] is None:
        return None
    start, end = held.dim(given[0]), held.dim(given[1])
    if start < 0 or (end < 0 and end != -1):
        return None
    if end == -1:  # the last dim, of a value whose ndim is not known
        return replace(held, ndim=start + 1) if held.at < start else Rows(start, True, start + 1)
    ndim = None if held.ndim is None else held.ndim - (end - start)
    if held.at < start:
        return replace(held, ndim=ndim)
    if held.at > end:
        return Rows(held.at - (end - start), held.merged, ndim)
    return Rows(start, True, ndim)


def _reshaped(args: list[ast.expr], held: Rows, scope: _Scope) -> Rows | None:
    """view/reshape: the rows stay where a dim is given as their count; folded into the
    `-1` dim (merged) where no dim is."""
    shape = args
    if len(shape) == 1 and isinstance(shape[0], (ast.Tuple, ast.List)):
        shape = shape[0].elts
    ndim = len(shape) if not any(isinstance(d, ast.Starred) for d in shape) else None
    for index, dim in enumerate(shape):
        if (isinstance(dim, ast.Name) and dim.id in scope.sizes) or _counts_rows(dim, scope):
            return Rows(index, held.merged, ndim)
    unknown = [i for i, d in enumerate(shape) if _literal(d) == -1]
    if held.at == 0 and unknown == [0]:
        return Rows(0, True, ndim)
    return Rows(unknown[0], True, ndim) if len(unknown) == 1 else None


def _reduced(call: ast.Call, args: list[ast.expr], held: Rows, scope: _Scope) -> Rows | None:
    """Records `call` where its dims pool the rows; the rows' dim after it otherwise."""
    named = {k.arg: k.value for k in call.keywords}
    if isinstance(call.func, ast.Attribute) and call.func.attr == "norm" and "p" not in named:
        args = args[1:]  # norm(p, dim, keepdim)
    given = args[0] if args else named.get("dim", named.get("axis"))
    if given is None:
        return None  # over every element: a loss, not a statistic (other passes)
    literals = [
        _literal(e) for e in (given.elts if isinstance(given, (ast.Tuple, ast.List)) else [given])
    ]
    if None in literals:
        return None
    dims = [held.dim(d) for d in literals if d is not None]
    if held.at in dims:
        scope.found.append((call, call))
        scope.sink.append(call)
        return None
    keep = "keepdim" in named or len(args) > 1
    below = sum(1 for d in dims if d is not None and 0 <= d < held.at)
    if keep:
        return held
    return Rows(held.at - below, held.merged, None if held.ndim is None else held.ndim - len(dims))


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


def _order(value: ast.expr) -> list[int | None]:
    """A dim order's leading literal dims (`(1, 0) + tuple(...)`: [1, 0, None]); [] if none."""
    if isinstance(value, ast.Tuple) and value.elts:
        return [_literal(e) for e in value.elts]
    if isinstance(value, ast.BinOp) and isinstance(value.op, ast.Add):
        left = _order(value.left)
        return [*left, None] if left and None not in left else []
    return []
