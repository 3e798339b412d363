"""A `while` loop walking a sequence by a position counter, its batch cut by a helper of
another module: the same DP037 as its `for i in range(0, n, bptt)` form.

Round 37 (quettabit/awd-lstm-lmkit@6510d06 main.py): `i = 0; while i < train_data.size(0)
- 2: data, targets = get_batch(train_data, i, args, seq_len=seq_len); ...; i += seq_len`,
get_batch imported from a utilities module and the dim=1 wrap made there too. The `for`
form's planner (`_plan_range_loop`) says DP037 ("get_batch() is not defined in this
module"); the `while` form was no batch loop to it, so nothing split the batches and
nothing said so but the wrap's DP001 (whose text points to a DP037 that never came): every
rank trained on every whole batch. The counter is a name the test compares and the loop's
own statements advance (`i += step`); a batch bound from a call given it whose definition
is not in this module (named as a batch, fed to a wrapped model, or any where this module
knows no wrapped model: the wrap made by another module's helper) is not proved split:
DP037, as for the `for` form. Asked after the proof (`_prove`), and only where it split
nothing in the module and said nothing at the loop: a loop whose batch it follows into the
model (`x = ddp_shard_batch(x, dim=1)` in lm_flattened_targets) or whose source it splits
before the loop is left to it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from dp2ddp.transforms._support.nodes import ModuleNodes, variables_under
from dp2ddp.transforms.batches.loops import SHARD, straight_statements

if TYPE_CHECKING:
    from dp2ddp.transforms.batches import ShardBatches


def counters(loop: cst.While) -> set[str]:
    """Names the test compares that the loop's straight statements advance by `+=`."""
    test = loop.test
    if not isinstance(test, cst.Comparison) or not isinstance(test.left, cst.Name):
        return set()
    name = test.left.value
    advanced = any(
        isinstance(s, cst.AugAssign)
        and isinstance(s.operator, cst.AddAssign)
        and isinstance(s.target, cst.Name)
        and s.target.value == name
        for statement, nested in straight_statements(loop.body)
        if not nested
        for s in statement.body
    )
    return {name} if advanced else set()


def warn_foreign_cut(t: ShardBatches, loop: cst.While) -> bool:
    """DP037 at `loop` where it binds its batch from a call, given its counter, of a
    function this module does not define (module docstring); True when said."""
    names = counters(loop)
    if not names:
        return False
    for statement, nested in straight_statements(loop.body):
        assign = statement.body[0] if len(statement.body) == 1 else None
        if nested or not isinstance(assign, cst.Assign):
            continue
        value = assign.value
        if not isinstance(value, cst.Call) or not isinstance(value.func, cst.Name):
            continue
        if not any(v.value in names for a in value.args for v in variables_under(a.value)):
            continue
        if t._helper(value, names) is not False:
            continue
        fed = any(t._reaches_model(g.target) for g in assign.targets)
        if t._produces(value, names) or fed or not t._models:  # the wrap made elsewhere
            why = f"{t.code(value.func)}() is not defined in this module"
            t._warn(loop, f"positions {t.code(loop.test)}", why)
            return True
    return False


def warn_unsplit_while_loops(t: ShardBatches, nodes: ModuleNodes) -> None:
    """warn_foreign_cut at each training `while` loop where the proof split nothing."""
    if t._split_after or t._swap:
        return
    for loop in nodes.of(cst.While):
        if loop in t._warned or any(t._inside(loop, outer) for outer in t._planned):
            continue
        if t._trains(loop) and SHARD not in t.code(loop.body):
            warn_foreign_cut(t, loop)
