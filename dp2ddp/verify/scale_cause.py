"""The causes of updates uniformly rescaled (causes.diagnose asks these where the numbers
differ): every parameter's update (or gradient, under an adaptive optimizer) is c times the
original's.

* c = 1/W -> a loss summed, not averaged: DDP averages the ranks' gradients where
  DataParallel's single backward summed over the whole batch;
* c = W -> where verify's own migration said a mean loss is divided by the rank's share of
  the batch's size (DP126), or averages over a count the data decides (DP043), that
  warning's line: the divisor shrank to the share's, nothing was multiplied
  (Holmeyoung/crnn-pytorch@dc2f21a train.py:242, docs/real-world.md stop 51); else a factor
  of WORLD_SIZE or a divisor that shrank, both named;
* another constant -> the learning rate or the loss scale changed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from dp2ddp.verify import scan
from dp2ddp.verify.ratio_cause import warned
from dp2ddp.verify.report import Cause
from dp2ddp.verify.rounding import findings_where

if TYPE_CHECKING:
    from dp2ddp.verify.causes import Evidence

#: Codes saying a loss divides by a size or count this rank's share decides, not the whole
#: batch's (docs/warnings.md): a mean divided again by the share's size, a mean over a
#: count the data decides.
SIZE_MEAN_CODES = ("DP126", "DP043")


def _near(value: float | None, target: float, tol: float = 0.05) -> bool:
    return value is not None and abs(value - target) <= tol * abs(target)


def scale_causes(ev: Evidence, found: list[Cause]) -> list[Cause]:
    """The cause of a uniform rescale of the updates, none where there is none or a direct
    measurement (a changed learning rate, an undivided batch, no sampler) explains it."""
    fit, step, what = ev.numerics.scale, ev.numerics.first_diverging_step, "update"
    grads = ev.numerics.gradient_scale
    if not fit.uniform and grads.uniform:
        # An adaptive optimizer normalises a scaled gradient away (Adam's first update is
        # about lr * sign(g)): the scale shows on the gradients it received.
        fit, step, what = grads, ev.numerics.gradient_first_diverging_step, "gradient"
    if not fit.uniform or fit.ratio is None or _near(fit.ratio, 1.0, 0.01):
        return []
    if any(c.key in {"lr_changed", "batch_not_divided", "sampler_missing"} for c in found):
        return []  # already explained by a direct measurement
    w = ev.world
    ratio = f"every parameter's {what} at step {step} is {fit.ratio:.4g}x the original's"
    if _near(fit.ratio, 1.0 / w):
        return [
            Cause(
                "sum_loss",
                "loss summed, not averaged",
                f"{ratio} = 1/WORLD_SIZE: DDP averages the ranks' gradients, so a loss summed "
                "over each rank's share of the batch updates WORLD_SIZE times less than under "
                "DataParallel" + findings_where(ev.findings_original, scan.SUM_LOSS, "original"),
                "Multiply the summed loss by WORLD_SIZE in the migration, or use "
                "reduction='mean' in both scripts.",
            )
        ]
    if _near(fit.ratio, float(w)):
        return [_world_times(ev.migration_warnings, ratio)]
    return [
        Cause(
            "uniform_scale",
            "every update uniformly rescaled",
            f"{ratio}: the learning rate or the loss scale changed",
            "Keep the original's loss reduction and learning rate.",
        )
    ]


def _world_times(warnings: tuple[str, ...], ratio: str) -> Cause:
    """Updates WORLD_SIZE times the original's: the size-mean warning of the migration at its
    line where one was said, else both ways it comes about."""
    said = [(code, place) for code in SIZE_MEAN_CODES for place in warned(warnings, code)]
    if said:
        shown = "; ".join(f"{place} {code}" for code, place in said[:3])
        if len(said) > 3:
            shown += f" and {len(said) - 3} more"
        return Cause(
            "size_mean_divisor",
            "a loss divided by this rank's share of the batch, as dp2ddp migrate warned",
            f"{ratio} = WORLD_SIZE: {shown}: the loss divides by a size or count of this "
            "rank's share where DataParallel divided by the whole batch's, and DDP averages "
            "the ranks' gradients, so every update is WORLD_SIZE times DataParallel's; "
            "nothing was multiplied",
            "Do what the warning at that line says (docs/warnings.md): divide by the whole "
            "batch's size or count (the share's times WORLD_SIZE, or all-reduced over the "
            "ranks), or drop a division of a loss that is already a mean; then verify again.",
        )
    return Cause(
        "scaled_by_world_size",
        "updates WORLD_SIZE times larger",
        f"{ratio} = WORLD_SIZE: a loss or learning rate multiplied by WORLD_SIZE, or a loss "
        "divided by this rank's share of the batch's size (B / WORLD_SIZE) where DataParallel "
        "divided by the whole batch's",
        "Find the factor: a WORLD_SIZE in the loss or learning rate (remove it: DDP already "
        "averages the ranks' gradients), or a division of the loss by the batch's size (divide "
        "by the whole batch's, the share's times WORLD_SIZE, or drop it where the loss is "
        "already a mean).",
    )
