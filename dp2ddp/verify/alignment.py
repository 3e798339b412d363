"""Make the original and every DDP rank draw the same weights and the same data.

Runs inside the user's processes, before the script. Each patch below is one thing that
would otherwise differ between one DataParallel process and W DDP processes:

* every RNG is seeded as a real torchrun process finds it for what the script does not seed
  itself: differently in every process (`process_seed`). The original and rank 0 share the
  seed, so their initial weights match (DDP broadcasts rank 0's to the other ranks); a rank
  that builds another dataset from unseeded draws (issue 18) shows, as under torchrun;
* RandomSampler and DistributedSampler both draw the order of epoch e from one generator
  seeded with (seed + e), and DistributedSampler hands rank r the r-th contiguous slice of
  every global batch (see `slicing`): the DDP global batch at step s is the original's batch s;
* each sample is loaded under its own RNG seed (derived from its index), so random data
  augmentation gives a sample the same crop in both runs, whichever process loads it (also
  through a `Subset`; a dataset's own batched `__getitems__` is left to draw as it does);
  the generators a dataset keeps of its own (`self.rng = random.Random(seed)`: own_rngs)
  are seeded for the read too, and recorded with their lines;
* cuDNN and TF32 are set deterministic / off.
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import random
import sys
import weakref
from collections.abc import Callable, Iterator
from typing import Any

import torch
from torch.utils.data import DataLoader, DistributedSampler, RandomSampler, Subset
from torch.utils.data._utils import fetch as _fetch
from torch.utils.data.dataloader import _BaseDataLoaderIter

from dp2ddp.transforms._support.names import DDP_DISTRIBUTED_SAMPLER, DDP_SAMPLER_NEXT_PASS
from dp2ddp.verify import collate_check, own_rngs
from dp2ddp.verify.config import torch_seed
from dp2ddp.verify.digest import sample_digests, tensor_digest
from dp2ddp.verify.fingerprint import MAX_DIM1_SAMPLES, first_tensor, sample_rows, sample_tensor
from dp2ddp.verify.recorder import Recorder
from dp2ddp.verify.slicing import pad_like_distributed_sampler, rank_indices

_BATCH_ATTR = "_dp2ddp_verify_batch"
_EPOCH_ATTR = "_dp2ddp_verify_epoch"
#: The passes a DistributedSampler began.
_PASSES_ATTR = "_dp2ddp_verify_passes"
_ORDINAL_ATTR = "_dp2ddp_verify_sampler"
_INDEX_BLIND_ATTR = "_dp2ddp_verify_index_blind"
#: How many of a rank's indices a DistributedSampler's record keeps (the compared steps read
#: the first few batches).
RECORDED_INDICES = 4096


def process_seed(seed: int, rank: int) -> int:
    """The seed of rank `rank`'s generators: `seed` for the original and rank 0; another,
    fixed one for every other rank. Under torchrun Python's `random`, numpy and (since
    torch 2.x) torch seed themselves from the OS in each process, so unseeded draws differ
    between ranks; verify keeps that difference, reproducibly."""
    if rank == 0:
        return seed
    key = f"{seed}:rank{rank}".encode()
    return int.from_bytes(hashlib.blake2b(key, digest_size=4).digest(), "little")


def seed_everything(seed: int) -> None:
    random.seed(seed)
    torch.manual_seed(torch_seed(seed))
    try:
        import numpy
    except ImportError:
        return
    numpy.random.seed(seed % 2**32)


def deterministic_kernels() -> None:
    """Reduction-order noise only: no autotuned or TF32 kernels in either run."""
    torch.backends.cudnn.deterministic = True
    torch.backends.cudnn.benchmark = False
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cuda.matmul.allow_tf32 = False


def epoch_order(seed: int, epoch: int, n: int) -> list[int]:
    """The shuffled order of epoch `epoch` in both runs."""
    generator = torch.Generator()
    generator.manual_seed(seed + epoch)
    order: list[int] = torch.randperm(n, generator=generator).tolist()
    return order


def install(recorder: Recorder, seed: int, scale_batch: int) -> None:
    _patch_random_sampler(recorder, seed)
    _patch_distributed_sampler(recorder, seed)
    _patch_data_loader(recorder, scale_batch, seed)
    _patch_fetch(recorder, seed)


#: Samples read to fingerprint a loader's dataset.
_DATASET_PROBES = 8


def _own_collate(collate: Any) -> str | None:
    """The name of a loader's collate_fn where it is not torch's own (`default_collate`,
    `default_convert`): one that builds a batch from the samples it is given as a whole
    (pads them to the batch's longest) collates each rank's part on its own."""
    module = getattr(collate, "__module__", "") or ""
    if module.startswith("torch.utils.data"):
        return None
    return str(getattr(collate, "__qualname__", None) or type(collate).__name__)


def _collates_per_sample(loader: DataLoader[Any], seed: int) -> bool | None:
    """Whether the loader's own collate_fn treats each sample alone (collate_check); None
    for torch's own, a loader without batches, or a dataset without len and indexing."""
    dataset = loader.dataset
    if _own_collate(loader.collate_fn) is None or loader.batch_sampler is None:
        return None
    try:
        size = len(dataset)  # type: ignore[arg-type]
    except TypeError:
        return None
    if not hasattr(dataset, "__getitem__"):
        return None
    return collate_check.per_sample(
        size,
        lambda index: _load_seeded(dataset, index, seed),
        loader.collate_fn,
        lambda call, key: _read_seeded(call, f"collate:{key}", seed, dataset),
    )


def dataset_digest(dataset: Any, seed: int) -> tuple[str | None, bool | None]:
    """A hash of what a map-style dataset holds at a few indices spread over it (each read
    under its index's seed, so augmentation draws alike): equal on two ranks that built the
    same dataset, different where one shuffled its sample list or split it another way.
    And whether a read is reproducible: each probe is read twice under its seed; where two
    reads differ, the dataset draws from something no seed reaches (`SystemRandom`, the
    clock, a generator verify did not find) and the hash says nothing (None), nor can any
    step be compared sample by sample. (None, None) where it cannot be read (no len, an
    IterableDataset, a read that raises)."""
    try:
        n = len(dataset)
        if not n or not hasattr(dataset, "__getitem__"):
            return None, None
        h = hashlib.blake2b(f"{n}".encode(), digest_size=8)
        for index in sorted({k * n // _DATASET_PROBES for k in range(_DATASET_PROBES)}):
            tensor = first_tensor(_load_seeded(dataset, index, seed))
            if tensor is None:
                return None, None
            digest = tensor_digest(tensor)
            again = first_tensor(_load_seeded(dataset, index, seed))
            if again is None or tensor_digest(again) != digest:
                return None, False
            h.update(digest.encode())
        return h.hexdigest(), True
    except Exception:  # noqa: BLE001  (the script's own dataset: any failure means "unknown")
        return None, None


def index_blind(dataset: Any, seed: int) -> bool:
    """Whether the dataset's samples are its own draws, not its indices': index `n // 2`
    read under index 0's seeds gives index 0's sample, and index 0 read under index `n // 2`'s
    seeds another one (a few-shot dataset whose `__getitem__` draws an episode from numpy
    whatever the index: shirleyzhu233/PyTorch-MAML@eee3fe3). Read under its index's seeds,
    such a dataset gave each index a sample of its own, which the real run does not: there
    each process draws from its own streams, alike on every rank seeded alike (DP067), and
    verify said EQUIVALENT, "ranks fed disjoint samples", for ranks that train on the same
    episodes. Its reads keep their native draws (`_patch_fetch`): verify sees what the ranks
    really read. The whole sample is compared (a label read off the index is an index's)."""
    try:
        n = len(dataset)
        if n < 2 or not hasattr(dataset, "__getitem__"):
            return False
        other = n // 2
        here = _whole_digest(_load_seeded(dataset, 0, seed))
        there = _whole_digest(_read_seeded(lambda: dataset[other], 0, seed, dataset))
        redrawn = _whole_digest(_read_seeded(lambda: dataset[0], other, seed, dataset))
    except Exception:  # noqa: BLE001  (the script's own dataset: any failure means "unknown")
        return False
    return here is not None and there == here and redrawn != here


def _whole_digest(sample: Any) -> str | None:
    """A hash of every tensor, array and number in a sample (tuples, lists and dicts
    followed); None where it holds no tensor."""
    h = hashlib.blake2b(digest_size=8)
    tensors = 0
    pending = [sample]
    while pending:
        item = pending.pop()
        if isinstance(item, dict):
            pending.extend(item[key] for key in sorted(item, key=repr))
        elif isinstance(item, (list, tuple)):
            pending.extend(reversed(item))
        elif isinstance(item, torch.Tensor) or type(item).__name__ == "ndarray":
            h.update(tensor_digest(torch.as_tensor(item)).encode())
            tensors += 1
        else:
            h.update(repr(item).encode())
    return h.hexdigest() if tensors else None


def _patch_random_sampler(recorder: Recorder, seed: int) -> None:
    native: Callable[[RandomSampler], Iterator[int]] = RandomSampler.__iter__

    @functools.wraps(native)
    def __iter__(self: RandomSampler) -> Iterator[int]:
        n = len(self.data_source)
        aligned = not self.replacement and self._num_samples is None
        epoch = int(getattr(self, _EPOCH_ATTR, 0))
        setattr(self, _EPOCH_ATTR, epoch + 1)
        recorder.samplers.append(
            {"kind": "RandomSampler", "length": n, "epoch": epoch, "aligned": aligned}
        )
        if not aligned:
            return native(self)
        return iter(epoch_order(seed, epoch, n))

    RandomSampler.__iter__ = __iter__  # type: ignore[method-assign]


def _patch_distributed_sampler(recorder: Recorder, seed: int) -> None:
    def __iter__(self: DistributedSampler[Any]) -> Iterator[int]:
        n = len(self.dataset)  # type: ignore[arg-type]
        # Scripts number epochs from 0 or from 1: an epoch value first given to set_epoch
        # at the sampler's k-th pass draws the original's k-th order (its RandomSampler drew
        # a new one each pass), and a value given again draws the same (no set_epoch: epoch
        # 0's every time), as DistributedSampler does. A loader passed twice an epoch
        # (training, then evaluating on the training set) takes the original's order of each
        # epoch's first pass (round 36, wvinzh/WS_DAN_PyTorch@cbf7ff5: numbered by distinct
        # values, the second epoch's training took the first evaluation's order, and verify
        # named "set_epoch not called").
        ordinals: dict[int, int] = self.__dict__.setdefault(_EPOCH_ATTR, {})
        passes: list[int] = self.__dict__.setdefault(_PASSES_ATTR, [0])
        epoch = ordinals.setdefault(self.epoch, passes[0])
        passes[0] += 1
        order = epoch_order(seed, epoch, n) if self.shuffle else list(range(n))
        order = pad_like_distributed_sampler(order, self.total_size, self.drop_last)
        batch = getattr(self, _BATCH_ATTR, None)
        mine = rank_indices(order, self.rank, self.num_replicas, self.num_samples, batch)
        recorder.samplers.append(
            {
                "kind": "DistributedSampler",
                # which sampler object, and the step window its pass began in: a repeated
                # epoch is one sampler's (sharding.epoch_repeated), not a validation
                # loader's pass at epoch 0 beside the training loader's (stop 55 r4-C)
                "sampler": _sampler_ordinal(recorder, self),
                "window": recorder.current.index,
                "length": n,
                "epoch": self.epoch,
                "shuffle": self.shuffle,
                "aligned": True,
                "per_rank_batch": batch,
                "num_replicas": self.num_replicas,
                # the rank's first indices: were the ranks' disjoint? (sharding.indices_apart)
                "indices": mine[:RECORDED_INDICES],
            }
        )
        return iter(mine)

    DistributedSampler.__iter__ = __iter__  # type: ignore[method-assign,assignment]

    def ddp_sampler_iter(self: DistributedSampler[Any]) -> Iterator[int]:
        next_pass = getattr(self, DDP_SAMPLER_NEXT_PASS, None)
        if next_pass is not None:
            next_pass()  # advance_epoch: this pass's epoch, before the order is drawn
        return __iter__(self)

    def __init_subclass__(cls: type[DistributedSampler[Any]], /, **kwargs: Any) -> None:
        """The migrated script's header defines dp2ddp's subclass, which computes sequential
        order itself and may advance its epoch on each pass: it draws the aligned order of
        the epoch it moved to."""
        super(DistributedSampler, cls).__init_subclass__(**kwargs)
        if cls.__name__ == DDP_DISTRIBUTED_SAMPLER:
            cls.__iter__ = ddp_sampler_iter  # type: ignore[method-assign]

    DistributedSampler.__init_subclass__ = classmethod(__init_subclass__)  # type: ignore[assignment,method-assign]


def _sampler_ordinal(recorder: Recorder, sampler: DistributedSampler[Any]) -> int:
    """The sampler's number among the DistributedSamplers iterated so far (0 for the first):
    passes of one object share it."""
    if _ORDINAL_ATTR not in sampler.__dict__:
        numbered = {s.get("sampler") for s in recorder.samplers if s.get("sampler") is not None}
        sampler.__dict__[_ORDINAL_ATTR] = len(numbered)
    return int(sampler.__dict__[_ORDINAL_ATTR])


def _patch_data_loader(recorder: Recorder, scale_batch: int, seed: int) -> None:
    native_init = DataLoader.__init__
    native_iter = DataLoader.__iter__
    signature = inspect.signature(native_init)
    iterators: list[weakref.ref[Any]] = []

    @functools.wraps(native_init)
    def __init__(self: DataLoader[Any], *args: Any, **kwargs: Any) -> None:
        scaled = False
        if scale_batch > 1:
            bound = signature.bind(self, *args, **kwargs)
            size = bound.arguments.get("batch_size", 1)
            if bound.arguments.get("batch_sampler") is None and isinstance(size, int):
                bound.arguments["batch_size"] = size * scale_batch
                args, kwargs, scaled = bound.args[1:], bound.kwargs, True
        native_init(self, *args, **kwargs)
        if isinstance(self.sampler, DistributedSampler) and self.batch_size:
            setattr(self.sampler, _BATCH_ATTR, self.batch_size)
        digest, reproducible = dataset_digest(self.dataset, seed)
        blind = index_blind(self.dataset, seed)
        if blind:
            try:
                setattr(self.dataset, _INDEX_BLIND_ATTR, True)
            except (AttributeError, TypeError):
                blind = False  # cannot be marked: its reads stay seeded, as before
        recorder.loaders.append(
            {
                "batch_size": self.batch_size,
                "sampler": type(self.sampler).__name__,
                "drop_last": self.drop_last,
                "scaled": scaled,
                "dataset": digest,
                "reproducible": reproducible,
                "index_blind": blind,
                "dataset_class": type(self.dataset).__name__,
                "own_rngs": [own.record() for own in own_rngs.find(self.dataset)],
                "batched_read": _batched_read(self.dataset),
                "collate": _own_collate(self.collate_fn),
                "collate_per_sample": _collates_per_sample(self, seed),
            }
        )

    @functools.wraps(native_iter)
    def __iter__(self: DataLoader[Any]) -> Any:
        recorder.current.loader_started = True
        iterator = native_iter(self)
        iterators.append(weakref.ref(iterator))
        return iterator

    native_next = _BaseDataLoaderIter.__next__

    @functools.wraps(native_next)
    def __next__(self: _BaseDataLoaderIter) -> Any:
        try:
            batch = native_next(self)
        except StopIteration:
            if recorder.recording:
                recorder.fed.exhausted(id(self))  # a whole pass with no forward fed no step
            raise
        tensor = first_tensor(batch)
        if tensor is not None:
            recorder.loaded_batch = tensor.size(0) if tensor.dim() else None
        if recorder.recording and _training(recorder):
            recorder.current.batches += 1
        if tensor is not None and recorder.recording and _training(recorder):
            told = sample_tensor(batch)  # the model's inputs are told apart alike
            loaded = told if told is not None else tensor
            # time-major batches (T, B): the samples are its columns (sharding.py)
            columns = (
                sample_digests(loaded.transpose(0, 1))
                if loaded.dim() > 1 and loaded.shape[1] <= MAX_DIM1_SAMPLES
                else None
            )
            recorder.fed.loaded(
                recorder.current,
                sample_rows(batch, loaded),
                columns,
                _split_dim(self, loaded),
                id(self),
            )
        return batch

    def shutdown_workers() -> None:
        for ref in iterators:
            iterator = ref()
            shutdown = getattr(iterator, "_shutdown_workers", None)
            if callable(shutdown):
                shutdown()

    DataLoader.__init__ = __init__  # type: ignore[method-assign]
    DataLoader.__iter__ = __iter__  # type: ignore[method-assign]
    _BaseDataLoaderIter.__next__ = __next__  # type: ignore[method-assign]
    recorder.on_stop.append(shutdown_workers)


def _split_dim(iterator: _BaseDataLoaderIter, loaded: torch.Tensor) -> int:
    """The dim of a loaded batch whose size is the loader's batch size (the sampler's
    indices, one sample each): 0 for a batch-major batch, 1 for a collate's time-major
    (T, B); -1 where not told apart (no batch size, both dims or neither of that size: a
    last, shorter batch). The samples lie along it, whatever dim the program's DataParallel
    splits after transposing the batch (xyz961014/longterm@c62d11e: (B, T) loaded, (T, B)
    to a dim=1 wrap)."""
    if not getattr(iterator, "_auto_collation", False) or loaded.dim() < 1:
        return -1
    size = getattr(getattr(iterator, "_index_sampler", None), "batch_size", None)
    if not isinstance(size, int):
        return -1
    rows = loaded.size(0) == size
    columns = loaded.dim() > 1 and loaded.size(1) == size
    return 0 if rows and not columns else 1 if columns and not rows else -1


def _training(recorder: Recorder) -> bool:
    """A batch loaded now may feed an optimizer step: gradients are on, and not every
    wrapped model is in eval mode. A validation pass between two steps (`model.eval()`,
    then a loop over the validation loader; swz30/MPRNet's train.py) feeds none, and the
    validation loader is often left whole on every rank (DP015): counted, its samples would
    show as ranks overlapping in the step that follows. A wrapper whose `.module` was put
    in eval mode alone (`model.module.eval()`, the wrapper's own flag still set) is in eval
    mode too: its forward runs the module in eval mode."""
    if not torch.is_grad_enabled():
        return False
    wrapped = [module for module in (ref() for ref in recorder.wrappers) if module is not None]
    return not wrapped or any(
        module.training and getattr(module, "module", module).training for module in wrapped
    )


def _sample_seed(seed: int, index: object) -> int:
    key = f"{seed}:{index!r}".encode()
    return int.from_bytes(hashlib.blake2b(key, digest_size=4).digest(), "little")


def _load_seeded(dataset: Any, index: object, seed: int) -> Any:
    """dataset[index] with every CPU RNG seeded by the index, then restored."""
    return _read_seeded(lambda: dataset[index], index, seed, dataset)


def _read_seeded(read: Callable[[], Any], index: object, seed: int, dataset: Any) -> Any:
    """read() (sample `index`) with every CPU RNG seeded by the index, then restored: the
    global ones and those the dataset keeps of its own."""
    rngs = own_rngs.find(dataset)
    numpy = sys.modules.get("numpy")
    torch_state = torch.get_rng_state()
    py_state = random.getstate()
    np_state = numpy.random.get_state() if numpy is not None else None
    sample_seed = _sample_seed(seed, index)
    torch.default_generator.manual_seed(torch_seed(sample_seed))
    random.seed(sample_seed)
    if numpy is not None:
        numpy.random.seed(sample_seed)
    restore_own = own_rngs.seed(rngs, sample_seed)
    try:
        return read()
    finally:
        restore_own()
        torch.set_rng_state(torch_state)
        random.setstate(py_state)
        if numpy is not None:
            numpy.random.set_state(np_state)


def _subset_reads_per_sample(dataset: Any) -> bool:
    """Whether `dataset.__getitems__` is torch's `Subset`'s over datasets that read sample by
    sample. That one has no batched read of its own: it passes the batch on to its dataset's
    `__getitems__`, and over a dataset without one reads `dataset[indices[i]]` per sample.
    Such a batch is loaded one sample at a time, each under its own seed, as a plain
    dataset's is (a `torch.randperm` train/valid split into Subsets of an augmented
    dataset: gpleiss/efficient_densenet_pytorch's demo.py, where the augmentation drew from
    each process's generator and verify took the ranks' crops for other samples)."""
    if getattr(type(dataset), "__getitems__", None) is not Subset.__getitems__:
        return False
    inner = dataset.dataset
    return not getattr(inner, "__getitems__", None) or _subset_reads_per_sample(inner)


def _batched_read(dataset: Any) -> bool:
    """Whether the dataset reads a batch its own way (`__getitems__`, not a Subset's over
    datasets read sample by sample): such a read keeps its native draws, unseeded."""
    return bool(getattr(dataset, "__getitems__", None)) and not _subset_reads_per_sample(dataset)


def _first(getitems: Callable[[list[Any]], list[Any]], index: object) -> Any:
    """The one sample `getitems([index])` reads: the read a Subset makes for it in a batch."""
    return getitems([index])[0]


def _patch_fetch(recorder: Recorder, seed: int) -> None:
    fetcher = _fetch._MapDatasetFetcher
    native = fetcher.fetch

    @functools.wraps(native)
    def fetch(self: Any, possibly_batched_index: Any) -> Any:
        """The native fetch, the recorder told that samples are being read (a shared-draws
        block entered now gives a rank rank 0's values for its own samples)."""
        recorder.watch_shared_draws()
        recorder.reading_samples += 1
        try:
            return seeded_fetch(self, possibly_batched_index)
        finally:
            recorder.reading_samples -= 1

    def seeded_fetch(self: Any, possibly_batched_index: Any) -> Any:
        """The native fetch (torch 2.x), each sample under its own seed. A dataset's own
        batched `__getitems__` (not a Subset's) keeps its native read, draws and all, as
        does a dataset whose samples are its own draws (`index_blind`)."""
        dataset = self.dataset
        if getattr(dataset, _INDEX_BLIND_ATTR, False):
            return native(self, possibly_batched_index)  # type: ignore[no-untyped-call]
        if not self.auto_collation:
            data = _load_seeded(dataset, possibly_batched_index, seed)
        elif not getattr(dataset, "__getitems__", None):
            data = [_load_seeded(dataset, i, seed) for i in possibly_batched_index]
        elif _subset_reads_per_sample(dataset):
            getitems = dataset.__getitems__
            data = [
                _read_seeded(functools.partial(_first, getitems, i), i, seed, dataset)
                for i in possibly_batched_index
            ]
        else:
            return native(self, possibly_batched_index)  # type: ignore[no-untyped-call]
        return self.collate_fn(data)

    fetcher.fetch = fetch  # type: ignore[method-assign]
