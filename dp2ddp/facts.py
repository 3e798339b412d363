"""What a program tells one of its modules: `ProgramFacts`, the one value the passes read.

`migrate_source(source, options, filename=..., program=None)` migrates a single file. In
program mode the project model (program/) computes, once per program, what each module
needs to know of the rest and hands it down as one frozen `ProgramFacts`: its role, the
DataParallel gate, the helpers module's name, the rank-0 hints, the other modules' helpers
and loaders, the cross-module rank questions (`Uniformity`). At the bottom: all read it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Literal, Protocol

from dp2ddp.loss_facts import BatchSumReturn, MeterClass, ReplicaReturns
from dp2ddp.result import LoaderExport

Role = Literal["entry", "library"]

#: The generated helpers module's name (_support/runtime.py writes it): here, at the bottom.
GENERATED_MODULE = "_dp2ddp"


class Uniformity(Protocol):
    """Rank-independence questions one module cannot answer alone (answered by the program
    model, dp2ddp/program/uniformity.py; the rules for one module: rank_zero/uniform.py)."""

    def init_parameter(
        self, path: str, class_name: str, index: int | None, name: str, never_none: bool = False
    ) -> bool:
        """Every call of class (or top-level function) `class_name` of the module at `path`
        passes a uniform value for its (`__init__`'s) parameter `name` (positional `index`,
        `self` not counted; `never_none`: a value proved never None)."""
        ...

    def returns_uniform(self, module_name: str, function: str) -> bool:
        """Top-level function `function` of program module `module_name` returns a uniform value."""
        ...

    def star_source(self, path: str, name: str) -> str | None:
        """The program module a single `from X import *` of the module at `path` takes
        `name` from; None when not exactly that."""
        ...

    def attribute_assigned_elsewhere(
        self, path: str, attribute: str, parsed: bool = False, owner: str = ""
    ) -> bool:
        """Another program module stores or deletes attribute `attribute` (`parsed`: on an
        object that may be a parsed command line, an argparse.Namespace; `owner`: read as
        `self.attribute` in class `owner`, whose bases are none or torch's: a store on `self`
        in another class counts only where that class is `owner` or names it as a base)."""
        ...

    def returns_namespace(self, module_name: str, function: str) -> bool:
        """Top-level function `function` of program module `module_name` returns a parsed
        command line (analysis/across_modules.py)."""
        ...

    def defines_class(self, module_name: str, name: str) -> bool:
        """Program module `module_name` defines a top-level class `name`, bound nowhere else
        at its top level (analysis/none_tests.py: a call of it is never None)."""
        ...

    def defines_function(self, module_name: str, name: str) -> bool:
        """Program module `module_name` defines a top-level function `name`: the program's
        own, read through its own facts (rank_zero/file_paths.library_read), no library's."""
        ...

    def unreached_elsewhere(self, path: str, name: str, method: bool) -> str | None:
        """The path of a program module other than the one at `path` that calls its
        function `name` (`method`: a method of one of its top-level classes) where not
        every rank may arrive; None when none does."""
        ...


@dataclass(frozen=True)
class SampleClasses:
    """The program's per-sample classes (analysis/sample_classes.py, issue 28): `datasets`,
    the qualified and last names of its classes that derive from a torch Dataset (or
    IterableDataset), across modules (`iterables`: those from IterableDataset, streams no
    sampler can index, DP020); `transforms`, the last names of the classes whose objects
    such a Dataset runs per sample: their `__call__`/`forward` is per-sample code."""

    datasets: frozenset[str] = frozenset()
    transforms: frozenset[str] = frozenset()
    iterables: frozenset[str] = frozenset()


