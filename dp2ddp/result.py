"""Small frozen result types returned by `migrate_source`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from dp2ddp.codes import UNCONVERTED_DATAPARALLEL


@dataclass(frozen=True)
class LoaderExport:
    """A training loader a library module sharded without finding its epoch loop, as the
    modules importing it reach it, so that their epoch loop can call its set_epoch.

    function: `name` is a top-level function returning the loader, at `position` of the
    tuple or list of `arity` items it returns (position None: the value returned itself);
    else `name` is a module-level name bound to the loader.
    module: the library's import name (set by the program model; the data pass that finds
    the loader does not know it).
    shuffle: the factory's parameter its DataLoader takes `shuffle=` from, and its position
        (`shuffle_index`): a call of the factory passing False there, and iterated by no
        training loop, builds an evaluation loader (thunlp/OpenNRE's SentenceRELoader).
    attribute: the loader is this attribute of what `name` returns: `name` is a top-level
        class whose methods bind `self.<attribute>` to it only, or a top-level function
        returning only instances of that class (`d = data.create(8); d.trainloader`).
    via: the item at `position` is a call of this module's factory `via` (a function
        returning a tuple of its loaders: data/factory_wrappers.py); the function takes no
        ddp_shard of its own, its items are told apart instead.
    """

    name: str
    function: bool
    position: int | None = None
    arity: int | None = None
    module: str = ""
    shuffle: str = ""
    shuffle_index: int | None = None
    #: the `shuffle` parameter defaults to False: a call passing nothing there builds an
    #: ordered loader too (round 35, zihaohe123/speak-turn-emb-dialog-act-clf@85e5a0f's
    #: `data_loader(corpus, phase, batch_size, shuffle=False)` called without it for val/test)
    ordered_default: bool = False
    attribute: str = ""
    via: str = ""
    #: the program's own sampler a shard helper wraps in the loader (DdpBatchShard,
    #: DdpSamplerShard): rows read by position after the importer's model call are
    #: DP082's (batches/positions.py); `batches`: a batch sampler's (DdpBatchShard), told
    #: for DP082 only (its loader's `sampler` has no set_epoch: no importer plans one)
    composed: str = ""
    batches: bool = False
    #: `name` is a top-level class whose method `taker` takes batches of loaders it holds
    #: with next() (data/batch_takers.py): the importer's loops calling it on an instance
    #: hold this rank's share; no loader itself is reached this way
    taker: str = ""
    #: `name` is a top-level function every batch of which is one of loaders sharded here
    #: (data/batch_yielders.py): "yields" (a generator: each item it yields), "returns"
    #: (what a call returns); a loop taking them holds this rank's share, no loader itself
    yields: str = ""
    #: `name` returns this loader or a whole one, by a branch of its own (r3-B of stop 55,
    #: `if types == "train": dl = trainloader else: dl = devloader`): where the call passes
    #: one of `picked` (constant strings) for parameter `picks` (at `picks_index`) it is this
    #: loader, another constant a whole one; anything else, or `picks` "" (no argument
    #: decides), may be this loader: its loops' figures are this rank's share (DP030)
    branched: bool = False
    picks: str = ""
    picks_index: int | None = None
    picked: tuple[str, ...] = ()
    #: other names the program's modules re-export `module.name` by (set by the program
    #: model: `from .build import build_dataloader` in a package's __init__.py makes
    #: `pkg.data.build_dataloader` of `pkg.data.build.build_dataloader`): an importer's call
    #: through the package is this export's all the same (stop 65 v2-A)
    aliases: tuple[str, ...] = ()

    @property
    def full_names(self) -> tuple[str, ...]:
        """Every dotted name an importer may call or read this export by."""
        return (f"{self.module}.{self.name}", *self.aliases)

    @property
    def loader_itself(self) -> bool:
        """The export names a loader the importer iterates (its sampler's set_epoch to
        call): not a batch sampler's, nor a taker's or a yielder's batches."""
        return not (self.batches or self.taker or self.yields)


