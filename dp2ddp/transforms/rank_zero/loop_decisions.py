"""Where a training loop decides to end: the tests the ranks must agree on (issue 29).

Migrated, every rank runs the training loop, and every iteration ends in DDP's gradient
all-reduce: a rank that leaves the loop one iteration before the others leaves them waiting
in that all-reduce (gloo: "Connection closed by peer", or a hang). Under DataParallel one
process decided. A time budget (`if time.time() - t0 > limit: break`, `while time.time() <
deadline:`) read on each rank decided apart: ranks started a second apart left at different
steps (survey of stop 33: rc 1 on both launch orders). Such a test's per-process reads
become rank 0's value (rank_zero/run_dir.py, ddp_rank0_value); a test on this rank's own
batches is DP032 (loop_exits.py).

A loop trains when a backward or an optimizer step runs in it, in its own text or in a
function of this module it calls (by name, any depth): a training step kept in `def
step(...)` trains the loop that calls it as much as one written inline (before: no DP032).
"""

from __future__ import annotations

import libcst as cst

from dp2ddp.transforms._support.nodes import NodeView, name_of, nodes_of
from dp2ddp.transforms.analysis.module_index import ModuleIndex
from dp2ddp.transforms.analysis.training import QualifiedNames, trains_through

Loop = cst.For | cst.While


def loop_trains(index: ModuleIndex, loop: Loop, qualified_names: QualifiedNames) -> bool:
    """A backward or an optimizer step runs in `loop`: in its text, or in a function of the
    module it calls (by name; methods by their attribute name), however deep
    (analysis/training.trains_through)."""
    return trains_through(
        loop, qualified_names, lambda call: index.functions.get(name_of(call.func), [])
    )


def exit_tests(
    view: NodeView, index: ModuleIndex, module: cst.Module, qualified_names: QualifiedNames
) -> list[tuple[cst.BaseExpression, cst.CSTNode, Loop]]:
    """Each test that decides whether a training loop ends, with the statement it sits in
    and the loop: the `if` around a `break` (every one up to the loop it leaves) and a
    `while` loop's own test. A loop that does not train (loop_trains) is left out: an
    evaluation's loop leaves no all-reduce waiting."""
    found: list[tuple[cst.BaseExpression, cst.CSTNode, Loop]] = []
    trains: dict[int, bool] = {}

    def training(loop: Loop) -> bool:
        if id(loop) not in trains:
            trains[id(loop)] = loop_trains(index, loop, qualified_names)
        return trains[id(loop)]

    seen: set[int] = set()
    for node in nodes_of(module, (cst.While, cst.Break)):
        if isinstance(node, cst.While) and training(node):
            found.append((node.test, node, node))
        if not isinstance(node, cst.Break):
            continue
        ifs: list[cst.If] = []
        parent = view.parent(node)
        while parent is not None and not isinstance(parent, (cst.For, cst.While)):
            if isinstance(parent, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
                parent = None
                break
            if isinstance(parent, cst.If):
                ifs.append(parent)
            parent = view.parent(parent)
        if parent is None or not training(parent):
            continue
        for statement in ifs:
            if id(statement) not in seen:
                seen.add(id(statement))
                found.append((statement.test, statement, parent))
    return found