@dataclass(frozen=True)
class ProgramHints:
    """What the program's other modules tell one module's rank-0 pass.

    Found with `ast` over every module of the program (rank_zero/program_hints.py), also
    for an entry migrated alone: a function in `config.py` that nothing else migrates still
    decides whether `print(cf.learning_rate(lr, epoch))` may be guarded.

    pure: qualified names ("config.learning_rate") of project functions that are safe to
        skip on ranks other than 0, so a print calling them can be guarded.
    unused: names of this module's top-level functions that no module of the program
        refers to (a model file's demo `test()`): dead code for this program, left as is.
    imported: the module is one the program imports, so its `if __name__ == "__main__":`
        block never runs in this program: it is left as written too.
    logs: some module of the program imports `logging`, so the setup block quiets it off
        rank 0 (rank_zero/quiet_logging.py), also when the entry itself does not log.
    script: the module is one the program imports and also a script of its own whose
        `__main__` block wraps a model (arcface-pytorch's test.py, imported by train.py
        with `from test import *`): the block is migrated as an entry (ddp_setup() first
        thing in it), so `python test.py` and `torchrun ... test.py` still run; `imported`
        is then False.
    scatter_dims: the `dim` of every DataParallel wrap of the program, as written: a module
        iterating batches without wrapping splits them along it (batches/).
    saved_by: names of the functions and methods of the program's other modules that save
        a checkpoint (torch.save, there or through their module's own functions): rank 0
        alone writes it once migrated, so this module's loads after a call of one of them
        wait at a ddp_barrier() (rank_zero/barriers.py; thunlp/OpenNRE's example reloads
        the checkpoint framework/sentence_re.py's train_model() saved). `Cls.__call__` for
        a class whose instances save when called (an EarlyStopping object).
    loaded_by: names of the functions and methods of the program's other modules that load
        a checkpoint (torch.load, there or through their module's own functions): a call of
        one after a save is a load too (`trainer.fit()`, then `utils.load_checkpoint(...)`).
    per_rank_returns: the top-level functions of the program's other modules returning a
        value made from a per-process read (clock, random draw, uuid, file system state): a
        call of one naming a shared path is read as rank 0's (`ddp_rank0_value(...)`).
    """

    pure: frozenset[str] = frozenset()
    unused: frozenset[str] = frozenset()
    imported: bool = False
    logs: bool = False
    script: bool = False
    scatter_dims: frozenset[str] = frozenset()
    saved_by: frozenset[str] = frozenset()
    loaded_by: frozenset[str] = frozenset()
    #: Names of the functions and methods of the program's modules that print or write a
    #: file (`IOStream.cprint`, `log_string`): a running figure shown so is printed, DP030.
    printers: frozenset[str] = frozenset()
    per_rank_returns: frozenset[str] = frozenset()
    #: Attribute names the paths that the program's modules make or write read
    #: (`save_dir` of `os.makedirs(opts.save_dir)`): assigned from a per-process read in
    #: any module, that read becomes rank 0's value (rank_zero/path_sinks.py, run_dir.py).
    path_attributes: frozenset[str] = frozenset()
    #: This module's own functions and methods that print or write a file, (class or "",
    #: name) (transforms/analysis/printing.py), found by the program model; None where no
    #: program told it (a file migrated alone): the data pass finds them itself.
    printing: frozenset[tuple[str, str]] | None = None
    #: `name:position:parameter` of the top-level functions of the program's other modules
    #: that read a whole file at a parameter (`utils.load_cache(CACHE)` reads CACHE): a
    #: rank-0 write of that file gets a barrier before such a call (rank_zero/barriers.py).
    file_read_by: frozenset[str] = frozenset()
    read_attributes: frozenset[str] = frozenset()  #: as path_sinks.read_attributes says
    #: "module.Class" of the program's classes moving their own tensors with a `cuda()` of
    #: their own: `.cuda()` on one of their objects stays (analysis/device_methods.py).
    own_device: frozenset[str] = frozenset()
    #: `Class:stream` of the program's classes whose methods keep a draw from Python's or
    #: numpy's global stream in an attribute (program_hints.per_rank_classes): a figure
    #: computed from one of their objects decides the learning rate apart on each rank
    #: where the program does not seed that stream (rank_zero/run_dir.py, issue 29).
    per_rank_classes: frozenset[str] = frozenset()
    #: Names of the program's functions whose every return is a PIL image (`stitch_images`,
    #: "utils.stitch_images"): `images.save(path)` of their result writes a file (facts.py).
    image_makers: frozenset[str] = frozenset()
    #: "Class.method" of the program's methods that store what they are given in their
    #: object (a progress bar's `add`, a meter's `update`): an object fed a loop's figures
    #: through one holds running figures (DP030).
    keepers: frozenset[str] = frozenset()
    #: "module.Class.method" of the methods the top-level classes of the program's other
    #: modules define themselves (undecorated or static): `bar.write(line)` of an object
    #: of one runs the program's own method, migrated in its module (no DP080).
    class_methods: frozenset[str] = frozenset()
    #: As file_read_by, for the top-level functions of the program's other modules that write a
    #: whole file (file_calls.file_calls), and `name:=:path` for a fixed path, read or
    #: written: a call of one, rank 0 alone writing there, gets a barrier before every
    #: rank's read of that file (rank_zero/barriers.py, issue 29 item 2).
    file_written_by: frozenset[str] = frozenset()
    #: Names of the program's functions and methods that return a batch taken by `next()`
    #: (`get_batch` of a loader class: `return next(self.iters[split])`): what one returns
    #: is this rank's part where the loader is sharded (per_rank.py, loop_exits.py).
    batch_fetchers: frozenset[str] = frozenset()
    #: Attribute names the program's DataLoaders take their batch_size from
    #: (`batch_size=opt.batch_size` -> "batch_size"): a batch's size compared with such an
    #: attribute outside the loop over a loader is DP061 (data/size_guards.py, stop 45 v2-A).
    loader_batch_attributes: frozenset[str] = frozenset()
    #: Some module of the program calls a DataLoader (`...DataLoader(...)`) the data pass
    #: may shard (not only project subclasses it leaves whole, DP035): only then may a loop
    #: over a source no binding of its module gives be over a loader the program shards
    #: (data/handoffs.py `unheld_loaders`; not a dict of lists named `loaders`).
    builds_loaders: bool = False
    strided_buffers: bool = False  #: a module may register a strided buffer (model_wrap)
    #: `Class|slot=kind;...` of the calls of this module's classes in the
    #: program's other modules, each argument `built` (a construction that makes no wrap)
    #: or `other` (analysis/constructions.py): a class's parameter trained beside the wrap
    #: it makes is proved a construction where every call hands one (handed_parameters.py).
    constructed: frozenset[str] = frozenset()
    #: `name:position:parameter` of the functions and methods of the program's other
    #: modules whose parameter a path they make, write or read holds (`train(..., stamp)`
    #: saving `'m-' + stamp + '.pth.tar'`; rank_zero/path_sinks.path_parameters): a
    #: per-process read handed there names a shared file, and is rank 0's (run_dir.py).
    path_parameters: frozenset[str] = frozenset()
    #: `function|slot` of this module's top-level functions that a call of another module
    #: hands a DataParallel wrap at `slot` (a position or a keyword:
    #: analysis/handed_wraps.py): the batch proof follows the batches of that parameter's
    #: calls as of the wrap's (stop 52, v1-A).
    wrap_parameters: frozenset[str] = frozenset()
    #: As wrap_parameters, with this module's top-level classes too (`Trainer|model`: its
    #: `__init__`'s parameter), where any binding before the other module's call is a wrap
    #: (a guarded one too) and through a package's re-exports: a parameter that may see the
    #: wrap, whose class name is read as the original's (analysis/wrapper_class.py, stop 54).
    wrap_reaches: frozenset[str] = frozenset()
    #: As file_read_by, for the top-level functions of the program's other modules that
    #: hand a parameter to a library's function that may read a file there (path_sinks.
    #: file_handers): a call of one after a rank-0 write of that path is a read of it, and
    #: only that (rank_zero/barriers.py, stop 52 w4).
    file_handed_by: frozenset[str] = frozenset()
    #: Names of the program's top-level functions that return their first parameter moved to
    #: a device or dtype (`move_data_to_device(x, device)`): the rows given (device_moves.py).
    device_moves: frozenset[str] = frozenset()
    #: "module.f" / "module.Class.f" of the functions and methods of the program's other
    #: modules whose every return is a set of strings (rank_zero/set_returns.py): the order
    #: the entry takes of what one returns (`enumerate(processor.get_labels(args))`) is
    #: each rank's own, made rank 0's (rank_zero/set_orders.py, stop 53 s1).
    set_returns: frozenset[str] = frozenset()
    #: `function|parameter|s` of this module's top-level functions writing to a parameter
    #: every call of another module hands a standard stream (`report(c, sys.stdout)`), `|o`
    #: where one hands anything else (rank_zero/handed_streams.py, stream_names.py).
    stream_parameters: frozenset[str] = frozenset()
    #: The program's Dataset classes and the transform classes they run per sample
    #: (analysis/sample_classes.py; analysis/sample_code.py reads it).
    per_sample: SampleClasses = SampleClasses()
    #: This module's top-level classes no other module of the program names (a name, an
    #: attribute, an import, a string): all their constructions are here (unbuilt_norms.py).
    home_classes: frozenset[str] = frozenset()
    #: `Class.attr` of other modules' classes wrapping `self.attr` (inherited_wraps.py).
    wrapped_attributes: frozenset[str] = frozenset()


