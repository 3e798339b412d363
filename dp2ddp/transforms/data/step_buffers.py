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
counter, or a name the loop only increases by a constant; or arithmetic on it and on names
not from the batch, `i * iters + j`), the buffer is made to be filled
(a tensor or array maker, `torch.zeros`, `np.empty`..., or a list of numbers or Nones,
`[0] * n`, `[0.0 for _ in range(n)]`: filled_tables.made_to_fill, every binding reaching
the store), the stored value is computed from the batch (`loss.item()`, `x.size(0)`; not
the counter, not a learning rate: a per-step schedule is the same on every rank), and the
buffer is read after the loop for a value it holds (filled_tables.read_after: `len(steps)`
counts steps, alike on every rank; a buffer the program reduces itself is not read so).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import cache, partial
from typing import TYPE_CHECKING

import libcst as cst
from libcst.metadata import PositionProvider

from dp2ddp.transforms._support.nodes import name_of, target_names, variables_under, walk
from dp2ddp.transforms.data.filled_tables import made_to_fill, read_after

if TYPE_CHECKING:
    from dp2ddp.transforms.data.counters import LoopCounters


def step_buffers(t: LoopCounters, loop: cst.For | cst.While, batch: set[str]) -> set[str]:
    """The buffers `loop` fills by its step counter with values computed from `batch` (the
    names it binds from its batches) and that are read after it (see the docstring)."""
    found: set[str] = set()
    for held, _ in _stores(t, loop, batch):
        if not isinstance(held, cst.Name) or held.value in found:
            continue
        end = t.get_metadata(PositionProvider, loop).end.line
        if made_to_fill(t, held, lists=True) and read_after(
            t, t._scope_root(loop), held.value, end, sized=True
        ):
            found.add(held.value)
    return found


def attribute_step_buffers(
    t: LoopCounters, loop: cst.For | cst.While, batch: set[str], own: str
) -> dict[str, cst.Assign]:
    """The attributes of the instance (`own`: the method's first parameter) that `loop`
    fills by its step counter with values computed from `batch` (`self.iter_losses[i] =
    loss`), each with its first store: what another method, or this one after the loop,
    reads of it is this rank's share (data/attribute_figures.py proves the attribute is a
    plain buffer the class makes and says each show). Round 31, Seanny123/da-rnn@1db1e79:
    per-step losses stored at `e * iters + j` of `self.iter_losses`, the epoch means
    printed, rank 0's half with no DP030."""
    found: dict[str, cst.Assign] = {}
    for held, node in _stores(t, loop, batch):
        if (
            isinstance(held, cst.Attribute)
            and isinstance(held.value, cst.Name)
            and held.value.value == own
        ):
            found.setdefault(held.attr.value, node)
    return found


def _stores(
    t: LoopCounters, loop: cst.For | cst.While, batch: set[str]
) -> Iterator[tuple[cst.BaseExpression, cst.Assign]]:
    """Each store of `loop`'s body into an item of a name or an attribute of one, indexed by
    the loop's step counter, whose value is computed from `batch`: what is stored into, and
    the assignment."""
    counters = _step_counters(t, loop)
    if not counters:
        return
    values = batch - counters
    bound = cache(partial(_bound_names, loop))  # read once, and only where an index asks
    for node in walk(loop.body, skip_scopes=True):
        if not isinstance(node, cst.Assign):
            continue
        for target in node.targets:
            store = target.target
            if not (
                isinstance(store, cst.Subscript)
                and isinstance(store.value, cst.Name | cst.Attribute)
                and len(store.slice) == 1
                and isinstance(store.slice[0].slice, cst.Index)
                and _stepped(store.slice[0].slice.value, counters, bound)
            ):
                continue
            if any(n.value in values for n in variables_under(node.value)):
                yield store.value, node


def _bound_names(loop: cst.For | cst.While) -> set[str]:
    """The names the loop's body binds."""
    return {
        n
        for node in walk(loop.body, skip_scopes=True)
        if isinstance(node, (cst.Assign, cst.AugAssign, cst.AnnAssign))
        for t in (node.targets if isinstance(node, cst.Assign) else [node])
        for n in target_names(t.target)
    }


def _stepped(index: cst.BaseExpression, counters: set[str], bound: Callable[[], set[str]]) -> bool:
    """The store's index is the step counter, or arithmetic on it and on names the loop
    does not bind (`i * iters + j` over the epochs: round 31, Seanny123/da-rnn@1db1e79's
    `iter_losses`, whose epoch means were rank 0's half, no DP030)."""
    if isinstance(index, cst.Name):
        return index.value in counters
    if not isinstance(index, cst.BinaryOperation):
        return False
    names = {n.value for n in variables_under(index)}
    return bool(names & counters) and not (names - counters) & bound()


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
