"""Check, from the per-sample fingerprints, that the DDP ranks really split the data.

At each compared step and for each wrapped model, the ranks' samples must be disjoint and
their union (as a multiset) must be the original's batch. A migration in which every rank
trains on the same samples is not data parallel even when its numbers happen to match.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from dp2ddp.verify.records import RankRecord

OK = "ok"
SAME_DATA = "same data on every rank"
OVERLAP = "ranks overlap"
MISMATCH = "global batch differs from the original's"
NOT_CHECKED = "not checked"
#: The ranks recorded no sample of any model the original was seen to feed (see `unrecorded`).
UNRECORDED = "no batch recorded"


@dataclass(frozen=True)
class StepShards:
    step: int
    model: str
    original: int  # samples the original fed at this step
    per_rank: tuple[int, ...]
    identical: bool  # every rank fed the same samples
    overlapping: int  # samples fed by more than one rank
    missing: int  # original's samples no rank fed
    extra: int  # samples fed by a rank but not by the original
    repeated: int  # samples fed more often than by the original (padding)

    @property
    def ok(self) -> bool:
        return not (self.identical or self.overlapping or self.missing or self.extra)


@dataclass
class Sharding:
    status: str = NOT_CHECKED
    steps: list[StepShards] = field(default_factory=list)
    source: str = ""  # what was compared: model inputs, or the DataLoader batches
    #: When the model inputs differ: the same check on the DataLoader batches. The script
    #: may change a loaded batch before the model sees it (CutMix pastes a box of a permuted
    #: batch into it, leaving the permutation's fixed points as they were loaded), so the
    #: model inputs may differ while the loader is split right; this tells the two apart.
    loader: list[StepShards] = field(default_factory=list)
    #: The model-input steps that differed while the DataLoader batches were split right
    #: (then `steps` are the loader's and the status is theirs: the data is sharded).
    changed_inputs: list[StepShards] = field(default_factory=list)
    #: Steps at which the ranks' models together got fewer rows than the original's model
    #: while the DataLoader batches were split right (original: all rows the model got;
    #: per_rank: each rank's): the batch was cut again between the loader and the model
    #: (glow-pytorch's generator, a split after next() of a sharded loader: 2+2 of 8). Not
    #: a changed batch (CutMix keeps the count): the check fails on the model's inputs.
    shrunk: list[StepShards] = field(default_factory=list)
    #: Models the original fed and no rank did at any compared step, without DataLoaders
    #: (everything the models were fed is compared): left out. An original that calls its
    #: model's `forward()` itself (no wrap on CPU) is seen as its parts, each called as a
    #: model (`self.Decoder(x)`, `self.fc(h)`), the migration's DDP as one model: "rank 0: 0,
    #: rank 1: 0" of the second, NOT EQUIVALENT from samples never recorded (MusicTransformer,
    #: stop 56). Where no model is left, the status is UNRECORDED: not comparable.
    unrecorded: list[str] = field(default_factory=list)

    @property
    def failed(self) -> bool:
        return self.status not in (OK, NOT_CHECKED, UNRECORDED)

    @property
    def undivided(self) -> bool:
        """Each rank fed as many samples as the original's whole batch (W > 1); measured on
        the DataLoader batches when they were recorded (a count of model inputs that still
        match a loaded sample may coincide by chance: one untouched sample per run)."""
        return _undivided(self.loader if self.loader else self.steps)

    @property
    def padded(self) -> bool:
        """The union repeated some of the original's samples and added none: padding."""
        bad = [s for s in self.steps if not s.ok]
        return bool(bad) and all(s.repeated and not s.extra and not s.identical for s in bad)

    def inputs_note(self) -> str:
        """Where the ranks' model inputs were the original's batches, split: a note that
        draws made before the forward did not change the batches (a draw the migration made
        rank 0's: verify's loop-draws cause, stop 54 s4); else ""."""
        if self.status != OK or not self.source.startswith("model inputs") or self.changed_inputs:
            return ""
        return (
            "; the ranks' model inputs were the original's batches split (sharding ok): the "
            "draws did not change the batches"
        )

    def first_bad(self) -> StepShards | None:
        return next((s for s in self.steps if not s.ok), None)

    def describe(self) -> str:
        bad = self.first_bad()
        if self.status == NOT_CHECKED:
            return "no tensor input of a wrapped model was seen: sharding not checked"
        if self.status == UNRECORDED:
            return (
                "not comparable step by step: no batch recorded on the ranks (the original's "
                f"model{'s' if len(self.unrecorded) > 1 else ''} {', '.join(self.unrecorded)} "
                "fed samples, no rank's model a tensor verify could match: a model called "
                "through forward() is seen as its parts)"
            )
        if bad is None:
            first = self.steps[0]
            text = (
                f"{len(self.steps)} steps of {self.source}: ranks fed disjoint samples "
                f"({'+'.join(map(str, first.per_rank))}) forming the original's batch "
                f"of {first.original}"
            )
            if self.changed_inputs:
                text += (
                    "; the model was fed changed batches (from step "
                    f"{self.changed_inputs[0].step}: the script changes a batch after loading)"
                )
            if self.unrecorded:
                text += (
                    f"; the original's model {', '.join(self.unrecorded)} fed samples no rank "
                    "recorded, left out (a part of the model the original called on its "
                    "own, its forward() called directly)"
                )
            return text
        ranks = ", ".join(f"rank {r}: {n}" for r, n in enumerate(bad.per_rank))
        if self.shrunk:
            cut = self.shrunk[0]
            loaded = next((s for s in self.loader if s.step == cut.step), None)
            given = (
                f"; the DataLoaders gave {'+'.join(map(str, loaded.per_rank))} of its "
                f"{loaded.original}"
                if loaded is not None
                else ""
            )
            return (
                f"step {cut.step}: the models were fed {'+'.join(map(str, cut.per_rank))} "
                f"samples, the original's {cut.original}{given}: the batch is cut again "
                "between the DataLoader and the model"
            )
        if bad.identical:
            what = "every rank fed the same samples"
        elif bad.overlapping:
            what = f"{bad.overlapping} samples were fed by more than one rank"
        else:
            what = f"{bad.missing} of the original's samples missing, {bad.extra} others added"
            if bad.repeated:
                what += f", {bad.repeated} repeated"
        return f"step {bad.step}: {what} (original: {bad.original} samples; {ranks})"


