"""The evidence for batches that differ: what makes a step-by-step comparison impossible,
and what verify ruled out before it blames the DataLoader (issue 28).

verify aligns the global generators, the samplers it knows and a dataset's own generators
(own_rngs.py) per sample. What it cannot align is said as what it is, with its lines: a
generator no seed reaches (`random.SystemRandom`), a read that gives other values for the
same sample under the same seeds, a dataset's own batched `__getitems__`, a sampler of the
program's own. Read from the records (alignment.py's loader entries), without torch.
"""

from __future__ import annotations

from typing import Any

from dp2ddp.verify import own_rngs
from dp2ddp.verify.records import RankRecord
from dp2ddp.verify.report import Cause

#: Samplers whose order verify draws alike in both runs (alignment.py), and what the
#: migration wraps around a sampler of the program's own.
_ALIGNED_SAMPLERS = {"RandomSampler", "SequentialSampler", "DistributedSampler"}


def _loaders(original: RankRecord) -> list[dict[str, Any]]:
    loaders: list[dict[str, Any]] = original.data.get("loaders", [])
    return loaders


def not_comparable(original: RankRecord, split_right: bool = False) -> list[tuple[str, str]]:
    """What makes the original's batches impossible to rebuild from the ranks' step by
    step, as (what, evidence) from the runs' records: a dataset's own generator verify could
    not seed (with its lines), a read that is not reproducible under the same seeds, a
    dataset's own batched read, a sampler drawing its own order. With `split_right` (the
    samples split right, the updates differ) only the reads: they may draw into a part of
    the sample the fingerprint does not read (a target, a mask)."""
    reasons = []
    for loader in _loaders(original):
        dataset = loader.get("dataset_class", "the dataset")
        unseeded = [own for own in loader.get("own_rngs", []) if not own.get("seedable")]
        if unseeded:
            reasons.append((
                f"{dataset} draws from a generator of its own that cannot be seeded",
                f"{own_rngs.describe(unseeded)}: each process draws other values for the "
                "same sample",
            ))  # fmt: skip
        elif loader.get("reproducible") is False:
            reasons.append((
                f"{dataset} reads other values for the same sample under the same seeds",
                f"{dataset}[0] read twice under the same seeds gave two values: it draws "
                "from something verify cannot seed (a generator it did not find, the clock, "
                "the OS)",
            ))  # fmt: skip
        if loader.get("index_blind"):
            reasons.append((
                f"{dataset} draws its samples whatever their index",
                f"{dataset}[n // 2] read under index 0's seeds gave index 0's sample, and "
                "index 0 under other seeds another: its samples are its own draws, from each "
                "process's own streams, which no sampler aligns",
            ))  # fmt: skip
        if loader.get("batched_read") and not split_right:
            reasons.append((
                f"{dataset} reads each batch its own way (__getitems__)",
                f"{dataset}.__getitems__ reads a whole batch: its draws follow the batch, a "
                "rank reads half of it, and verify cannot seed them per sample",
            ))  # fmt: skip
    if split_right:
        return reasons
    samplers = {
        str(s.get("kind")) for s in original.data.get("samplers", []) if not s.get("aligned")
    }
    samplers |= {
        str(loader.get("sampler"))
        for loader in _loaders(original)
        if loader.get("sampler") and loader.get("sampler") not in _ALIGNED_SAMPLERS
    }
    for sampler in sorted(samplers):
        reasons.append((
            f"the original's sampler {sampler} draws its own order",
            f"the original's {sampler} draws its order its own way; verify aligns "
            "RandomSampler (without replacement or num_samples) and DistributedSampler only",
        ))  # fmt: skip
    return reasons


def not_comparable_cause(detail: str, reasons: list[tuple[str, str]]) -> Cause:
    return Cause(
        "not_comparable",
        f"not comparable step by step: {reasons[0][0]}",
        f"{detail}; " + "; ".join(evidence for _, evidence in reasons),
        "Not a defect of the migration that verify can see: the two runs draw their data "
        "differently by construction. Seed such a generator per sample (or draw from the "
        "global ones, which verify seeds per sample), or compare the runs to the end "
        "(--to-end).",
    )


