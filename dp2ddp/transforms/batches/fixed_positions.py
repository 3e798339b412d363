"""An output of the wrapped model read at positions the code fixes, not the batch (DP123).

A training loop reads its model's output at a position computed from constants and the
counters of fixed ranges (`for j in range(4): x = make_grid(prob[j * 16] * 255)`, head j's
first attention map of a (heads x batch) output: soobinseo/Transformer-TTS@87bd9c9
train_transformer.py:69-89, `prob` an element of the output list `attn_probs`). DataParallel
gathered the whole batch's outputs along dim 0, so the positions were rows of the global
batch; each rank now holds its part, and the same positions pick other rows, or none: with 8
rows a rank, 4 heads, `prob[32]` raised IndexError on both ranks, no warning. A position built
from the global batch size is read per rank (output_indices.py, issue 28's N5); these name
no size, so nothing proves what they stand for: said, DP123, not rewritten.

Only a computed position is read (`j * 16`, `16 * j + 1`, a counter of a fixed `range()`
with constants): a constant alone (`out[1]`) or a counter alone (`out[j]`) is an item of a
tuple output as often, and is left out, as DP082 leaves it. The outputs are the names the
call binds, those a head applied to them binds (headed_outputs), and the elements a loop
over one of them binds (`for i, prob in enumerate(attn_probs)`: an output list's tensors,
each gathered whole by DataParallel).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from dp2ddp.transforms._support.nodes import name_of, target_names, walk

if TYPE_CHECKING:
    from dp2ddp.transforms.batches import ShardBatches

#: The most positions a read is followed to (a range of more is not read out).
_MOST = 64


def iterated_outputs(body: cst.BaseSuite, outputs: set[str]) -> set[str]:
    """The names a loop in `body` binds to the elements of an output
    (`for prob in attn_probs`, `for i, prob in enumerate(attn_probs)`)."""
    found: set[str] = set()
    for node in walk(body):
        if not isinstance(node, cst.For):
            continue
        source: cst.BaseExpression = node.iter
        target: cst.BaseExpression = node.target
        if (
            isinstance(source, cst.Call)
            and name_of(source.func) == "enumerate"
            and source.args
            and isinstance(target, (cst.Tuple, cst.List))
            and len(target.elements) == 2
        ):
            source, target = source.args[0].value, target.elements[1].value
        if isinstance(source, cst.Name) and source.value in outputs:
            found |= target_names(target)
    return found


def warn_fixed_positions(
    proof: ShardBatches, subscript: cst.Subscript, index: cst.BaseSlice, call: cst.Call
) -> None:
    """DP123 where `index` (into an output of `call`) is a computed fixed position past 0
    (see the module docstring)."""
    if not isinstance(index, cst.Index) or not isinstance(index.value, cst.BinaryOperation):
        return
    positions = _positions(proof, index.value, subscript)
    if positions is None or not any(positions):
        return
    shown = ", ".join(str(p) for p in sorted(positions)[:4]) + (
        ", ..." if len(positions) > 4 else ""
    )
    proof.warn(
        subscript,
        "DP123",
        f"`{proof.code(subscript)}` reads fixed positions ({shown}) of an output of "
        f"{proof.code(call.func)}(): DataParallel gathered the whole batch's outputs, each "
        "rank holds those of its part, so a position past 0 reads another row or none "
        "(IndexError)",
    )


def _positions(proof: ShardBatches, node: cst.BaseExpression, site: cst.CSTNode) -> set[int] | None:
    """The integers `node` can be: constants, `-`, `+ - * // %` of such, and a counter of a
    `for` around `site` over `range()` of constants; None for anything else."""
    if isinstance(node, cst.Integer):
        return {int(node.evaluated_value)}
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        inner = _positions(proof, node.expression, site)
        return None if inner is None else {-v for v in inner}
    if isinstance(node, cst.BinaryOperation):
        left, right = _positions(proof, node.left, site), _positions(proof, node.right, site)
        if left is None or right is None or len(left) * len(right) > _MOST:
            return None
        out: set[int] = set()
        for a in left:
            for b in right:
                value = _combine(node.operator, a, b)
                if value is None:
                    return None
                out.add(value)
        return out
    if isinstance(node, cst.Name):
        return _counter(proof, node.value, site)
    return None


def _combine(operator: cst.BaseBinaryOp, a: int, b: int) -> int | None:
    if isinstance(operator, cst.Add):
        return a + b
    if isinstance(operator, cst.Subtract):
        return a - b
    if isinstance(operator, cst.Multiply):
        return a * b
    if isinstance(operator, cst.FloorDivide) and b:
        return a // b
    if isinstance(operator, cst.Modulo) and b:
        return a % b
    return None


def _counter(proof: ShardBatches, name: str, site: cst.CSTNode) -> set[int] | None:
    """The values of `name` where a `for name in range(<constants>)` around `site` binds
    it; None where something else binds it."""
    for ancestor in proof._ancestors_to(site, None):
        if isinstance(ancestor, (cst.FunctionDef, cst.ClassDef)):
            return None
        if not isinstance(ancestor, cst.For) or name not in target_names(ancestor.target):
            continue
        source = ancestor.iter
        if not (
            isinstance(ancestor.target, cst.Name)
            and isinstance(source, cst.Call)
            and name_of(source.func) == "range"
            and 1 <= len(source.args) <= 3
        ):
            return None
        bounds = [_positions(proof, a.value, ancestor) for a in source.args]
        if any(b is None or len(b) != 1 for b in bounds):
            return None
        values = range(*[next(iter(b)) for b in bounds if b is not None])
        return set(values) if len(values) <= _MOST else None
    return None
