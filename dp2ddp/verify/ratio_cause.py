"""The causes verify names from its own migration's warnings: DP071, a loss that divides one
sum over the batch by another (Dice, IoU): the mean of the ranks' gradients of their parts'
ratios is not the gradient of the whole batch's ratio, so the updates differ from step 1
(Beckschen/TransUNet@02ef001: "no known cause matched" before); DP142, a table a pass adds
into at the batch's indices (`per_rank_tables`); DP059, a statistic over the whole batch
(`batch_statistics`); a batch the migration said
reaches every rank whole (`unsplit_batches`); and, where nothing measured matched, every
warning as a candidate (`warned_causes`)."""

from __future__ import annotations

import re

from dp2ddp.verify.report import Cause


def warned(warnings: tuple[str, ...], code: str) -> list[str]:
    """`path:line` of each warning of `code` among `path:line:col CODE message` lines (verify's
    own migration's, every module of the program: a loss module without a wrap too)."""
    pattern = re.compile(rf"^(.*?):(\d+):\d+: {code} ")
    return [f"{m[1]}:{m[2]}" for m in (pattern.match(w) for w in warnings) if m]


def said_at(warnings: tuple[str, ...], code: str, meaning: str) -> str:
    """ "; dp2ddp migrate warned CODE (meaning) at path:line; …" for a cause's evidence, "" where
    it did not: the migration's line beside what verify measured (DP008 at a BatchNorm over
    regrouped rows, DP082 at a batch read by position: stop 53 w3)."""
    places = warned(warnings, code)
    if not places:
        return ""
    shown = "; ".join(places[:3]) + (f" and {len(places) - 3} more" if len(places) > 3 else "")
    return f"; dp2ddp migrate warned {code} ({meaning}) at {shown}"


def batch_ratios(places: list[str]) -> Cause:
    """Named where the data split right and the updates differ (causes.diagnose)."""
    shown = "; ".join(places[:3]) + (f" and {len(places) - 3} more" if len(places) > 3 else "")
    return Cause(
        "batch_ratio_loss",
        "a loss divides one sum over the batch by another",
        f"{shown}: under DDP each rank takes the ratio of its own part's sums (a Dice or "
        "IoU loss) and DDP averages the ranks' gradients; DataParallel's loss was the whole "
        "batch's ratio, whose gradient differs (DP071)",
        "All-reduce both sums over the ranks (torch.distributed.nn.functional.all_reduce "
        "keeps the gradients) before dividing, times WORLD_SIZE, or accept per-rank ratios; "
        "verify then cannot show equivalence for this loss.",
    )


def per_rank_tables(said: dict[str, list[str]]) -> Cause:
    """Named where the data split right and the updates differ, and the migration said that a
    pass adds into a table at the batch's indices (DP142: class centres or counts read after
    the pass, idstcv/KDA@0f509e6, stop 51 v3-A) or changes its rows and reads them back in
    the same pass (DP028: round 36's centre table in a state dict, which verify called float
    rounding); before, verify named float rounding growing after an equal first step, as the
    first steps agree until a later step reads the table."""
    places = [place for found in said.values() for place in found]
    codes = ", ".join(code for code, found in said.items() if found)
    shown = "; ".join(places[:3]) + (f" and {len(places) - 3} more" if len(places) > 3 else "")
    return Cause(
        "per_rank_tables",
        "a table written in place at the batch's indices holds each rank's share",
        f"{shown}: under DDP each rank writes only its own samples into the table (class "
        "centres, counts), so what reads it later (the next step's or epoch's loss) differs "
        f"between the ranks and from DataParallel's whole-batch table ({codes})",
        "Sum what each step added over the ranks (torch.distributed.all_reduce) before it "
        "is read, then verify again.",
    )


