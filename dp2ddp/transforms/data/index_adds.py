"""A table written in place at the batch's indices in a pass over a sharded loader (DP142).

idstcv/KDA@0f509e6 (v3-A of stop 51): the student's training loop keeps class centres,
`new_s_center.index_add_(0, target, s_feat.data)` and the sample counts
`cN.index_add_(0, target, torch.ones(len(target)))`, both filled at the rows the batch's
labels name, and returns `new_s_center / cN` after the loop: the next epoch's distillation
loss reads those centres. Under DataParallel one process added every sample of the epoch;
sharded, each rank adds only its own samples, so each rank's table holds its share's sums
(a class one rank never saw divides zero by zero), and the loss of every later step trains
on a different table on each rank. DP030 named the sums as a figure printed; nothing said
that the training itself changes.

Which tables: a name bound outside the loop whose in-place index method (`index_add_`,
`index_copy_`, `index_fill_`, `index_reduce_`, `index_put_`, `scatter_`, `scatter_add_`,
`scatter_reduce_`) the loop calls with an index that reads a value the loop takes from the
loader's batch (index_tables._batch_elements: a label, a sample index), and that the
function (or module) reads after the loop (filled_tables.read_after: not where the program
reduces or gathers it itself, `dist.all_reduce(table)`). Not made whole: a sum over the
ranks would count twice the samples DistributedSampler repeats to even the ranks out, and a
table the caller hands in (`cN`, carried across epochs) would be summed again on each pass;
said instead, with the fix the program can make where it knows its sampler.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from dp2ddp.transforms._support.nodes import variables_under, walk
from dp2ddp.transforms.data.filled_tables import made_to_fill, read_after

if TYPE_CHECKING:
    from dp2ddp.transforms.data import ShardDataLoaders

#: In-place index methods of a tensor: the argument position and keyword of the index.
_INDEXED = {
    **dict.fromkeys(("index_add_", "index_copy_", "index_fill_", "index_reduce_"), (1, "index")),
    **dict.fromkeys(("scatter_", "scatter_add_", "scatter_reduce_"), (1, "index")),
    "index_put_": (0, "indices"),
}


def index_added_tables(
    t: ShardDataLoaders,
    loop: cst.For,
    batch: set[str],
    bound_here: set[str],
    end: int,
    scope: cst.CSTNode,
) -> set[str]:
    """Warn DP142 at each in-place index write of `loop` (over a sharded loader) into a
    table read after it at indices the batch gives; the names of those tables. The names
    the loop's body binds (`bound_here`), the loop's last line and the scope it is read in
    are the caller's (index_tables), computed once for both kinds of table."""
    said: set[str] = set()
    for node in walk(loop.body, skip_scopes=True):
        if not (
            isinstance(node, cst.Call)
            and isinstance(node.func, cst.Attribute)
            and isinstance(node.func.value, cst.Name)
            and node.func.attr.value in _INDEXED
        ):
            continue
        table = node.func.value.value
        index = _index_argument(node)
        if table in bound_here or index is None:
            continue
        if not _values_read(index) & batch:
            continue
        after = read_after(t, scope, table, end, sized=made_to_fill(t, node.func.value))
        if after is None:
            continue
        said.add(table)
        t.warn(
            node,
            "DP142",
            f"`{t.code(node)[:70]}` {_verb(node)} {table} at the indices this rank's batch "
            f"gives (`{t.code(index)}`) in the pass over a sharded loader (the loop at line "
            f"{t.input_position(loop)[0]}): each rank's {table} holds only its own samples' "
            f"part, not DataParallel's whole pass, and it is read after the loop (line {after}), "
            "different on each rank; not summed over the ranks",
        )
    return said


def _verb(call: cst.Call) -> str:
    """ "adds into" for the methods that combine with what the table holds, else "writes"."""
    func = call.func
    assert isinstance(func, cst.Attribute)
    combines = func.attr.value in ("index_add_", "scatter_add_", "index_reduce_", "scatter_reduce_")
    return "adds into" if combines else "writes into"


def _values_read(index: cst.BaseExpression) -> set[str]:
    """The names whose values `index` reads: not one only measured (`len(y)`, `y.size(0)`,
    `y.shape`: positions 0..n-1 of any batch, not the rows the batch names)."""
    measured = {
        id(n)
        for node in walk(index)
        if isinstance(node, cst.Call)
        and (
            isinstance(node.func, cst.Name)
            and node.func.value == "len"
            or isinstance(node.func, cst.Attribute)
            and node.func.attr.value == "size"
        )
        or isinstance(node, cst.Attribute)
        and node.attr.value == "shape"
        for n in variables_under(node)
    }
    return {n.value for n in variables_under(index) if id(n) not in measured}


def _index_argument(call: cst.Call) -> cst.BaseExpression | None:
    """The index argument of an in-place index method call, by keyword or position."""
    func = call.func
    assert isinstance(func, cst.Attribute)
    position, keyword = _INDEXED[func.attr.value]
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == keyword:
            return arg.value
    positional = [a for a in call.args if a.keyword is None and not a.star]
    return positional[position].value if len(positional) > position else None
