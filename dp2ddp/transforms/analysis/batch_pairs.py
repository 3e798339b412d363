"""Where an nn.Module class's forward() compares the rows of a batch with each other (and
where it cuts them by a batch size it holds: `forward_cuts`, DP064).

A criterion module called on a wrapped model's gathered output (`loss = criterion(features,
idx)`, features from `net(inputs)`) saw the whole batch under DataParallel; under DDP it sees
each rank's part. For a loss over single samples nothing changes; for one over pairs of
samples (an instance-discrimination loss whose negatives are every other row of the batch,
`torch.mm(x, x.t())`) each rank's loss has fewer negatives and a mask sized by the global
batch no longer fits (stop 33 class P1, mangye16/Unsupervised_Embedding_Learning@29de398's
`BatchCriterion`). Whether the class is such a loss is decided by its use, not its name:
hazards/pairs.py warns (DP040) where the program calls an instance of it on a wrapped
model's output. This module only finds the comparison, once per class
(analysis/partial_forward.py keeps it in ClassFacts, the program tells it as
ModelClass.pairs):

* a product of a value and a transposed value, `torch.mm(x, y.t())`, `x.matmul(y.T)`,
  `x @ y.transpose(0, 1)`, also through `.data`, `.detach()`, `.clone()` of the transposed
  operand; both operands plain names (a weight or a table of class centres is an attribute:
  `x.mm(self.centers.t())` compares samples with classes);
* torch.cdist / torch.pdist;
* told first where the class has one, as the evidence and never alone the finding: a norm
  over every element of a plain name (`loss / torch.norm(t_sim)`), before a product of two
  different values, which may be a batch against a table handed in (`_coupling`);
* `a.unsqueeze(i)` against `b.unsqueeze(j)`, i != j, in an arithmetic operation or as a
  call's first two arguments (`F.cosine_similarity(z.unsqueeze(1), z.unsqueeze(0))`, an
  `nn.CosineSimilarity` attribute: ae-foster/pytorch-simclr@cd4744c's LinearCritic, stop 48
  z3): a batch x batch matrix by broadcasting; likewise a size-1 axis put in by
  `x.view(b, 1, c)` / `x.reshape(1, b, c)` (one literal 1 among the sizes) or by indexing
  with None (`x[:, None]` against `x[None]`), at different places (stop 56 v4-A:
  ElementAI/embedding-propagation@e7bfc71's similarity matrix,
  `x.view(b, 1, c) - x.view(1, b, c)`).

The forward() is read with the methods of its own class it calls and, transitively, the
functions of its own module it calls by name (`propagate(x, ...)` -> `similarity(x, ...)`:
the same v4-A, whose module's EmbeddingPropagation.forward() calls a module-level
`embedding_propagation`, which builds the matrix in `get_similarity_matrix`).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Mapping

from dp2ddp.transforms._support import ast_nodes
from dp2ddp.transforms.analysis.constant_tensors import constant_made

_PRODUCTS = frozenset({"mm", "matmul"})
_DISTANCES = frozenset({"cdist", "pdist"})
#: Calls and attributes that keep the rows of a tensor where they are.
_SAME_ROWS = frozenset({"data", "detach", "clone", "contiguous", "float", "double"})


def forward_pairs(
    cls: ast.ClassDef,
    path: str,
    functions: Mapping[str, ast.FunctionDef] | None = None,
) -> str:
    """`path:line: expression` of the first comparison of rows in the class's forward() or
    in a method of its own that forward() calls, `self.pdist(feat)`, transitively
    (AberHu/Knowledge-Distillation-Zoo@65470c8's RKD: forward -> rkd_dist -> pdist's
    `torch.mm(feat, feat.t())`; CC's get_correlation_matrix; stop 49 f1), or in a function
    of `functions` (its module's own, by name) they call, transitively (stop 56 v4-A);
    "" if none."""
    methods = {
        n.name: n for n in cls.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
    }
    own = functions or {}
    #: what constant_made may follow: the module's functions, the class's methods (".m")
    told = {**own, **{f".{n}": m for n, m in methods.items() if isinstance(m, ast.FunctionDef)}}
    todo: list[tuple[ast.FunctionDef | ast.AsyncFunctionDef, bool]] = (
        [(methods["forward"], True)] if "forward" in methods else []
    )
    seen: set[tuple[str, bool]] = set()
    found: list[tuple[int, ast.expr, str]] = []
    while todo:
        method, is_method = todo.pop()
        if (method.name, is_method) in seen:
            continue
        seen.add((method.name, is_method))
        me = method.args.args[0].arg if is_method and method.args.args else None
        for node in ast_nodes.walk(method):
            if not isinstance(node, ast.expr):
                continue
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and isinstance(node.func.value, ast.Name)
                and node.func.value.id == me
                and node.func.attr in methods
            ):
                todo.append((methods[node.func.attr], True))  # its own method: read there
            elif (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and (node.func.id in own)
            ):
                todo.append((own[node.func.id], False))  # its module's function: read there
            elif (
                (rank := _coupling(node)) is not None
                and not _of_constants(node, method, told)
                and not per_row_groups(node, method)
            ):
                label = method.name if is_method else f"{method.name}()"
                found.append((rank, node, label))
    if not any(rank != _WHOLE_NORM for rank, _, _ in found):
        return ""  # a norm alone is no comparison of rows: evidence, never the finding
    rank, node, name = min(found, key=lambda f: (f[0], f[1].lineno, f[1].col_offset))
    if name == "forward":
        where = ""
    elif name.endswith("()"):
        where = f" in {name}, reached from forward()"
    else:
        where = f" in self.{name}(), reached from forward()"
    said = NORM_SAID if rank == _WHOLE_NORM else ""
    return f"{path + ':' if path else 'line '}{node.lineno}: {ast.unparse(node)[:60]}{said}{where}"


#: How surely an operation couples the batch's rows, best first: a value against itself (its
#: own rows, `x @ x.t()`, a distance matrix, a broadcast pair); a norm over every element of
#: a plain name (`torch.norm(t_sim)`: the loss divided by a figure of all the rows at once);
#: one value against another (`s_feat.matmul(s_center.t())`: a pair only where the second
#: is a batch too, not a table of class centres; idstcv/KDA@0f509e6 loss.py, stop 51 v3-B,
#: where DP040 named the product and the norm over the batch is what couples the rows).
_ITSELF, _WHOLE_NORM, _ACROSS = 0, 1, 2
#: After a norm told as the evidence (hazards/pairs.py then says the forward() couples the
#: rows, where a comparison is said to compare them).
NORM_SAID = ", a norm over all of the batch's rows at once"


def _coupling(node: ast.AST) -> int | None:
    if _whole_norm(node):
        return _WHOLE_NORM
    if not _compares(node):
        return None
    names = _product_names(node)
    return _ACROSS if names is not None and names[0] != names[1] else _ITSELF


#: Convolutions whose `groups=` may keep each row of a batch folded into channels apart.
_CONVS = frozenset({"conv1d", "conv2d", "conv3d"})


def per_row_groups(node: ast.AST, method: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """A grouped convolution with a group count proved a multiple of the batch's rows
    (`F.conv1d(x.view(1, -1, L), w.view(-1, 1, K), groups=batch_size * C)`, batch_size
    bound to `input.size(0)` of the method's own parameter: stop 72, round 24,
    yoonsanghyu/FaSNet-TAC-PyTorch@a9ce70b FaSNet.py:317). The rows folded into the
    channels (the batch's dim leading, `view` keeps the order) then fall into groups of
    their own: each output channel reads one row's channels only, so the rows are not
    coupled, whatever the size-1 axes of its input and weight look like. A count not
    proved so (a literal, a name of another origin, a sum) is no proof: the call is read
    as before."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
        return False
    if node.func.attr not in _CONVS:
        return False
    groups = next((k.value for k in node.keywords if k.arg == "groups"), None)
    if groups is None and len(node.args) >= 7:
        groups = node.args[6]  # F.conv1d(input, weight, bias, stride, padding, dilation, groups)
    if groups is None:
        return False
    counts = _row_counts(method)
    return any(_counts_rows(factor, method, counts) for factor in _factors(groups))


def _factors(node: ast.expr) -> list[ast.expr]:
    """The factors of a product `a * b * (c * d)`; the node itself for anything else."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
        return [*_factors(node.left), *_factors(node.right)]
    return [node]


def _inputs(method: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """The method's parameters but its receiver: the values whose dim 0 holds the rows."""
    args = [a.arg for a in method.args.args]
    return set(args[1:] if args and args[0] in ("self", "cls") else args)


def _counts_rows(
    node: ast.expr, method: ast.FunctionDef | ast.AsyncFunctionDef, counts: set[str]
) -> bool:
    """`p.size(0)`, `p.shape[0]` of a parameter, or a name bound once to one."""
    if isinstance(node, ast.Name):
        return node.id in counts
    inputs = _inputs(method)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        held = node.func.value
        return (
            node.func.attr == "size"
            and len(node.args) == 1
            and _int(node.args[0]) == 0
            and isinstance(held, ast.Name)
            and held.id in inputs
        )
    if isinstance(node, ast.Subscript) and _int(node.slice) == 0:
        return _shape_of_input(node.value, inputs)
    return False


def _shape_of_input(node: ast.expr, inputs: set[str]) -> bool:
    """`p.shape` / `p.size()` of a parameter."""
    if isinstance(node, ast.Call) and not node.args and isinstance(node.func, ast.Attribute):
        node = node.func if node.func.attr == "size" else node
    return (
        isinstance(node, ast.Attribute)
        and node.attr in ("shape", "size")
        and isinstance(node.value, ast.Name)
        and node.value.id in inputs
    )


def _row_counts(method: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """The names the method binds once, to its parameters' row count: `b = x.size(0)`,
    `b = x.shape[0]`, `b, c, L = x.shape` / `x.size()`."""
    bound: dict[str, int] = {}
    counted: set[str] = set()
    inputs = _inputs(method)
    for node in ast_nodes.walk(method):
        targets: list[ast.expr] = []
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        elif isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension, ast.With)):
            targets = [node.target] if not isinstance(node, ast.With) else []
        for target in targets:
            for name in ast.walk(target):
                if isinstance(name, ast.Name):
                    bound[name.id] = bound.get(name.id, 0) + 1
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1):
            continue
        target = node.targets[0]
        if isinstance(target, ast.Name) and _counts_rows(node.value, method, set()):
            counted.add(target.id)
        elif (
            isinstance(target, (ast.Tuple, ast.List))
            and target.elts
            and isinstance(target.elts[0], ast.Name)
            and _shape_of_input(node.value, inputs)
        ):
            counted.add(target.elts[0].id)
    return {name for name in counted if bound.get(name) == 1 and name not in inputs}


def _of_constants(
    node: ast.expr,
    method: ast.FunctionDef | ast.AsyncFunctionDef,
    own: Mapping[str, ast.FunctionDef],
) -> bool:
    """A product whose operands are made of constants alone (an SSIM's Gaussian window,
    `w.mm(w.t())`: constant_tensors.py): the rows it pairs are no batch's."""
    names = _product_names(node)
    return names is not None and all(constant_made(n, method, own) for n in set(names))


def _whole_norm(node: ast.AST) -> bool:
    """`torch.norm(x)`, `torch.linalg.norm(x)`, `x.norm()` of a plain name, with no `dim`
    (a `p=` kept): one figure of every element, every row of a batch together."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
        return False
    if node.func.attr != "norm" or any(k.arg in {"dim", "axis"} for k in node.keywords):
        return False
    value = node.func.value
    module = (
        isinstance(value, ast.Name)
        and value.id == "torch"
        or (isinstance(value, ast.Attribute) and value.attr == "linalg")
    )
    if module:  # torch.norm(x) or torch.norm(x, p): a third argument is a dim
        return len(node.args) in (1, 2) and isinstance(_rows_kept(node.args[0]), ast.Name)
    return len(node.args) <= 1 and isinstance(_rows_kept(value), ast.Name)  # x.norm(p)


def _product_names(node: ast.AST) -> tuple[str, str] | None:
    """The two operands' names of a product `_compares` accepted, None for other kinds."""
    pair: tuple[ast.expr, ast.expr] | None = None
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult):
        pair = (node.left, node.right)
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        if node.func.attr in _PRODUCTS and not (
            isinstance(node.func.value, ast.Name) and node.func.value.id == "torch"
        ):
            pair = (node.func.value, node.args[0]) if node.args else None
        elif node.func.attr in _PRODUCTS and len(node.args) >= 2:
            pair = (node.args[0], node.args[1])
    if pair is None:
        return None
    left, right = _rows_kept(pair[0]), _rows_kept(_untransposed(pair[1]))
    if isinstance(left, ast.Name) and isinstance(right, ast.Name):
        return left.id, right.id
    return None


