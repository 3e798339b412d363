"""Values a rank computes on its own: likely causes named in warnings, not proofs.

uniformity.py proves what is the same on every rank; these two questions go the other way
and only point at a probable culprit for a message. DP032 (a training loop left on a
condition that may differ between ranks) asks `computed_per_rank`: a loss, a model output,
a clock read in the loop; DP033 (a SummaryWriter's log directory named by the clock or a
random draw) asks `per_process_draw`.
"""

from __future__ import annotations

from typing import Final

import libcst as cst

from dp2ddp.transforms._support.nodes import enclosing_function, walk
from dp2ddp.transforms.analysis.guards import mentions_rank
from dp2ddp.transforms.analysis.module_index import binds_name, bound_values, read_parts
from dp2ddp.transforms.analysis.per_process import PER_PROCESS_PREFIXES
from dp2ddp.transforms.analysis.uniformity import RankUniformity

#: Calls whose result differs between processes even on the same input.
_PER_PROCESS: Final = ("time.", "random.", "numpy.random.", "os.path.exists", "os.path.is")
#: Seeding calls: after one (the same seed on every rank) the generator's draws agree.
_SEEDS: Final = {"random.": "random.seed", "numpy.random.": "numpy.random.seed"}


def computed_per_rank(
    u: RankUniformity, test: cst.BaseExpression, loop: cst.For | cst.While
) -> bool:
    """`test` reads a value that `loop` computes differently on each rank: from its
    batches (a loss, a model output), under a rank-local `if`, or a clock or random draw.
    Values from before the loop and counters (`step += args.batch`) do not count: this
    is for a warning about leaving the loop, and a loss is the usual culprit."""
    return _loop_local(u, test, loop, set())


def _loop_local(
    u: RankUniformity, expr: cst.BaseExpression, loop: cst.For | cst.While, seen: set[str]
) -> bool:
    if mentions_rank(expr):
        return True
    for call in walk(expr):
        if isinstance(call, cst.Call) and any(
            n.startswith(_PER_PROCESS) for n in u.view.qualified_names(call.func)
        ):
            return True
    names = {n.value for n in walk(expr) if isinstance(n, cst.Name)} - seen
    seen |= names
    for node in walk(loop, skip_scopes=True):
        if isinstance(node, cst.For):
            bound = [n for n in names if binds_name(node.target, n)]
            if any(not u.counts_passes(node, n) and not u.value(node.iter, node) for n in bound):
                return True
            continue
        if not isinstance(node, (cst.Assign, cst.AnnAssign, cst.AugAssign)):
            continue
        targets = node.targets if isinstance(node, cst.Assign) else [node]
        if not any(binds_name(t.target, n) for t in targets for n in names):
            continue
        if node.value is None or _loop_local(u, node.value, loop, seen):
            return True
        child: cst.CSTNode = node
        parent = u.view.parent(node)
        while parent is not None and parent is not loop:
            if (
                isinstance(parent, cst.If)
                and child is not parent.test
                and _loop_local(u, parent.test, loop, seen)
            ):
                return True
            child, parent = parent, u.view.parent(parent)
    return False


def per_process_draw(
    u: RankUniformity, expr: cst.BaseExpression, at: cst.CSTNode
) -> cst.Call | None:
    """A clock read or random draw that `expr` (evaluated at `at`) is built from, through
    the names and `self.` attributes bound in its function or module; None when none is.

    Flow-insensitive (any binding of a name counts) and module-local (a parameter's
    argument is not followed): it names a likely cause for a warning, it proves nothing.
    A draw from a generator the module seeds (`random.seed(0)`) does not count."""
    scope: cst.CSTNode = enclosing_function(at, u.view) or u.module
    seeded = {
        prefix
        for prefix, seed in _SEEDS.items()
        if any(seed in u.view.qualified_names(call.func) for call in u.index.calls)
    }
    seen: set[str] = set()
    stack: list[cst.CSTNode] = [expr]
    while stack:
        node = stack.pop()
        for part in read_parts(node):
            if isinstance(part, cst.Call):
                names = u.view.qualified_names(part.func)
                if any(
                    n.startswith(PER_PROCESS_PREFIXES) and not n.startswith(tuple(seeded))
                    for n in names
                ):
                    return part
                continue
            key = part.value if isinstance(part, cst.Name) else "self." + part.attr.value
            if key in seen:
                continue
            seen.add(key)
            if isinstance(part, cst.Attribute):
                stack += [v for _, v in u.index.attribute_sets.get(part.attr.value, []) if v]
                continue
            for root in (scope, u.module) if scope is not u.module else (scope,):
                stack += bound_values(root, part.value)
    return None