LOADER = "loader"  # pseudo-model: the DataLoader's batches


def _undivided(steps: list[StepShards]) -> bool:
    bad = [s for s in steps if not s.ok]
    return bool(bad) and all(
        len(s.per_rank) > 1 and s.original > 0 and all(n == s.original for n in s.per_rank)
        for s in bad
    )


def _window(record: RankRecord, index: int) -> dict[str, Any]:
    windows = record.windows
    return windows[index] if index < len(windows) else {}


def _loaded(record: RankRecord, steps: int, dim: int = 0) -> set[str]:
    key = "loaded" if dim == 0 else "loaded_dim1"
    return {d for i in range(steps) for d in _window(record, i).get(key, [])}


def loader_dim(records: list[RankRecord], steps: int, dim: int) -> int:
    """The dim along which the loaded batches hold their samples: the one the loaders'
    batch size named (recorder's `loaded_split`: the sampler's indices) where every batch
    of every run that was told apart says the same and, for dim 1, the columns were kept;
    else `dim`, DataParallel's. A batch-major loader whose batches the program transposes
    to (T, B) for a dim=1 wrap holds its samples in its rows (xyz961014/longterm@c62d11e:
    read along dim 1, its time steps looked like samples every rank fed, "ranks overlap")."""
    told = {
        split
        for r in records
        for i in range(steps)
        for split in _window(r, i).get("loaded_split", [])
        if split in (0, 1)
    }
    if len(told) != 1:
        return dim
    found: int = told.pop()
    kept = any(_window(r, i).get("loaded_dim1") for r in records for i in range(steps))
    return dim if found == 1 and not kept else found


def scatter_dim(original: RankRecord, written: frozenset[int] = frozenset()) -> int:
    """The dim along which the original's DataParallel split its batches: 1 when every
    DataParallel wrap of the original says dim=1 (a sequence-first model), else 0. Where the
    run built no DataParallel (a wrap under a GPU count, false on CPU), the dims `written`
    in the original's text (scan.wrap_dims) say it."""
    wrappers = [w for w in original.data.get("wrappers", []) if w.get("class") == "DataParallel"]
    if not wrappers:
        return 1 if written == {1} else 0
    return 1 if all(w.get("dim") == 1 for w in wrappers) else 0


def _inputs(
    record: RankRecord, index: int, model: str, data: set[str] | None, dim: int = 0
) -> list[str]:
    """The samples `model` was fed in window `index` (per index along `dim`); with `data`,
    only those the run's DataLoaders yielded (a GAN discriminator's real images, not its
    fakes)."""
    window = _window(record, index)
    if model == LOADER:
        digests: list[str] = window.get("loaded" if dim == 0 else "loaded_dim1", [])
        return digests
    fed: list[str] = window.get("inputs" if dim == 0 else "inputs_dim1", {}).get(model, [])
    return fed if data is None else [d for d in fed if d in data]


