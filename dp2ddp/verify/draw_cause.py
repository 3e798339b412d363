"""Random numbers drawn inside the model's forward (measured: recorder.forward_ended).

A draw in forward (a diffusion step `torch.randint(0, T, (b,))`, timm's DropPath, a noise
layer) is made per process: DataParallel's replicas drew theirs on their own devices, each
DDP rank draws for its share (the same values where the program seeds alike; verify seeds
rank 0 as the original and the others apart otherwise: alignment.process_seed); no
step-by-step alignment is possible. Told apart from the loop's own draws
(causes._random_in_loop), which are measured between the forwards:
arpitbansal297/Cold-Diffusion-Models@f8b1379 was
"no measured cause matched; DP011 a candidate" and zczcwh/PoseFormer@a908b29 "the global
RNG advanced … DP006" at a generator whose batch was split right (docs/real-world.md,
stop 51, w5).

A loop's draws that take the batch's rows in a drawn order (mixup, CutMix, partners drawn
with replacement by `torch.randint`: DP147 from verify's own migration) are named as such
(`permuted_batch`): each rank draws a permutation of its own share's positions (the same one
on every rank where the program seeds alike) and pairs rows within its share; the cause
"each process draws its own values", fix "draw on rank 0 and broadcast", hid that (a
broadcast order still pairs within each share; stop 51 s1, stop 52 s4).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from dp2ddp.verify.ratio_cause import warned
from dp2ddp.verify.reach import Reached
from dp2ddp.verify.report import Cause
from dp2ddp.verify.scan import draws_in

if TYPE_CHECKING:
    from dp2ddp.verify.causes import Evidence


#: How a loop's draws are made DataParallel's. "Such draws cannot be aligned between 1 and W
#: processes" was false for noise sized by the batch (a GAN's `torch.randn(b_size, nz)`), which
#: DP006 itself aligns (stop 54 r2-C, ae-foster/pytorch-simclr and learn-GAN's round).
DRAW_SHARE_FIX = (
    "Draw as DataParallel's one process drew: values sized by the batch for the whole global "
    "batch alike on every rank, each rank keeping its own rows "
    "(`ddp_draw_share(lambda: torch.randn(B, ...))`, B the global batch: what dp2ddp migrate "
    "writes where it proves the size is the batch's, as DP006 at that line says); a draw not "
    "per sample alike on every rank (`with ddp_same_random():`); or accept the difference."
)


def recurrent(ev: Evidence) -> str:
    """The share of the dropout draws made by recurrent layers' `dropout=` (probes): their
    draws were "not by dropout" in random_in_forward's text (stop 54 r1-E)."""
    rnn = sum(int(w.get("rnn_dropout", 0)) for w in ev.all_windows())
    if not rnn:
        return ""
    return (
        f"; {rnn} of them by a recurrent layer's dropout= between its layers (nn.LSTM, "
        "nn.GRU, nn.RNN: drawn inside torch's kernel, which verify cannot align per chunk)"
    )


def forward_draws(ev: Evidence) -> int:
    """Training forwards of the compared steps that drew from the global RNGs, where no
    dropout was drawn as is (aligned or switched-off dropout leaves the RNG where it was)."""
    runs = [ev.original, *ev.migrated]
    as_is = sum(
        int(w.get("dropout", 0)) - int(w.get("dropout_off", 0)) - int(w.get("dropout_aligned", 0))
        for run in runs
        for w in ev.windows(run)
    )
    if as_is > 0 and not ev.no_dropout:
        return 0
    return sum(int(w.get("forward_draws", 0)) for run in runs for w in ev.windows(run))


def random_in_forward(ev: Evidence, count: int) -> Cause:
    where = (
        f" (drawn at {'; '.join(ev.forward_draws[:3])}"
        + (f" and {len(ev.forward_draws) - 3} more" if len(ev.forward_draws) > 3 else "")
        + ")"
        if ev.forward_draws
        else " (no draw in a forward() of the program's modules ran: a library layer's, e.g. "
        "stochastic depth / DropPath or a noise layer)"
    )
    return Cause(
        "random_in_forward",
        "random numbers drawn inside the model's forward",
        f"the global RNG advanced during {count} training forwards of the compared steps (the "
        "original's and the ranks'), not by dropout" + where + "; each process draws its own "
        "values: each rank for its share (the same values on every rank where the program seeds "
        "its generators alike; else verify seeds rank 0 as the original and the others apart, "
        "as torchrun leaves them), the original once for its whole batch",
        "Such draws cannot be aligned between 1 and W processes: switch them off for the check "
        "with the script's own options after `--` (a drop-path rate of 0, a fixed step), or "
        "accept the difference (DataParallel's replicas also drew their own on each device).",
    )


