"""What the data pass plans per loader, and the names and patterns its sections share."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import libcst as cst

from dp2ddp.transforms._support.names import SHARD_FLAG as SHARD_FLAG
from dp2ddp.transforms._support.nodes import keyword
from dp2ddp.transforms.data.flow import Path
from dp2ddp.transforms.data.samplers import OwnSampler

ITERABLE_DATASET = frozenset(
    {"torch.utils.data.IterableDataset", "torch.utils.data.dataset.IterableDataset"}
)
ZERO_TENSOR = frozenset({"torch.zeros", "torch.zeros_like", "torch.tensor", "torch.scalar_tensor"})
DEVICE_COUNT = frozenset({"torch.cuda.device_count"})
GPU_COUNT = re.compile(
    r"^(n_?gpus?|num_?gpus?|gpu_?count|number_of_gpus|n_?devices|num_?devices|device_count)$",
    re.IGNORECASE,
)
#: A loader named for training (`train_loader`, `train_data_loader`): in program mode, where
#: its loop is in another module, the name alone tells it from an evaluation loader.
TRAIN_NAME = re.compile(r"(?:^|_)train", re.IGNORECASE)


def sampler_args(
    call: cst.Call, dataset: cst.BaseExpression, shuffle: cst.BaseExpression
) -> list[cst.Arg]:
    """A training DistributedSampler's arguments: the dataset, `shuffle`, and the loader's
    `drop_last` (a keyword, not False) given to the sampler too.
    DataParallel took floor(N / B) steps per epoch of a `drop_last` loader; a padding sampler
    gives each rank ceil(N / W) indices, floor(ceil(N / W) / (B / W)) steps: one more where W
    does not divide N (75 samples, batch 4, 2 ranks: 19 for 18, a repeated sample in the
    extra one; class v3-B of stop 47, thuml/iTransformer@c2426e6's "Steps: 19"). The sampler
    with `drop_last` gives floor(N / W) indices each, floor(floor(N / W) / (B / W)) =
    floor(N / B) steps: DataParallel's count, no sample repeated."""
    found = [cst.Arg(dataset), keyword("shuffle", shuffle)]
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == "drop_last":
            if not (isinstance(arg.value, cst.Name) and arg.value.value == "False"):
                found.append(keyword("drop_last", arg.value.deep_clone()))
    return found


def named_loader(text: str) -> bool:
    """A loop's source the batches pass takes for a DataLoader by its spelling alone (no
    binding of its module says what it is: `self.loaders["train"]`, a parameter only another
    module passes): the batches pass leaves its batches to the data pass, which takes its
    loop's figures for this rank's share (data/handoffs.py `unheld_loaders`). One home for
    both passes."""
    return "loader" in text.lower()


EVAL_NAME = re.compile(
    r"(?:^|_)(?:val|valid|validation|test|testing|eval|evaluation|dev)"
    r"(?:_|$|loader|dataloader|dl|set|data)",
    re.IGNORECASE,
)
#: Names of imported project functions that show their arguments (`progress_bar`, `log_metrics`).
PRINTER_NAME = re.compile(r"(?:^|_)(?:print|progress|log|show|display|report)(?:_|$|bar)", re.I)
POSITIONS = ("dataset", "batch_size", "shuffle", "sampler", "batch_sampler")
#: A rewritten one-line loader longer than this gets one argument per line.
LINE_LIMIT = 99
EVAL_SAMPLER = "ddp_eval_sampler"
SAMPLER = "DistributedSampler"


@dataclass
class Loader:
    """One `DataLoader(...)` call that will be sharded."""

    call: cst.Call
    args: dict[str, int]  # "dataset"/"batch_size"/"shuffle"/"sampler" -> index in call.args
    binding: cst.BaseExpression | None  # what the loader is assigned to
    statement: cst.BaseStatement | None  # the statement, directly in a block, that holds it
    own: OwnSampler | None  # a shuffle-only sampler that ours replaces
    #: (loop over the loader, the expression it iterates, how the loader got there)
    loops: list[tuple[cst.For, cst.BaseExpression, Path]] = field(default_factory=list)
    #: Loops over a local name bound to a read of the loader (`loader =
    #: self.data_loader["train"]`, then `for ... in enumerate(tqdm(loader))`): not planned
    #: on (set_epoch and evaluation sums need the loader's own spelling), but their running
    #: figures are this rank's share all the same (DP030).
    read_loops: list[cst.For] = field(default_factory=list)
    #: `while` loops taking its batches with `next(it)` of an `iter(loader)`, and `for`
    #: loops over something else doing so (`for i in range(n):` ... `next(it)`, the
    #: iterator re-made on StopIteration: deeplab-pytorch): their running figures are
    #: this rank's share as a `for` loop's over the loader (DP030).
    next_loops: list[cst.While | cst.For] = field(default_factory=list)
    #: Said after DP030's text where the loader may be a whole one (another module's
    #: factory returning its sharded or a whole loader by a branch no argument here
    #: decides: LoaderExport.branched).
    maybe: str = ""
    #: A stand-in whose `for` loops run over the same whole batches on every rank, each
    #: batch split into this rank's rows at the loop's top (batches/loops.py): every rank
    #: runs as many steps, each on its share, as a DistributedSampler's even pass does
    #: (mean_lists.even_pass).
    split_rows: bool = False

    @classmethod
    def stand_in(
        cls,
        loops: list[cst.For | cst.While],
        binding: cst.BaseExpression | None = None,
        *,
        split_rows: bool = False,
    ) -> Loader:
        """A loader in no tree whose loops go through this rank's share of the batches:
        for the figure rule (DP030, evaluation.py), which reads no argument of a loader
        that has none. Its `for` loops are `loops`, its `while` loops `next_loops`: the
        loops over a parameter another module hands a sharded loader (handoffs.
        fed_loaders), or the loops whose batches the batch pass split (batches/loops.py)."""
        found = cls(cst.Call(func=cst.Name("DataLoader")), {}, binding, None, None)
        found.split_rows = split_rows
        for loop in loops:
            if isinstance(loop, cst.For):
                found.loops.append((loop, loop.iter, ()))
            else:
                found.next_loops.append(loop)
        return found

    @property
    def name(self) -> str:
        if isinstance(self.binding, cst.Name):
            return self.binding.value
        if isinstance(self.binding, cst.Attribute):
            return self.binding.attr.value
        if isinstance(self.binding, cst.Subscript):  # `self.data_loader["test"]`: its key
            index = self.binding.slice[0].slice if len(self.binding.slice) == 1 else None
            if isinstance(index, cst.Index) and isinstance(index.value, cst.SimpleString):
                key = index.value.evaluated_value
                return key if isinstance(key, str) else ""
        return ""


@dataclass
class CallEdit:
    """How leave_Call rewrites one loader's arguments."""

    sampler: cst.BaseExpression | None  # None: the loader's own sampler is replaced instead
    replace: int | None  # index of the argument the sampler takes the place of
    drop: int | None  # index of an argument to remove (sampler=None beside shuffle=)
    batch: tuple[int, cst.BaseExpression] | None = None
    dataset: tuple[int, cst.BaseExpression] | None = None
    #: Other arguments given a new value (factory_sites.py: shuffle kept for whole loaders).
    extra: list[tuple[int, cst.BaseExpression]] = field(default_factory=list)