def batch_statistics(warnings: tuple[str, ...]) -> Cause | None:
    """DP059, a loss that takes a statistic over the whole batch (a squared mean, a product
    of means, a norm of the batch: the scale-invariant loss), at the migration's line and in
    its words: each rank takes its own part's, so the updates differ from step 1. Named
    before the generic causes (draws in the loop), which the migration made alike there
    (manjotms10/PatchGAN@83de605: "random numbers drawn inside the training loop" was the
    first cause where the draw was `ddp_rank0_value(np.random.choice, ...)` and DP059 said
    why, stop 53 v2-C). None where the migration did not say DP059."""
    found = [m for m in (_WARNING.match(w) for w in warnings) if m and m[3] == "DP059"]
    if not found:
        return None
    shown = "; ".join(f"{m[1]}:{m[2]} {_short(m[4], 400)}" for m in found[:3])
    shown += f"; and {len(found) - 3} more" if len(found) > 3 else ""
    return Cause(
        "batch_statistic_loss",
        "a loss uses a statistic over the whole batch, as dp2ddp migrate warned (DP059)",
        f"{shown}. The data split right: under DDP each rank takes the statistic over its own "
        "part of the batch and DDP averages the ranks' gradients; DataParallel's loss took "
        "it over the whole batch, whose gradient differs",
        "Do what DP059 says at that line (docs/warnings.md): compute the statistic over the "
        "whole batch (all-reduce its sums over the ranks with torch.distributed.nn.functional"
        ".all_reduce, which keeps the gradients) or accept per-rank statistics; verify then "
        "cannot show equivalence for this loss.",
    )


def synchronised_norms(warnings: tuple[str, ...]) -> Cause | None:
    """DP083, a sync-BN package's layers that the removed `patch_replication_callback`
    synchronised: on W GPUs the original normalised over the whole batch across its
    replicas, the migration over each rank's part. verify's original on CPU chunks the batch
    as the replicas do, with the package's layers standing in per chunk (no replication
    callback runs there), so the difference is not measured, and XiaLiPKU/EMANet@f09ffac was
    NOT EQUIVALENT from step 1 with no cause named (stop 62 v1, stop 63 s2): named here, at
    the patch's line, in the migration's words. None where the migration did not say DP083."""
    found = [m for m in (_WARNING.match(w) for w in warnings) if m and m[3] == "DP083"]
    if not found:
        return None
    shown = "; ".join(f"{m[1]}:{m[2]} {_short(m[4], 200)}" for m in found[:3])
    return Cause(
        "synchronised_batchnorm",
        "BatchNorm statistics synchronised across the replicas in the original, per rank in "
        "the migration, as dp2ddp migrate warned (DP083)",
        f"{shown}. The program's sync-BN layers normalised each batch over all of "
        "DataParallel's replicas (the patched replication callback); under DDP each rank "
        "normalises its own part, so the forward, the loss and the updates differ from "
        "step 1 (verify's original on CPU cannot reproduce the synchronisation)",
        "Do what DP083 says at that line (docs/warnings.md): migrate with --sync-batchnorm "
        "(torch.nn.SyncBatchNorm over the ranks) or convert the package's layers, then "
        "verify again.",
    )


def said_losses(warnings: tuple[str, ...]) -> list[Cause]:
    """The causes the migration's own warnings give for updates that differ where the data
    split right, each at its line: a statistic over the batch (DP059), a ratio of two sums
    (DP071), a table written at the batch's indices (DP142). The caller names them before
    the generic causes (randomness), whose texts guess where these say."""
    causes = [batch_statistics(warnings), synchronised_norms(warnings)]
    if ratios := warned(warnings, "DP071"):
        causes.append(batch_ratios(ratios))
    tables = {code: warned(warnings, code) for code in ("DP028", "DP142")}
    if any(tables.values()):
        causes.append(per_rank_tables(tables))
    return [c for c in causes if c is not None]


#: Codes saying that a batch reaches every rank whole (docs/warnings.md): a DataParallel dim
#: the migration did not split along, data sliced by hand, a loader subclass left unsharded,
#: batches not split, a function whose batches are whole at one of its call sites, a batch
#: not proved to be this rank's part (DP047: named where the ranks were measured to train on
#: the same data; before, verify offered a sampler where migrate had said the line, stop 52).
UNSPLIT_CODES = ("DP001", "DP005", "DP035", "DP037", "DP047", "DP077")


def unsplit_batches(warnings: tuple[str, ...], detail: str) -> Cause | None:
    """The ranks trained on the same data and the migration said where: its warning's line is
    the cause, not a missing DistributedSampler (kaituoxu/PyTorch-ASR-AM@2ea24e9, DP001 at a
    `DataParallel(dim=1)` over numpy streams: verify offered a DataLoader fix for a program with
    no DataLoader, docs/real-world.md stop 34, V2). None where no such warning was said."""
    found = [m for m in (_WARNING.match(w) for w in warnings) if m and m[3] in UNSPLIT_CODES]
    if not found:
        return None
    shown = "; ".join(f"{m[1]}:{m[2]} {m[3]} {_short(m[4])}" for m in found[:3])
    return Cause(
        "batches_not_split",
        "every rank trains on the same data, as dp2ddp migrate warned",
        f"{detail}. The migration could not split these batches over the ranks and said so: "
        f"{shown}. This is not data-parallel training, whatever the numbers.",
        "Do what the warning at that line says (docs/warnings.md): give each rank its part of "
        "the batch there, then verify again.",
    )


