"""DP032: a training loop left on a condition that may differ between ranks (a rank's own
loss, a clock read): that rank leaves while the others wait in the next gradient
all-reduce. The loop trains when a backward or an optimizer step runs in it or in a function
it calls (loop_decisions.py). A test whose per-process reads run_dir.py made rank 0's value
(a time budget) is every rank's: the uniformity proof says so, and no DP032 is given. DP075:
the optimizer step taken on such a condition (`if loss.item() < k * last: opt.step()`, a
"skip unstable batches" rule): DataParallel decided once, on the whole batch's figure; each
rank decides on its own shard's, some step and some do not, and from then on the ranks hold
different weights (DDP syncs gradients, never weights)."""

from __future__ import annotations

import libcst as cst

from dp2ddp.transforms._support.nodes import (
    calls_under,
    code_of,
    name_of,
    statement_header,
    walk,
)
from dp2ddp.transforms.analysis.per_rank import computed_per_rank
from dp2ddp.transforms.analysis.uniformity import RankUniformity
from dp2ddp.transforms.rank_zero.loop_decisions import loop_trains
from dp2ddp.transforms.rank_zero.rule import Rule


def _optimizer_step(call: cst.Call) -> bool:
    """`opt.step()`, `self.optimizer.step()`, `optimizers[i].step()` (a receiver named as an
    optimizer; a scaler's `step(opt)` takes the optimizer as an argument and is not one)."""
    func = call.func
    if not (isinstance(func, cst.Attribute) and func.attr.value == "step") or call.args:
        return False
    return "opt" in name_of(func.value, through=(cst.Subscript,)).lower()


class LoopExits(Rule):
    def visit_call(self, node: cst.Call) -> None:
        """DP075: an optimizer step taken on a condition that may differ between ranks."""
        if not _optimizer_step(node):
            return
        ifs: list[cst.If] = []
        child: cst.CSTNode = node
        parent = self.t.parent(node)
        while parent is not None and not isinstance(
            parent, (cst.For, cst.While, cst.FunctionDef, cst.ClassDef, cst.Lambda)
        ):
            if isinstance(parent, cst.If) and child is not parent.test:
                ifs.append(parent)
            child, parent = parent, self.t.parent(parent)
        if not isinstance(parent, (cst.For, cst.While, cst.FunctionDef)):
            return
        if not ifs or self.facts.under_guard(node):
            return
        # the scope whose values the test reads: the enclosing loop, or the function (a
        # `train_step()` method that backpropagates, then decides whether to step)
        uniform = self.facts.uniform
        local = [
            i
            for i in ifs
            if computed_per_rank(uniform, i.test, parent)
            # in a function (a `train_step(self, x, y)` its caller feeds), the test must be
            # proved the same on every rank: the batch comes in through the parameters
            or (isinstance(parent, cst.FunctionDef) and not uniform.value(i.test, i))
        ]
        if not local:
            return
        dependent = local[-1]
        # the backward runs outside that condition: every rank took part in the gradient
        # all-reduce, only the step is rank-local (a backward under the condition too is
        # another hazard: the ranks would wait on each other, not part silently)
        inside = {id(c) for c in calls_under(dependent)}
        if not any(
            isinstance(c.func, cst.Attribute)
            and c.func.attr.value == "backward"
            and id(c) not in inside
            for c in calls_under(parent)
        ):
            return
        self.t.warn(
            dependent,
            "DP075",
            f"`{statement_header(dependent)}` may differ between ranks: "
            f"`{code_of(node)}` would run on some ranks only, and their weights part for good "
            "(DataParallel decided once, on the whole batch)",
        )

    def visit_break(self, node: cst.Break) -> None:
        """DP032: a training loop left on a condition that may differ between ranks."""
        ifs: list[cst.If] = []
        parent = self.t.parent(node)
        while parent is not None and not isinstance(parent, (cst.For, cst.While)):
            if isinstance(parent, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
                return
            if isinstance(parent, cst.If):
                ifs.append(parent)
            parent = self.t.parent(parent)
        if parent is None or self.facts.under_guard(node):
            return
        uniform = self.facts.uniform
        local = [
            i
            for i in ifs
            if computed_per_rank(uniform, i.test, parent) and not _shared_reads(uniform, i.test)
        ]
        if not local:
            return
        dependent = local[-1]
        if loop_trains(uniform.index, parent, self.t.qualified_names):
            self.t.warn(
                dependent,
                "DP032",
                f"`{statement_header(dependent)}` may differ between ranks: one rank would leave "
                "the training loop while the others wait in the next gradient all-reduce",
            )


def _shared_reads(uniform: RankUniformity, test: cst.BaseExpression) -> bool:
    """`test` is proved the same on every rank (uniformity.py), and reads something made
    rank 0's value (a clock read shared by run_dir.py): without such a read, the
    warning's own judgement (computed_per_rank) stands."""
    return uniform.value(test, test) and any(
        isinstance(call, cst.Call) and uniform.value(call, call) for call in walk(test)
    )