def permuted_batch(ev: Evidence, evidence: str, drawn: str) -> Cause | None:
    """The loop takes the batch's rows in a drawn order on the way to the model, as verify's
    own migration said (DP147 at `path:line`); None where it said no such thing. `drawn`:
    where the loop's draws were seen (the scan's lines, DP006's)."""
    places = warned(ev.migration_warnings, "DP147")
    if not places:
        return None
    shown = "; ".join(places[:3]) + (f" and {len(places) - 3} more" if len(places) > 3 else "")
    return Cause(
        "permuted_batch",
        "the batch's rows mixed in a drawn order (mixup, CutMix, partners drawn with "
        "replacement): each rank pairs rows within its own share",
        (f"{evidence}; " if evidence else "")
        + f"DP147 from dp2ddp migrate at {shown}: each rank draws a permutation of its own "
        "share's positions (or positions among them: `torch.randint`) and pairs every row "
        "with a partner from its own share only (where the program seeds its generators "
        "alike, as DP006 says, every rank draws the same "
        "permutation and the same mixing weights on each step; else verify seeds rank 0 as "
        "the original and the others apart, as torchrun leaves them); the original drew one "
        f"permutation over its whole batch, whose partners cross the ranks' shares{drawn}",
        "Do what DP147 at that line says: accept per-rank mixing and seed each rank's draws "
        "differently (verify then cannot show equivalence for this loop), or gather the "
        "global batch before mixing so that rows pair across all of it.",
    )


def shared_reads(ev: Evidence) -> Cause | None:
    """A rank entered the migration's `with ddp_same_random():` while its DataLoader read
    samples (recorder.shared_reads): the block gives every rank the generators' states rank
    0 had at its own n-th block, so each rank draws rank 0's values (noise, a crop) for its
    own n-th sample, where DataParallel's one process drew every sample's own. Named with
    the block's place and the draws of its function, both read in the file the migrated run
    executed (recorded with the place: the lines of one file; before stop 61 the draws were
    read at the same relative path under the original's working folder, the original's
    file and lines beside the migration's block line where verify migrated in a copy of
    the project, stop 60 s3's left 2). adntjr4/denoising_practice@b53363d: noise
    added per sample in a helper its `__init__` calls too, the block put around it; verify
    said "no known cause" (stop 59 v1-C). None where no rank entered one in a read."""
    places: dict[str, list[int]] = {}
    for run in ev.migrated:
        for place in run.data.get("shared_reads", {}) if run.rank else ():
            places.setdefault(str(place), []).append(run.rank)
    if not places:
        return None
    first, changed = ev.sharding.steps[0], ev.sharding.changed_inputs[0]
    evidence = (
        f"the DataLoader batches were split right ({'+'.join(map(str, first.per_rank))} of "
        f"the original's {first.original}), but from step {changed.step} the model inputs "
        f"were not the original's ({changed.missing} of its {changed.original} missing)"
    )
    cwd = Path(Reached(ev.original).cwd)
    told = []
    for place, ranks in list(places.items())[:3]:
        shown, _, ran = place.partition("\t")
        where, _, function = shown.partition(" ")
        path = where.rpartition(":")[0]
        drawn = draws_in(Path(ran) if ran else cwd / path, function) if function else []
        told.append(
            f"`with ddp_same_random():` at {where} (in {function}, the migration's; rank"
            f"{'s' if len(ranks) > 1 else ''} {', '.join(map(str, sorted(set(ranks))))})"
            + (f" around the draws of {path} line {', '.join(drawn[:4])}" if drawn else "")
        )
    return Cause(
        "shared_sample_draws",
        "a dataset's per-sample draws are rank 0's on every rank",
        f"{evidence}; the ranks read their samples through {'; '.join(told)}: there each "
        "rank draws the values rank 0 draws for its own n-th sample, so the ranks' samples share "
        "their random values (noise, crops) where DataParallel's one process drew each "
        "sample's own; verify seeds every sample's read alike in both runs, so only a rank "
        "whose draws are rank 0's differs",
        "Leave the draws a dataset makes per sample (its `__getitem__` and what it calls) to "
        "each process: `with ddp_same_random():` is for what decides which samples a "
        "dataset holds (its `__init__`); where one helper draws for both, share only the "
        "call made while the dataset is built.",
    )