def sources(
    original: RankRecord,
    ranks: list[RankRecord],
    steps: int,
    dim: int = 0,
    loaded_dim: int | None = None,
) -> tuple[list[str], bool]:
    """Which samples to compare: (models, filter by loaded data).

    The models fed with DataLoader samples, restricted to those samples (inputs drawn at
    random, like a generator's noise, say nothing about sharding); else the DataLoader
    batches themselves (the script transforms the batch before the model); else, with no
    DataLoader (data sliced by hand), everything the models were fed. Samples are the
    indices along `dim`, DataParallel's: the columns of a time-major batch for dim=1; the
    loaded batches' along `loaded_dim` (loader_dim: their sampler's rows), else `dim`.
    """
    loaded = _loaded(original, steps, dim if loaded_dim is None else loaded_dim)
    models = sorted(
        {m for i in range(steps) for m in _window(original, i).get("inputs", {})}
        | {m for r in ranks for i in range(steps) for m in _window(r, i).get("inputs", {})}
    )
    if loaded:
        fed = [
            m for m in models if any(set(_inputs(original, i, m, None, dim)) & loaded
                                     for i in range(steps))
        ]  # fmt: skip
        return (fed, True) if fed else ([LOADER], False)
    return models, False


def check_sharding(
    original: RankRecord,
    ranks: list[RankRecord],
    steps: int,
    written: frozenset[int] = frozenset(),
) -> Sharding:
    # The samples are the indices along the original DataParallel's dim in the model
    # inputs, and along the loader's batch size in the DataLoader batches (loader_dim; the
    # wrap's dim where not told): a time-major loader's rows are time steps, which every
    # rank's shard has (fresh6 class V10: "ranks overlap" on a right migration), and so are
    # the columns of a batch-major one the program transposes (longterm@c62d11e, v1-D).
    dim = scatter_dim(original, written)
    at = loader_dim([original, *ranks], steps, dim)  # the loaded batches' samples
    models, filtered = sources(original, ranks, steps, dim, at)
    result = Sharding(source="DataLoader batches" if models == [LOADER] else "model inputs")
    if (at if models == [LOADER] else dim) == 1:
        result.source += " along dim 1 (DataParallel's dim)"
    elif dim and models == [LOADER]:
        result.source += " along dim 0 (their sampler's rows; DataParallel's dim is 1)"
    data = {id(r): _loaded(r, steps, at) if filtered else None for r in (original, *ranks)}
    for index in range(min(steps, len(original.windows))):
        for model in models:
            along = at if model == LOADER else dim
            result.steps.append(
                _step(
                    index + 1,
                    model,
                    _inputs(original, index, model, data[id(original)], along),
                    [_inputs(r, index, model, data[id(r)], along) for r in ranks],
                )
            )
    result.steps = [s for s in result.steps if s.original or any(s.per_rank)]
    if not result.steps:
        return result
    if not filtered and models != [LOADER] and ranks:
        fed = {s.model for s in result.steps if any(s.per_rank)}
        result.unrecorded = sorted({s.model for s in result.steps} - fed)
        result.steps = [s for s in result.steps if s.model in fed]
        if not result.steps:
            result.status = UNRECORDED
            return result
    bad = [s for s in result.steps if not s.ok]
    if bad and filtered:
        result.loader = [
            _step(index + 1, LOADER, _inputs(original, index, LOADER, None, at),
                  [_inputs(r, index, LOADER, None, at) for r in ranks])
            for index in range(min(steps, len(original.windows)))
        ]  # fmt: skip
        result.loader = [s for s in result.loader if s.original or any(s.per_rank)]
        if result.loader and all(s.ok for s in result.loader):
            result.shrunk = _shrunk(original, ranks, bad, dim)
            if not result.shrunk:
                result.changed_inputs = bad
                result.steps, result.source, bad = result.loader, "DataLoader batches", []
    if not bad and models == [LOADER] and len(ranks) > 1:
        result.changed_inputs = _fed_apart(original, ranks, min(steps, len(original.windows)), dim)
    if not bad:
        result.status = OK
    elif len(ranks) > 1 and all(s.identical for s in bad):
        result.status = SAME_DATA
    elif any(s.overlapping and not s.identical for s in bad):
        result.status = OVERLAP
    else:
        result.status = MISMATCH
    return result