#: Codes saying the ranks' parameters can go apart (docs/warnings.md): re-initialised after
#: the wrap, trained or stepped outside DDP, run past the wrapper (`.module`, bare), grown
#: after the wrap, mutated in forward, renormalised per rank.
#: DP023 and DP096 together: a gradient penalty through a wrap with static_graph=True, whose
#: ranks drift apart from the first step (SaoYan/GenerativeSkinLesion@d0df9c0's critic: verify
#: said "dp2ddp migrate named no place where they go apart", stop 54 v3-C). DP062: the wrap
#: undone before training, each rank trains its own copy (vansky/neural-complexity@3c057f8,
#: stop 58 v2-D: "named no place" beside it). DP225: a wrapper a helper returns, thrown
#: away, the bare module trained per rank (round 36's dropped-wrap repro: verify named
#: DP039 alone, a re-initialisation that is not why).
APART_CODES = (
    "DP007",
    "DP022",
    "DP023",
    "DP039",
    "DP042",
    "DP062",
    "DP068",
    "DP069",
    "DP075",
    "DP089",
    "DP096",
    "DP098",
    "DP100",
    "DP108",
    "DP225",
)


def ranks_apart(
    warnings: tuple[str, ...],
    detail: str,
    unwrapped: list[int] | None = None,
    unreached: tuple[str, ...] = (),
) -> Cause:
    """The ranks hold different parameters: the warnings of verify's own migration that say
    how that comes about, where there are some, else what to look at. raahii/infogan-pytorch
    @3729f48 had the fix text name weights re-initialised after the wrap (DP039) where
    migrate's DP108 had said the generator runs past DDP (`gen.module.infer(z)`, docs/
    real-world.md, stop 47, w3). First, `unwrapped`: the migrated ranks whose recorder saw
    no DistributedDataParallel built. Nothing averaged their gradients, whatever a warning
    says of parameters a wrap holds (stop 53 v4-C, spacegoing/DARNN_Multi_GPU@7e60823: a
    wrap left under a GPU-count guard false on CPU was named "as dp2ddp migrate warned
    (DP007)", a warning about an int counter in forward).

    `unreached`: the migration's warnings at lines the original's run did not reach. The
    migrated run may reach them all the same: a partial wrap under a GPU count false on CPU
    (`if len(gpu_list) > 1: model.conv2d = DataParallel(model.conv2d)`) never ran in the
    original, and the migration wraps unconditionally (VIPL-SLP/VAC_CSLR@71f3e03: "no warning
    of dp2ddp migrate says how they go apart" beside DP042, which says it; stop 60 v3-E).
    Such a warning of a code that says how ranks go apart is named, with where it stands,
    before any claim that none says it."""
    if unwrapped:
        ranks = ", ".join(map(str, unwrapped))
        return Cause(
            "ranks_out_of_sync",
            "no model wrapped in DistributedDataParallel: each rank trained alone",
            f"{detail}. The migrated run built no DistributedDataParallel on rank {ranks}: "
            "nothing averaged the ranks' gradients, each rank stepped on its own share of "
            "the batch",
            "Find the wrap the migration left under a condition false in this run (a GPU "
            "count, a flag: DP012) or did not rewrite, make every rank wrap, then verify again.",
        )
    found = [m for m in (_WARNING.match(w) for w in warnings) if m and m[3] in APART_CODES]
    off_path = [m for m in (_WARNING.match(w) for w in unreached) if m and m[3] in APART_CODES]
    if found or off_path:
        shown = _coded_places(found + off_path)
        codes = ", ".join(dict.fromkeys(m[3] for m in found + off_path))
        where = (
            f" ({', '.join(f'{m[1]}:{m[2]}' for m in off_path[:3])} at lines the original's "
            "run did not reach: a wrap under a GPU count false here, say, which the "
            "migration runs on every rank)"
            if off_path
            else ""
        )
        return Cause(
            "ranks_out_of_sync",
            f"DDP ranks hold different parameters, as dp2ddp migrate warned ({codes})",
            f"{detail}. The migration said where the ranks' parameters can go apart{where}: "
            f"{shown}",
            "Do what the warning at that line says (docs/warnings.md), then verify again.",
        )
    placed = [m for m in (_WARNING.match(w) for w in warnings) if m and m[3] not in _NOT_CAUSES]
    if placed:  # none of them says how ranks go apart; each is a place migrate left unproved
        shown = _coded_places(placed)
        return Cause(
            "ranks_out_of_sync",
            "DDP ranks hold different parameters",
            f"{detail}; no warning of dp2ddp migrate says how they go apart, and it warned "
            f"at: {shown}",
            "Look at those lines first, then for what changes parameters outside the DDP "
            "wrapper's forward and the optimizer's step: a forward run through `.module` or "
            "on the bare model, parameters set or re-initialised by hand after the wrap "
            "(then ddp_broadcast_module(model)), a second optimizer over parameters DDP does "
            "not hold.",
        )
    return Cause(
        "ranks_out_of_sync",
        "DDP ranks hold different parameters",
        f"{detail}; dp2ddp migrate named no place where they go apart",
        "Look for what changes parameters outside the DDP wrapper's forward and the "
        "optimizer's step: a forward run through `.module` or on the bare model, parameters "
        "set or re-initialised by hand after the wrap (then ddp_broadcast_module(model)), a "
        "second optimizer over parameters DDP does not hold.",
    )


