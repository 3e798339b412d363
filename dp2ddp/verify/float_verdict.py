"""The cause the float-order floor names (float_order.py measures it in the original's
process): where verify names no other cause and the migration's step-1 gradients are within
FLOOR_MULTIPLE of that floor in the parameter the comparison found worst, the first cause is
"float summation order", with the measured floor. The verdict stays NOT EQUIVALENT: the floor
is measured at step 1 only, and a difference that begins at a later step would hide in the
amplified rounding, so it is said, not proved (a wrong migration's step-1 gradients are far
from the original's and keep verify's other causes: a whole batch per rank, a loss scaled,
another sample)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from dp2ddp.verify.report import Cause

if TYPE_CHECKING:
    from dp2ddp.verify.compare import Numerics

#: The migration's step-1 gradient may differ from the original's by this many times the
#: floor measured in the original's process (two runs, each its own order: twice the floor,
#: and the loss's own sums, which the model's floor does not hold).
FLOOR_MULTIPLE = 10.0

#: A floor above this is a gradient that is almost all cancellation: a wrong migration's
#: difference could hide within a multiple of it, so no verdict leans on it.
FLOOR_CEILING = 1e-3

#: The causes a floor may replace: verify's own "likely rounding" and "no known cause".
REPLACEABLE = frozenset({"rounding_growth", "unexplained"})


def within_floor(numerics: Numerics, floor: dict[str, float] | None) -> tuple[str, str] | None:
    """(the short text, the evidence) that make a difference likely float summation order, or
    None: the step-1 gradients compared (their worst parameter) within FLOOR_MULTIPLE of the
    floor measured in that parameter, the weights equal at the start, the model the same."""
    if (
        not floor
        or numerics.passed
        or numerics.structure
        or not numerics.initial_equal
        or not numerics.gradient_errors
    ):
        return None
    measured, name = numerics.gradient_errors[0]
    level = floor.get(name, 0.0)
    if not 0 < level <= FLOOR_CEILING or measured > FLOOR_MULTIPLE * level:
        return None
    worst = max(numerics.diffs, key=lambda d: d.rel_error, default=None)
    later = (
        f"; the updates then differ from step {numerics.first_diverging_step} "
        f"({worst.name}: {worst.rel_error:.3g}), as the optimizer amplifies it"
        if worst is not None and numerics.first_diverging_step is not None
        else ""
    )
    short = f"within float summation order (floor {level:.2g}, measured {measured:.2g})"
    return short, (
        f"{short}: "
        f"at step 1 the original's own gradient of {name} over the whole batch and the sum "
        f"of its shares' differ by {level:.2g} relative (float32 sums in another order, "
        f"measured in the original's process); the migration's step-1 gradient is "
        f"{measured:.2g} from the original's, within {FLOOR_MULTIPLE:g} times that{later}. "
        "The data split right, the ranks are in sync and no other cause was measured."
    )


def float_order_cause(floor: tuple[str, str]) -> Cause:
    """The cause for a difference within the floor: what was measured, and that only step 1
    was (the verdict does not call the migration equivalent on this evidence alone)."""
    return Cause(
        key="float_order",
        title=f"likely float summation order: step 1 {floor[0]}",
        detail=floor[1] + " Only step 1 is measured: a difference that begins later is not "
        "ruled out.",
        fix="Nothing measured points at the migration. Compare the final figures with "
        "`dp2ddp verify --to-end`: a difference that grows far beyond the floor there is not "
        "float order.",
    )
