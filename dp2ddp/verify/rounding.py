"""Causes that are float rounding, not the migration: what verify names where the data split
right, the ranks are in sync and the updates still differ (causes.py asks these last).

* a BatchNorm over 2 values per channel on a rank: the gradient through it is rounding
  (two_values; measured by probes.py);
* BatchNorm over small chunks amplifying the original's and the ranks' rounding after an
  equal first step (amplified_rounding);
* rounding growing after an equal first step without BatchNorm (rounding_growth, named as
  likely, never as proven).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from dp2ddp.verify import scan
from dp2ddp.verify.compare import Numerics
from dp2ddp.verify.data_evidence import chunk_groups
from dp2ddp.verify.ratio_cause import warned
from dp2ddp.verify.report import Cause

if TYPE_CHECKING:
    from dp2ddp.verify.causes import Evidence


def findings_where(findings: list[scan.Finding], kind: str, script: str) -> str:
    text = scan.lines(findings, kind)
    return f" ({script}: {text})" if text else ""


def batchnorm_aligned(ev: Evidence) -> bool:
    """On GPUs DataParallel also normalises per device: aligned when it used W devices (or
    verify's original normalised per chunk) and each rank got DataParallel's chunk: a known
    per-rank batch of a DistributedSampler, or measured (data_evidence.chunk_groups). The
    measure comes first: samplers with a per-rank batch say nothing of how the program puts
    their batches together (two loaders' batches concatenated regroup the rows)."""
    wrappers = ev.original.data.get("wrappers", [])
    devices = wrappers[0].get("devices", 0) if wrappers else 0
    chunked = any(int(w.get("batchnorm_chunked", 0)) for w in ev.windows(ev.original))
    samplers = [
        s for s in ev.migrated[0].data.get("samplers", []) if s.get("kind") == "DistributedSampler"
    ]
    if not (devices == ev.world or chunked):
        return False
    steps = max(ev.numerics.steps_compared, 1)
    # where the data differ, so do the groups: that is the data's cause, not BatchNorm's
    groups = None if ev.sharding.failed else chunk_groups(ev.original, ev.migrated, steps)
    if groups is not None:
        return groups
    return bool(samplers) and all(s.get("per_rank_batch") for s in samplers)


def _step_worst(numerics: Numerics, step: int) -> float:
    return max((d.rel_error for d in numerics.diffs if d.step == step), default=0.0)


def amplified_rounding(ev: Evidence) -> list[Cause]:
    """BatchNorm with batch statistics, aligned with DataParallel's chunks but not run as
    replicas (replicas.py: an output that is not batch-first), step 1 equal (updates, and
    gradients where recorded), a later step not: float rounding, not the migration. The
    original normalises each chunk apart but runs every other layer over the whole batch,
    each rank over its chunk: their rounding differs by ~1e-7, and BatchNorm over small
    chunks amplifies it from step to step in float32 (prlz77/ResNeXt.pytorch: 1e-6 at step
    1, 6e-3 at step 2, 0.17 at step 3 in float32; 4e-14 at every step in float64, the same
    emulation)."""
    n = ev.numerics
    first = n.first_diverging_step
    batchnorm = sum(int(w.get("batchnorm", 0)) for r in ev.migrated for w in ev.windows(r))
    if (
        first is None
        or first < 2
        or n.structure
        or not n.initial_equal
        or not ev.in_sync
        or not batchnorm
        or ev.freeze_batchnorm
        or not batchnorm_aligned(ev)
        or (n.gradient_first_diverging_step or first) < 2
        # the replicas ran every layer per chunk, as the ranks do: no such rounding left
        or any(int(w.get("replicated", 0)) for w in ev.windows(ev.original))
    ):
        return []
    worst = max((d for d in n.diffs if d.step == first), key=lambda d: d.rel_error)
    grads = f", gradients {n.gradient_errors[0][0]:.2g}" if n.gradient_errors else ""
    return [
        Cause(
            "batchnorm_rounding",
            "float rounding amplified by per-chunk BatchNorm",
            f"step 1 agreed (worst relative error: updates {_step_worst(n, 1):.2g}{grads}); "
            f"from step {first} the updates differ ({worst.name}: {worst.rel_error:.3g}). "
            f"BatchNorm normalised each of the {ev.world} chunks with its own statistics in "
            "both runs, as DataParallel does, but the original runs every other layer over the "
            "whole batch where each rank runs its chunk: their float rounding differs by "
            "about 1e-7, and batch statistics over small chunks amplify it from step to step",
            "Rerun with --freeze-batchnorm: BatchNorm then uses running statistics in both "
            "runs, and EQUIVALENT there checks everything else (data, loss, optimizer); "
            "--steps 1 checks the per-chunk statistics before the rounding grows.",
        )
    ]


def two_values(ev: Evidence) -> list[Cause]:
    """A training BatchNorm that normalised 2 values per channel on a rank (and in each of
    the original's DataParallel chunks): the two normalise to about +-1 whatever they are,
    so the gradient it passes back is a difference of nearly equal terms (about eps/var of
    the gradient it gets) that float32 rounding decides. The original and the ranks round
    apart (~1e-7), so every layer before it gets another gradient from step 1 on. Xiaoccer/
    MobileFaceNet_Pytorch@26bd8d2 at batch 4 (v1-D of stop 40): its 1x1 head's BatchNorm
    over 2 samples x 1 x 1, "no measured cause matched" before; EQUIVALENT with
    --freeze-batchnorm. Measured (probes.py: the fewest values per channel normalised),
    not guessed from the code."""
    n = ev.numerics
    if n.structure or not n.initial_equal or not ev.in_sync or ev.freeze_batchnorm:
        return []
    shapes = [
        [int(d) for d in w["batchnorm_fewest"]]
        for r in ev.migrated
        for w in ev.windows(r)
        if w.get("batchnorm_fewest")
    ]
    if not shapes or n.first_diverging_step is None:
        return []
    shape = min(shapes, key=lambda s: math.prod(s) // max(s[1], 1))
    if math.prod(shape) // max(shape[1], 1) > 2:
        return []
    first = n.first_diverging_step
    worst = max((d for d in n.diffs if d.step == first), key=lambda d: d.rel_error)
    return [
        Cause(
            "batchnorm_two_values",
            "BatchNorm normalised 2 values per channel: the gradient through it is rounding",
            f"a training BatchNorm input of shape {tuple(shape)} on a rank (each of the "
            "original's DataParallel chunks alike) holds 2 values per channel: normalised, "
            "they are about +-1 whatever they are, so the gradient it passes back is a "
            "difference of nearly equal terms that float32 rounding decides; the original "
            "and the ranks round apart, so every layer before it gets another gradient from "
            f"step {first} ({worst.name}: {worst.rel_error:.3g})" + _batchnorm_places(ev),
            "Rerun with --freeze-batchnorm (running statistics in both runs: EQUIVALENT there "
            "checks data, loss and optimizer), or give each rank more than 2 values per "
            "channel there (a larger batch size after `--`). At this batch DataParallel's "
            "own chunks train on the same rounding noise.",
        )
    ]


def _batchnorm_places(ev: Evidence) -> str:
    """Where the BatchNorm layers are: the scan's lines in the entry, else the DP008 that
    verify's own migration gave in the model's module (MobileFaceNet's core/model.py)."""
    found = findings_where(ev.findings_original, scan.BATCHNORM, "original")
    if found:
        return found
    places = warned(ev.migration_warnings, "DP008")
    return f" (BatchNorm layers: {', '.join(places[:3])}, DP008)" if places else ""


def _replicated(ev: Evidence) -> bool:
    return any(int(w.get("replicated", 0)) for w in ev.windows(ev.original))


def _rounded_before(n: Numerics, first: int) -> str:
    """The updates that differed before step `first` only as the optimizer turns rounding
    into (compare.py's `rounding`, `noise`), said as evidence; "" where none did."""
    early = [d for d in n.diffs if (d.rounding or d.noise) and d.step < first]
    if not early:
        return ""
    step = min(d.step for d in early)
    names = list(dict.fromkeys(d.name for d in early if d.step == step))
    shown = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
    return (
        f"; from step {step} the updates of {shown} already differed (up to relative "
        f"{max(d.rel_error for d in early):.2g}) by what the optimizer makes of gradients "
        "that agree or are zero up to rounding"
    )


def rounding_growth(ev: Evidence) -> list[Cause]:
    """Step 1 equal, updates and the gradients the optimizer received alike; a later step
    not, with the ranks in sync and the data split right, and no known cause: the likely
    cause is float32 rounding that grows from step to step, named with that evidence and
    how to check it, never as proven (the verdict stays NOT EQUIVALENT). The original runs
    each layer over the whole batch, each rank over its share: their sums round apart by
    about 1e-7, and training amplifies it (yhenon/pytorch-retinanet@0348a9d: gradients
    equal to 8.5e-6 at step 1, 7.7e-4 apart at step 2, updates 9.4e-3; the same gap between
    one batch and its halves in one process is 2e-15 in float64). Not claimed where the
    original ran as DataParallel's replicas (every layer per chunk, as the ranks: their
    rounding is the ranks'), unless updates were measured apart by rounding before (an
    adaptive optimizer's on gradients zero up to rounding: DataParallel's reduce-add and
    DDP's all-reduce still sum in other orders; VITA-Group/DeblurGANv2@c16bd9f5)."""
    n = ev.numerics
    first = n.first_diverging_step
    if (
        first is None
        or first < 2
        or n.structure
        or not n.initial_equal
        or not ev.in_sync
        or not n.gradient_errors
        or (n.gradient_first_diverging_step or first) < 2
        or (_replicated(ev) and not _rounded_before(n, first))
    ):
        return []
    worst = max((d for d in n.diffs if d.step == first), key=lambda d: d.rel_error)
    later = _rounded_before(n, first)
    if len(n.gradient_errors) >= first:
        rel, name = n.gradient_errors[first - 1]
        later += f"; the gradients at step {first}: {rel:.2g} ({name})"
    return [
        Cause(
            "rounding_growth",
            "likely float rounding growing after an equal first step (not proven)",
            f"step 1 agreed (worst relative error: updates {_step_worst(n, 1):.2g}, gradients "
            f"{n.gradient_errors[0][0]:.2g}); from step {first} the updates differ "
            f"({worst.name}: {worst.rel_error:.3g}){later}. The data split right, the ranks "
            "are in sync, and no migration defect verify knows matched. "
            + (
                "The original ran DataParallel's replicas, each layer over its chunk as the "
                "ranks do, but DataParallel sums the replicas' gradients and DDP averages "
                "the ranks' in other orders"
                if _replicated(ev)
                else "The original runs each layer over the whole batch, each rank over its share"
            )
            + ": their float32 sums round apart by about 1e-7, and training can amplify that "
            "from step to step",
            "Check it: --steps 1 compares the step before the rounding grows (data, loss "
            "scale, randomness and per-chunk statistics all show at step 1); a looser "
            "--rtol (1e-2) tolerates the growth. A difference that only appears later "
            "(a scheduler or optimizer state handled otherwise) would look the same: "
            "compare the two scripts' per-step code if it persists.",
        )
    ]
