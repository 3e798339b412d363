"""The figures of a loop whose training steps a parameter switches (class E1): one epoch
function for both passes, `run(net, loader, opt, train=True)` / `run(..., train=False)`.

A sharded loader comes into such a loop only by calls turning its steps on: what the loop
adds to or shows only where they are off (the `else` of `if train:`, the evaluation
branch) stays empty or is not shown for it, and is no figure of this rank's share (DP030).
Whether a call turns them on, and which statements run only where they are off, is
analysis/step_guards.py's answer on the module's def-use view.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from dp2ddp.flow import view
from dp2ddp.transforms._support.nodes import walk
from dp2ddp.transforms.analysis.step_guards import Guard, runs_only_off, step_guard

if TYPE_CHECKING:
    from dp2ddp.transforms.data.evaluation import LoaderEvaluation
    from dp2ddp.transforms.data.plan import Loader


def guard_on_only(t: LoaderEvaluation, loader: Loader, loop: cst.For | cst.While) -> Guard | None:
    """The loop's step guard when every call bringing `loader` into `loop` (a `for`)
    turns it on (`run(net, train_loader, opt, train=True)`)."""
    if not isinstance(loop, cst.For):
        return None
    paths = [path for other, _, path in loader.loops if other is loop]
    if not paths or not all(t._guard_passed(loop, path) is True for path in paths):
        return None
    return step_guard(view(t._meta_module()), loop)


def fed_only_off(
    t: LoaderEvaluation, loop: cst.For | cst.While, guard: Guard, names: set[str]
) -> set[str]:
    """Those of `names` that the loop adds to or feeds only where `guard`'s steps are off."""
    places: dict[str, list[cst.CSTNode]] = {}
    for name, value in t._accumulated(loop):
        places.setdefault(name, []).append(value)
    for node in walk(loop.body, skip_scopes=True):
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
            if isinstance(node.func.value, cst.Name):
                places.setdefault(node.func.value.value, []).append(node)
    return {
        name
        for name in names
        if places.get(name) and all(only_off(t, node, loop, guard) for node in places[name])
    }


def only_off(
    t: LoaderEvaluation, node: cst.CSTNode, loop: cst.For | cst.While, guard: Guard
) -> bool:
    """`node` (in the loop's function) runs only where `guard`'s steps are off."""
    return runs_only_off(view(t._meta_module()), node, loop, guard)
