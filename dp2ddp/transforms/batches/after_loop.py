"""A sample of the last batch picked by a constant position after the loop (DP113).

After the training loop, code reads one sample of the last batch or of the model's last
output by a constant position (`padded_mels[-1]`, `y_pred_post[-1]` to plot or save a
preview: AidenMoosa/Tacotron2@699a211 train.py:146-149). Under DataParallel the name held
the whole gathered batch, so position k was the global batch's k-th sample; under DDP it
holds rank 0's part. Position 0 is the same sample either way (a DistributedSampler's
rank 0 takes positions 0, W, 2W, ... of the order, so its part of batch b starts at the
global batch's first sample; a contiguous shard starts there too); any other constant
position picks another sample (`[-1]`: the global batch's last sample was on rank W-1),
silently. Nothing is rewritten (the sample DataParallel showed lives on another rank);
the read is said: DP113.

What is followed: the loop's targets (enumerate's counter left out) and the wrapped
model's outputs, then the names the loop body binds from them (BatchPositions'
`_position_names`); a name the loop body indexes by a constant (`batch[0]`, a tuple
output's `out[1]`) or unpacks (`x, y = batch`) is a container, not a batch, and is left
out. The reads are those after the training loop in its function (the rest of an epoch
loop's body, what follows that loop), of a name not bound again there.
"""

from __future__ import annotations

import libcst as cst

from dp2ddp.flow import view
from dp2ddp.transforms._support.nodes import ModuleNodes, calls_model, target_names, walk
from dp2ddp.transforms.batches.beside import constant_slice
from dp2ddp.transforms.batches.positions import BatchPositions


def warn_picks_after_loop(proof: BatchPositions, nodes: ModuleNodes) -> None:
    """DP113 at a constant non-zero position read of a batch-derived name after a
    training loop over a loader, in its function (the module docstring)."""
    module = proof._module
    if proof._dim != 0 or module is None:
        return
    seen: set[cst.CSTNode] = set()
    for call in nodes.of(cst.Call):
        if not calls_model(call, proof._models):
            continue
        loop = proof._training_loop(lambda: view(module), call)
        if not isinstance(loop, cst.For) or loop in seen:
            continue
        seen.add(loop)
        if not any(proof._is_loader(u) for u in proof._loop_sources(loop)):
            continue
        names = proof._position_names(loop, call) - _containers(loop)
        after = _following(proof, loop)
        if not names or not after:
            continue
        bound = {
            n
            for statement in after
            for node in walk(statement)
            if isinstance(node, (cst.Assign, cst.AugAssign, cst.AnnAssign, cst.For))
            for n in _bound(node)
        }
        for statement in after:
            for node in walk(statement):
                if not isinstance(node, cst.Subscript) or len(node.slice) < 1:
                    continue
                root = node.value
                if not (isinstance(root, cst.Name) and root.value in names - bound):
                    continue
                position = _constant(node.slice[0].slice)
                if position is None and _slice_past_first(node):
                    # stop 53 s3: `x[:4]` for a sample grid or a debug forward
                    proof.warn(
                        node,
                        "DP113",
                        f"`{proof.code(node)}` after the loop takes constant positions of "
                        "the last batch: DataParallel held the whole gathered batch here, "
                        "DDP holds rank 0's part, so other samples are taken",
                    )
                    continue
                if position is None or position == 0:
                    continue
                proof.warn(
                    node,
                    "DP113",
                    f"`{proof.code(node)}` after the loop picks position {position} of the "
                    f"last batch: DataParallel held the whole gathered batch here, DDP holds "
                    "rank 0's part, so another sample is picked",
                )


def _containers(loop: cst.For) -> set[str]:
    """Names the loop body indexes by a constant or unpacks: a batch tuple, a tuple output."""
    out: set[str] = set()
    for node in walk(loop.body):
        if (
            isinstance(node, cst.Subscript)
            and isinstance(node.value, cst.Name)
            and node.slice
            and _constant(node.slice[0].slice) is not None
        ):
            out.add(node.value.value)
        if (
            isinstance(node, cst.Assign)
            and isinstance(node.value, cst.Name)
            and any(isinstance(t.target, (cst.Tuple, cst.List)) for t in node.targets)
        ):
            out.add(node.value.value)
    return out


def _following(proof: BatchPositions, loop: cst.For) -> list[cst.CSTNode]:
    """The statements run after `loop` in its function: those after it in its block, then
    after each statement around it (the rest of an epoch loop's body, what follows that
    loop), in order."""
    out: list[cst.CSTNode] = []
    node: cst.CSTNode | None = loop
    while node is not None and not isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Module)):
        block = proof.parent(node)
        if isinstance(block, (cst.Module, cst.IndentedBlock)) and node in block.body:
            out += list(block.body)[list(block.body).index(node) + 1 :]  # type: ignore[arg-type]
        node = block
    return out


def _bound(node: cst.CSTNode) -> set[str]:
    if isinstance(node, cst.Assign):
        return {n for t in node.targets for n in target_names(t.target)}
    if isinstance(node, (cst.AugAssign, cst.AnnAssign)):
        return target_names(node.target)
    if isinstance(node, cst.For):
        return target_names(node.target)
    return set()


def _constant(index: cst.BaseSlice) -> int | None:
    """The integer of `[k]` / `[-k]`, else None."""
    if not isinstance(index, cst.Index):
        return None
    value = index.value
    if isinstance(value, cst.Integer):
        return value.evaluated_value
    if (
        isinstance(value, cst.UnaryOperation)
        and isinstance(value.operator, cst.Minus)
        and isinstance(value.expression, cst.Integer)
    ):
        return -value.expression.evaluated_value
    return None


def _slice_past_first(node: cst.Subscript) -> bool:
    """A constant slice of rows (batches/beside.constant_slice) that takes more than
    position 0 (`[:1]`, `[0:1]` take the sample rank 0's part starts with, DataParallel's
    first too)."""
    if not constant_slice(node):
        return False
    first = node.slice[0].slice
    assert isinstance(first, cst.Slice)
    lower, upper = first.lower, first.upper
    zero = isinstance(lower, cst.Integer) and lower.evaluated_value == 0
    starts_at_zero = lower is None or zero
    return not (starts_at_zero and isinstance(upper, cst.Integer) and upper.evaluated_value <= 1)
