"""The verdict the float-order floor allows (float_order.py measures it in the original's
process): where verify names no other cause and the migration's step-1 gradients are within
FLOOR_MULTIPLE of that floor in the parameter the comparison found worst, the verdict is
"equivalent up to float summation order" (a note, exit 0). A difference beyond it stays NOT
EQUIVALENT with whatever cause verify finds (a wrong migration's step-1 gradients are far
from the original's: a whole batch per rank, a loss scaled, another sample)."""

from __future__ import annotations

from typing import TYPE_CHECKING

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
    """(the verdict's scope, the note) that make a difference float summation order, or
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
    short = f"equivalent up to float summation order (floor {level:.2g}, measured {measured:.2g})"
    return short, (
        f"{short}: "
        f"at step 1 the original's own gradient of {name} over the whole batch and the sum "
        f"of its shares' differ by {level:.2g} relative (float32 sums in another order, "
        f"measured in the original's process); the migration's step-1 gradient is "
        f"{measured:.2g} from the original's, within {FLOOR_MULTIPLE:g} times that{later}. "
        "The data split right, the ranks are in sync and no other cause was measured."
    )
