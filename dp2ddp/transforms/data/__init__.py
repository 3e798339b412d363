"""Shard DataLoaders so each rank loads its own part of the data, with DataParallel's meaning.

Loaders are followed to where they are iterated: directly, passed as an argument, returned
from a helper, or stored on ``self`` (also when passed to the constructor); see CallFlow.
Across the modules of a program (a loader factory in a library, its epoch loop in the
entry), see imported.py: set_epoch in the importer's epoch loop, DP027 for loaders of
modules dp2ddp could not follow.

* A training loader gets ``sampler=DistributedSampler(dataset, shuffle=<its shuffle>)`` and
  loses ``shuffle=`` (DataLoader rejects both). Unless shuffle is the literal ``True`` it is
  ``DdpDistributedSampler``, defined in the header: the same indices, but sequential order is
  computed index by index instead of listed (DistributedSampler's list of a 79-million-sample
  dataset takes gigabytes per rank). A dataset built inline
  (``DataLoader(MyDataset(...))``) is first bound to a name in a statement of its own
  (``train_dataset = MyDataset(...)``), so loader and sampler share one object.
* A shuffled sampler needs ``set_epoch(epoch)`` or every epoch repeats the first one's order:
  ``loader.sampler.set_epoch(epoch)`` goes first in the ``for`` loop around the loop over the
  loader, following calls outward (``train(epoch)`` called from main's epoch loop), or right
  after the loader when it is rebuilt inside that loop. ``for _ in range(n)`` becomes
  ``for epoch in range(n)`` for it. A single pass at top level needs none. Where no usable
  epoch loop is found (DP011), the sampler is ``DdpDistributedSampler(..., advance_epoch=True)``,
  which advances its epoch on each pass, as RandomSampler draws a new order on each pass.
* DataParallel's ``batch_size`` is the global batch, so each process loads
  ``ddp_per_rank_batch(B)`` = B // WORLD_SIZE (warning at run time when B does not divide).
  ``B * n_gpu`` (any GPU count) was the per-GPU batch: it becomes ``B``. With
  ``per_process_batch`` B stays, and the global batch grows with the world size. A loader
  without ``batch_size`` (DataLoader's default, 1) is left alone: one sample cannot be split,
  so each process loads 1 and the global batch is WORLD_SIZE (said in the change record).
* An evaluation loader is found by use before its shuffle flag: named val/valid/test/eval/dev,
  or only iterated under ``torch.no_grad()``/``inference_mode`` or after ``.eval()`` (a
  validation set shuffled "to see progress" is still evaluated); a loop that backpropagates
  trains, whatever model was switched to ``.eval()`` before it (a distilling teacher). It gets
  ``ddp_eval_sampler(dataset)``: a strided shard without the padding DistributedSampler adds,
  so no sample counts twice (a ``range``: O(1) memory too). Counters bound to a number or a
  zero tensor before its loop and added to in it (``total += n`` or ``total = total + n``) are
  summed over the ranks right after the loop, where each term added is proved a sum over
  samples (a count, a ``.sum()``, a value times the batch's size, ``reduction="sum"``). So
  every term of the printed figures is global, and so is a best-checkpoint or early-stopping
  decision taken on them. Where that cannot be done for every term (no loop found, lists,
  averaging objects, a mean per batch such as ``loss.item()`` of a mean-reduced criterion or
  a ``.mean()``, a figure divided by ``len(loader)``, whose batches are not the original's,
  a loop variable read after the loop), or where the function around the loop can also be
  given a loader this module does not shard (called with other values, or, in a library
  module of a program, importable by the other modules), the loader stays unsharded: every
  rank evaluates the whole set and gets the original's figures (DP015). A figure is reduced
  whole or not at all.
  A training loop's counters are summed too when later divided by ``len(loader.dataset)``;
  one adding a mean per batch cannot be, and the loader cannot stay whole: DP058.
* One factory building training and evaluation loaders (``make_loader(ds, bs, True)`` and
  ``make_loader(val, bs, False)``) is classified call by call (factory_sites.py): the factory
  gets ``ddp_shard=True``, its evaluation calls pass ``ddp_shard=False`` and their loaders
  stay whole on every rank (DP015).
* A running sum or count over a sharded loop's batches that is printed (a progress bar,
  a helper of the module that prints, an epoch figure not summed over the ranks) is rank
  0's share: DP030.
* ``sampler=RandomSampler(dataset)`` / ``SequentialSampler(dataset)`` (inline, or a name bound
  to one and used by this loader only) just turn shuffling on or off: the sampler itself is
  replaced by ``DistributedSampler(dataset, shuffle=True)`` or
  ``DdpDistributedSampler(dataset, shuffle=False)``, or by ``ddp_eval_sampler``
  for a sequential evaluation loader, and the loader is then treated as any other. Their
  import goes once nothing uses it.
* ``sampler=None``, or a name bound to None by its every assignment (``sampler = None`` ...
  ``shuffle=sampler is None, sampler=sampler``), is no sampler: the loader is sharded.
* Left alone: loaders with any other sampler (DP009, silent when it is already ours), an
  ``IterableDataset`` subclass defined in the file or arguments dp2ddp cannot see (DP020).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial

import libcst as cst
from libcst.codemod.visitors import AddImportsVisitor
from libcst.metadata import PositionProvider

from dp2ddp.flow import code, view
from dp2ddp.transforms._support.base import MigrationState
from dp2ddp.transforms._support.names import DATALOADER, DDP_DISTRIBUTED_SAMPLER
from dp2ddp.transforms._support.nodes import (
    ModuleNodes,
    call_named,
    enclosing_class,
    enclosing_function,
    insert_arg,
    is_false,
    keyword,
    module_of,
    one_per_line,
    remove_arg,
    statement_header,
)
from dp2ddp.transforms.analysis.chunk_sizes import ChunkPlan
from dp2ddp.transforms.data.attribute_counts import said_after_planning
from dp2ddp.transforms.data.batch_shapes import plan_batch_shapes
from dp2ddp.transforms.data.batch_shard import (
    BATCH_SHARD,
    ShardEdit,
    is_batch_shard,
    is_sampler_shard,
    plan_batch_shard,
    sharded_at_run_time,
)
from dp2ddp.transforms.data.batch_sized import batch_sized_meetings
from dp2ddp.transforms.data.batch_takers import export_takers, imported_takers, taker_loops
from dp2ddp.transforms.data.chunks import plan_chunk_sizes
from dp2ddp.transforms.data.comprehension_passes import said_comprehension_passes
from dp2ddp.transforms.data.decisions import (
    Decision,
    deciding_break,
    never_trains,
)
from dp2ddp.transforms.data.evaluation import LoaderEvaluation
from dp2ddp.transforms.data.factory_sites import FactorySites
from dp2ddp.transforms.data.flow import reaching_loaders
from dp2ddp.transforms.data.handed_loops import in_eval_context
from dp2ddp.transforms.data.handoffs import (
    fed_loaders,
    loader_handoffs,
    plan_handed,
    unheld_loaders,
)
from dp2ddp.transforms.data.iterated_names import iterated_through_names
from dp2ddp.transforms.data.keyed_loops import register_keyed_loops
from dp2ddp.transforms.data.loop_takers import (
    package_call,
    register_generator_loops,
    register_next_loops,
    runs_module,
)
from dp2ddp.transforms.data.plan import (
    EVAL_NAME,
    EVAL_SAMPLER,
    LINE_LIMIT,
    POSITIONS,
    SAMPLER,
    TRAIN_NAME,
    CallEdit,
    Loader,
    sampler_args,
)
from dp2ddp.transforms.data.rank_ratios import plan_rank_ratios
from dp2ddp.transforms.data.sample_counts import GLOBAL_COUNT, lr_sample_counts
from dp2ddp.transforms.data.sample_roles import fed_to_samples_only, gathered_whole
from dp2ddp.transforms.data.sampler_reads import said_sampler_reads
from dp2ddp.transforms.data.samplers import drop_import, own_sampler, said_early_exit
from dp2ddp.transforms.data.size_guards import others_loaders_named, plan_size_guards
from dp2ddp.transforms.data.size_swaps import SizeSwaps
from dp2ddp.transforms.data.subclass_instances import plan_subclasses
from dp2ddp.transforms.data.trained_returns import export_trained, said_unlooped_whole
from dp2ddp.transforms.data.unlooped_shards import keep_unlooped_whole, live_loops


class ShardDataLoaders(SizeSwaps, LoaderEvaluation):
    """The data pass: each section a module of this package, chained base to base (resolution
    -> arguments -> batch_size -> set_epoch -> evaluation); this class plans and rewrites."""

    NAME = "data"
    DESCRIPTION = "Shard DataLoaders with DistributedSampler and keep batch-size semantics."
    TRIGGERS = ("DataLoader",)  # aliases too: `import DataLoader as DL` contains it

    @classmethod
    def triggered(cls, code: str, state: MigrationState) -> bool:
        """Also where no DataLoader is named but loaders of other modules may be iterated."""
        return super().triggered(code, state) or others_loaders_named(code, state)

    # == analysis =======================================================================
    def visit_Module(self, node: cst.Module) -> bool:
        self._shards = {}
        self._chunk_sizes = ChunkPlan()
        #: `count += size` statements whose size becomes the global batch's (sample_counts.py).
        self._global_counts: set[cst.AugAssign] = set()
        self._lines = node.code.splitlines()
        self._module_node = node
        self._indent = node.default_indent
        nodes = ModuleNodes(node)
        self.index(nodes)
        self._iterable_classes = self._iterable_dataset_classes(nodes)
        loaders: dict[cst.Call, Loader] = self._loaders
        self._all_loaders = {c for c in self._calls if self.matches(c.func, DATALOADER)}
        #: Sharded through their own sampler: not planned again; figures as others' (DP030).
        self._sampler_sharded: dict[cst.Call, Loader] = {}
        self._taker_calls = frozenset()  # `x, y = data.get_batch()` (batch_takers)
        for call in self._calls:
            if call in self._all_loaders and not self._in_forward(call):
                loader = self._prepare(call)
                if loader is not None:
                    loaders[call] = loader
        for loop in live_loops(self, nodes):
            for expr in self._iterated_through_names(loop.iter):
                for found in (loaders, self._sampler_sharded):
                    for call, path in reaching_loaders(node, expr, self._resolve(expr, found, 0)):
                        if not any(seen is loop for seen, _, _ in found[call].loops):
                            found[call].loops.append((loop, expr, path))
                    for call in self._read_through(expr, found):
                        if loop not in found[call].read_loops:
                            found[call].read_loops.append(loop)
        for found in (loaders, self._sampler_sharded):  # their figures too (F1)
            register_next_loops(self, nodes, found)
            register_generator_loops(self, found)
            taker_loops(self, node, found)  # `data.get_batch()` (v1-A of stop 53)
            register_keyed_loops(self, found)  # `for x, y in state["loader"]` (round 36)
        keep_unlooped_whole(self)  # own-sampler loaders no loop here trains: whole (v4-B)
        fed, self._fed_sites = fed_loaders(self, nodes)
        self._factory_sites = FactorySites(self)
        self._factory_sites.split(loaders)
        for loader in loaders.values():
            self._plan(loader)
            self._factory_sites.finish(loader)
        self._export_composed(loaders)
        for loader in self._sampler_sharded.values():
            self._plan_train_metrics(loader)
            self._warn_running_figures(loader)
            self._export_shard(loader) or export_trained(self, loader)  # a self-test's loops
        plan_subclasses(self, nodes)
        said_sampler_reads(self, nodes, self._sampler_sharded)
        every = {
            c: loaders.get(c) or Loader(c, {}, self._binding(c)[0], None, None)
            for c in self._all_loaders
        }
        sharded_here = set(self._edits) | set(self._shards) | set(self._sampler_sharded)
        said_comprehension_passes(
            self, nodes, loaders, set(self._edits) & set(loaders), self._iterated_through_names
        )
        self.state.handoffs += loader_handoffs(self, every, sharded_here)
        export_takers(self, node, sharded_here)
        for loader in self._plan_imported(nodes, loaders):
            # Sharded by the module that builds it (a program fact, state.loaders.exported):
            # its loops here sum or show this rank's share only, as a loader of this module.
            self._plan_train_metrics(loader)
            self._warn_running_figures(loader)
        for loader in [*fed, *unheld_loaders(self, nodes, every), *imported_takers(self, node)]:
            # Handed sharded by the modules that call this one's functions (a program fact,
            # state.loaders.fed), or by a route no binding here says: this rank's share.
            self._plan_train_metrics(loader)
            self._warn_running_figures(loader)
        if not self.state.options.per_process_batch:
            sharded = set(self._edits) | set(self._shards)
            for name, detail in batch_sized_meetings(
                self, nodes, sharded, self._iterated_through_names
            ):
                self.warn(name, "DP044", detail)
            for grow, detail, summed, code in lr_sample_counts(
                self, nodes, sharded, self._iterated_through_names, node
            ):
                if summed:
                    self._global_counts.add(grow)
                    self.state.helpers.add("global_count")
                    self.record(grow, detail)
                else:
                    self.warn(grow, code, detail)
            self._chunk_sizes = plan_chunk_sizes(self, nodes, sharded, self._iterated_through_names)
            for chunk, detail in self._chunk_sizes.warnings:
                self.warn(chunk, "DP051", detail)
            guards = ChunkPlan()
            plan_size_guards(self, nodes, self._iterated_through_names, guards)
            for compare, detail in guards.warnings:
                self.warn(compare, "DP061", detail)
            for compare, detail in guards.one_sample:
                self.warn(compare, "DP153", detail)
            unknown: list[tuple[cst.CSTNode, str, str]] = []
            plan_batch_shapes(self, nodes, self._iterated_through_names, guards, unknown)
            plan_rank_ratios(self, nodes, guards)
            for shaped, code, detail in unknown:
                self.warn(shaped, code, detail)
            self._chunk_sizes.swaps.update(guards.swaps)
            self._chunk_sizes.records += guards.records
            for chunk, description in self._chunk_sizes.records:
                self.record(chunk, description)
        said_after_planning(self)  # saved grids, counters read off instances (DP030)
        return True

    def _iterated_through_names(self, loop_iter: cst.BaseExpression) -> list[cst.BaseExpression]:
        """What a `for` iterates, also through names bound to progress wrappers of it."""
        return iterated_through_names(self, loop_iter)

    def _prepare(self, call: cst.Call) -> Loader | None:
        """Map the loader's arguments; warn and return None when it must stay as it is."""
        if sharded_at_run_time(call):  # a second run: exported again, as the first run did
            self._export_again(call)
            return None
        args: dict[str, int] = {}
        positional = 0
        for index, arg in enumerate(call.args):
            if arg.star == "*":
                self.warn(call, "DP020", "positional arguments passed with *")
                return None
            if arg.star == "**" or arg.keyword is None and positional >= len(POSITIONS):
                continue
            key = arg.keyword.value if arg.keyword else POSITIONS[positional]
            positional += arg.keyword is None
            args[key] = index
        own = None
        for key in ("sampler", "batch_sampler"):
            if key in args and not self._always_none(call.args[args[key]].value):
                sampler = call.args[args[key]].value
                if key == "sampler" and "dataset" in args:
                    own = own_sampler(self, call, sampler, args)
                    if own is not None:
                        continue
                if self._is_ours(sampler) or is_batch_shard(sampler):
                    plain = isinstance(sampler, cst.Call)  # not a factory's flagged one
                    if key == "sampler" and plain and EVAL_SAMPLER not in self.code(sampler):
                        self._export_again(call)  # a second run: as the first run did
                    return None
                if positional > 3:
                    self.warn(call, "DP009", f"{key}={self.code(sampler)} passed by position")
                    return None
                binding = self._binding(call)[0]
                function = enclosing_function(call, self)
                label = (
                    self.code(binding)
                    if binding is not None
                    else function.name.value
                    if function is not None
                    else ""
                )
                planned = plan_batch_shard(self, call, key, args, label)
                if isinstance(planned, str):
                    self.warn(call, "DP009", planned)
                else:
                    self._shards[call] = planned
                    # its loops' figures: this rank's parts, as a DistributedSampler's
                    self._sampler_sharded[call] = Loader(call, args, *self._binding(call), None)
                    what = "batch sampler's batches" if key == "batch_sampler" else "sampler's"
                    self.record(
                        call,
                        f"{label or 'the loader'}: every rank draws the {what} global batches "
                        f"alike and takes its contiguous part ({BATCH_SHARD})",
                    )
                return None
        if "dataset" not in args:
            self.warn(call, "DP020", "DataLoader without a dataset argument")
            return None
        if positional > 3:
            self.warn(call, "DP020", "sampler and later arguments passed by position")
            return None
        for arg in call.args:
            if arg.star == "**" and not self._kwargs_are_safe(arg.value, args):
                self.warn(
                    call,
                    "DP020",
                    f"arguments passed as **{self.code(arg.value)}, whose keys may set shuffle "
                    "or a sampler: left unsharded, every rank loads every batch whole",
                )
                return None
        dataset = call.args[args["dataset"]].value
        if self._is_iterable_dataset(dataset):
            self.warn(call, "DP020", f"{self.code(dataset)} is an IterableDataset")
            return None
        binding, statement = self._binding(call)
        return Loader(call, args, binding, statement, own)

    def _export_again(self, call: cst.Call) -> None:
        """A loader sharded by an earlier run (at run time, or by its DistributedSampler:
        round 30's loader reached through `build()[:2]`, which a second run split again in
        the importer's loop) is exported as the first run exported it: a fixed point."""
        before = len(self.state.exports)
        self._export(Loader(call, {}, *self._binding(call), None), self._all_loaders, False)
        self.state.standing += self.state.exports[before:]

    def _evaluates(self, loop: cst.For) -> bool:
        """The loop evaluates: in evaluation context (`no_grad()`, after `.eval()`), or it
        does not train and its figures decide a `break` out of the training loop (early
        stopping on a validation figure, through a function's return or an object's
        attribute: decisions.py; real-world: zhouhaoyi/Informer2020@29f2a73). Such figures
        must be the same on every rank: as an evaluation loader's, they are summed over the
        ranks or the loader stays whole (DP015). Sharded as training data, each rank would
        decide on its own batches, and one would leave the training loop while the others
        wait in the all-reduce forever.
        A loop proved never to backpropagate (`never_trains`) is no training loop either:
        its loader is evaluated, summed over the ranks or left whole (DP015).
        """
        takers = (partial(package_call, self), partial(runs_module, self))
        return (
            in_eval_context(self, loop)
            or self._decision(loop) is not None
            or never_trains(loop, self.qualified_names, *takers, self._trains_or_hands_loss)
        )

    def _decision(self, loop: cst.For) -> Decision | None:
        """The `break` out of the training loop that `loop`'s figures decide, once per loop."""
        if loop not in self._decisions:
            module = module_of(loop, self)
            found = None
            if isinstance(module, cst.Module):
                found = deciding_break(partial(view, module), loop, self.qualified_names)
            self._decisions[loop] = found
        return self._decisions[loop]

    def _warn_split_decisions(self, loader: Loader, label: str) -> None:
        """DP052: a loader sharded as training data (another loop over it trains) whose
        loop's figures decide a `break` out of the training loop: neither whole nor
        reduced, each rank decides on its own batches."""
        for loop, _, _ in loader.loops:
            decision = self._decision(loop)
            if decision is None:
                continue
            steps = " → ".join(f"{code(n, 30)} at {self._line(n)}" for n in decision.path[:-1])
            runs = f", whose branch runs `{decision.runs}`" if decision.runs else ""
            wait = "collective" if decision.runs else "all-reduce"
            self.warn(
                loop,
                "DP052",
                f"the figures of this loop over {label} decide "
                f"`{statement_header(decision.test)}` at line {self._line(decision.test)} "
                f"({steps}){runs}, and {label} is sharded (another loop trains on it): the "
                f"ranks may decide apart, and one would wait in the next {wait} forever",
            )

    def _line(self, node: cst.CSTNode) -> int:
        return self.get_metadata(PositionProvider, node).start.line

    def _plan(self, loader: Loader) -> None:
        call, args, own = loader.call, loader.args, loader.own
        shuffle = call.args[args["shuffle"]].value if "shuffle" in args else None
        if own is not None:  # its shuffle= can only be False: the sampler decides
            shuffle = cst.Name("True" if own.shuffle else "False")
        shuffled = shuffle is not None and not is_false(shuffle)
        label = self.code(loader.binding) if loader.binding is not None else "the loader"
        # By use before the shuffle flag: a validation set shuffled "to see progress" is
        # still evaluated, and its figures (which may decide a best checkpoint) must be global.
        # A shuffled loader named like an evaluation set but iterated outside any evaluation
        # context (`train_val_loader` trained on) stays a training loader.
        # A loop that trains only under a flag its caller turns off (`run(net, val_loader,
        # train=False)`: class E1) evaluates this loader.
        if fed_to_samples_only(self, loader, label) or gathered_whole(self, loader, label):
            return
        handed = plan_handed(self, loader, label, shuffled)
        if handed in ("evaluates", "whole"):
            return
        evaluated = bool(loader.loops) and all(
            self._evaluates(loop) or self._guard_passed(loop, path) is False
            for loop, _, path in loader.loops
        )
        # a loop over a local name for it that trains (`trainloader = loaders["train"]`:
        # round 29's crowd counting) makes it training data, whatever the other loops do
        evaluated = evaluated and not any(
            self._trains(r) and not self._evaluates(r) for r in loader.read_loops
        )
        if (
            self.state.program is not None
            and handed is None
            and not loader.loops
            and not shuffled
            and not (TRAIN_NAME.search(loader.name) and not EVAL_NAME.search(loader.name))
        ):
            # -- program mode: iterated in another module (or by hand: thuml/CDAN@c904cd3's
            # 10-crop test walks `iter(loader)` with next()), where its counters cannot be
            # summed over the ranks. Unless its name says it trains (then it is sharded as
            # any training loader), every rank goes through all of it, so the figures stay
            # right, and DP015 says so: a training loader left whole is never silent.
            # Where another module's training loop is proved to take it: sharded.
            if said_unlooped_whole(self, loader, label):
                return
        evaluation = handed != "trains" and (
            evaluated or bool(EVAL_NAME.search(loader.name)) and (not shuffled or not loader.loops)
        )
        if not evaluation:
            self._warn_split_decisions(loader, label)
        if evaluation and self._kept_whole(loader, label):
            return
        shared = self._shared_dataset(loader)
        if shared is None:
            return
        dataset, hoisted = shared
        if evaluation:
            self.state.helpers.add("eval_sampler")
            sampler = call_named(EVAL_SAMPLER, cst.Arg(dataset))
            what = f"{label} evaluates a disjoint slice per rank (ddp_eval_sampler)"
            if shuffled:
                what += "; shuffle dropped: the order does not change summed figures"
                said_early_exit(self, loader, label, call)
        else:
            value = shuffle.deep_clone() if shuffle is not None else cst.Name("False")
            kind = SAMPLER
            if not (isinstance(value, cst.Name) and value.value == "True"):
                kind = DDP_DISTRIBUTED_SAMPLER  # lists no index in sequential order
                self.state.helpers.add("distributed_sampler")
            sampler = call_named(kind, *sampler_args(call, dataset, value))
            what = f"{label} sharded with {kind}(shuffle={self.code(value)})"
        hidden = [a.value for a in call.args if a.star == "**"]
        if "batch_size" not in args:
            for value in hidden:
                keys = self._kwargs_keys(value)
                if keys is None or "batch_size" in keys:
                    self.warn(value, "DP013", f"batch_size may come from **{self.code(value)}")
                    break
            else:
                what += "; no batch_size: each process loads 1 sample, the global batch is "
                what += "WORLD_SIZE"
        if own is not None:
            self._samplers[own.call] = sampler
            drop_import(self, own.call.func)
            what += f" in place of {self.code(own.call)}"
            edit = self._edits[call] = CallEdit(None, None, None)
        else:
            replace = args.get("shuffle", args.get("sampler"))
            drop = args.get("sampler") if "shuffle" in args else None
            edit = self._edits[call] = CallEdit(sampler, replace, drop)
        if hoisted is not None:
            edit.dataset = (args["dataset"], hoisted)
        self.record(call, what)
        if "batch_size" in args:
            self._plan_batch(loader, edit)
        if evaluation:
            self._plan_eval(loader)
            self._warn_running_figures(loader)
            return
        self._plan_train_metrics(loader)
        self._warn_running_figures(loader)
        before = len(self.state.exports)
        exported = (shuffled or not handed) and self._export(loader, self._all_loaders, shuffled)
        # `corpus.get_train_loader()` trained on elsewhere: exported by its method's name,
        # so its importers' set_epoch counts (NMT's `dataset.get_loader(...)`, round 14 v2-G)
        trained = export_trained(self, loader)
        names = {e.name for e in self.state.exports[before:]} | ({trained} if trained else set())
        if exported and not names and (builder := enclosing_function(call, self)) is not None:
            names = {builder.name.value}  # another branch's loader exported it alike first
        exported = exported or (shuffled and trained is not None and not loader.loops)
        told = names & set(self.state.loaders.epochs_set)
        if shuffled and not self._plan_set_epoch(loader, exported, bool(told)):
            extra = [keyword("advance_epoch", cst.Name("True"))]
            rebuilt = self.rebuilt_key(loader)
            if rebuilt is not None:
                extra.append(keyword("rebuilt", cst.SimpleString(f'"{rebuilt}"')))
            advancing = call_named(DDP_DISTRIBUTED_SAMPLER, *sampler.args, *extra)
            if own is not None:
                self._samplers[own.call] = advancing
            else:
                edit.sampler = advancing
            self.state.helpers.add("distributed_sampler")
            self.record(
                call,
                f"{label} moves to the next epoch on each pass by itself "
                f"({DDP_DISTRIBUTED_SAMPLER}(advance_epoch=True))",
            )
        elif kind == SAMPLER:
            # Only a plain DistributedSampler(...) names it: DdpDistributedSampler is a
            # helper (its own module imports what it subclasses), and an import that no
            # line uses is a lint finding the migration would add (ruff F401).
            AddImportsVisitor.add_needed_import(
                self.context, "torch.utils.data.distributed", SAMPLER
            )

    # == rewriting ======================================================================
    def _in_forward(self, call: cst.Call) -> bool:
        """`call` is in a class's forward(): a DataLoader over what the model is given
        (sub-batches of its input, to bound memory), which is this rank's part already
        (round 35, zihaohe123/speak-turn-emb-dialog-act-clf@85e5a0f's `--emb_batch`: it
        was sharded again, each rank embedded half its rows and stopped at a shape
        mismatch). Left whole."""
        function = enclosing_function(call, self)
        return (
            function is not None
            and function.name.value == "forward"
            and enclosing_class(function, self) is not None
        )

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.Call | cst.Name:
        updated_node = self._factory_sites.leave_call(original_node, updated_node)
        shard = self._shards.get(original_node)
        if shard is not None:
            return self._shard(original_node, updated_node, shard)
        if original_node in self._samplers:
            return self._samplers[original_node].with_changes(
                lpar=updated_node.lpar, rpar=updated_node.rpar
            )
        edit = self._edits.get(original_node)
        if edit is None:
            return updated_node
        args = list(updated_node.args)
        for change in (edit.batch, edit.dataset, *edit.extra):
            if change is not None:
                index, value = change
                args[index] = args[index].with_changes(value=value)
        if edit.sampler is not None:
            sampler_arg = keyword("sampler", edit.sampler, like=args)
            if edit.replace is not None:
                args[edit.replace] = sampler_arg.with_changes(comma=args[edit.replace].comma)
            else:
                at = next((i for i, a in enumerate(args) if a.star), len(args))
                args = insert_arg(args, at, sampler_arg, updated_node.whitespace_before_args)
        if edit.drop is not None:
            args = remove_arg(args, edit.drop)
        rewritten = updated_node.with_changes(args=args)
        if self._too_long(original_node, rewritten) or self._factory_sites.spread(
            original_node, rewritten
        ):
            rewritten = one_per_line(rewritten, self._indent)
        return rewritten

    def _shard(self, original: cst.Call, node: cst.Call, shard: ShardEdit) -> cst.Call:
        if shard.arguments is not None:
            return node.with_changes(args=[cst.Arg(shard.arguments, star="**")])
        args = list(node.args)
        key = "sampler" if is_sampler_shard(shard) else "batch_sampler"
        args[shard.replace] = args[shard.replace].with_changes(
            keyword=cst.Name(key), value=shard.wrapper
        )
        if shard.batch is not None:
            index, per_rank = shard.batch
            args[index] = args[index].with_changes(value=per_rank)
        for index in sorted(shard.drop, reverse=True):
            args = remove_arg(args, index)
        rewritten = node.with_changes(args=args)
        written = "".join(self.code(a) for a in original.args)
        spread = (
            "\n" in written
            and "#" not in written
            and any(
                len(line) > LINE_LIMIT - len(self._indent)
                for line in self.code(rewritten).split("\n")
            )
        )
        if spread or self._too_long(original, rewritten):
            rewritten = one_per_line(rewritten, self._indent)
        return rewritten

    def _too_long(self, original: cst.Call, rewritten: cst.Call) -> bool:
        """`x = DataLoader(...)` with all arguments on one line, which the new ones push past
        the line limit. Arguments on lines of their own, or with comments, stay as written."""
        if not isinstance(self.parent(original), (cst.Assign, cst.AnnAssign)):
            return False
        arguments = "".join(self.code(a) for a in original.args).strip()
        if "\n" in arguments or "#" in arguments:
            return False
        position = self.get_metadata(PositionProvider, original)
        source = self._lines[position.start.line - 1 : position.end.line]
        old, new = self.code(original).split("\n"), self.code(rewritten).split("\n")
        if not len(source) == len(old) == len(new):
            return False
        return any(
            len(line) - len(before) + len(after) > max(LINE_LIMIT, len(line))
            for line, before, after in zip(source, old, new, strict=True)
        )

    def leave_AugAssign(
        self, original_node: cst.AugAssign, updated_node: cst.AugAssign
    ) -> cst.AugAssign:
        if original_node not in self._global_counts:
            return updated_node
        return updated_node.with_changes(
            value=call_named(GLOBAL_COUNT, cst.Arg(updated_node.value))
        )

    def leave_FunctionDef(
        self, original_node: cst.FunctionDef, updated_node: cst.FunctionDef
    ) -> cst.FunctionDef:
        return self._factory_sites.leave_function(original_node, updated_node)

    def leave_For(self, original_node: cst.For, updated_node: cst.For) -> cst.For:
        name = self._renames.get(original_node)
        if name is not None:
            updated_node = updated_node.with_changes(target=cst.Name(name))
        top = self._top.get(original_node)
        if top and isinstance(updated_node.body, cst.IndentedBlock):
            body = updated_node.body
            updated_node = updated_node.with_changes(
                body=body.with_changes(body=[*top, *body.body])
            )
        return updated_node

    def leave_IndentedBlock(
        self, original_node: cst.IndentedBlock, updated_node: cst.IndentedBlock
    ) -> cst.IndentedBlock:
        body = self._splice(original_node.body, updated_node.body)
        return updated_node if body is None else updated_node.with_changes(body=body)

    def leave_Module(self, original_node: cst.Module, updated_node: cst.Module) -> cst.Module:
        self.state.loaders_placed = True  # the later passes' uniformity (alike_evaluations)
        body = self._splice(original_node.body, updated_node.body)
        return updated_node if body is None else updated_node.with_changes(body=body)

    def _splice(
        self,
        original: Sequence[cst.BaseStatement],
        updated: Sequence[cst.BaseStatement],
    ) -> list[cst.BaseStatement] | None:
        if not any(s in self._before or s in self._after for s in original):
            return None
        body: list[cst.BaseStatement] = []
        for old, new in zip(original, updated, strict=True):
            hoisted = self._before.get(old, [])
            if hoisted and isinstance(new, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
                # Comments above the statement now introduce the new first line.
                body.append(hoisted[0].with_changes(leading_lines=new.leading_lines))
                body.extend(hoisted[1:])
                new = new.with_changes(leading_lines=[])
            body.append(new)
            body.extend(self._after.get(old, []))
        return body
