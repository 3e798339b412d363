"""tqdm bars drawn by rank 0 only: `disable=not ddp_is_main()` (an explicit `disable`
value is kept on rank 0)."""

from __future__ import annotations

import libcst as cst

from dp2ddp.transforms.analysis.guards import main_call, mentions_rank, not_main
from dp2ddp.transforms.rank_zero.edits import append_keyword, is_name, parenthesize
from dp2ddp.transforms.rank_zero.rule import CallRule
from dp2ddp.transforms.rank_zero.side_effects import TQDM


class ProgressBars(CallRule):
    def leave_call(
        self, original: cst.Call, updated: cst.Call, names: set[str]
    ) -> cst.BaseExpression | None:
        if names & TQDM:
            return self._tqdm(original, updated)
        return None

    def _tqdm(self, original: cst.Call, updated: cst.Call) -> cst.Call:
        if self.facts.before_setup(original) or self.facts.under_guard(original):
            return updated
        if any(arg.star == "**" for arg in updated.args):
            return updated  # `disable` may be among the keywords: adding one could clash
        for index, arg in enumerate(updated.args):
            if arg.keyword is None or arg.keyword.value != "disable":
                continue
            value = arg.value
            if mentions_rank(value) or is_name(value, "True"):
                return updated
            if is_name(value, "False"):
                new_value: cst.BaseExpression = not_main()
            elif is_name(value, "None"):  # None: tqdm's "off when not a terminal"
                new_value = cst.IfExp(
                    test=main_call(), body=cst.Name("None"), orelse=cst.Name("True")
                )
            else:
                new_value = cst.BooleanOperation(
                    left=parenthesize(value), operator=cst.Or(), right=not_main()
                )
            args = list(updated.args)
            args[index] = arg.with_changes(value=new_value)
            self.t.record(original, "progress bar shown on rank 0 only")
            return updated.with_changes(args=args)
        self.t.record(original, "progress bar shown on rank 0 only")
        return append_keyword(updated, "disable", not_main())
