"""Where an nn.Module class's forward() compares the rows of a batch with each other.

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
* `a.unsqueeze(i)` against `b.unsqueeze(j)`, i != j, in an arithmetic operation or as a
  call's first two arguments (`F.cosine_similarity(z.unsqueeze(1), z.unsqueeze(0))`, an
  `nn.CosineSimilarity` attribute: ae-foster/pytorch-simclr@cd4744c's LinearCritic, stop 48
  z3): a batch x batch matrix by broadcasting.
"""

from __future__ import annotations

import ast

from dp2ddp.transforms._support import ast_nodes

_PRODUCTS = frozenset({"mm", "matmul"})
_DISTANCES = frozenset({"cdist", "pdist"})
#: Calls and attributes that keep the rows of a tensor where they are.
_SAME_ROWS = frozenset({"data", "detach", "clone", "contiguous", "float", "double"})


def forward_pairs(cls: ast.ClassDef, path: str) -> str:
    """`path:line: expression` of the first comparison of rows in the class's forward() or
    in a method of its own that forward() calls, `self.pdist(feat)`, transitively
    (AberHu/Knowledge-Distillation-Zoo@65470c8's RKD: forward -> rkd_dist -> pdist's
    `torch.mm(feat, feat.t())`; CC's get_correlation_matrix; stop 49 f1); "" if none."""
    methods = {
        n.name: n for n in cls.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
    }
    todo = [methods["forward"]] if "forward" in methods else []
    seen: set[str] = set()
    found: list[tuple[ast.expr, str]] = []
    while todo:
        method = todo.pop()
        if method.name in seen:
            continue
        seen.add(method.name)
        me = method.args.args[0].arg if method.args.args else None
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
                todo.append(methods[node.func.attr])  # its own method: read there
            elif _compares(node):
                found.append((node, method.name))
    if not found:
        return ""
    node, name = min(found, key=lambda f: (f[0].lineno, f[0].col_offset))
    where = "" if name == "forward" else f" in self.{name}(), reached from forward()"
    return f"{path + ':' if path else 'line '}{node.lineno}: {ast.unparse(node)[:60]}{where}"


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
    one against every row of the other (an attribute, a weight, is not a batch)."""
    dims = [_unsqueeze_dim(side) for side in (left, right)]
    return None not in dims and dims[0] != dims[1]


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
        if (attr == "t" and count == 0) or (attr == "transpose" and count == 2):
            return isinstance(_rows_kept(node.func.value), ast.Name)
    return False


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