#: Codes no cause of a difference in the updates: DP034 names modules the run never reaches;
#: DP015 an evaluation loader left whole, DP030 a figure printed from a rank's shard, DP041
#: `find_unused_parameters=True` (what they say changes no training update). Listed, they
#: came before the true candidate (bubbliiiing/yolov4-tiny-pytorch@1f2a5b9: DP041, DP015 ×2
#: before DP043's means over data-sized selections; docs/real-world.md, stop 47, w3).
_NOT_CAUSES = frozenset({"DP015", "DP030", "DP034", "DP041"})
#: Codes whose effect verify reproduces or measures itself, listed after the others: the
#: original normalises BatchNorm per DataParallel chunk as the ranks do (DP008), and a
#: sampler's epoch (DP011) changes no batch the sharding check found right. FaceBoxes
#: (zisianw/FaceBoxes.PyTorch@22efc6a, class v3-C of stop 39) had DP011 and DP008 shown
#: first and the true cause, DP043's per-rank positives count, last.
_MEASURED = frozenset({"DP008", "DP011"})
#: A message may run over several lines (DP047's flow): DOTALL, or the warning is dropped
#: (xcmyz/VAE-Tacotron@d57dd0a's DP047 was missing among the candidates, stop 47, w3).
_WARNING = re.compile(r"^(.*?):(\d+):\d+: (DP\d+) (.*)$", re.DOTALL)


def warned_causes(warnings: tuple[str, ...], detail: str) -> Cause | None:
    """The warnings of verify's own migration, as the candidate causes of updates that differ
    where no measured signature matched (`detail`: the first diverging step, the worst
    parameter). Each of them fails `dp2ddp migrate --check`: migrate could not prove that
    place right, so it is where to look first, not "no known cause" (JiaRenChang/PSMNet@87ac909:
    DP043 at a masked mean loss; biubug6/Pytorch_Retinaface@b984b4b: DP004 at a loss divided by
    each rank's count). None without such a warning."""
    found = [m for m in (_WARNING.match(w) for w in warnings) if m and m[3] not in _NOT_CAUSES]
    if not found:
        return None
    found.sort(key=lambda m: m[3] in _MEASURED)
    shown = "; ".join(f"{m[1]}:{m[2]} {m[3]} {_short(m[4])}" for m in found[:5])
    if len(found) > 5:
        shown += f"; and {len(found) - 5} more"
    codes = ", ".join(dict.fromkeys(m[3] for m in found))
    return Cause(
        "migration_warned",
        f"no measured cause matched; dp2ddp migrate warned ({codes}): "
        + ("candidate causes" if len(found) > 1 else "a candidate cause"),
        f"{detail}. The migration left warnings that fail --check, each a place it could "
        f"not prove right: {shown}",
        "Resolve those warnings (docs/warnings.md says what each means) and verify again; "
        "the data split right, so the difference is in what each rank computes from its part.",
    )


def _short(message: str, limit: int = 90) -> str:
    message = " ".join(message.split())
    return message if len(message) <= limit else message[: limit - 1] + "…"


def _coded_places(found: list[re.Match[str]]) -> str:
    """The first three warnings as `path:line CODE text`, and how many more."""
    shown = "; ".join(f"{m[1]}:{m[2]} {m[3]} {_short(m[4])}" for m in found[:3])
    return shown + (f"; and {len(found) - 3} more" if len(found) > 3 else "")
