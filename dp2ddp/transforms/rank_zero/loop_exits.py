"""DP032: a training loop left on a condition that may differ between ranks (a rank's own
loss, a clock read): that rank leaves while the others wait in the next gradient
all-reduce. The loop trains when a `.backward()` runs in it or in a function it calls
(loop_decisions.py). A test whose per-process reads run_dir.py made rank 0's value (a time
budget) is every rank's: the uniformity proof says so, and no DP032 is given."""

from __future__ import annotations

import libcst as cst

from dp2ddp.transforms._support.nodes import statement_header, walk
from dp2ddp.transforms.analysis.per_rank import computed_per_rank
from dp2ddp.transforms.analysis.uniformity import RankUniformity
from dp2ddp.transforms.rank_zero.loop_decisions import loop_trains
from dp2ddp.transforms.rank_zero.rule import Rule


class LoopExits(Rule):
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
        if loop_trains(uniform.index, parent):
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
