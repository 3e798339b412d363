"""Experiment frameworks that start a run in every process: said, not rewritten.

`@hydra.main` and sacred's `Experiment` each make a run of their own when the program
starts: a run folder, a log, observers. DataParallel's one process made one run; under
torchrun every rank makes its own, named from its own clock (hydra's default
`outputs/${now:...}`) or from what it finds on disk (sacred's FileStorageObserver picks the
next free id), so the ranks may write to different folders, take the same id, or print the
framework's run log on every rank. Neither run can be made rank 0's alone (the framework
owns the program's start-up), so the migration says where the run starts and what to fix
(stop 57, round 10: sooftware/kospeech's second hydra folder, jeromerony/dml_cross_entropy's
sacred log printed twice).
"""

from __future__ import annotations

from typing import Final

import libcst as cst

from dp2ddp.transforms.rank_zero.rule import CallRule

#: `@hydra.main(...)`: a run folder per process, named from each rank's clock.
HYDRA_MAIN: Final = frozenset({"hydra.main", "hydra.main.main"})
#: `Experiment(...)` of sacred: a run (observers, console log) per process.
SACRED_EXPERIMENT: Final = frozenset({"sacred.Experiment", "sacred.experiment.Experiment"})


class RunFrameworks(CallRule):
    def leave_call(
        self, original: cst.Call, updated: cst.Call, names: set[str]
    ) -> cst.BaseExpression | None:
        if names & HYDRA_MAIN:
            self.t.warn(
                original,
                "DP193",
                "hydra.main makes a run folder on every rank, named from each rank's clock",
            )
            return updated
        if names & SACRED_EXPERIMENT:
            self.t.warn(
                original,
                "DP194",
                "a sacred Experiment starts a run on every rank (observers, run log)",
            )
            return updated
        return None