def _untransposed(node: ast.expr) -> ast.expr:
    """`y` of `y.t()`, `y.T`, `y.transpose(0, 1)` (as `_transposed` accepts them)."""
    node = _rows_kept(node)
    if isinstance(node, ast.Attribute) and node.attr == "T":
        return node.value
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        return node.func.value
    return node


def _compares(node: ast.AST) -> bool:
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult):
        return isinstance(node.left, ast.Name) and _transposed(node.right)
    if isinstance(node, ast.BinOp):
        return _broadcast_pair(node.left, node.right)
    if not isinstance(node, ast.Call):
        return False
    if len(node.args) >= 2 and _broadcast_pair(node.args[0], node.args[1]):
        return True  # F.cosine_similarity(z.unsqueeze(1), z.unsqueeze(0)), self.cossim(...)
    func = node.func
    last = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    if last in _DISTANCES:
        return True
    if last not in _PRODUCTS:
        return False
    if isinstance(func, ast.Attribute) and not (
        isinstance(func.value, ast.Name) and func.value.id == "torch"
    ):
        operands = [func.value, *node.args[:1]]  # x.mm(y.t())
    else:
        operands = list(node.args[:2])  # torch.mm(x, y.t())
    return len(operands) == 2 and isinstance(operands[0], ast.Name) and _transposed(operands[1])