@dataclass(frozen=True)
class HelperDraw:
    """A function of the project that draws random numbers: its first draw, `what` at `line`
    (of `path`, when the function lives in another module than the file migrated).

    Found in each module of a program before its files are migrated, so that a training loop
    that calls `mixup_data()` imported from utils.py gets DP006 (transforms/hazards/draws.py).
    """

    helper: str
    what: str
    line: int
    path: str | None = None
    #: the process-wide stream it reads ("torch", "numpy", "random"; None: not told), so
    #: that DP067 asks whether every rank seeds that stream alike
    stream: str | None = None
    #: (position, name) of the parameter whose `None` alone makes it draw: every draw of
    #: the helper is under `if <name> is None:` (`noise = gen_noise()` when the caller
    #: passed none); a call passing a value there draws nothing (hazards/draws.py)
    when_none: tuple[int, str] | None = None
    #: the generator object's constructor where it draws from one the program builds
    #: (`np.random.RandomState(seed)`: every process holds its own; hazards/draws.py)
    source: str | None = None
    #: the parameters that object may also come from (`set_random_state()`'s `random`: a
    #: state the caller hands, its seed not followed; hazards/draws.handed_generators)
    handed: str | None = None
    #: (position among the arguments a call passes, name, line) of the parameter whose rows
    #: the function takes in the order of a permutation it draws and mixes with the rest
    #: (mixup returning `lam * x + (1 - lam) * x[perm]`, CutMix's store `x[:, a:b] =
    #: x[perm, a:b]` into the caller's tensor: in place), with `in_place` (DP147 through a
    #: helper, hazards/permuted_rows.mixed_parameter; `pairs_fixed`: at fixed offsets, DP139)
    mixes: tuple[int, str, int, bool] | None = None
    pairs_fixed: bool = False
    #: the draw is in a function the helper defines (a loss factory's closure): calling what
    #: it returned draws, not calling it (`loss_fn = get_loss()`; `loss_fn(x)`: draws.py)
    closure: bool = False

    def describe(self) -> str:
        where = f"{self.path}:{self.line}" if self.path else f"line {self.line}"
        when = f" when its `{self.when_none[1]}` is None" if self.when_none else ""
        held = f"`{self.source}`, a generator each process builds for itself"
        if self.handed:
            held += (
                f", or of the one handed as {self.handed} (a state its callers hand, not "
                "followed: alike only if every rank is handed the same)"
            )
        if not self.helper:
            return f"{self.what}() draws from {held}, at {where}"
        held = f" of {held}" if self.source else ""
        who = f"the function {self.helper}() returns" if self.closure else f"{self.helper}()"
        return f"{who} draws {self.what}{held} at {where}{when}"


