"""The cause the float-order floor names (float_order.py measures it in the original's
process): where verify names no other cause and the migration's step-1 gradients are within
FLOOR_MULTIPLE of that floor in the parameter the comparison found worst, the first cause is
"float summation order", with the measured floor. The verdict stays NOT EQUIVALENT: the floor
is measured at step 1 only, and a difference that begins at a later step would hide in the
amplified rounding, so it is said, not proved (a wrong migration's step-1 gradients are far
from the original's and keep verify's other causes: a whole batch per rank, a loss scaled,
another sample)."""

from __future__ import annotations

from collections.abc import Callable
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
    if other_optimizer_first(numerics) is not None:
        return None  # the floor is step 1's model's; another optimizer's step diverged first
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


def other_optimizer_first(numerics: Numerics) -> int | None:
    """The first diverging step where another optimizer than step 1's made it (a GAN's
    discriminator after its generator's step 1), else None. The float-order floor is
    measured on step 1's model only: HSR (riverlight/HSR@00ec23c, stop 57 v1-G) was called
    "float summation order ... as the optimizer amplifies it" where its discriminator's first
    step, not the generator's amplified rounding, differed by 2.4e-2."""
    first = numerics.first_diverging_step
    stepped = numerics.stepped
    if first is None or first < 2 or first > len(stepped) or not stepped:
        return None
    return first if stepped[first - 1][0] != stepped[0][0] else None


def other_optimizer_cause(
    numerics: Numerics, rtol: float, display: Callable[[str], str]
) -> Cause | None:
    """The cause where the first diverging step is another optimizer's than step 1's: that
    optimizer and its step() line, and whether what it received (its gradients) already
    differed there, which no float order of step 1's model explains."""
    first = other_optimizer_first(numerics)
    if first is None:
        return None
    index, own, kind, at = numerics.stepped[first - 1]
    lead, _, lead_kind, lead_at = numerics.stepped[0]

    def where(place: str) -> str:
        path, _, line = place.rpartition(":")
        return f" at {display(path)}:{line}" if path else ""

    agreed = [numerics.stepped[s][1] for s in range(first - 1) if numerics.stepped[s][0] == lead]
    worst = max(
        (d for d in numerics.diffs if d.step == first), key=lambda d: d.rel_error, default=None
    )
    grads = numerics.gradient_errors[first - 1] if first <= len(numerics.gradient_errors) else None
    if grads is not None and grads[0] > rtol:
        why = (
            f"its gradients already differ there (relative error {grads[0]:.3g} in {grads[1]}): "
            "what this optimizer's loss receives differs under DDP, not its arithmetic; a loss "
            "over another model's outputs or a statistic over the batch (a discriminator's "
            "mean over the generator's samples, a relativistic GAN's `pred - torch.mean("
            "other)`: DP059) is each rank's own share's"
        )
    elif grads is not None:
        why = (
            f"its gradients agree within {rtol:g} (worst {grads[0]:.3g} in {grads[1]}): the "
            "update differs as the optimizer turns small gradient differences into large ones"
        )
    else:
        why = "its gradients were not recorded"
    return Cause(
        "other_optimizer_first",
        f"optimizer {index} ({kind}) diverged first, at step {first} (its own step {own})"
        + where(at),
        f"step {first} is optimizer {index}'s step{where(at)}"
        + (f" ({worst.name}: relative error {worst.rel_error:.3g})" if worst else "")
        + f"; optimizer {lead}'s ({lead_kind}{where(lead_at)}) "
        + (
            f"step{'s' if len(agreed) > 1 else ''} {', '.join(map(str, agreed))} agreed"
            if agreed
            else "steps agreed"
        )
        + f" before it; {why}. The float-order floor verify measures is step 1's model's "
        "and says nothing of this step",
        "Look at the loss optimizer "
        f"{index} steps on{where(at)}: a term computed over the batch (a mean, a normaliser, "
        "pairs) is each rank's share's under DDP; what dp2ddp migrate warned at its lines "
        "says how to keep DataParallel's.",
    )
