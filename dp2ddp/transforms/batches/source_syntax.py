"""What a batch's source is, read from its syntax alone.

BatchProof (proof.py) follows a batch back to where it is made; these answer the questions
it asks of the node it reaches there (an empty container filled later, a tensor sized by
literals, the binding a target name belongs to), without any def-use reasoning of their
own, so they stay testable and out of the proof's class.
"""

from __future__ import annotations

import libcst as cst

from dp2ddp.flow import DefUse, Origin, origins
from dp2ddp.transforms._support.nodes import name_of, walk
from dp2ddp.transforms.batches.loops import ROUNDS, SHARD

#: Library calls whose result is sized by their arguments: state built for the batch.
FACTORIES = frozenset({"zeros", "ones", "empty", "full", "randn", "rand", "normal"})


def filled_later(node: cst.CSTNode) -> bool:
    """An empty container literal (`[]`, `{}`): what a batch is cut from there is what the
    program put in it later (appends, item assignment), never the literal itself."""
    if isinstance(node, (cst.List, cst.Dict, cst.Set)):
        return not node.elements
    return False


def constant_sizes(call: cst.Call) -> bool:
    """`torch.randn(32, 4)`: sized by literals (data, not sized by what it meets)."""
    sizes = [a.value for a in call.args if a.keyword is None]
    if len(sizes) == 1 and isinstance(sizes[0], (cst.Tuple, cst.List)):
        sizes = [e.value for e in sizes[0].elements]
    return bool(sizes) and all(isinstance(v, cst.Integer) for v in sizes)


def binding_of(flow: DefUse, name: cst.Name) -> cst.CSTNode | None:
    """The Assign or For whose target `name` is part of (None for a use)."""
    for ancestor in flow.ancestors(name):
        if isinstance(ancestor, cst.AssignTarget):
            parent = flow.parent(ancestor)
            return parent if isinstance(parent, cst.Assign) else None
        if isinstance(ancestor, cst.For):
            return ancestor if ancestor.target is name or name in walk(ancestor.target) else None
        if not isinstance(ancestor, (cst.Tuple, cst.List, cst.Element, cst.StarredElement)):
            return None
    return None


#: What reads a size or a count off a tensor, an array or a list: the builtin `len(xs)`,
#: the methods `x.size(1)`, `x.dim()`, `x.numel()`, the attributes `x.shape[1]`, `x.ndim`.
#: The one home of these names for size_read (a number handed to the model beside its
#: batch) and stepped.NUMBERS (a call whose result is a number, not a batch): before stop 61
#: each listed its own.
SIZE_BUILTIN = "len"
SIZE_METHODS = frozenset({"size", "dim", "numel"})
SIZE_ATTRIBUTES = frozenset({"shape", "ndim"})


def size_read(value: cst.BaseExpression) -> bool:
    """A number read off a size (`outputs.shape[1]`, `x.size(1)`, `len(xs)`, `x.ndim`,
    `x.numel()`) handed to the wrapped model beside its batch: DataParallel's scatter gave
    every replica such a number as it was (only tensors are cut), so it is no data to
    split (round 13 v1-D, julian-parker/DAFX22_FNO@27c7caa: `num_time_steps=
    ddp_shard_batch(training_output.shape[1])`, an int passed through unchanged)."""
    if isinstance(value, cst.Subscript):
        value = value.value
    if isinstance(value, cst.Attribute):
        return value.attr.value in SIZE_ATTRIBUTES
    if not isinstance(value, cst.Call):
        return False
    if isinstance(value.func, cst.Name):
        return value.func.value == SIZE_BUILTIN
    return isinstance(value.func, cst.Attribute) and value.func.attr.value in SIZE_METHODS


def rows_cut(flow: DefUse, origin: Origin, dim: int | None) -> bool:
    """A step of the path slices the value along the split dim from a start of its own
    (`self.images[start:start + bs]`): the tensor it reaches is data held whole and cut into
    batches, however it was built (`torch.randn(size, 4)` in a class's `__init__`), not state
    made for one batch (`torch.zeros(1, bsz, h)`, never cut by rows). Read as state, no rank
    split it and every rank trained the whole batch in silence (stop 64, a batch class's
    `get_batch()` over tensors it built)."""
    if dim is None:
        return False
    for step in origin.path:
        if not step.cut:
            continue
        parent = flow.parent(step.node)
        if not isinstance(parent, cst.Subscript) or parent.value is not step.node:
            continue
        if dim < len(parent.slice):
            cut = parent.slice[dim].slice
            if isinstance(cut, cst.Slice) and cut.lower is not None:
                return True
    return False


def holds_no_batch(origin: Origin, dim: int | None) -> bool:
    """The source reaches the value as a size along another dim (`sizes_across`), or
    through a split dp2ddp made (`ddp_shard_batch(states)` of a module migrated before,
    whose argument's sources the walk follows on): this rank's share already, not a whole
    batch (stop 72: a replay memory's sample split at the model call, read again by
    --check, was said given split and whole batches, DP047)."""
    split = any(
        isinstance(step.node, cst.Call) and name_of(step.node.func) in (SHARD, ROUNDS)
        for step in origin.path[1:]
    )
    return split or sizes_across(origin, dim)


def sizes_across(origin: Origin, dim: int | None) -> bool:
    """The source reaches the value as a size of a tensor factory along a dim other than
    the split one (`torch.randn(bs, z_dim)`, `z_dim` read from a config file): it shapes
    the noise and holds none of the batch (v2-B, stop 44: taken for a batch cut from the
    config and split, a sample grid halved). A size along the split dim
    (`torch.zeros(opt.batch_size, 1)`: the global batch's) is followed as before."""
    for before, step in zip(origin.path, origin.path[1:], strict=False):
        call = step.node
        if not isinstance(call, cst.Call) or not isinstance(call.func, cst.Attribute):
            continue
        if call.func.attr.value not in FACTORIES - {"normal"}:
            continue
        at = [i for i, size in enumerate(per_dim_args(call)) if size is before.node]
        if at and dim is not None and at[0] != dim:
            return True
    return False


def per_dim_args(call: cst.Call) -> list[cst.BaseExpression]:
    """A call's arguments one per dim (a tensor factory's sizes, `repeat`'s counts): its
    positional arguments (`torch.zeros(1, bsz, h)`), or the elements of the one tuple or
    list given (`torch.zeros((1, bsz, h))`); a starred argument is no known dim's and is
    left out."""
    sizes = [a.value for a in call.args if a.keyword is None and not a.star]
    if len(sizes) == 1 and isinstance(sizes[0], (cst.Tuple, cst.List)):
        return [e.value for e in sizes[0].elements]
    return sizes


def picks_setting(flow: DefUse, origin: Origin) -> bool:
    """The draw's first index picks an entry of a table written as literals (`limits[kind]`
    with `limits = [[0, 75], [0, 80]]`, round 22 seg, yzhouas/PD-Denoising-pytorch@240a3cd:
    a noise level per sample): a setting of each sample's augmentation, no row of the data.
    DataParallel drew one per row of the whole batch; drawn alike the ranks' rows would
    pair up, and under a per-rank branch (`if mixed == 0:`) the ranks wait apart."""
    step = next((s for s in origin.path if s.index), None)
    node = step.node if step is not None else None
    while node is not None and not isinstance(node, cst.Subscript):
        node = flow.parent(node)
    if not isinstance(node, cst.Subscript):
        return False
    found = origins(flow, node.value)
    return bool(found) and all(o.kind == "constant" and not filled_later(o.node) for o in found)