@dataclass(frozen=True)
class BackwardSummary:
    """What a call of one function of another module does to DP026's flow (stop 32, B2
    across modules: edge-connect's `EdgeConnect.train()` in edge_connect.py calls
    `InpaintingModel.process()`/`.backward()` of models.py), read once per module
    (transforms/hazards/backward_program.py) in a form that crosses modules: forwards and
    backward calls are indexes into `sites`, the function's inputs negative numbers.

    sites: (line, code, model) of each forward (model: the wrapped model as spelled
        inside, `@p` for a parameter's) and each backward call (model "") in `path`.
    params: its positional parameters (not `self`); method: it takes its receiver first.
    inputs: placeholder -> the parameter or `self.` attribute it stands for.
    forwards: (model, backwards since its latest forward, the forward the first of them
        went through, the latest forward). input_backwards: (forwards carried, backward).
    returns, items, attributes, backwards: as hazards/backward.py's _Summary.
    """

    path: str
    params: tuple[str, ...]
    method: bool
    sites: tuple[tuple[int, str, str], ...]
    inputs: tuple[tuple[int, str], ...]
    forwards: tuple[tuple[str, int, int, int], ...]
    input_backwards: tuple[tuple[tuple[int, ...], int], ...]
    returns: tuple[int, ...]
    items: tuple[tuple[int, ...], ...] | None
    attributes: tuple[tuple[str, tuple[int, ...]], ...]
    backwards: tuple[tuple[int, int], ...]


@dataclass(frozen=True)
class PickledParam:
    """A parameter a project function pickles whole (class W2: foamliu's
    `save_checkpoint(epoch, model, optimizer)` puts `model` in a dict and `torch.save`s it):
    `name` at `position` (None: keyword-only), first pickled at `line` (of `path` when the
    function lives in another module). `only`: all the function does with it is pickle it
    (in that save, or a container it saves) or read `.state_dict()`; a caller may then pass
    a wrapped model's `.module` (transforms/analysis/pickled_params.py)."""

    name: str
    position: int | None
    line: int
    only: bool
    path: str | None = None

    def where(self) -> str:
        return f"{self.path}:{self.line}" if self.path else f"line {self.line}"


@dataclass(frozen=True)
class LoaderFeed:
    """What the program's call sites pass to one parameter of a top-level function of this
    module, or of a method of one of its top-level classes called on an instance the caller
    built ("Class.method", its receiver not counted in `position`; stop 46 class v3-A)
    (result.LoaderHandoff): `function`'s argument at `position` (or `keyword`) is a
    DataLoader at each of `sharded` (this rank's share: the other module shards it) and
    `whole` (every rank's whole data), as "path:line". The batch pass splits a batch at the
    model call only where it is whole at every site, and says so where the sites disagree
    (DP077). `sizes`: the function's parameters (position without the receiver, or keyword)
    that every site, all of them sharded, hands the loader's global batch size
    (LoaderHandoff.sizes): there the loader's batch has ddp_per_rank_batch() of it."""

    function: str
    position: int | None
    keyword: str | None
    sharded: tuple[str, ...] = ()
    whole: tuple[str, ...] = ()
    sizes: tuple[tuple[int | None, str | None], ...] = ()