def collate_cause(original: RankRecord, detail: str, checked: str, swapped: bool) -> Cause | None:
    """The program's own collate_fn (alignment.py records it) as the cause where the ranks
    loaded their share but as many samples differ from the original's as are missing: each
    rank collates its own part (pads to its part's longest sample with a value other than
    zero, which verify's digests cannot tell from content)."""
    collates = sorted(
        {
            str(c)
            for each in _loaders(original)
            if (c := each.get("collate")) and each.get("collate_per_sample") is not True
        }
    )  # a collate measured to treat each sample alone is no cause (collate_check)
    if not collates or not swapped:
        return None
    return Cause(
        "collate_per_part",
        "the loader's collate_fn builds each batch as a whole, each rank from its part",
        f"{detail}: every rank loaded its share of the original's batch, but "
        f"{', '.join(collates)} changes the samples by their batch (padding to the batch's "
        f"longest sample with a value other than zero, normalising by the batch)"
        + (
            "; measured: a few samples collated whole differ from their two halves collated apart"
            if any(each.get("collate_per_sample") is False for each in _loaders(original))
            else ""
        )
        + f"; {checked}",
        "Each rank collates its own part: pad to a fixed width or with zeros (verify "
        "identifies zero-padded samples), or make the collate treat each sample alone.",
    )


def _steps_per_load(run: RankRecord) -> tuple[int, bool] | None:
    """Optimizer steps between the first two batches the run's DataLoaders gave, and
    whether that is exact (False: no second batch was recorded, so at least that many);
    None with no batch recorded."""
    loads = [
        i for i, window in enumerate(run.windows) if window.get("batches") or window.get("loaded")
    ]
    if not loads:
        return None
    if len(loads) > 1:
        return loads[1] - loads[0], True
    return len(run.windows) - loads[0], False


def parts_cause(
    original: RankRecord, ranks: list[RankRecord], detail: str, warned: list[str]
) -> Cause | None:
    """The ranks trained another number of steps per DataLoader batch than the original:
    something between the loader and the model (a collate_fn, a chunk loop) cuts each
    batch into parts whose count follows the batch's size, so a rank's smaller share is cut
    into fewer parts (xcmyz/Tacotron2-Pytorch@a2d8b47's collate_fn, int(sqrt(len(batch)))
    parts: 4 steps per loader batch in the original, 2 per rank; stop 45's verify blamed a
    missing DistributedSampler that was there). `warned`: the migration's warnings about
    such a cut (DP051, DP050), shown with their lines. None where the steps per batch
    agree, or are not measured."""
    first = _steps_per_load(original)
    if first is None:
        return None
    mine, exact = first
    found = [
        (rank, other, known)
        for rank, run in enumerate(ranks)
        if (theirs := _steps_per_load(run)) is not None
        for other, known in [theirs]
        if (exact and known and mine != other)
        or (exact and not known and other > mine)
        or (known and not exact and mine > other)
    ]
    if not found:
        return None
    rank, other, known = found[0]
    shown = [w if len(w) <= 120 else w[:119] + "…" for w in warned[:3]]
    said = f"; dp2ddp migrate said where: {'; '.join(shown)}" if shown else ""
    return Cause(
        "parts_per_batch",
        "each DataLoader batch is cut into parts whose number follows the batch's size",
        f"{detail}: the original trained {'' if exact else 'at least '}{mine} step(s) per "
        f"DataLoader batch, rank {rank} {'' if known else 'at least '}{other}; each rank "
        f"loads its share of the batch, and the cut "
        f"between the loader and the model (a collate_fn, a loop over chunks) makes another "
        f"number of parts of it, so samples are left out or trained in other steps{said}",
        "Cut each rank's share into the original's number of parts (or parts of the "
        "original's size divided by WORLD_SIZE), not into a number computed from the batch's "
        "length, then verify again.",
    )


