"""wandb on rank 0 only.

`wandb.init(...)` runs on every rank with `mode="disabled"` off rank 0, rather than being
skipped: a disabled run makes every wandb call (`wandb.log`, `run.log`, `wandb.config[...]`)
a no-op, where a skipped init would make them raise. Statement calls (`wandb.log(...)`,
`run.finish()`) are guarded as well (guard_statements.py), so their arguments (images,
tables) are not even built on other ranks.
"""

from __future__ import annotations

import libcst as cst

from dp2ddp.transforms.analysis.guards import mentions_rank
from dp2ddp.transforms.rank_zero.edits import append_keyword, disabled_off_main
from dp2ddp.transforms.rank_zero.rule import CallRule
from dp2ddp.transforms.rank_zero.side_effects import WANDB_INIT


class WandbRuns(CallRule):
    def leave_call(
        self, original: cst.Call, updated: cst.Call, names: set[str]
    ) -> cst.BaseExpression | None:
        if names & WANDB_INIT:
            return self._wandb_init(original, updated)
        return None

    def _wandb_init(self, original: cst.Call, updated: cst.Call) -> cst.Call:
        if self.facts.under_guard(original):
            return updated
        if any(arg.star for arg in updated.args) or self.facts.before_setup(original):
            self.t.warn(original, "DP021", "wandb.init: pass mode='disabled' on ranks other than 0")
            return updated
        description = "wandb run disabled on ranks other than 0"
        for index, arg in enumerate(updated.args):
            if arg.keyword is not None and arg.keyword.value == "mode":
                if mentions_rank(arg.value):
                    return updated
                args = list(updated.args)
                args[index] = arg.with_changes(value=disabled_off_main(arg.value))
                self.t.record(original, description)
                return updated.with_changes(args=args)
        self.t.record(original, description)
        return append_keyword(updated, "mode", disabled_off_main(cst.Name("None")))