def _broadcast_pair(left: ast.expr, right: ast.expr) -> bool:
    """`a.unsqueeze(i)` against `b.unsqueeze(j)`, i != j, both plain names: every row of
    one against every row of the other (an attribute, a weight, is not a batch); the size-1
    axis may come from a view, a reshape or a None index as well (`_singleton_dim`)."""
    dims = [_singleton_dim(side) for side in (left, right)]
    return None not in dims and dims[0] != dims[1]


def _singleton_dim(node: ast.expr) -> int | None:
    """Where a size-1 axis is put into a plain name: `x.unsqueeze(i)`; `x.view(b, 1, c)` or
    `x.reshape(...)` with exactly one literal 1 among its sizes; `x[:, None]`, `x[None]`
    with exactly one None among its indices."""
    found = _unsqueeze_dim(node)
    if found is not None:
        return found
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in {"view", "reshape"}
        and isinstance(_rows_kept(node.func.value), ast.Name)
        and not node.keywords
    ):
        sizes = node.args
        if len(sizes) == 1 and isinstance(sizes[0], ast.Tuple):
            sizes = sizes[0].elts  # x.view((b, 1, c))
        return _only_place(sizes, lambda e: isinstance(e, ast.Constant) and e.value == 1)
    if isinstance(node, ast.Subscript) and isinstance(_rows_kept(node.value), ast.Name):
        index = node.slice
        places = index.elts if isinstance(index, ast.Tuple) else [index]
        return _only_place(places, lambda e: isinstance(e, ast.Constant) and e.value is None)
    return None