def _fed_apart(
    original: RankRecord, ranks: list[RankRecord], steps: int, dim: int
) -> list[StepShards]:
    """The DataLoader batches split right, the models fed none of the loaded tensors as such
    (a noisy copy of a clean image both runs read): the steps at which the ranks' model
    inputs, as many as the original's, are not its samples. A dataset whose per-sample read
    drew rank 0's values on every rank (the migration's `ddp_same_random` reached from
    `__getitem__`, denoising_practice: stop 59 v1-C) fed rank 1 other noisy images than
    the original's, and verify said "no known cause"."""
    names = {m for i in range(steps) for m in _window(original, i).get("inputs", {})}
    apart = []
    for index in range(steps):
        for model in sorted(names):
            step = _step(
                index + 1,
                model,
                _inputs(original, index, model, None, dim),
                [_inputs(r, index, model, None, dim) for r in ranks],
            )
            if not step.ok and sum(step.per_rank) == step.original:
                apart.append(step)
    return apart


def _shrunk(
    original: RankRecord, ranks: list[RankRecord], bad: list[StepShards], dim: int = 0
) -> list[StepShards]:
    """Of the model-input steps that differ, those where the ranks' models got fewer rows
    in all than the original's model (every row counted, loaded or not): the samples that
    reach the model per step, not those the DataLoaders gave."""
    found = []
    for step in bad:
        fed = [len(_inputs(r, step.step - 1, step.model, None, dim)) for r in ranks]
        whole = len(_inputs(original, step.step - 1, step.model, None, dim))
        if whole and sum(fed) < whole:
            found.append(StepShards(step.step, step.model, whole, tuple(fed), False, 0, 0, 0, 0))
    return found


def _step(step: int, model: str, original: list[str], ranks: list[list[str]]) -> StepShards:
    counts = [Counter(r) for r in ranks]
    union: Counter[str] = Counter()
    for c in counts:
        union.update(c)
    expected = Counter(original)
    seen_by = Counter(s for c in counts for s in c)  # how many ranks fed each sample
    # Alike on every rank and more than the original's: a batch whose rows are all one
    # sample (a centre word's pairs, `pos_u`), split right, is alike on the ranks and its
    # union the original's (round 38, lonePatient/cw2vec-pytorch@c38cc16: "same data on
    # every rank" for a right split).
    identical = (
        len(ranks) > 1
        and bool(ranks[0])
        and all(c == counts[0] for c in counts)
        and union != expected
    )
    return StepShards(
        step=step,
        model=model,
        original=len(original),
        per_rank=tuple(len(r) for r in ranks),
        identical=identical,
        overlapping=sum(1 for s, n in seen_by.items() if n > 1 and union[s] > expected[s]),
        missing=sum((expected - union).values()),
        extra=sum(n for s, n in (union - expected).items() if s not in expected),
        repeated=sum(n for s, n in (union - expected).items() if s in expected),
    )


def indices_apart(ranks: list[RankRecord]) -> tuple[int, int] | None:
    """(how many indices, of how many DistributedSampler passes) the ranks' samplers gave
    them, where every pass verify recorded gave each rank indices no other rank got (the
    first RECORDED_INDICES of each: alignment.py); None where a pass overlapped, the ranks
    recorded no pass or not alike (an older record, a sampler of the program's own).
    Samples alike at disjoint indices are the dataset's, not the sampler's (a torchio Queue
    whose `__getitem__` ignores the index: MontaEllis/Pytorch-Medical-Segmentation@fc3193f,
    docs/real-world.md stop 51)."""
    passes = [
        [s for s in r.data.get("samplers", []) if s.get("kind") == "DistributedSampler"]
        for r in ranks
    ]
    if len(ranks) < 2 or not passes[0] or any(len(p) != len(passes[0]) for p in passes):
        return None
    counted = 0
    for same_pass in zip(*passes, strict=True):
        lists = [s.get("indices") for s in same_pass]
        if not all(isinstance(found, list) for found in lists):
            return None
        seen: set[int] = set()
        for found in lists:
            if seen & set(found):
                return None
            seen |= set(found)
        counted += len(seen)
    return counted, len(passes[0])


def epoch_repeated(rank0: RankRecord, first_bad: int) -> bool:
    """A shuffled DistributedSampler iterated again at an epoch it already drew, that pass
    begun by the first step whose batch differs: the sampler repeated its order. Passes of
    two samplers at epoch 0 (a validation loader's beside the training loader's) are no
    repeat, nor is a repeat after the first differing step (LearningToCompare@be5fbbe, stop
    55 r4-C: a batch of 3 on 2 ranks was named "set_epoch not called"). A record without
    sampler numbers (an older run) counts its passes as one sampler's."""
    drawn: dict[object, set[object]] = {}
    for s in rank0.data.get("samplers", []):
        if s.get("kind") != "DistributedSampler" or not s.get("shuffle"):
            continue
        epochs = drawn.setdefault(s.get("sampler"), set())
        window = s.get("window")
        if s.get("epoch") in epochs and (not isinstance(window, int) or window <= first_bad):
            return True
        epochs.add(s.get("epoch"))
    return False
