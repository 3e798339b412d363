"""Initial weights that differ because the program moved them itself before their first step.

verify compares each parameter's values when its optimizer first steps. A parameter first
stepped after another optimizer's step may have been changed in place in between, outside
any optimizer (an adversarial weight perturbation computed by a proxy model's step, an EMA,
a copy from another model): its "initial" values then carry whatever made that earlier
step differ. The recorder keeps each model parameter's digest at step 1 and says which
parameters had changed when their own optimizer first met them (`moved_before_first`).
csdongxian/AWP@a7acf5d: the PGD start drawn per rank made the proxy's step 1 differ, the
perturbation moved the model's weights before its step 2, and verify ranked "initial
weights differ ... although every RNG was seeded alike" first, the draw second (stop 59,
v3-D). Such a difference is said after the causes of the earlier step, as a consequence.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from dp2ddp.verify.ratio_cause import said_at
from dp2ddp.verify.report import Cause

if TYPE_CHECKING:
    from dp2ddp.verify.causes import Evidence


def moved_names(ev: Evidence) -> dict[str, tuple[int, bool]]:
    """Name -> (the step whose optimizer first met it, whether rank 0 held the original's
    values at step 1) of the parameters the original changed in place before their first
    step."""
    names = ev.original.names()
    theirs = ev.migrated[0].data.get("moved_before_first", {}) if ev.migrated else {}
    out = {}
    for key, (step, digest) in ev.original.data.get("moved_before_first", {}).items():
        other = theirs.get(key)
        out[names.get(key, key)] = (int(step), other is not None and other[1] == digest)
    return out


def moved_in_place(ev: Evidence) -> Cause | None:
    """The initial weights differ only in parameters the program moved in place before
    their first step (`moved_names`); None where another parameter differs too, or none."""
    if ev.numerics.initial_equal:
        return None
    moved = moved_names(ev)
    worst = ev.numerics.initial_worst
    if worst not in moved:
        return None
    step, alike = moved[worst]
    stepped = ev.numerics.stepped
    at = f", {stepped[step - 1][3]}" if step - 1 < len(stepped) and stepped[step - 1][3] else ""
    others = len(moved) - 1
    return Cause(
        "moved_in_place",
        "weights moved in place before their first step, after an earlier step",
        f"{worst}{f' and {others} more parameters' if others > 0 else ''} differ by up to "
        f"{ev.numerics.initial_max_abs_diff:.3g} when their optimizer first steps (step "
        f"{step}{at}); "
        + ("they held the same values in both runs at step 1 and " if alike else "")
        + "the program changed them outside any optimizer before it (an adversarial weight "
        "perturbation, an EMA, a copy from another model), from what the earlier steps "
        "computed: they differ as those steps differ, not as the model was built",
        "See the causes above, of the earlier steps' difference; the weights follow them.",
    )


def structure_causes(ev: Evidence) -> list[Cause]:
    """The runs optimise different parameters, or their initial weights differ: moved in
    place before the first step (moved_in_place, said later), set by a first forward from
    the batch (DP007), or else drawn differently."""
    causes = []
    if ev.numerics.structure:
        causes.append(
            Cause(
                "structure",
                "the runs optimize different parameters or step differently",
                "; ".join(ev.numerics.structure[:3]),
                "Build the same model and optimizers in the migration.",
            )
        )
    if not ev.numerics.initial_equal and moved_in_place(ev) is None:
        differs = (
            f"{ev.numerics.initial_worst} differs by up to "
            f"{ev.numerics.initial_max_abs_diff:.3g} before the first step"
        )
        mutated = said_at(ev.migration_warnings, "DP007", "module state mutated in forward()")
        causes.append(
            Cause(
                "initial_weights",
                "initial weights differ",
                # the first forward set them from its batch (an ActNorm's data-dependent
                # initialisation): each rank's share, not the original's batch (round 21,
                # chrischute/flowplusplus@4f12a46: before, "although every RNG was seeded
                # alike" sent the user to the order of the draws)
                f"{differs}, set by the model's first forward from each rank's share of the "
                f"batch, not the whole batch{mutated}"
                if mutated
                else f"{differs}, although every RNG was seeded alike",
                "Initialise such layers from the whole first batch on every rank (or from a "
                "fixed batch before wrapping) and verify again."
                if mutated
                else "Build the model before anything that draws random numbers differently "
                "in the two scripts (e.g. seeding per rank before the model is created).",
            )
        )
    return causes