@dataclass(frozen=True)
class ProgramLoaders:
    """What the data pass of one module is told about the loaders of the rest of its program.

    exported: training loaders its libraries sharded (LoaderExport): where this module
        iterates one inside an epoch loop, it calls the loader's sampler's set_epoch there.
    unfollowed: (import name, path) of project modules that build a DataLoader but that
        discovery could not follow (Program.unfollowed): a training loop over a loader they
        return gets DP027, never silence.
    evaluation_factories: names of this module's top-level loader factories that another
        module calls for an evaluation loader with `ddp_shard=False`: each takes that
        parameter (data/factory_sites.py), as a factory called both ways in its own module.
    fed: the loaders other modules pass to this module's top-level functions (LoaderFeed):
        a loop over such a parameter takes a sharded loader's batches as this rank's share.
    generator_takers: (qualified call name, role) of other modules' calls of a generator by
        a name this program's modules define with loops that yield a loader's batches
        ("trains", "shows", "unknown": analysis/generator_batches.py): a sample iterator
        (`dataset.create_iterator(n)`) drawn where nothing trains keeps its loader whole.
    fetchers: the program's iterator classes whose `__next__` draws its batches only from
        loaders handed to its constructor, by qualified name, with those parameters
        ((position, name): analysis/fixed_fetch.py): a sample batch fetched once from one
        of them is fetched from the unsharded loader (class S7), not said (DP091).
    no_grad_functions: the program's top-level functions decorated `@torch.no_grad()`, by
        qualified name: a fetched batch handed to one is read without gradients (S7).
    consumers: every top-level function and class of the program's other modules, by
        qualified name, with the loops there that iterate its parameters: (position without
        `self`, name, "trains"/"evaluates"/"unknown", the loop's line, one pass per call)
        each (analysis/loader_consumers.py). A loader handed to one takes its role from those
        loops (class v1-F of stop 39), or is said (DP084) where none iterates it.
    batch_classes: the program's top-level classes whose code names no loader, by qualified
        name (analysis/fixed_fetch.py `own_batch_classes`): an object of one built here
        yields the program's own batches, not a sharded loader's, whatever the class is
        called (a class `DataLoader` of the program: class v2-A of stop 40).
    trained: this module's top-level functions and methods ("Class.method") whose returned
        loader a training loop of another module iterates: such a loader iterated by no loop
        here is training data (class x1 of stop 54).
    epochs_set: names of this module's exports (LoaderExport.name) whose importers placed
        set_epoch in the epoch loop around every loop over them (MigrationResult.
        epoch_loops): no DP011 "no loop in this module" for them (stop 54 r2, learn-GAN).
    share_attributes: (qualified class, attribute, "path:line") of the other modules'
        counters on an instance summing this rank's batches (MigrationResult.
        share_attributes): a figure read off such an instance here is said (DP030).
    """

    exported: tuple[LoaderExport, ...] = field(default=())
    unfollowed: tuple[tuple[str, str], ...] = field(default=())
    evaluation_factories: tuple[str, ...] = field(default=())
    fed: tuple[LoaderFeed, ...] = field(default=())
    generator_takers: tuple[tuple[str, str], ...] = field(default=())
    fetchers: tuple[tuple[str, tuple[tuple[int | None, str], ...]], ...] = field(default=())
    no_grad_functions: tuple[str, ...] = field(default=())
    consumers: tuple[tuple[str, tuple[tuple[int | None, str, str, int, bool], ...]], ...] = field(
        default=()
    )
    batch_classes: tuple[str, ...] = field(default=())
    trained: tuple[str, ...] = field(default=())
    epochs_set: tuple[str, ...] = field(default=())
    share_attributes: tuple[tuple[str, str, str], ...] = field(default=())
    #: The functions and methods of the program's other modules that run a backward or step
    #: an optimizer, by qualified name (analysis/object_steps.py module_steppers).
    stepping: tuple[str, ...] = field(default=())
    #: Other modules' DataLoader subclasses whose `__init__` takes ddp_shard (qualified):
    #: an instance built here that only evaluates passes False (data/subclass_instances.py).
    flagged_loaders: tuple[str, ...] = field(default=())


