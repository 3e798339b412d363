"""`torch.load` without `map_location` loads onto this process's `DEVICE`.

Device placement, really (transforms/devices.py rewrites other map_locations); it stays in
this pass because its change records and DP019 are reported under "rank_zero", in this
pass's order, and the outputs must not change.
"""

from __future__ import annotations

import libcst as cst

from dp2ddp.transforms.rank_zero.edits import append_keyword
from dp2ddp.transforms.rank_zero.rule import CallRule
from dp2ddp.transforms.rank_zero.side_effects import TORCH_LOAD


class CheckpointLoads(CallRule):
    def leave_call(
        self, original: cst.Call, updated: cst.Call, names: set[str]
    ) -> cst.BaseExpression | None:
        if names & TORCH_LOAD:
            return self._map_location(original, updated)
        return None

    def _map_location(self, original: cst.Call, updated: cst.Call) -> cst.Call:
        if any(arg.star for arg in updated.args):
            self.t.warn(original, "DP019", "map_location may be among the unpacked arguments")
            return updated
        positional = [arg for arg in updated.args if arg.keyword is None]
        keywords = {arg.keyword.value for arg in updated.args if arg.keyword is not None}
        if len(positional) >= 2 or "map_location" in keywords or self.facts.before_setup(original):
            return updated
        self.t.record(original, "torch.load maps the checkpoint onto this process's DEVICE")
        return append_keyword(updated, "map_location", cst.Name("DEVICE"))
