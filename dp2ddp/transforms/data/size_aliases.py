"""A name bound only to a loader's global batch size reads as that size.

tszssong/face.evoLVe.PyTorch@017d57e tri_hard_train.py (stop 54 v3-A): `bagSize =
args.bag_size` beside `DataLoader(dataset_train, batch_size=args.bag_size)`, then in the loop
over that loader `features = torch.empty(bagSize, args.embedding_size)` filled from the
bag's rows and `for a_idx in range(bagSize): ... inputs[a_idx]`. The data pass reads the
loader's batch_size per rank, and batch_shapes.py reads per rank a dimension or a count
*spelled* as that batch_size (`args.bag_size`); the same size under another name kept its
global value: every rank built a buffer of the global bag's rows for its half of them and
indexed past its rows (a crash at the first bag, nothing said).

What the name holds is proved on the def-use view, not guessed from its spelling: a read of a
plain name each of whose definitions (every binding the read may resolve to, in any scope)
is a plain assignment `name = <expr>` whose value is spelled as one of the global batch sizes
the data pass made per rank is that size. A name bound anywhere else as well (a parameter, a
loop target, `name += 1`, another value) is not. One walk of the module's assignments per
module, once, and a lookup per read.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from dp2ddp.flow import view
from dp2ddp.transforms._support.nodes import ModuleNodes

if TYPE_CHECKING:
    from dp2ddp.transforms.data import ShardDataLoaders


class SizeAliases:
    """The global batch size (as spelled at its loader) each name bound only to it holds."""

    def __init__(self, data: ShardDataLoaders, nodes: ModuleNodes, sizes: set[str]) -> None:
        self._data = data
        self._flow = view(data._module_node)
        self._bound: dict[str, set[str]] = {}  # name -> the size texts assigned to it
        for assign in nodes.of(cst.Assign):
            if len(assign.targets) != 1 or not isinstance(assign.targets[0].target, cst.Name):
                continue
            text = data.code(assign.value)
            if text in sizes:
                self._bound.setdefault(assign.targets[0].target.value, set()).add(text)

    def size_of(self, node: cst.CSTNode) -> str | None:
        """The size `node` holds where it is a name every definition of which binds that
        size alone; else None."""
        if not isinstance(node, cst.Name) or len(self._bound.get(node.value, ())) != 1:
            return None
        (size,) = self._bound[node.value]
        definitions = self._flow.definitions(node)
        if not definitions:
            return None
        for definition in definitions:
            if definition.kind != "assign" or definition.element or definition.value is None:
                return None
            if self._data.code(definition.value) != size:
                return None
        return size


#: constructors whose first argument is the rows of what they build (no draws: those are
#: the shared-draws pass's)
_BUILT = frozenset(
    {"zeros", "ones", "empty", "full", "Tensor", "FloatTensor", "DoubleTensor", "LongTensor",
     "IntTensor", "ByteTensor", "BoolTensor"}
)  # fmt: skip
#: methods and functions whose result has the rows of their receiver (or first argument)
_ROWS_KEPT = frozenset(
    {"mm", "matmul", "numpy", "cpu", "cuda", "to", "detach", "clone", "float", "double",
     "long", "int", "contiguous", "abs", "sqrt", "exp", "log", "normalize"}
)  # fmt: skip


def batch_rows(
    data: ShardDataLoaders, body: list[cst.CSTNode], sizes: set[str], aliases: SizeAliases
) -> set[str]:
    """The names the loop body binds to a tensor of one row per sample of its batch: one
    built with a global batch size of the loop's loader as its first dimension (`features =
    torch.empty(bagSize, n)`, which batch_shapes.py reads per rank), and a value keeping
    those rows (`dist = 2 - torch.mm(features, features.t())`, `.numpy()` of it). Their
    sizes are this rank's batch's, as the loop's batch's are (stop 54 v3-A: `assert
    dist_matrix.shape[0] == bagSize`)."""
    assigns = [
        n
        for n in body
        if isinstance(n, cst.Assign)
        and len(n.targets) == 1
        and isinstance(n.targets[0].target, cst.Name)
    ]
    rows: set[str] = set()
    changed = True
    while changed:
        changed = False
        for assign in assigns:
            name = assign.targets[0].target
            assert isinstance(name, cst.Name)
            if name.value in rows:
                continue
            if _built(data, assign.value, sizes, aliases) or _keeps(assign.value, rows):
                rows.add(name.value)
                changed = True
    return rows


def _built(
    data: ShardDataLoaders, expr: cst.BaseExpression, sizes: set[str], aliases: SizeAliases
) -> bool:
    if not (isinstance(expr, cst.Call) and expr.args and not expr.args[0].keyword):
        return False
    func = expr.func
    name = func.attr.value if isinstance(func, cst.Attribute) else getattr(func, "value", "")
    first = expr.args[0].value
    return name in _BUILT and (data.code(first) in sizes or aliases.size_of(first) in sizes)


def _keeps(expr: cst.BaseExpression, rows: set[str]) -> bool:
    if isinstance(expr, cst.Name):
        return expr.value in rows
    if isinstance(expr, cst.BinaryOperation):
        if isinstance(expr.operator, cst.MatrixMultiply):
            return _keeps(expr.left, rows)
        numbers = (cst.Integer, cst.Float)
        return (_keeps(expr.left, rows) and isinstance(expr.right, numbers)) or (
            _keeps(expr.right, rows) and isinstance(expr.left, numbers)
        )
    if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute):
        if expr.func.attr.value not in _ROWS_KEPT:
            return False
        if _keeps(expr.func.value, rows):
            return True  # `x.numpy()`, `x.mm(y)`
        return bool(expr.args) and _keeps(expr.args[0].value, rows)  # `torch.mm(x, y)`
    return False
