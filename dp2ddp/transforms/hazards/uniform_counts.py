"""A summed loss divided by a count alike on every rank: still a sum, scaled by WORLD_SIZE.

A training function handed the loader's batch size divides the summed loss by it
(`loss = out.pow(2).sum() / n`, `n` the loader's `batch_size`; round 20 of issue 28): under
DataParallel the sum covered the whole batch, so this was a mean per sample. Migrated, each
rank sums its share and still divides by the whole batch's size, and DDP averages the ranks'
gradients: 1/WORLD_SIZE of DataParallel's, and nothing said (a division took the loss out of
DP004's proof and out of its scaling alike). The quotient of a sum by a number every rank
holds alike is a sum times a weight: the scale by WORLD_SIZE restores DataParallel's update,
as for any factor. A rank's own count (`x.size(0)`, `len(x)`, `mask.sum()`) is not such a
number: the quotient is a mean over the rank's share (per_row_sums.py), nothing to scale.
"""

from __future__ import annotations

import libcst as cst

from dp2ddp.flow import DefUse, origins
from dp2ddp.flow.text import code
from dp2ddp.transforms.analysis.uniformity import RankUniformity

#: Calls that count data (or turn a tensor into a number): a divisor computed by one may be
#: a rank's own count.
_DATA_COUNTS = frozenset(
    {"size", "len", "numel", "sum", "count_nonzero", "nonzero", "item", "shape", "float", "int"}
)


def uniform_count(
    flow: DefUse, uniform: RankUniformity, divisor: cst.BaseExpression, at: cst.CSTNode
) -> bool:
    """`divisor` of a summed loss is the same number on every rank and counts no data: a
    number literal, or a name or attribute (`batch_size`, `args.bs`, a parameter every call
    hands such) the module's uniformity proof shows alike at `at`, no size, length or count
    call among its sources (flow.origins)."""
    if isinstance(divisor, (cst.Integer, cst.Float)):
        return True
    if not isinstance(divisor, (cst.Name, cst.Attribute)) or not uniform.value(divisor, at):
        return False
    return not any(
        isinstance(node, cst.Call) and _called(node) in _DATA_COUNTS
        for origin in origins(flow, divisor)
        for node in (origin.node, *(step.node for step in origin.path))
    )


def _called(call: cst.Call) -> str:
    func = call.func
    return func.attr.value if isinstance(func, cst.Attribute) else code(func)