@dataclass(frozen=True)
class Reexports:
    """Names of program modules this module imports that are really names from outside
    the program (program/reexports.py): `data_utils.DataLoader` -> `torch.utils.data.DataLoader`,
    keyed as libcst's QualifiedNameProvider spells them in this module (a relative import
    keeps its dots). The passes' qualified names include the real name (_support/metadata.py)."""

    names: tuple[tuple[str, str], ...] = ()
    #: Names (keyed alike, the module's own classes by their bare names) of the program's
    #: DataParallel subclasses proved to add nothing but attribute forwarding
    #: (transforms/_support/forwarding_classes.py): the passes take them for torch's
    #: DataParallel until model_wrap rebases them, for DistributedDataParallel after.
    forwarding: tuple[str, ...] = ()
    #: Names a module-level `from <program module> import *` binds that lead outside the
    #: program (`os` of a `utils.py` saying `import os`) -> the real dotted name: libcst
    #: binds nothing for a star import, so `os.mkdir(d)` ran on every rank (stop 57 v1-B);
    #: names that module defines itself -> `<module>.<name>`, as a named import gives.
    stars: tuple[tuple[str, str], ...] = ()
    #: Program classes named ...DataParallel... on `object` alone, keyed alike (the module's
    #: own by bare names): a call of one is no wrap, no DP002 (forwarding_classes.py).
    plain: tuple[str, ...] = ()

    @cached_property
    def table(self) -> dict[str, str]:
        return dict(self.names)

    @cached_property
    def star_table(self) -> dict[str, str]:
        return dict(self.stars)

    def mentions(self, *fragments: str) -> bool:
        """Some real name contains one of `fragments` (for the passes' text gates)."""
        targets = [target for _, target in self.names]
        if self.forwarding:
            targets.append("torch.nn.DataParallel torch.nn.parallel.DistributedDataParallel")
        return any(f in target for target in targets for f in fragments)

    @cached_property
    def lasts(self) -> dict[str, frozenset[str]]:
        """Last part of a key -> last parts of what it names: a re-export under another
        name (`from torch.utils.data import DataLoader as Loader`) is matched by `Loader`."""
        found: dict[str, set[str]] = {}
        for key, target in self.names:
            found.setdefault(key.rpartition(".")[2], set()).add(target.rpartition(".")[2])
        for key in self.forwarding:
            found.setdefault(key.rpartition(".")[2], set()).update(
                ("DataParallel", "DistributedDataParallel")
            )
        return {key: frozenset(value) for key, value in found.items()}


@dataclass(frozen=True)
class ModelClass:
    """An nn.Module class of the program (transforms/analysis/partial_forward.py): `partial`
    a use in its forward() (or a class it builds) that may leave parameters without a
    gradient, "" when none was found. `outputs`: per element of the tuple its forward()
    returns, the (attribute, holds) pairs of the layers feeding it (None when it returns
    no tuple literal): a caller that drops an element starves the layers that feed only
    it. `pairs`: where its forward() compares the rows of its batch with each other
    (analysis/batch_pairs.py), "" when it does not: called on a wrapped model's output, it
    is a loss over pairs of samples (DP040, hazards/pairs.py). `grows`: its methods that
    register parameters outside __init__, with where ("path:line"): one called through a
    wrapped model's `.module` grows it after the wrap (DP098). `held`: a DataParallel of
    the program may hold it (analysis/wrapped_classes.py; DP022, DP007)."""

    name: str
    partial: str = ""
    outputs: tuple[tuple[tuple[str, str], ...], ...] | None = None
    pairs: str = ""
    grows: tuple[tuple[str, str], ...] = ()
    #: How its forward() returns several outputs `outputs` does not map to layers (a
    #: comprehension over a ModuleList, a list built by appends); "" when it does not: a
    #: caller keeping part of them may starve layers (analysis/kept_outputs.py).
    several: str = ""
    bare: bool = False  #: it may hold no parameter (bare_modules.py): wrap decided at run time
    built: bool = True  #: the program may build it (class_reach.py; DP041's fallback)
    #: Methods (not forward()) running its layers, those proved to run none (DP108, layer_methods)
    runs: tuple[str, ...] = ()
    quiet: tuple[str, ...] = ()
    cuts: tuple[str, ...] = ()  #: rows cut by a held batch size (batch_pairs.forward_cuts, DP064)
    part_wrap: str = ""  #: its own or a built class's DataParallel submodule (part_wraps.py)
    draws: tuple[str, ...] = ()  #: methods drawing new weights (weight_draws.py, reinit.py)
    held: bool = True
    norms: bool = False  #: it or a program class it builds makes a BatchNorm layer (DP216)
    pools: str = ""  #: where its forward() pools its batch's rows (batch_axis.py, DP217)
    #: What its forward() returns on each replica (loss_facts.py; hazards/replica_means.py)
    replica: ReplicaReturns | None = None
    #: A DataParallel of the program wraps an instance of it itself (by its bare name,
    #: wrapped_classes.wrapped_directly): the optimizers it builds over its own nets are
    #: planned in its module as in a module that wraps (analysis/outside_parameters.py)
    wrapped: bool = False


@dataclass(frozen=True)
class CommandArgument:
    """One `add_argument(...)` of an option (transforms/analysis/command_line.py).

    options: as written (`-r`, `--local_rank`); dest: the attribute it sets; off: its value
    is false unless given (`action="store_true"`, `default=False` or `None`); path, line:
    where it is declared; default: a constant number it defaults to."""

    options: tuple[str, ...]
    dest: str
    off: bool
    path: str
    line: int
    #: its default where a constant number (`default=1`), else None (DP133)
    default: int | float | None = None


