"""Loops whose figures come back from a training step called in them (stop 73, steploss).

`loss = train_step(model, optimizer, batches)` in `for step in range(len(loader)):`, the
step function pulling its batch itself (`next(batches)` of `iter(loader)`: a sharded
loader's iterator, or the program's own provider split where it is pulled,
batches/pulled.py): the loop neither iterates a loader nor holds the model's call, so
neither the data pass's figure rule (loops over a loader) nor this pass's (loops whose
batch it split, loops.py `_warn_split_figures`) looked at it, and `total += loss` printed
after the loop was rank 0's share with no DP030. The step function's batch is this rank's
share after the migration (proved sharded, or split), so what it returns is too: the loop
is read by the same rule (a stand-in loader holding it, DP030 where a running figure of it
is shown or handed on).

Two ways the loop is known to run such a step:
- this module's: the proof followed a call of the wrapped model in a function to the loop
  around a call of that function (training_loops._loop_around) and found its batch this
  rank's share (`_split_calls`); the loop does not hold the model's call itself;
- another module's: a call in the loop's body runs a function or a method of another
  module that trains (ProgramLoaders.stepping, analysis/object_steps.told_step): its
  module's proof makes its batch this rank's share, whatever it is handed.
Loops over a loader stay the data pass's (`_warn_split_figures` leaves them out).
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

import libcst as cst

from dp2ddp.transforms._support.nodes import calls_under
from dp2ddp.transforms.analysis.object_steps import told_step
from dp2ddp.transforms.data.handoffs import method_callees

if TYPE_CHECKING:
    from dp2ddp.transforms.batches.loops import BatchLoops, Step


def note_step_loop(t: BatchLoops, call: cst.Call, loop: Step | None) -> None:
    """Keep `loop` where the proof made the batch of `call` (a wrapped model's call in a
    step function the loop runs, not in the loop itself) this rank's share."""
    if (
        isinstance(loop, (cst.For, cst.While))
        and call in t._split_calls
        and not t._inside(call, loop)
        and loop not in t._step_loops
    ):
        t._step_loops.append(loop)


def told_step_loops(t: BatchLoops, module: cst.Module) -> list[cst.For | cst.While]:
    """The loops of `module` whose body calls another module's training step (module
    docstring), innermost around each such call."""
    stepping = t.state.facts.loaders.stepping
    if not stepping:
        return []
    methods = partial(method_callees, t)
    found: list[cst.For | cst.While] = []
    for call in calls_under(module):
        if not told_step(call, t.qualified_names, methods, stepping):
            continue
        loop = None
        for ancestor in t._ancestors_to(call, None):
            if isinstance(ancestor, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
                break
            if isinstance(ancestor, (cst.For, cst.While)):
                loop = ancestor
                break
        if loop is not None and loop not in found:
            found.append(loop)
    return found
