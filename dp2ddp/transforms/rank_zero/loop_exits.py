"""DP032: a training loop left on a condition that may differ between ranks (a rank's own
loss, a clock read): that rank leaves while the others wait in the next gradient
all-reduce."""

from __future__ import annotations

import libcst as cst

from dp2ddp.transforms._support.nodes import statement_header
from dp2ddp.transforms.analysis.per_rank import computed_per_rank
from dp2ddp.transforms.analysis.training import loop_trains
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
        local = [i for i in ifs if computed_per_rank(self.facts.uniform, i.test, parent)]
        if not local:
            return
        dependent = local[-1]
        if loop_trains(parent, self.t.qualified_names):
            self.t.warn(
                dependent,
                "DP032",
                f"`{statement_header(dependent)}` may differ between ranks: one rank would leave "
                "the training loop while the others wait in the next gradient all-reduce",
            )
