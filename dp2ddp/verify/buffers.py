"""A buffer (not a parameter) that went apart between the runs, named as the cause (V3).

The recorder fingerprints every floating-point buffer of the models, and of a module
without parameters called in training (a memory bank), after each compared step: [sum, L2
norm] in float64 (`buffers` of each event). A buffer the ranks change by their own part of
the batch (DP007) is not averaged by DDP; the parameters follow it a step later, which the
rounding explanations would otherwise claim.
"""

from __future__ import annotations

from typing import Any

from dp2ddp.verify.compare import Numerics
from dp2ddp.verify.ratio_cause import warned
from dp2ddp.verify.report import Cause

#: A buffer differs when its sum or L2 norm moves by more than this, relative to its norm:
#: float rounding between the runs is about 1e-7.
_BUFFER_RTOL = 1e-4


def buffer_divergence(
    original: list[dict[str, Any]], migrated: list[dict[str, Any]]
) -> tuple[int, str, float] | None:
    """The first step (1-based) at which a buffer of the original's models (or of a
    parameter-free module called in training, the recorder's `buffers`) differs from rank
    0's after the step, with the buffer most apart then and its relative difference."""
    for step, (a, b) in enumerate(zip(original, migrated, strict=False), start=1):
        worst: tuple[float, str] | None = None
        theirs = b.get("buffers") or {}
        for name, (total, norm) in (a.get("buffers") or {}).items():
            if name not in theirs:
                continue
            other_total, other_norm = theirs[name]
            scale = max(abs(norm), 1e-12)
            rel = max(abs(other_total - total), abs(other_norm - norm)) / scale
            if rel > _BUFFER_RTOL and (worst is None or rel > worst[0]):
                worst = (rel, name)
        if worst is not None:
            return step, worst[1], worst[0]
    return None


def diverged_buffer(
    original: list[dict[str, Any]], migrated: list[dict[str, Any]], n: Numerics
) -> list[Cause]:
    """The compared steps' events of the original and of rank 0: a buffer differs at an
    earlier step than the parameters, or at the same step by more
    than the worst parameter: the state the model keeps besides its parameters went apart
    (lemniscate.pytorch's memory bank, `index_copy_`'d in a custom autograd Function's
    backward with the rank's part of the batch only: stop 28, G5), and the parameters
    follow it. Named before any float-rounding explanation, which it would otherwise get."""
    found = buffer_divergence(original, migrated)
    if found is None:
        return []
    step, name, rel = found
    first = n.first_diverging_step
    worst = max((d.rel_error for d in n.diffs if d.step == step), default=0.0)
    if first is not None and (step > first or (step == first and rel <= worst)):
        return []
    if any((d.rounding or d.noise) and d.step < step for d in n.diffs):
        # updates already apart before it, within what the optimizer makes of rounding: the
        # buffer followed parameters that differed (DeblurGANv2's BatchNorm running mean,
        # 1.2e-4 after step 3, the Adam-moved biases from step 2): not shown first
        return []
    params = f"the parameters from step {first}" if first is not None else "the parameters agree"
    return [
        Cause(
            "buffer_diverged",
            f"a buffer went apart first: {name}",
            f"buffer {name} differs from the original's after step {step} (relative "
            f"difference {rel:.3g} in its sum or norm); {params}. A buffer is no parameter: "
            "DDP averages the gradients, never the buffers a rank changes itself",
            "Find where the buffer changes (DP007: in forward(), or in a custom "
            "torch.autograd.Function's backward, as a memory bank's `index_copy_`): each rank "
            "changes it by its own part of the batch. Gather every rank's rows first "
            "(all_gather of the features and indices) and apply the whole batch's update on "
            "every rank, or all_reduce the buffer after the update.",
        )
    ]


def said_buffer(
    original: list[dict[str, Any]],
    migrated: list[dict[str, Any]],
    n: Numerics,
    warnings: tuple[str, ...],
) -> list[Cause]:
    """A buffer apart no later than the parameters, where verify's own migration warned
    DP007 (a buffer or attribute forward changes per rank): named at DP007's lines before
    the randomness causes. UMBCvision/ISD@4bdd603 enqueues each rank's half of the keys
    into its queue in forward; verify named only the draws in forward (stop 54 v3-C), and
    `diverged_buffer` stays silent where the parameters differ from the same step."""
    found = buffer_divergence(original, migrated)
    places = warned(warnings, "DP007")
    if found is None or not places:
        return []
    step, name, rel = found
    first = n.first_diverging_step
    if first is not None and step > first:
        return []
    shown = "; ".join(places[:3]) + (f" and {len(places) - 3} more" if len(places) > 3 else "")
    return [
        Cause(
            "buffer_diverged",
            f"a buffer the ranks change by their own part of the batch: {name}, as dp2ddp "
            "migrate warned (DP007)",
            f"buffer {name} differs from the original's after step {step} (relative "
            f"difference {rel:.3g} in its sum or norm), no later than the parameters; DP007 "
            f"from dp2ddp migrate at {shown}: each rank changes it with its own part of the "
            "batch, DDP averages the gradients, never the buffers",
            "Do what DP007 at that line says: gather every rank's rows before the update (a "
            "queue: enqueue the all_gather of the keys) and apply the whole batch's update "
            "on every rank, or accept per-rank state; verify then cannot show equivalence.",
        )
    ]