def _only_place(items: list[ast.expr], test: Callable[[ast.expr], bool]) -> int | None:
    """The index of the one item passing `test`, None where none or several do."""
    places = [i for i, item in enumerate(items) if test(item)]
    return places[0] if len(places) == 1 else None


def _unsqueeze_dim(node: ast.expr) -> int | None:
    """`i` of `x.unsqueeze(i)` (an integer, maybe negative) of a plain name."""
    if not (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "unsqueeze"
        and isinstance(_rows_kept(node.func.value), ast.Name)
        and len(node.args) == 1
    ):
        return None
    try:
        dim = ast.literal_eval(node.args[0])
    except (ValueError, TypeError, SyntaxError):
        return None
    return dim if isinstance(dim, int) else None


def _transposed(node: ast.expr) -> bool:
    """`y.t()`, `y.T`, `y.transpose(0, 1)` of a plain name, through `.data`/`.detach()`."""
    node = _rows_kept(node)
    if isinstance(node, ast.Attribute) and node.attr == "T":
        return isinstance(_rows_kept(node.value), ast.Name)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        attr, count = node.func.attr, len(node.args)
        if attr == "transpose" and keeps_first_axis([_int(a) for a in node.args], False):
            return False  # `y.transpose(2, 1)`: within each sample, the batch's axis kept
        if (attr == "t" and count == 0) or (attr == "transpose" and count == 2):
            return isinstance(_rows_kept(node.func.value), ast.Name)
    return False