@dataclass(frozen=True)
class LoaderHandoff:
    """A DataLoader of this module passed to a function of another module
    (`train_model(model, loader, opt)`): the program tells the callee's module whether each
    of its call sites hands it this rank's share (a sharded loader) or the whole data, so
    its batches are split at the model call only where they are whole (facts.LoaderFeed).

    callee: the function's qualified name as this module's imports spell it; position or
    keyword: where the loader is passed; sharded: the migration shards it (or it was
    sharded before); line: the call's line in the input; path: set by the program model;
    sizes: (position, keyword) of the call's other arguments spelled as the batch_size the
    migration read per rank in that loader (`fit(..., gen, ..., batch_size)` beside
    `DataLoader(ds, batch_size=batch_size)`): the global batch size, handed on.
    """

    callee: str
    position: int | None
    keyword: str | None
    sharded: bool
    line: int
    path: str = ""
    sizes: tuple[tuple[int | None, str | None], ...] = ()


@dataclass(frozen=True)
class Diagnostic:
    """Something the codemod could not convert safely, at a position of the *input* file."""

    line: int
    col: int
    code: str
    message: str
    #: A warning that names several places at once ("nn.BatchNorm1d and 1 more"): each
    #: place as a warning of its own, so a noqa comment can silence them one by one
    #: (migrate/suppress.py). Empty: the warning is about its own position only.
    places: tuple[Diagnostic, ...] = ()

    def format(self, path: str) -> str:
        return f"{path}:{self.line}:{self.col}: {self.code} {self.message}"


@dataclass(frozen=True)
class Change:
    """One edit a transform made: which transform, where in the input file, and why."""

    transform: str
    line: int
    description: str


@dataclass(frozen=True)
class MigrationResult:
    source: str
    code: str
    diagnostics: tuple[Diagnostic, ...] = ()
    changes: tuple[Change, ...] = ()
    #: Training loaders this module sharded for its importers' epoch loops (program mode).
    exports: tuple[LoaderExport, ...] = ()
    #: Factories of other modules this module calls for an evaluation loader, passing
    #: `ddp_shard=False`, as "module.function" (program mode): the program migrates the
    #: factory's module again, told to take that parameter.
    evaluation_factories: tuple[str, ...] = ()
    #: DataLoaders this module passes to functions of other modules (LoaderHandoff).
    handoffs: tuple[LoaderHandoff, ...] = ()
    #: The helpers (templates/helpers/ names) the migrated module needs from the generated
    #: helpers module, with those they call; empty when it imports nothing from it.
    helpers: tuple[str, ...] = ()
    #: The generated helpers module (`_dp2ddp.py`, to write beside the file) that a file
    #: migrated on its own imports from; '' when it imports none (the inline form, or no
    #: change). Program mode writes one module for all its files instead.
    helpers_module: str = ""
    #: This is the generated helpers module itself (`_dp2ddp.py`), not a file of the user's.
    generated: bool = False
    #: Exported loaders this module iterates ("module.name" of the LoaderExport), each with
    #: whether set_epoch was placed in the epoch loop around every such loop (program mode:
    #: the library is then told, and says no DP011 for them; data/imported.py).
    epoch_loops: tuple[tuple[str, bool], ...] = ()
    #: Counters on the instance of one of this module's top-level classes that a loop over a
    #: sharded loader sums this rank's batches into (`self.seen += len(x)`), as (class,
    #: attribute, the sum's line): a module reading one off an instance shows this rank's
    #: share (DP030; data/attribute_counts.py).
    share_attributes: tuple[tuple[str, str, int], ...] = ()

    @property
    def created(self) -> bool:
        """The generated helpers module, new: `--check` and `--diff` say "would create"."""
        return self.generated and not self.source and bool(self.code)

    @property
    def changed(self) -> bool:
        return self.code != self.source

    @property
    def keeps_dataparallel(self) -> bool:
        """Unchanged, but warned about a DataParallel use it leaves as is: still work to do."""
        return not self.changed and any(
            d.code in UNCONVERTED_DATAPARALLEL for d in self.diagnostics
        )


Status = Literal["migrated", "unchanged", "failed"]


@dataclass(frozen=True)
class FileOutcome:
    """What happened to one input file in a `migrate` run (the CLI's and report's unit)."""

    path: str
    status: Status
    result: MigrationResult | None = None
    #: One-line `path:line:col: error: message` when status == "failed".
    error: str | None = None