def data_checked(original: RankRecord, rank0: RankRecord, rng_in_loop: bool) -> str:
    """What verify ruled out before blaming the loader: said with the evidence."""
    seeded = [
        own
        for loader in _loaders(original)
        for own in loader.get("own_rngs", [])
        if own.get("seedable")
    ]
    said = ["every rank built the same dataset"]
    if seeded:
        said.append(
            f"the dataset's own generators were seeded per sample ({own_rngs.describe(seeded)})"
        )
    kinds = sorted({str(s.get("kind")) for s in original.data.get("samplers", [])})
    ranks = sorted({str(s.get("kind")) for s in rank0.data.get("samplers", [])})
    if kinds or ranks:
        said.append(
            f"sampler order aligned ({', '.join(kinds) or 'none'} in the original, "
            f"{', '.join(ranks) or 'none'} in the migration)"
        )
    if rng_in_loop:
        said.append("the global RNG advanced inside the loop (draws that do not reach the loader)")
    return "checked: " + "; ".join(said)


def _sizes(sizes: list[int]) -> str:
    distinct = sorted(set(sizes))
    return " or ".join(map(str, distinct))


def forward_chunks(original: RankRecord, rank0: RankRecord, world: int) -> str:
    """BatchNorm's groups, measured at step 1: the original's forwards of n samples are
    DataParallel's scatter into chunks of ceil(n / W); a rank normalises over its own
    forwards. They differ where the program cuts its batch itself before the model (a fixed
    chunk size for gradient accumulation: kenziyuliu/MS-G3D's `forward_batch_size`, which
    was DataParallel's whole forward and is now each rank's): "no known cause" before."""
    first = original.windows[0] if original.windows else {}
    ours = rank0.windows[0] if rank0.windows else {}
    # forwards the original normalised whole (probes: no DataParallel scatter, a dummy batch
    # before the wrap) that rank 0 ran alike: no group of DataParallel's (amdim-public's
    # dummy batch of 2 was "Rank 0 ran the original's very forwards", stop 58)
    whole = {shape[0] for shape in first.get("batchnorm_whole", []) if shape}
    for model, sizes in first.get("forwards", {}).items():
        theirs = ours.get("forwards", {}).get(model)
        alike = {n for n in whole if sizes and theirs and sizes.count(n) == theirs.count(n)}
        sizes = [n for n in sizes or [] if n not in alike]
        theirs = [n for n in theirs or [] if n not in alike]
        if not sizes or not theirs:
            continue
        chunks = [-(-n // world) for n in sizes]
        if set(chunks) != set(theirs):
            return (
                f"at step 1 the original fed its model {len(sizes)} forward(s) of {_sizes(sizes)} "
                f"samples, which DataParallel scatters over {world} devices in chunks of "
                f"{_sizes(chunks)}, and rank 0 {len(theirs)} forward(s) of {_sizes(theirs)}: "
                "BatchNorm normalised other groups of samples. " + _why(sizes, theirs)
            )
    return ""


def _why(sizes: list[int], theirs: list[int]) -> str:
    """Why rank 0's forwards are not DataParallel's chunks, as far as the sizes tell: the
    original's very forwards (nothing split the batch over the ranks: HHTseng/video-
    classification@99ebf20's loader not sharded, stop 48 v3-E), fewer of the same sizes
    (the program cuts each batch itself: MS-G3D's forward_batch_size), or neither."""
    if sorted(theirs) == sorted(sizes):
        return (
            "Rank 0 ran the original's very forwards: nothing split the batch over the "
            "ranks (a loader not sharded, or a batch every rank builds whole), so each rank "
            "trained on all of it"
        )
    if set(theirs) <= set(sizes) and len(theirs) < len(sizes):
        return (
            "The program cuts each batch itself before the model (a fixed chunk size, "
            "gradient accumulation): that size was DataParallel's whole forward and is now "
            "each rank's; divide it by WORLD_SIZE to keep DataParallel's groups"
        )
    return "Rank 0's forwards are neither DataParallel's chunks nor the original's forwards"


def same_chunks(original: RankRecord, ranks: list[RankRecord], steps: int) -> bool:
    """`chunk_groups` is True: the groups were compared and are DataParallel's."""
    return chunk_groups(original, ranks, steps) is True


def chunk_groups(original: RankRecord, ranks: list[RankRecord], steps: int) -> bool | None:
    """Each rank fed its models, forward by forward at every compared step, the very samples
    DataParallel's scatter handed device r of the original's forward (torch.chunk: ceil(n / W)
    a chunk, rank r the r-th): a BatchNorm that normalised per chunk in the original
    normalised the same groups of samples on the ranks. Measured on the samples' fingerprints
    (sharding's), not inferred from a DistributedSampler's batch, which a batch split where it
    enters the loop does not have (ddp_shard_batch: VITA-Group/DeblurGANv2@c16bd9f5, whose
    BatchNorm cause said "the original over its whole batch", false). Where the runs loaded
    samples, only those are compared (sharding's rule: a generator's fakes round apart, their
    fingerprints with them); the sizes of every chunk are. None where nothing could be
    compared (no inputs recorded, other forwards), False where a chunk's samples differ: each
    rank holds other rows than DataParallel's device r (two sharded loaders' batches
    concatenated: roatienza/deep-text-recognition-benchmark@fb06d18, MJ's rows then ST's, each
    rank one of each; before, their DistributedSamplers counted as DataParallel's chunks and
    verify said "no measured cause matched", stop 53 v1)."""
    world, compared = len(ranks), False
    data = {id(r): _loaded(r, steps) for r in (original, *ranks)}
    for index in range(steps):
        first = original.windows[index] if index < len(original.windows) else {}
        for model, sizes in first.get("forwards", {}).items():
            fed = first.get("inputs", {}).get(model, [])
            if sum(sizes) != len(fed):
                return None
            for rank in ranks:
                theirs = rank.windows[index] if index < len(rank.windows) else {}
                parts = theirs.get("forwards", {}).get(model, [])
                got = theirs.get("inputs", {}).get(model, [])
                if len(parts) != len(sizes) or sum(parts) != len(got):
                    return None
                start = at = 0
                for size, part in zip(sizes, parts, strict=True):
                    chunk = -(-size // world)
                    lo, hi = start + rank.rank * chunk, start + min((rank.rank + 1) * chunk, size)
                    mine, want = got[at : at + part], fed[lo : max(lo, hi)]
                    if len(mine) != len(want) or _of(mine, data[id(rank)]) != _of(
                        want, data[id(original)]
                    ):
                        return False
                    start, at = start + size, at + part
                compared = True
    return True if compared else None


def _loaded(run: RankRecord, steps: int) -> set[str]:
    return {d for w in run.windows[:steps] for d in w.get("loaded", [])}


def _of(digests: list[str], loaded: set[str]) -> list[str]:
    """The loaded samples among `digests`, in order (all of them where nothing was loaded)."""
    return [d for d in digests if d in loaded] if loaded else digests


def alike_draws(
    rank0: RankRecord, detail: str, apart: tuple[int, int], warned: tuple[str, ...] = ()
) -> Cause:
    """The ranks fed alike samples though their DistributedSamplers gave them disjoint
    indices (sharding.indices_apart): the samples are not the indices' (a dataset whose
    `__getitem__` ignores its index and draws its own, a torchio Queue). Not a sampler to
    add: verify said "needs its own DistributedSampler" of a loader that has one before.
    `warned`: where the migration said a dataset's draws are alike on every rank (DP067)."""
    count, passes = apart
    classes = sorted(
        {
            str(loader.get("dataset_class") or "the dataset")
            for loader in _loaders(rank0)
            if "DistributedSampler" in str(loader.get("sampler", ""))
        }
    )
    dataset = " and ".join(classes) or "the dataset"
    said = f" (dp2ddp migrate said so: {'; '.join(f'{w} DP067' for w in warned[:3])})"
    return Cause(
        "alike_at_disjoint_indices",
        "ranks fed alike samples at disjoint indices",
        f"{detail}. The ranks' DistributedSamplers gave them disjoint indices ({count} "
        f"indices in {passes} pass{'es' if passes > 1 else ''}, none on two ranks), yet the "
        f"samples read at them are alike: {dataset} does not return one sample per index "
        "(its __getitem__ draws its own, as a torchio Queue's patches, from generators "
        "seeded alike on every rank" + (said if warned else "") + ", or it holds the same "
        "sample at several indices)",
        "The sampler is right. Where the dataset draws its own samples, seed each rank's "
        "draws apart (torch.manual_seed(seed + rank) before the loader's workers start) or "
        "shard what it draws from (its subjects or files) over the ranks, or the ranks "
        "train on the same samples whenever they are seeded alike; its draws cannot be "
        "aligned with the original's step by step: compare the runs with --to-end.",
    )
