"""Name the likely cause of a non-equivalence from the measured evidence.

Each rule reads a signature the runs left behind, not the script's text (the static scan
only adds where to look):

* every rank fed the same samples                  -> DistributedSampler missing
* the ranks fed alike samples, their DistributedSamplers disjoint indices (recorded:
  sharding.indices_apart)                          -> the dataset's own draws, not the sampler
* each rank loaded the original's whole batch      -> per-process batch not divided (counted
  on the DataLoader batches when recorded, not on the model inputs left unchanged)
* the DataLoader batches split right, the model inputs not the loaded samples, the global
  RNG advanced in the loop                         -> random numbers drawn inside the loop
  change each batch per process (CutMix, mixup), ranked first
* a DistributedSampler iterated twice with epoch 0 -> set_epoch missing
* optimizer hyperparameters differ                 -> learning rate (or other) changed
* every update is c x the original's, c = 1/W      -> loss summed, not averaged: DDP averages
  the ranks' gradients where DataParallel's single backward summed over the whole batch
* c = W                                            -> the migration's size-mean warning (DP126,
  DP043) at its line, else a factor of WORLD_SIZE or a divisor shrunk to the share's
* another constant c                               -> loss or learning rate rescaled
  (these three: scale_cause.py)
* the data split right, updates differ, and a loss function of the program compares
  samples across the batch (DP040, found in its modules) -> per-rank pairs / mining
* the data split right, updates differ, and a loss of the program averages over a count
  the data decides (ignore_index=, class weight=: DP043) -> per-rank denominators
* the data split right, updates differ, and verify's own migration warned of a loss that
  divides one sum over the batch by another (Dice, IoU: DP071) -> per-rank ratios
* the data split right, updates differ, and verify's own migration warned of a table a pass
  adds into at the batch's indices (class centres: DP142) -> per-rank tables
* the same, and a loss taking a statistic over the whole batch (a squared mean: DP059) ->
  per-rank statistics (these five, at their lines, come before the randomness causes)
* the data split right, updates differ, nothing above matched, and verify's own migration
  left warnings that fail --check -> those warnings, named as the candidate causes
* data drawn where no seed reaches (data_evidence.py) -> not comparable step by step
* a buffer (not a parameter: a memory bank, running statistics kept by hand) differs
  from the original's before the parameters do, or more -> that buffer is named, not
  float rounding
* the global RNG advanced during the models' training forwards -> random numbers drawn
  inside the model's forward (draw_cause.py); the loop's own draws are those between them
* dropout masks, BatchNorm batch statistics (over other groups: data_evidence.py), draws
  between steps -> named as such, with the neutralising flag.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from dp2ddp.verify import data_evidence as data
from dp2ddp.verify import scan
from dp2ddp.verify.buffers import diverged_buffer, said_buffer
from dp2ddp.verify.compare import NonFinite, Numerics
from dp2ddp.verify.draw_cause import (
    DRAW_SHARE_FIX,
    forward_draws,
    permuted_batch,
    random_in_forward,
    recurrent,
    shared_reads,
)
from dp2ddp.verify.first_step import before_mismatch, gradient_evidence, later, mismatch_step
from dp2ddp.verify.hand_made import differs_fix, hand_made, overlap_fix, undivided_fix
from dp2ddp.verify.hand_made import same_data as same_data_by_hand
from dp2ddp.verify.in_place import moved_in_place, structure_causes
from dp2ddp.verify.ratio_cause import (
    ranks_apart,
    said_at,
    said_losses,
    unsplit_batches,
    warned,
    warned_causes,
)
from dp2ddp.verify.records import RankRecord
from dp2ddp.verify.report import Cause
from dp2ddp.verify.rounding import (
    amplified_rounding,
    batchnorm_aligned,
    findings_where,
    rounding_growth,
    two_values,
)
from dp2ddp.verify.scale_cause import scale_causes
from dp2ddp.verify.sharding import OVERLAP, SAME_DATA, Sharding, epoch_repeated, indices_apart


@dataclass(frozen=True)
class Evidence:
    world: int
    numerics: Numerics
    sharding: Sharding
    in_sync: bool
    sync_detail: str
    original: RankRecord
    migrated: list[RankRecord]
    findings_original: list[scan.Finding]
    findings_migrated: list[scan.Finding]
    no_dropout: bool = False
    freeze_batchnorm: bool = False
    #: `dp2ddp migrate`'s warnings (`path:line:col CODE message`) when verify migrated.
    migration_warnings: tuple[str, ...] = ()
    #: Its warnings at lines the original's run did not reach (reach.py; ratio_cause).
    unreached_warnings: tuple[str, ...] = ()
    #: The ranks built different datasets (datasets.dataset_mismatch), and where the
    #: migrated script draws what decides a dataset per process: (line, function).
    datasets_differ: str | None = None
    dataset_draws: tuple[tuple[int, str], ...] = ()
    #: Loss functions of the original program comparing samples across the batch (DP040):
    #: `path:line name() (expression)`.
    pair_losses: tuple[str, ...] = ()
    #: Losses of the original program averaging over a count the data decides (DP043):
    #: `path:line call`.
    mean_losses: tuple[str, ...] = ()
    #: Draws of the global RNGs in a `forward` of the program that ran: `path:line call`.
    forward_draws: tuple[str, ...] = ()

    def windows(self, run: RankRecord) -> list[dict[str, Any]]:
        return run.windows[: max(self.numerics.steps_compared, 1)]

    def windows_events(self, run: RankRecord) -> list[dict[str, Any]]:
        """The events of the compared steps (their buffers' fingerprints)."""
        return run.events[: max(self.numerics.steps_compared, 1)]

    def all_windows(self) -> list[dict[str, Any]]:
        out = self.windows(self.original)
        for rank in self.migrated:
            out = out + self.windows(rank)
        return out


def diagnose(ev: Evidence) -> list[Cause]:
    first = ev.numerics.first_diverging_step
    earlier = before_mismatch(ev.sharding, first)
    if earlier is not None and first is not None:  # the first differing step leads (v3-E)
        step = mismatch_step(ev.sharding) or first
        head = diagnose(dataclasses.replace(ev, sharding=earlier))
        return head + [later(c, step, first) for c in _data(ev)]
    causes: list[Cause] = []
    causes += structure_causes(ev)
    causes += _datasets(ev) or _data(ev)
    causes += _hyper(ev)
    if not ev.in_sync:
        unwrapped = [
            run.rank
            for run in ev.migrated
            if isinstance(run.data.get("wrappers"), list)
            and not any(w.get("class") == "DistributedDataParallel" for w in run.data["wrappers"])
        ]
        causes.append(
            ranks_apart(ev.migration_warnings, ev.sync_detail, unwrapped, ev.unreached_warnings)
        )
    if not ev.numerics.passed:
        causes += scale_causes(ev, causes)
    if not ev.numerics.passed and not ev.sharding.failed:
        # the losses the program's code couples over the batch, said at their lines, come
        # before the generic randomness causes (stop 54 s4: PatchGAN's DP059)
        causes += said_losses(ev.migration_warnings)
        causes += said_buffer(
            ev.windows_events(ev.original),
            ev.windows_events(ev.migrated[0]),
            ev.numerics,
            ev.migration_warnings,
        )
        causes += [_pair_losses(ev)] if ev.pair_losses else []
        causes += [_mean_losses(ev)] if ev.mean_losses else []
    if not ev.numerics.passed:
        causes += _randomness(ev, causes)
    if not ev.numerics.passed and not ev.sharding.failed and not causes:
        causes += (
            diverged_buffer(
                ev.windows_events(ev.original), ev.windows_events(ev.migrated[0]), ev.numerics
            )
            or two_values(ev)
            or amplified_rounding(ev)
            or rounding_growth(ev)
        )
    if not ev.numerics.passed and not ev.sharding.failed and not causes:
        reasons = data.not_comparable(ev.original, split_right=True)
        if reasons:
            causes.append(data.not_comparable_cause(ev.sharding.describe(), reasons))
    if (not ev.numerics.passed or ev.sharding.failed) and not causes:
        worst = ev.numerics.worst(1)
        detail = f"first diverging step {ev.numerics.first_diverging_step}"
        if worst:
            detail += f", worst parameter {worst[0].name} (relative error {worst[0].rel_error:.3g})"
        detail += gradient_evidence(ev.numerics)
        named = warned_causes(ev.migration_warnings, detail) if not ev.sharding.failed else None
        causes.append(
            named
            or Cause(
                "unexplained",
                "updates differ and no known cause matched",
                detail,
                "Compare the two scripts' loss, optimizer and data pipeline by hand.",
            )
        )
    moved = moved_in_place(ev)  # after the earlier steps' causes: a consequence (v3-D)
    return causes + ([moved] if moved else [])


def _pair_losses(ev: Evidence) -> Cause:
    """The data split right, the updates differ, and a loss compares samples across the
    batch: each rank mines its own part where DataParallel's loss saw the whole batch."""
    places = "; ".join(ev.pair_losses[:3])
    if len(ev.pair_losses) > 3:
        places += f" and {len(ev.pair_losses) - 3} more"
    return Cause(
        "batch_pairs",
        "a loss compares samples across the batch",
        f"{places}: under DDP each rank's loss sees only its part of each batch (pairs, "
        "hardest positives and negatives, among fewer samples), DataParallel's saw the "
        "whole gathered batch (DP040)",
        "Gather the embeddings and labels from every rank before the loss "
        "(torch.distributed.nn.functional.all_gather keeps the gradients), or accept "
        "per-rank mining; verify then cannot show equivalence for this loss.",
    )


def _mean_losses(ev: Evidence) -> Cause:
    """The data split right, the updates differ, and a loss averages over a count the data
    decides: each rank divides by its own count, DataParallel's loss by the whole batch's."""
    places = "; ".join(ev.mean_losses[:3])
    if len(ev.mean_losses) > 3:
        places += f" and {len(ev.mean_losses) - 3} more"
    return Cause(
        "data_dependent_mean",
        "a mean loss divides by a count the data decides",
        f"{places}: under DDP each rank averages over its own targets not ignored (or its "
        "own targets' class weights) and the ranks count equally; DataParallel's loss "
        "averaged over the whole batch's, so the updates differ where the ranks' counts "
        "differ (DP043)",
        "Divide a summed loss by the count all-reduced over the ranks, times WORLD_SIZE, "
        "to keep DataParallel's loss, or accept the per-rank weighting; verify then cannot "
        "show equivalence for this loss.",
    )


def _datasets(ev: Evidence) -> list[Cause]:
    """The ranks built different datasets: the cause of any sharding defect that follows."""
    if ev.datasets_differ is None:
        return []
    where = ", ".join(f"line {line}: {what}()" for line, what in ev.dataset_draws)
    detail = ev.datasets_differ + (
        f"; drawn per process in the migrated script at {where}" if where else ""
    )
    return [
        Cause(
            "datasets_differ",
            "the ranks built different datasets from unseeded random draws",
            detail,
            "Draw what decides a dataset alike on every rank: `with ddp_same_random():` "
            "around the draw (what dp2ddp migrate inserts), a seeded generator "
            "(random_split(..., generator=torch.Generator().manual_seed(0))), or a seed "
            "set before the dataset is built.",
        )
    ]


def _undivided_fix(sh: Sharding, world: int) -> str:
    """What to do where each rank fed the original's whole batch: B // WORLD_SIZE per rank,
    unless the original's batch is smaller than WORLD_SIZE (B // WORLD_SIZE is 0: a batch of
    one episode, WenbinLee/DN4@440857b, stop 50), which no split keeps."""
    bad = next((s for s in (sh.loader or sh.steps) if not s.ok), None)
    if bad is not None and 0 < bad.original < world:
        return (
            f"The original's batch of {bad.original} is smaller than WORLD_SIZE={world}: it "
            "cannot be divided (no rank loads less than 1 sample), so no migration keeps its "
            f"global batch on {world} processes (DP133 at migrate time). Train with a batch of "
            "at least WORLD_SIZE samples (in both runs), or run one process; if the larger "
            "global batch is intended, verify with --per-process-batch."
        )
    return (
        "Use batch_size=B // WORLD_SIZE in the migrated DataLoader; if the larger global "
        "batch is intended, verify with --per-process-batch."
    )


def _data(ev: Evidence) -> list[Cause]:
    sh = ev.sharding
    bad = sh.first_bad()
    if bad is None:
        return _changed_inputs(ev) if sh.changed_inputs and not ev.numerics.passed else []
    detail = sh.describe()
    if sh.shrunk:
        return [
            Cause(
                "batch_split_again",
                "the model gets less of each batch than the DataLoader gives",
                f"{detail}. The DataLoaders give each rank its share; a second split "
                "after loading halves it again",
                "Remove the split between the DataLoader and the model (a ddp_shard_batch "
                "after next() of a generator that builds a sharded DataLoader): the loader "
                "shards already.",
            )
        ]
    apart = indices_apart(ev.migrated) if sh.status in {SAME_DATA, OVERLAP} else None
    if apart is not None:  # the sampler split the indices: the samples are the dataset's
        drawn = tuple(warned(ev.migration_warnings, "DP067"))
        return [data.alike_draws(ev.migrated[0], detail, apart, drawn)]
    if sh.status == SAME_DATA:
        if said := unsplit_batches(ev.migration_warnings, detail):
            return [said]
        if hand_made(ev):
            return [same_data_by_hand(ev, detail)]
        where = (
            ""
            if any(f.kind == scan.DISTRIBUTED_SAMPLER for f in ev.findings_migrated)
            else "; the migrated script creates no DistributedSampler"
        )
        return [
            Cause(
                "sampler_missing",
                "DistributedSampler missing: every rank trains on the same data",
                detail + where + ". This is not data-parallel training, whatever the numbers.",
                "Give the training DataLoader sampler=DistributedSampler(dataset, shuffle=...) "
                "instead of shuffle=, and call sampler.set_epoch(epoch) every epoch.",
            )
        ]
    if sh.undivided:
        return [
            Cause(
                "batch_not_divided",
                "per-process batch not divided by WORLD_SIZE",
                f"{detail}: each rank fed the original's whole batch, so the global batch is "
                f"{ev.world}x the original's",
                undivided_fix() if hand_made(ev) else _undivided_fix(sh, ev.world),
            )
        ]
    if epoch_repeated(ev.migrated[0], bad.step):
        return [
            Cause(
                "set_epoch_missing",
                "DistributedSampler.set_epoch not called",
                f"{detail}; the sampler repeated epoch 0's order in the next epoch",
                "Call loader.sampler.set_epoch(epoch) at the top of the epoch loop.",
            )
        ]
    cuts = [w for w in ev.migration_warnings if " DP051 " in w or " DP050 " in w]
    parts = data.parts_cause(ev.original, ev.migrated, detail, cuts)
    if parts is not None:
        return [parts]
    if sh.padded:
        return [
            Cause(
                "padded_batch",
                "DistributedSampler padded the last batch",
                f"{detail}: the dataset does not split evenly, so the sampler repeats samples",
                "Expected at the end of such an epoch; use DistributedSampler(drop_last=True) "
                "or compare fewer --steps.",
            )
        ]
    if sh.status == OVERLAP:
        return [
            Cause(
                "overlap",
                "ranks fed overlapping samples",
                detail,
                overlap_fix()
                if hand_made(ev)
                else "Every rank needs its own DistributedSampler with the same seed and shuffle.",
            )
        ]
    if (
        bad.original % ev.world
        and len(set(bad.per_rank)) == 1
        and sum(bad.per_rank) == ev.world * (bad.original // ev.world)
    ):
        return [
            Cause(
                "batch_not_divisible",
                f"batch of {bad.original} does not divide by {ev.world} processes",
                f"{detail}: each rank loads {bad.per_rank[0]}, so the global batch is "
                f"{sum(bad.per_rank)}"
                + said_at(
                    ev.migration_warnings, "DP184", "an odd global batch no even WORLD_SIZE divides"
                ),
                f"Verify with an --nproc that divides {bad.original}, or choose a batch size "
                "that is a multiple of WORLD_SIZE.",
            )
        ]
    reasons = data.not_comparable(ev.original)
    if reasons:
        return [data.not_comparable_cause(detail, reasons)]
    if bad.missing == bad.original and _rng_in_loop(ev):
        return [
            Cause(
                "random_inputs",
                "model inputs drawn at random inside the training loop",
                f"{detail}; no sample matched the original's, and the RNG advanced between "
                f"steps{findings_where(ev.findings_original, scan.RANDOM_IN_LOOP, 'original')}",
                DRAW_SHARE_FIX,
            )
        ]
    checked = data.data_checked(ev.original, ev.migrated[0], _rng_in_loop(ev))
    collated = data.collate_cause(ev.original, detail, checked, bad.missing == bad.extra)
    if collated is not None and sum(bad.per_rank) == bad.original:
        return [collated]
    return [
        Cause(
            "data_differs",
            "the ranks' batches are not the original's batch",
            f"{detail}; {checked}",
            differs_fix() if hand_made(ev) else _loader_fix(bad.original, ev.world),
        )
    ]


def _loader_fix(original: int, world: int) -> str:
    """What to check in the migrated DataLoader: its batch B // WORLD_SIZE, unless the
    original's batch is smaller than WORLD_SIZE, where that is 0 (stop 50, s1's note on
    WenbinLee/DN4@440857b: the batch-not-divided text had the same fault)."""
    if 0 < original < world:
        return (
            "Check the migrated DataLoader: same dataset, shuffle and drop_last, with a "
            f"DistributedSampler. The original's batch of {original} is smaller than "
            f"WORLD_SIZE={world} and cannot be divided (no rank loads less than 1 sample; "
            "DP133 at migrate time): train with a batch of at least WORLD_SIZE samples, or "
            "run one process."
        )
    return (
        "Check the migrated DataLoader: same dataset, shuffle, drop_last and batch size "
        "B // WORLD_SIZE, with a DistributedSampler."
    )


def _changed_inputs(ev: Evidence) -> list[Cause]:
    """The DataLoader batches were split right, the model was fed other samples: the script
    changes each batch after loading (CutMix), with random draws or otherwise. Ranked first:
    the updates cannot match when each process changes its share its own way."""
    first = ev.sharding.steps[0]
    changed = ev.sharding.changed_inputs[0]
    evidence = (
        f"the DataLoader batches were split right ({'+'.join(map(str, first.per_rank))} of "
        f"the original's {first.original}), but from step {changed.step} the model was not "
        "fed the loaded samples: the script changes each batch after loading"
    )
    if shared := shared_reads(ev):
        return [shared]
    if _rng_in_loop(ev):
        return [_random_in_loop(ev, evidence)]
    return [
        Cause(
            "inputs_changed",
            "the model's inputs are not the loaded samples",
            f"{evidence}, differently in the two runs"
            + said_at(ev.migration_warnings, "DP082", "rows read by position in a composed batch"),
            "Compare what the two scripts do between the DataLoader and the model.",
        )
    ]


def _hyper(ev: Evidence) -> list[Cause]:
    seen: dict[tuple[int, int, str], Any] = {}
    for diff in ev.numerics.hyper:
        seen.setdefault((diff.optimizer, diff.group, diff.key), diff)
    causes = []
    for (opt, group, key), diff in seen.items():
        where = f"optimizer {opt}" + (f" group {group}" if group else "")
        text = (
            f"{where}: {key} {diff.original!r} in the original, {diff.migrated!r} in the migration"
        )
        if key == "lr" and diff.step > 1:
            # Alike until then: a schedule moved apart (WenbinLee/DN4@440857b: a global batch
            # of 1 episode became WORLD_SIZE, an epoch half the steps, and its per-epoch
            # cosine schedule advanced at step 3; stop 49 b3-C). Before, the fix below said
            # "the global batch is unchanged", false there.
            causes.append(
                Cause(
                    "lr_changed",
                    "learning rate changed",
                    f"{text}, from step {diff.step} (the same before it)",
                    "The learning rate started alike and a schedule then moved it at other "
                    "steps: check what decides its steps (an epoch of another length where the "
                    "global batch is not the original's, e.g. a batch size smaller than or not "
                    "divisible by WORLD_SIZE; a scheduler stepped on a figure of this rank's "
                    "share) and keep them the original's.",
                )
            )
        elif key == "lr":
            causes.append(
                Cause(
                    "lr_changed",
                    "learning rate changed",
                    text + findings_where(ev.findings_migrated, scan.WORLD_SIZE_LR, "migrated"),
                    "Keep the original learning rate: with the batch divided by WORLD_SIZE the "
                    "global batch is unchanged, so nothing needs rescaling.",
                )
            )
        else:
            causes.append(
                Cause("hyperparameter_changed", f"optimizer {key} changed", text,
                      "Keep the original optimizer settings.")
            )  # fmt: skip
    return causes


def _rng_in_loop(ev: Evidence) -> bool:
    """The loop drew per process: a rank did (its draws are its own), or the original did
    where no rank's windows could be measured. Where the ranks measured no draw of their
    own (the migration's `ddp_draw_share`s are rank 0's, the original's, and excused by the
    recorder) the original's draws are the ranks' too: no cause (ModernTCN, stop 57)."""
    ranks = [w.get("rng_consumed") for run in ev.migrated for w in ev.windows(run)]
    if any(ranks):
        return True
    return all(v is None for v in ranks) and any(
        w.get("rng_consumed") for w in ev.windows(ev.original)
    )


def _randomness(ev: Evidence, found: list[Cause]) -> list[Cause]:
    causes = []
    dropout = sum(int(w.get("dropout", 0)) for w in ev.all_windows())
    off = sum(int(w.get("dropout_off", 0)) for w in ev.all_windows())
    aligned = sum(int(w.get("dropout_aligned", 0)) for w in ev.windows(ev.original))
    unlike = _dropout_unlike(ev) if aligned else None
    if dropout and not ev.no_dropout and off < dropout and unlike != "":
        causes.append(
            Cause(
                "dropout",
                "dropout masks did not line up" if aligned else "dropout masks cannot be aligned",
                f"dropout drew masks {dropout - off} times in the compared steps; "
                + (
                    f"the original drew {aligned} of them per DataParallel chunk as the ranks "
                    f"do, and {unlike}"
                    if aligned
                    else f"one process and {ev.world} processes draw different masks"
                )
                + recurrent(ev)
                + findings_where(ev.findings_original, scan.DROPOUT, "original"),
                "Rerun with --no-dropout to switch dropout off in both runs for the check.",
            )
        )
    batchnorm = sum(int(w.get("batchnorm", 0)) for r in ev.migrated for w in ev.windows(r))
    chunks = data.forward_chunks(ev.original, ev.migrated[0], ev.world)
    if batchnorm and not ev.freeze_batchnorm and (chunks or not batchnorm_aligned(ev)):
        causes.append(
            Cause(
                "batchnorm",
                "BatchNorm statistics are per process",
                (chunks or f"BatchNorm normalised with batch statistics {batchnorm} times: each "
                 "DDP rank over its own share, the original "
                 + ("per DataParallel chunk, whose samples are not a rank's share"
                    if any(int(w.get("batchnorm_chunked", 0)) for w in ev.windows(ev.original))
                    else "over its whole batch"))
                + findings_where(ev.findings_original, scan.BATCHNORM, "original")
                + said_at(ev.migration_warnings, "DP008", "BatchNorm statistics per process"),
                "Rerun with --freeze-batchnorm to normalise with running statistics in both "
                "runs for the check (on GPUs, --sync-batchnorm changes the migration itself).",
            )
        )  # fmt: skip
    in_forward = forward_draws(ev)
    if in_forward:
        causes.append(random_in_forward(ev, in_forward))
    if _rng_in_loop(ev) and not dropout and not any(c.key in _LOOP_DRAWS for c in found):
        causes.append(_random_in_loop(ev))
    return causes


def _dropout_unlike(ev: Evidence) -> str:
    """Where rank r's dropout draws (mask seed, shape, p) first differ from those the
    original drew as rank r, in the compared steps; "" where every draw of every run was
    aligned and each rank drew the original's masks for its chunk: dropout is then no cause.
    xcmyz/VAE-Tacotron@d57dd0a had "dropout masks may not line up" named, a guess, where the
    KL term's sum over each rank's samples made the difference (docs/real-world.md, stop
    47, w3)."""
    runs = [ev.original, *ev.migrated]
    drawn = sum(int(w.get("dropout", 0)) - int(w.get("dropout_off", 0)) for r in runs
                for w in ev.windows(r))  # fmt: skip
    if drawn != sum(int(w.get("dropout_aligned", 0)) for r in runs for w in ev.windows(r)):
        return "some were drawn as is (not per chunk)"
    for index, window in enumerate(ev.windows(ev.original)):
        for run in ev.migrated:
            theirs = run.windows[index] if index < len(run.windows) else {}
            got = theirs.get("dropout_draws", {}).get(str(run.rank), [])
            want = window.get("dropout_draws", {}).get(str(run.rank), [])
            if got != want:
                pairs = enumerate(zip(got, want, strict=False))
                at = next((i for i, (a, b) in pairs if a != b), None)
                if at is None:
                    return (f"at step {index + 1} rank {run.rank} drew {len(got)} masks, the "
                            f"original {len(want)} for its chunk")  # fmt: skip
                return (
                    f"at step {index + 1} rank {run.rank}'s draw {at + 1} was over "
                    f"{_shape(got[at])}, the original's for its chunk over {_shape(want[at])}"
                )
    return ""


def _shape(draw: str) -> str:
    """The shape (and p where the shapes agree) of a `seed:shape:p` draw."""
    _, _, rest = draw.partition(":")
    return rest.rpartition(":")[0] + f" (p {rest.rpartition(':')[2]})"


#: The keys of the causes `_random_in_loop` names.
_LOOP_DRAWS = frozenset({"random_in_loop", "permuted_batch"})


def _random_in_loop(ev: Evidence, evidence: str = "") -> Cause:
    """Draws inside the loop: where the scan and `dp2ddp migrate`'s DP006 saw them."""
    drawn = [
        f"{where} {message.partition(': ')[2] or message}"
        for where, code, message in (w.partition(": DP006 ") for w in ev.migration_warnings)
        if code
    ]
    where = findings_where(ev.findings_original, scan.RANDOM_IN_LOOP, "original")
    if drawn:
        where += f"; DP006 from dp2ddp migrate at {'; '.join(drawn[:3])}"
        where += f" and {len(drawn) - 3} more" if len(drawn) > 3 else ""
    if permuted := permuted_batch(ev, evidence, where):
        return permuted
    return Cause(
        "random_in_loop",
        "random numbers drawn inside the training loop",
        (f"{evidence}; " if evidence else "")
        + "the global RNG advanced between optimizer steps; each process draws from its own "
        "generators, each rank for its own share where the original drew once for its whole "
        "batch (the ranks draw the same values where the program seeds its generators alike; "
        "else verify seeds rank 0 as the original and the others apart, as torchrun leaves "
        "them)" + where + ev.sharding.inputs_note(),
        DRAW_SHARE_FIX,
    )


def nonfinite_cause(nf: NonFinite) -> Cause:
    """NaN/inf parameters: both runs at the same step is no finding; one run alone is."""
    hint = (
        "Lower the learning rate (or the loss scale) for the check with the script's own "
        "options after `--`, and run the original alone: it diverges without dp2ddp too."
    )
    if nf.comparable_failure:
        return Cause(
            "nonfinite_both",
            f"both runs diverge (non-finite) at step {nf.original}: not comparable",
            f"the original's and the migration's parameters hold NaN or inf after optimizer "
            f"step {nf.original}; the steps before it agreed, nothing after it can be compared",
            hint,
        )
    if nf.original is not None and nf.original == nf.migrated:
        return Cause(
            "nonfinite_both",
            f"both runs diverge (non-finite) at step {nf.original}, after their updates "
            f"differed from step {nf.first_diverging_step}",
            "the difference before the divergence is a real one",
            hint,
        )
    if nf.original is not None and nf.migrated is not None:
        first, other = (
            ("migrated", "original") if nf.migrated < nf.original else ("original", "migrated")
        )
        steps = {"original": nf.original, "migrated": nf.migrated}
        return Cause(
            "nonfinite_one",
            f"the {first} run goes non-finite first, at step {steps[first]}",
            f"the {other} run only at step {steps[other]}: the runs differ before that",
            "Compare the loss and its scale in both scripts (a summed loss, a learning rate "
            "multiplied by WORLD_SIZE).",
        )
    side, step = ("migrated", nf.migrated) if nf.migrated is not None else ("original", nf.original)
    other = "original" if side == "migrated" else "migration"
    return Cause(
        "nonfinite_one",
        f"only the {side} run goes non-finite (NaN/inf), at step {step}",
        f"the {other}'s parameters stay finite at that step: a real difference between the runs",
        "Compare the loss and its scale in both scripts (a summed loss, a learning rate "
        "multiplied by WORLD_SIZE)."
        if side == "migrated"
        else "The original diverges where the migration does not: check the original alone.",
    )
