"""Buffers a pass fills by its step counter with its batches' figures, for the figure rule.

`steps = torch.zeros(len(loader))`, then `steps[i] = loss.item()` in `for i, (x, y) in
enumerate(loader)` and `print(steps.mean())` (or `steps.sum()`, `np.mean(buf)`, the buffer
returned as the epoch's figure): over a sharded loader each rank's buffer holds its own
batches' figures, and what is read from it is this rank's share, as a running sum is
(stop 45, helper f's find: silent before, the rule read only sums and item sums `+=`).
The buffer is one of the loop's figure objects (data/evaluation.py): shown or returned
after the loop, DP030; an evaluation loop holding one cannot have its figures summed
over the ranks, so its loader stays whole (DP015).

Proved before counting one: the store's index is the loop's step counter (`enumerate`'s
counter, or a name the loop only increases by a constant), the buffer is bound before the
loop to a tensor or array maker (`torch.zeros`, `np.empty`...) or a list of numbers or
Nones (`[0] * n`, `[0.0 for _ in range(n)]`), the stored value is computed from the batch
(`loss.item()`, `x.size(0)`; not the counter, not a learning rate: a per-step schedule
is the same on every rank), and the buffer is read after the loop otherwise than by its
length or shape (`len(steps)` counts steps, alike on every rank).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst
from libcst.metadata import PositionProvider

from dp2ddp.transforms._support.nodes import name_of, variables_under, walk

if TYPE_CHECKING:
    from dp2ddp.transforms.data.counters import LoopCounters

#: Calls that make a tensor or an array a pass can fill item by item.
_MAKERS = frozenset(
    f"{lib}.{kind}{like}"
    for lib in ("torch", "numpy")
    for kind in ("zeros", "empty", "ones", "full")
    for like in ("", "_like")
)
#: Reads of a buffer that show no value it holds: its length and shape.
_SHAPE_READS = frozenset({"shape", "size", "ndim", "dtype", "device"})


def step_buffers(t: LoopCounters, loop: cst.For | cst.While, batch: set[str]) -> set[str]:
    """The buffers `loop` fills by its step counter with values computed from `batch` (the
    names it binds from its batches) and that are read after it (see the docstring)."""
    counters = _step_counters(t, loop)
    if not counters:
        return set()
    values = batch - counters
    found: set[str] = set()
    for node in walk(loop.body, skip_scopes=True):
        if not isinstance(node, cst.Assign):
            continue
        for target in node.targets:
            store = target.target
            if not (
                isinstance(store, cst.Subscript)
                and isinstance(store.value, cst.Name)
                and len(store.slice) == 1
                and isinstance(store.slice[0].slice, cst.Index)
                and isinstance(index := store.slice[0].slice.value, cst.Name)
                and index.value in counters
            ):
                continue
            name = store.value.value
            if name in found or not any(n.value in values for n in variables_under(node.value)):
                continue
            if _buffer(t, t._bound_before(loop, name)) and _read_after(t, loop, name):
                found.add(name)
    return found


def _step_counters(t: LoopCounters, loop: cst.For | cst.While) -> set[str]:
    """`i` of `for i, batch in enumerate(...)`, and the names the loop only increases by a
    constant (`step += 1`)."""
    found = set(t._step_counters(loop))
    if (
        isinstance(loop, cst.For)
        and isinstance(loop.iter, cst.Call)
        and name_of(loop.iter.func) == "enumerate"
        and isinstance(loop.target, cst.Tuple)
        and loop.target.elements
        and isinstance(first := loop.target.elements[0].value, cst.Name)
    ):
        found.add(first.value)
    return found


def _buffer(t: LoopCounters, value: cst.BaseExpression | None) -> bool:
    """A tensor or array made to be filled, or a list of numbers or Nones."""
    if isinstance(value, cst.Call) and (t._numbers(value) or t.matches(value.func, _MAKERS)):
        return True
    if isinstance(value, cst.BinaryOperation) and isinstance(value.operator, cst.Multiply):
        return any(
            isinstance(side, cst.List)
            and len(side.elements) == 1
            and isinstance(side.elements[0].value, cst.Name)
            and side.elements[0].value.value == "None"
            for side in (value.left, value.right)
        ) or t._numbers(value)
    return isinstance(value, cst.ListComp) and t._numbers(value)


def _read_after(t: LoopCounters, loop: cst.For | cst.While, name: str) -> bool:
    """`name` is read after `loop` in its function for a value it holds (not `len(name)`,
    `name.shape`, `name.size()`, nor a store into it)."""
    end = t.get_metadata(PositionProvider, loop).end.line
    for node in walk(t._scope_root(loop), skip_scopes=True):
        if not (isinstance(node, cst.Name) and node.value == name):
            continue
        if t.get_metadata(PositionProvider, node).start.line <= end:
            continue
        parent = t.parent(node)
        if isinstance(parent, cst.Attribute) and parent.attr.value in _SHAPE_READS:
            continue
        if isinstance(parent, cst.Arg):
            call = t.parent(parent)
            if isinstance(call, cst.Call) and name_of(call.func) == "len":
                continue
        if isinstance(parent, cst.Subscript) and isinstance(t.parent(parent), cst.AssignTarget):
            continue
        return True
    return False