def keeps_first_axis(dims: list[int | None], batched: bool) -> bool:
    """A transpose of these two literal axes leaves the first one, the batch's, where it is:
    neither is 0 and both count from the front (`transpose(2, 1)`), or, in a batched product
    of 3-D operands (`torch.bmm`, `batched`), neither is 0 or -3 (`transpose(-1, -2)`)."""
    if len(dims) != 2 or None in dims or 0 in dims:
        return False
    return all(d is not None and d > 0 for d in dims) or batched and -3 not in dims


def _int(node: ast.expr) -> int | None:
    try:
        value = ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError):
        return None
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _rows_kept(node: ast.expr) -> ast.expr:
    """`x` of `x.data`, `x.detach()`, `x.clone()` (repeatedly)."""
    while True:
        if isinstance(node, ast.Attribute) and node.attr in _SAME_ROWS:
            node = node.value
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in _SAME_ROWS
            and not node.args
        ):
            node = node.func.value
        else:
            return node


#: An attribute named as a batch size (`batch_size`, `batchSize`, `train_batch_size`, `bs`).
_BATCH_SIZE = re.compile(r"^(\w*_)?batch_?size$|^bs$", re.IGNORECASE)


def forward_cuts(cls: ast.ClassDef, path: str) -> tuple[str, ...]:
    """Where the class's forward() cuts the rows of an input it is handed at a position
    counted by a batch size the object holds from its constructor (stop 58 v3-A,
    takahikof/RIPT_SDMM@fca73d3 model/loss/DINO.py:100: `student_output[-self.args.
    batch_size:]`, `self.args = args` in `__init__`): ("path:line: expression", the
    `__init__` parameter it holds, that parameter's position, what it holds of it
    (`args.batch_size`), the attribute read (`self.args.batch_size`)); () when it does not.
    Under DataParallel the input was the gathered output of the whole batch, so a position
    counted by the loader's batch size fell where the program meant; under DDP the input
    holds this rank's rows only. Whether the size is the loader's is decided at the call
    (hazards/pairs.py `criterion_cuts`, DP064)."""
    methods = {n.name: n for n in cls.body if isinstance(n, ast.FunctionDef)}
    forward, init = methods.get("forward"), methods.get("__init__")
    if forward is None or init is None or len(init.args.args) < 2:
        return ()
    me = forward.args.args[0].arg if forward.args.args else ""
    inputs = {a.arg for a in forward.args.args[1:]}
    params = [a.arg for a in init.args.args[1:]]
    held = _held_from_init(init, params)
    for node in ast_nodes.walk(forward):
        if not (
            isinstance(node, ast.Subscript)
            and isinstance(node.value, ast.Name)
            and node.value.id in inputs
        ):
            continue
        cut = node.slice
        bounds = [cut.lower, cut.upper] if isinstance(cut, ast.Slice) else [cut]
        for bound in (b for b in bounds if b is not None):
            for read in (n for n in ast_nodes.walk(bound) if isinstance(n, ast.Attribute)):
                chain = ast_nodes.dotted(read)
                if not chain or len(chain) < 2 or chain[0] != me:
                    continue
                if not _BATCH_SIZE.match(chain[-1]) or chain[1] not in held:
                    continue
                param, base = held[chain[1]]
                holds = ".".join([base, *chain[2:]])
                where = f"{path + ':' if path else 'line '}{node.lineno}: "
                where += ast.unparse(node)[:60]
                return (where, param, str(params.index(param)), holds, ".".join(chain))
    return ()


def _held_from_init(init: ast.FunctionDef, params: list[str]) -> dict[str, tuple[str, str]]:
    """The attributes `__init__` sets from one of its parameters, `self.args = args` or
    `self.bs = args.batch_size`: attribute -> (the parameter, what it holds of it)."""
    me = init.args.args[0].arg
    held: dict[str, tuple[str, str]] = {}
    for node in ast_nodes.walk(init):
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1):
            continue
        target, value = node.targets[0], ast_nodes.dotted(node.value)
        if not (
            isinstance(target, ast.Attribute)
            and isinstance(target.value, ast.Name)
            and target.value.id == me
        ):
            continue
        if value and value[0] in params and target.attr not in held:
            held[target.attr] = (value[0], ".".join(value))
    return held