@dataclass(frozen=True)
class CommandLine:
    """The argparse options of a module or a program, and whether its code names
    LOCAL_RANK (the rank torchrun sets in the environment)."""

    arguments: tuple[CommandArgument, ...] = ()
    reads_local_rank: bool = False


@dataclass(frozen=True)
class ProgramFacts:
    """Everything one module is told about its program (the default: a single file).

    role: None migrates the file as a single-file program (inline setup block); "entry"
        calls ddp_setup() (first thing in main(), else after its imports) with the helpers
        imported from the generated module; "library" never does: importing it must
        start no process group.
    has_dataparallel: the program-wide gate (with a role). Some module of the program
        wraps with DataParallel (or the program was migrated before), so every module's
        loaders, prints, saves and devices are migrated, not only those of the file that
        wraps.
    helpers_module: the import name of the generated helpers module (e.g. "_dp2ddp", or
        "pkg._dp2ddp" for an entry run as `python -m pkg.train`).
    hints: what the program's other modules tell the rank-0 pass (ProgramHints).
    draws: functions of the program's other modules that draw random numbers, by
        qualified name as this file's imports spell it ("utils.mixup_data"), as
        (name, HelperDraw) pairs (transforms/hazards/draws.py).
    loaders: what the rest of the program tells the data pass (ProgramLoaders).
    models: the nn.Module classes of the program (ModelClass), by qualified name as an
        importer spells it, and this module's own by their bare names: a wrap of one whose
        forward() may leave parameters without a gradient gets find_unused_parameters=True
        (DP041, transforms/model_wrap.py). Empty for a single file (the pass reads it).
    wrap_functions: names of the functions and methods of the program's other modules
        whose own body wraps with DataParallel (DrQA's `DocReader.parallelize()` in
        reader/model.py): a call of one under a GPU flag is hoisted as a wrap is
        (transforms/model_wrap.py). Empty for a single file (the pass reads its own).
    wrap_returns: names of the functions and methods of the program's modules that may
        return a DataParallel wrap (analysis/wrap_calls.py `program_wrap_facts`): a name
        bound to a call of one holds the wrapped model (`model = generate_model(args)`);
        a function that wraps its teacher but returns its student is not one. Empty for a
        single file (the pass reads its own).
    uniform: the program's cross-module rank-independence answers; None: unknown. Not
        part of the value's equality: the project model compares the answers a module's
        migration asked for instead (program/project.py).
    helpers_first_party: the project's import sorter counts the helpers module as the
        project's own (its folder is a source root: migrate/line_length.py), so the
        import of it goes in the first-party section; else with the third-party ones.
    reexports: names of imported program modules that are really torch's (or another
        outside module's): the passes match them by their real qualified names (Reexports).
    sample_readers: functions of the program's other modules that only read samples from
        a loader they are given (GAN_stability's `utils.get_nsamples(loader, n)`), by
        qualified name as an importer spells it, each with the parameters (position,
        name) it reads: given a sharded loader, such a call reads it whole
        (shared_draws/whole_reads.py). Empty for a single file.
    seeded_streams: the process-wide random streams ("torch", "numpy", "random") every
        rank provably seeds alike anywhere in the program (transforms/analysis/
        seeded_streams.py): DP067's proof. None for a single file (the pass reads its own).
    pickling: functions of the program's other modules that pickle a parameter whole
        (PickledParam), by qualified name as an importer spells it: a wrapped model passed
        to one is passed as its `.module`, or warned DP070 (transforms/hazards/pickled.py).
    grad_toggles: statements of the program's other modules that may switch parameters'
        gradients off (`p.requires_grad = on`; transforms/analysis/module_parts.py
        grad_toggles), as (text, "path:line", early): one in a function (not early) may run
        after a wrap, so the wraps get find_unused_parameters=True (DP041); any may freeze
        a model before its wrap (the wrap becomes ddp_wrap_trainable). Empty for a single
        file.
    """

    role: Role | None = None
    has_dataparallel: bool = False
    helpers_module: str = ""
    hints: ProgramHints = field(default_factory=ProgramHints)
    draws: tuple[tuple[str, HelperDraw], ...] = ()
    loaders: ProgramLoaders = field(default_factory=ProgramLoaders)
    models: tuple[ModelClass, ...] = ()
    uniform: Uniformity | None = field(default=None, compare=False, hash=False, repr=False)
    helpers_first_party: bool = True
    reexports: Reexports = field(default_factory=Reexports)
    wrap_functions: tuple[str, ...] = ()
    wrap_returns: tuple[str, ...] = ()
    sample_readers: tuple[tuple[str, tuple[tuple[int, str], ...]], ...] = ()
    seeded_streams: frozenset[str] | None = None
    pickling: tuple[tuple[str, tuple[PickledParam, ...]], ...] = ()
    grad_toggles: tuple[tuple[str, str, bool], ...] = ()
    #: Summaries of the functions and methods of the program's other modules for DP026
    #: (BackwardSummary), by qualified name as an importer spells it
    #: ("models.InpaintingModel.process"). Empty for a single file.
    backward_summaries: tuple[tuple[str, BackwardSummary], ...] = ()
    #: (line of a wrap's model, a toggle as the passes name it: "line N" in this module,
    #: "path:line" in another) where the toggle is proved not to reach the wrap's model
    #: (transforms/analysis/toggled_models.py): that toggle gives it no DP041. None: not
    #: told (a single file: the pass reads its own).
    untouched_toggles: tuple[tuple[int, str], ...] | None = None
    #: The program modules (import names) whose import runs code the migration made need
    #: the process group (a module-level DistributedSampler, a wrap), themselves or through
    #: a program module they import (program/migrate.py _group_at_import): the entry calls
    #: ddp_setup() before its first import of one. Empty for a single file and a library.
    group_at_import: tuple[str, ...] = ()
    #: The names of the program modules' functions and classes whose call runs code the
    #: migration made need the process group (program/migrate.py _group_at_import): the
    #: entry's import-time code calling one gets ddp_setup() after its imports, not in main().
    group_calls: tuple[str, ...] = ()
    #: The program modules whose import runs calls (program/import_reach.run_at_import).
    run_at_import: tuple[str, ...] = ()
    #: The program's argparse options and whether any module names LOCAL_RANK
    #: (transforms/analysis/command_line.py), for DP003's way out where the option is
    #: parsed in another module than the DDP path's (told also to the module whose DDP path
    #: shuts the program's gate, migrated as a single file). None: the module's own only.
    command_line: CommandLine | None = None
    #: Those of `wrap_functions` that wrap only models of their own, trained inside
    #: (analysis/wrap_calls.py contained_wrappers): a call under a condition every rank
    #: decides alike is no wrap kept under a condition (DP012). Empty for a single file.
    contained_wraps: tuple[str, ...] = ()
    #: Statements of the program's other modules that set `requires_grad` to True on
    #: parameters ("path:line", analysis/module_parts.py module_unfreezes), those in a
    #: function only where some module names it: a wrap here may hold a model they unfreeze
    #: after it, so ddp_sync_frozen follows it (analysis/outside_parameters.py; stop 48
    #: class v2-A). Empty for a single file (the pass reads its own).
    unfreezes: tuple[str, ...] = ()
    #: The loss classes (their forward()) and functions of the program's other modules that
    #: return a sum over the batch of what their caller passes (BatchSumReturn), by
    #: qualified name as an importer spells it: an unscaled loss built from one's value is
    #: said where it reaches backward() (DP004, hazards/told_sums.py). Empty for a single
    #: file and where the module calls no backward().
    batch_sum_returns: tuple[tuple[str, tuple[BatchSumReturn, ...]], ...] = ()
    #: The functions of the program's other modules that return a list of trainable leaf
    #: tensors (`make_extra()` returning `[nn.Parameter(...), ...]`), by qualified name as
    #: an importer spells it: a name bound to a call of one and handed to an optimizer is
    #: synced (analysis/tensor_lists.py, outside_tensors.py). Empty for a single file and
    #: where the module builds no optimizer.
    tensor_lists: tuple[str, ...] = ()
    #: The attributes the classes of the program's other modules bind only to trainable leaf
    #: tensors (`self.scale = nn.Parameter(...)`), as "module.Class.attr": `head.scale` of
    #: `head = Scaler()` handed to an optimizer is synced (outside_tensors.py). Empty for a
    #: single file and where the module builds no optimizer.
    tensor_holders: tuple[str, ...] = ()
    #: As tensor_holders, the attributes bound only to lists of such tensors grown by such only
    #: (`self.extra = nn.ParameterList([...])`): `head.extra` is synced, each of its tensors.
    tensor_list_holders: tuple[str, ...] = ()
    #: The averaging meter classes of the program's other modules (MeterClass, proved as
    #: data/meters.py proves this module's), by qualified name as an importer spells it: a
    #: meter built from one and fed in a sharded loop is summed over the ranks after it
    #: (stop 54 x4). Empty for a single file and where the module calls no `.update(`.
    meters: tuple[tuple[str, MeterClass], ...] = ()

    @cached_property
    def random_helpers(self) -> Mapping[str, HelperDraw]:
        """`draws` by qualified name."""
        return dict(self.draws)

    @cached_property
    def readers(self) -> Mapping[str, dict[int, str]]:
        """`sample_readers` by qualified name: position -> parameter name."""
        return {name: dict(params) for name, params in self.sample_readers}

    @cached_property
    def picklers(self) -> Mapping[str, tuple[PickledParam, ...]]:
        """`pickling` by qualified name."""
        return dict(self.pickling)

    @property
    def in_program(self) -> bool:
        """The module is migrated as a module of a multi-module program (it has a role)."""
        return self.role is not None
