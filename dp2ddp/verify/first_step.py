"""The first differing step leads: a batch that goes wrong after the updates already differ
is not their cause.

contemn1/title_tagger@6b009e7 (round 13, v3-E): the updates differed from step 1 (each rank
divided its share's loss by its share's token count), and verify named "a batch mismatch at
step 3" as the cause, the only data evidence it measured. A mismatch at step k cannot explain
an update that differed at step d < k. Where that is so, the causes are named from the
evidence of the steps before k (the data split right there), and the mismatch follows them,
said to come later."""

from __future__ import annotations

import dataclasses

from dp2ddp.verify.compare import Numerics
from dp2ddp.verify.report import Cause
from dp2ddp.verify.sharding import OK, Sharding, StepShards


def mismatch_step(sharding: Sharding) -> int | None:
    """The first step whose batches went wrong: the ranks' shares (sharding failed there) or
    the model's inputs changed after loading; None where neither."""
    bad = sharding.first_bad() if sharding.failed else None
    steps = [s.step for s in (bad, *sharding.changed_inputs[:1], *sharding.shrunk[:1]) if s]
    return min(steps) if steps else None


def before_mismatch(sharding: Sharding, first_diverging: int | None) -> Sharding | None:
    """The sharding of the steps before the first mismatch, where the updates differed
    earlier than it (the data split right up to there); None where the mismatch is not later
    than the first differing step, or no step comes before it."""
    step = mismatch_step(sharding)
    if step is None or first_diverging is None or first_diverging >= step:
        return None

    def before(shards: list[StepShards]) -> list[StepShards]:
        return [s for s in shards if s.step < step]

    kept = before(sharding.steps)
    if not kept:
        return None
    return dataclasses.replace(
        sharding,
        status=OK,
        steps=kept,
        loader=before(sharding.loader),
        changed_inputs=[],
        shrunk=[],
    )


def later(cause: Cause, step: int, first_diverging: int) -> Cause:
    """A data cause measured from `step`, after the updates first differed: named last."""
    return dataclasses.replace(
        cause,
        title=f"later, from step {step}: {cause.title}",
        detail=(
            f"{cause.detail}. This begins at step {step}, after the updates first differed at "
            f"step {first_diverging}: it is not the cause of that divergence (the causes above "
            "are named from the steps before it)"
        ),
    )


def gradient_evidence(numerics: Numerics) -> str:
    """The first step whose gradients already differ, when it comes before the updates
    differ: an Adam-like optimizer's first update is about lr * sign(g) and hides it."""
    step = numerics.gradient_first_diverging_step
    first = numerics.first_diverging_step
    if step is None or first is None or step >= first or step > len(numerics.gradient_errors):
        return ""
    rel, name = numerics.gradient_errors[step - 1]
    return (
        f"; the gradients already differ at step {step} (relative error {rel:.3g} in {name}): "
        "the difference is in what the optimizer receives (loss, model, data), not in the "
        "optimizer, whose first update (about lr * sign(g) for Adam) hid it"
    )
