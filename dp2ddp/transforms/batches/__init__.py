"""Split training batches that do not come from a DataLoader, as DataParallel did.

DataParallel cut whatever batch reached the wrapped model along its `dim` and gave GPU r
the r-th contiguous part. Under DDP only a sampler shards data, so a training loop fed by
anything else (an iterator object, a generator, `range` with slices of a tensor, a
`get_batch(source, i)` helper) would train every rank on the same batches. This pass finds
those loops (loops calling `.backward()`/`optimizer.step()`, whatever module they are in)
and gives each rank its part of every global batch, along DataParallel's `dim` (the wrap's
`dim=`, 0 where not given or where the wrap is in another module of the program):

* a loop whose target receives the batch (`for x, y in batches`, `for i, (data, target,
  n) in enumerate(it)`): first thing in the body,
  `x, y = ddp_shard_batch((x, y), dim=D)`: every tensor of the batch is cut along D, inputs
  and targets together (templates/helpers/shard_batch.py.j2; it raises where the tensors
  disagree along D, so a misaligned split cannot pass in silence); where the loop's iterable
  can be read again as the same object (`batches`, `self.data.fit`, `loaders["train"]`), the
  split is handed it, `source=batches`, and passes a batch on as it is where that object's
  sampler shards already (a DataLoader another module's migration sharded, reached by a
  spelling the proof does not follow: an object's attribute, a copy): never split twice;
* a `range` loop whose body builds the batch in a statement of its own
  (`xb, yb = X[i:i + bs], Y[i:i + bs]`, `x, y = next(it)`, `data, t = get_batch(src, i)`),
  or a `while` loop's `x, y = next(it)`: the same split right after that statement;
* a `get_batch(source, i)` helper of this module that reshapes what it returns (word
  language models flatten the targets, `source[i+1:i+1+n].view(-1)`, so a split of its
  result would not keep inputs and targets aligned): the split happens at the source
  instead, `get_batch(ddp_shard_batch(source, dim=D), i)`, which is only right when the
  helper steps along another dimension than D (it slices rows, D is 1: a (sequence, batch)
  tensor whose columns are the batch). The batch size the source was batchified with
  (`source = batchify(data, B)`) then sizes per-batch state in the loop's function
  (`model.init_hidden(B)`): each rank holds B // WORLD_SIZE columns, so it becomes
  `ddp_per_rank_batch(B)`.

A batch split where it is bound may still be walked in chunks of the global width
(`for start in range(0, B, chunk): data[:, start:start + chunk]`, MoS's `while start <
args.batch_size`, `zip(data.chunk(k, 1), ...)`): the width, the chunk size and a weight
measured on the chunk take this rank's part (analysis/chunk_sizes.py, shared with the data
pass), a weight `chunk / B` is kept as the ratio it is. A model output indexed at a
position of the global batch (`probs[j * B]`, `range(B)` over its rows, B a sharded
loader's batch size) reads B per rank; a position counted over the dataset: DP060.

With `--per-process-batch` each rank takes whole batches in turn instead
(`for x, y in ddp_rank_batches(batches)`): the batch keeps its per-process size and the
global batch is WORLD_SIZE of them, as for DataLoaders.

Where the split cannot be shown right, DP037 names the loop's iterable and nothing is
changed (slices inside expressions, a helper this module cannot see, a helper that
reshapes along the split dimension, targets that are not plain names, a `dim` that is not
a literal). Loops over DataLoaders are the data pass's; evaluation loops (no backward)
are left whole: every rank evaluates everything, and the figures are the original's.
"""

from __future__ import annotations

import libcst as cst

from dp2ddp.flow import origins, view
from dp2ddp.transforms._support.names import (
    DATALOADER,
    DATAPARALLEL,
    DISTRIBUTED_DATA_PARALLEL,
)
from dp2ddp.transforms._support.nodes import (
    ModuleNodes,
    call_named,
    counts,
    iterated,
    name_of,
    target_names,
    variables_under,
    walk,
)
from dp2ddp.transforms.analysis.chunk_sizes import ChunkPlan, plan_body
from dp2ddp.transforms.batches.after_loop import warn_picks_after_loop
from dp2ddp.transforms.batches.fed import fed_loader, plan_fed
from dp2ddp.transforms.batches.fixed_norms import warn_fixed_norm_calls
from dp2ddp.transforms.batches.global_reshape import global_reshapes
from dp2ddp.transforms.batches.handed_on import handed_on
from dp2ddp.transforms.batches.loops import (
    PER_RANK,
    ROUNDS,
    SAME_RANDOM,
    SHARD,
    _plain_target,
    _slices_with,
    _values,
    cuts_with,
    straight_statements,
)
from dp2ddp.transforms.batches.output_indices import plan_output_indices
from dp2ddp.transforms.batches.pulled import warn_unreached_pulls
from dp2ddp.transforms.batches.reordered import axes_moved
from dp2ddp.transforms.batches.returned_wraps import (
    hinted_stored_wraps,
    returned_wraps,
    stored_wraps,
)
from dp2ddp.transforms.batches.squeezes import BatchSqueezes
from dp2ddp.transforms.batches.summed import keep_summed_losses
from dp2ddp.transforms.batches.while_counters import warn_unsplit_while_loops
from dp2ddp.transforms.batches.yielded import from_sharded_loader
from dp2ddp.transforms.data.plan import Loader

#: Methods that change a tensor's shape: a helper returning their result may not keep the
#: batch along its dimension.
_RESHAPES = frozenset(
    {"view", "reshape", "flatten", "t", "transpose", "permute", "squeeze", "unsqueeze"}
    | {"view_as", "reshape_as", "contiguous_view", "unflatten", "movedim", "swapaxes"}
)

__all__ = ["PER_RANK", "ROUNDS", "SHARD", "ShardBatches"]


class ShardBatches(BatchSqueezes):
    """Reads loaders as the data pass does (LoaderImports: bindings, calls, loaders of other
    modules), to leave loops over DataLoaders to it; changes nothing of theirs."""

    NAME = "batches"
    DESCRIPTION = (
        "Split training batches that do not come from a DataLoader along DataParallel's dim."
    )
    TRIGGERS = ("backward", ".step(")

    def visit_Module(self, node: cst.Module) -> bool:
        #: statement -> statements to insert after it; loop -> statements at its top
        self._split_after: dict[cst.CSTNode, list[cst.BaseStatement]] = {}
        self._split_top: dict[cst.For, list[cst.BaseStatement]] = {}
        #: expressions replaced by a new one (iterables, sources, batch-size arguments)
        self._swap: dict[cst.CSTNode, cst.BaseExpression] = {}
        if not self.state.has_dataparallel and self.state.program is None:
            return False
        self._module: cst.Module | None = node
        self._fed = None
        nodes = ModuleNodes(node)
        self.index(nodes)
        self._models = list(self.state.wrapped) or self._migrated_wraps(nodes)
        self._models += returned_wraps(nodes, self._models)
        self._models += stored_wraps(nodes, self._models, self._is_dp)
        if not self._models:  # a trainer class another module hands the wrap
            self._models += hinted_stored_wraps(node, self.state.hints.wrap_reaches)
        self._loader_calls = {
            c: Loader(c, {}, *self._binding(c), None)
            for c in self._calls
            if self.matches(c.func, DATALOADER)
        }
        self._functions = {n.name.value: n for n in node.body if isinstance(n, cst.FunctionDef)}
        self._definitions: dict[str, cst.FunctionDef | cst.ClassDef] = {
            n.name.value: n for n in node.body if isinstance(n, (cst.FunctionDef, cst.ClassDef))
        }
        dims = set(self.state.scatter_dims)
        self._wraps_here = bool(dims)
        if not dims:  # a module of a program that does not wrap: the program's wraps
            dims = set(self.state.hints.scatter_dims)
        self._dim: int | None = 0
        self._dim_text = "0"
        if dims:
            (text,) = dims if len(dims) == 1 else (None,)
            self._dim = int(text) if text is not None and text.isdigit() else None
            self._dim_text = text if text is not None else " / ".join(sorted(dims))
        self._known = bool(dims)
        handled = self._planned = list[cst.For | cst.While]()  # settled by the planners
        self._warned: set[cst.CSTNode] = set()
        self._unproved: set[str] = set()  # the codes saying a batch is not proved split
        self._split_calls: set[cst.Call] = set()  # the proof's verdicts (batches/summed.py)
        self._whole_calls: dict[cst.Call, str] = {}
        self._same_random: set[cst.CSTNode] = set()
        self._rows_owned: dict[tuple[int, int, int | None], bool] = {}  # _own_rows's
        self._loops_train: dict[cst.For | cst.While, bool] = {}
        self._split_loops: list[cst.For | cst.While] = []
        self._module_node = node  # the figure rule's (LoaderEvaluation)
        for loop in nodes.of((cst.For, cst.While)):
            if any(self._inside(loop, outer) for outer in handled):
                continue
            if not self._trains(loop):
                continue
            header = loop.iter if isinstance(loop, cst.For) else loop.test
            if SHARD in self.code(loop.body) or ROUNDS in self.code(header):
                handled.append(loop)  # migrated before: a fixed point
                continue
            # a while loop's batches (`x, y = next(it)`, `xb = X[n * bs:(n + 1) * bs]`) are
            # the proof's (`_prove`): split where they enter the loop
            planned = isinstance(loop, cst.For) and self._plan_loop(loop)
            if planned:
                handled.append(loop)
        if self._dim is not None:
            self._prove(node, nodes)
            warn_unsplit_while_loops(self, nodes)  # after the proof: where it split nothing
            warn_unreached_pulls(self, node, set(self._models))  # pulls the proof left
            self._plan_chunks()
            plan_output_indices(self, nodes)
            self._warn_batch_positions(nodes)
            warn_picks_after_loop(self, nodes)
            warn_fixed_norm_calls(self, node, nodes)
            self._keep_batch_dims(nodes)
        self._draw_whole_alike(nodes)  # after the proof: its splits draw alike already
        self._share_shuffles(nodes)
        self._augment_alike(nodes)
        self._warn_split_figures()
        keep_summed_losses(self, nodes)
        return True

    def _is_dp(self, node: cst.CSTNode) -> bool:
        """A wrap: DataParallel, or the DDP call the model pass made of one."""
        return isinstance(node, cst.Call) and (
            self.matches(node.func, DATAPARALLEL)
            or self.matches(node.func, DISTRIBUTED_DATA_PARALLEL)
        )

    def _plan_chunks(self) -> None:
        """Chunks of a global size cut from a batch split where it is bound (a language
        model's column chunks: `for start in range(0, B, chunk): x = data[:, start:start +
        chunk]`, the loss weighted `chunk / B`): each rank would walk the global width B
        over its B // WORLD_SIZE columns, its chunks past its part empty, and the gradient
        would shrink by WORLD_SIZE in silence. The chunk size and the width take this
        rank's part (analysis/chunk_sizes.py, as the data pass reads chunks of a sharded
        loader's batch): each rank runs the original's count of chunks, each its part of
        DataParallel's chunk, and the weight `chunk / B` is the same ratio. DP051 where
        that cannot be shown."""
        if self._dim is None or self.state.options.per_process_batch:
            return
        splits = self._split_places()
        plan = ChunkPlan()
        for loop, names in splits:
            where = f"the loop at line {self._position(loop)[0]}"
            body = list(walk(loop.body, skip_scopes=True))
            plan_body(self, plan, body, names, where, dim=self._dim, extents=True)
        for read, swapped in plan.swaps.items():
            self._swap.setdefault(read, swapped)
        for chunk, detail in plan.warnings:
            self.warn(chunk, "DP051", detail)
        for division, detail in plan.figures:
            self.warn(division, "DP106", detail)
        for chunk, description in plan.records:
            self.record(chunk, description)

    def _migrated_wraps(self, nodes: ModuleNodes) -> list[str]:
        """The models a module migrated before wraps in DistributedDataParallel (`model =
        DistributedDataParallel(...)`): its wrapped models, so that migrating it again
        plans what its first migration planned and nothing more (a fixed point)."""
        return [
            self.code(t.target)
            for n in nodes.of(cst.Assign)
            if isinstance(n.value, cst.Call)
            and self.matches(n.value.func, DISTRIBUTED_DATA_PARALLEL)
            for t in n.targets
        ]

    def _plan_loop(self, loop: cst.For) -> bool:
        """Plan the split of one training loop; True when it is settled (split or warned)."""
        sources = iterated(loop.iter)
        seen = [u for s in sources for u in self._unwrapped(s, 0)]
        if any(counts(s) for s in seen):
            return self._plan_range_loop(loop)
        fed = fed_loader(self, loop, seen)
        if fed is None and any(self._is_loader(s) for s in seen):
            if any(self._is_loader(s, named=False) for s in seen) or not self._foreign_held(loop):
                return True  # the data pass shards it (or warns)
            # Named like a loader, not proved one the data pass shards, held by an object
            # of another module's class (`t.loader`, which that module left whole finding no
            # loop of its own: round 38's mks0601/3DMPPE_POSENET_RELEASE@dd025c5 trainer,
            # every rank trained on every batch): split at the loop, `source=` passing a
            # batch on where the object's sampler shards already
        if fed is not None and fed.sharded:
            return plan_fed(self, loop, fed)
        if self._models and not self._feeds_wrapped(loop.body):
            return False
        iterable = self.code(self._batch_source(loop.iter))
        batch = self._batch_target(loop)
        if batch is not None and _plain_target(batch):
            used = {n.value for n in variables_under(loop.body)}
            if not target_names(batch) & used:
                return False  # a step count, not a batch (`for step in bar:`)
            if _receiver_only(loop, target_names(batch)):
                return False  # `for opt in opts: opt.step()`, `for loss in losses: ...`
            if self._models and not self._reaches_model(batch):
                # a phase name (`for phase in ["train", "val"]:` selecting
                # `loaders[phase]`), a key: no model is given it as data (the proof
                # follows what the model is given)
                return False
        if batch is None or not _plain_target(batch):
            self._warn(loop, iterable, "the loop's batch is not bound to plain names")
            return True
        if self._dim is None:
            self._warn(loop, iterable, f"DataParallel's dim is {self._dim_text}")
            return True
        if self._taken_whole(loop, iterable, target_names(batch)):
            return True
        unfollowed = handed_on(self._module, loop, seen) if self._module is not None else None
        if unfollowed is not None:
            self._warn(loop, iterable, unfollowed)
            return True
        self._split_top[loop] = [self._loop_top_split(loop, batch)]
        self.state.helpers.add("shard_batch")
        self.record(loop, f"every batch of {iterable} split {self._along()}: {self._each()}")
        for reshape, detail in global_reshapes(loop.body, set(self._models), self.code):
            self.warn(reshape, "DP085", detail)  # stop 34, M1
        return True

    def _foreign_held(self, loop: cst.For) -> bool:
        """The loop iterates an attribute of an object every binding of which is built by
        an imported class (`engine.batches` after `engine = Engine()`, Engine another
        module's): a loader that module keeps, which its own data pass leaves whole where
        no loop of its iterates it (DP015 there). Re-readable, so the split is guarded."""
        source = self._batch_source(loop.iter)
        if not isinstance(source, cst.Attribute) or self._guard_source(loop) is None:
            return False
        root: cst.BaseExpression = source
        while isinstance(root, cst.Attribute):
            root = root.value
        if not isinstance(root, cst.Name) or self._module is None:
            return False
        flow = view(self._module)
        built = [d.value for d in flow.definitions(root)]
        return bool(built) and all(
            isinstance(v, cst.Call)
            and flow.imported_root(v.func)
            and name_of(v.func).rpartition(".")[2][:1].isupper()
            for v in built
        )

    def _taken_whole(self, loop: cst.For, iterable: str, names: set[str]) -> bool:
        """True where the loop's batches are not split: micro-batches cut from them (DP037,
        said) or --per-process-batch (each rank takes whole batches in turn)."""
        micro = self._micro_batches(loop, names)
        if micro is not None:
            self._warn(loop, iterable, micro)
            return True
        if self.state.options.per_process_batch:
            self._rounds(loop, iterable)
            return True
        return False

    def _plan_range_loop(self, loop: cst.For) -> bool:
        counters = target_names(loop.target)
        if not counters:
            return False
        iterable = self.code(self._batch_source(loop.iter))
        producers: list[tuple[cst.SimpleStatementLine, cst.Assign]] = []
        selectors: list[cst.Assign] = []
        for statement, nested in straight_statements(loop.body):
            assign = statement.body[0]
            cut = isinstance(assign, cst.Assign) and cuts_with(assign.value, counters)
            if len(statement.body) != 1 or nested and not cut:
                continue  # in a block: only a cut (`next(it)` there is the proof's)
            if isinstance(assign, cst.Assign) and self._produces(assign.value, counters):
                if self._selects_only(assign, loop):
                    selectors.append(assign)
                else:
                    producers.append((statement, assign))
        produced = {id(assign.value) for _, assign in producers}
        fed = bool(self._models) and self._feeds_wrapped(loop.body)  # its model calls known
        inline = [
            n
            for n in walk(loop.body)
            if isinstance(n, cst.Subscript)
            and _slices_with(n, counters)
            and not any(
                n is value or self._inside(n, value) for value in _values(producers, produced)
            )
            and not any(self._inside(n, selector) for selector in selectors)
            # a slice no model of this loop is given (a buffer of figures read per epoch)
            and (not fed or self._reaches_model(n))
        ]
        if not producers:
            if inline:
                what = f"{self.code(inline[0])} is sliced inside an expression"
                self._warn(loop, iterable, what)
                return True
            return False  # not a loop over batches (an epoch loop, say): look inside
        if self._dim is None:
            self._warn(loop, iterable, f"DataParallel's dim is {self._dim_text}")
            return True
        if inline:
            self._warn(loop, iterable, f"{self.code(inline[0])} is sliced inside an expression")
            return True
        for _, assign in producers:
            if not all(_plain_target(t.target) for t in assign.targets):
                self._warn(loop, iterable, "the batch is not bound to plain names")
                return True
            helper = self._helper(assign.value, counters)
            if isinstance(helper, cst.FunctionDef) and self._reshapes(helper):
                if self._split_at_source(assign.value):
                    return True  # migrated before: a fixed point
                if self._dim == 0:
                    self._warn(
                        loop,
                        iterable,
                        f"{helper.name.value}() reshapes the batch it slices along dim 0",
                    )
                    return True
            elif helper is False:
                call = assign.value
                assert isinstance(call, cst.Call)
                why = (
                    "is a method; where it cuts the batch is not followed"
                    if isinstance(call.func, cst.Attribute)
                    else "is not defined in this module"
                )
                self._warn(loop, iterable, f"{self.code(call.func)}() {why}")
                return True
        names = {n for _, a in producers for t in a.targets for n in target_names(t.target)}
        if self._taken_whole(loop, iterable, names):
            return True
        if axes_moved(loop, names):
            return False  # `data = data.t()` before the model: the proof splits at the call
        for statement, assign in producers:
            helper = self._helper(assign.value, counters)
            if isinstance(helper, cst.FunctionDef) and self._reshapes(helper):
                continue  # split at its source by the proof (`_split_source_of`)
            target = assign.targets[-1].target
            self._split_after.setdefault(statement, []).extend(self._split_binding(assign))
            self.state.helpers.add("shard_batch")
            self._draw_alike(statement, assign)
            self.record(
                statement,
                f"{self.code(target)} (a batch of {iterable}) split {self._along()}: "
                f"{self._each()}",
            )
        return True

    def _selects_only(self, assign: cst.Assign, loop: cst.For) -> bool:
        """The statement binds an index array (`idx = perm[i:i + bs]`) the loop only uses
        to select the batch (`X[idx]`): the batch is what it selects (split by the proof,
        `_prove`), not the index array (which ddp_shard_batch, splitting tensors, may
        not even cut)."""
        names = {n for t in assign.targets for n in target_names(t.target)}
        uses = [
            n
            for n in walk(loop.body)
            if isinstance(n, cst.Name) and n.value in names and not self._inside(n, assign)
        ]
        return bool(uses) and all(
            any(isinstance(a, cst.SubscriptElement) for a in self._ancestors_to(n, loop))
            for n in uses
        )

    def _micro_batches(self, loop: cst.For | cst.While, names: set[str]) -> str | None:
        """A batch cut into micro-batches of a fixed size by an inner loop (`for j in
        range(0, len(xb), 4): model(xb[j:j + 4])`): split, each rank would run fewer of
        them, and gradients summed over them would shrink by WORLD_SIZE."""
        inner = {
            name
            for n in walk(loop.body)
            if isinstance(n, cst.For) and any(counts(s) for s in iterated(n.iter))
            for name in target_names(n.target)
        }
        for n in walk(loop.body):
            if (
                isinstance(n, cst.Subscript)
                and isinstance(n.value, cst.Name)
                and n.value.value in names
                and _slices_with(n, inner)
            ):
                return (
                    f"{n.value.value} is cut into micro-batches of a fixed size "
                    f"({self.code(n)}): split, each rank would run fewer of them"
                )
        return None

    def _next_of_batches(self, value: cst.BaseExpression) -> bool:
        """`next(it)` of something that is not a DataLoader, nor fed by one the data pass
        sharded: the proof's question (yielded.from_sharded_loader)."""
        return (
            isinstance(value, cst.Call)
            and isinstance(value.func, cst.Name)
            and value.func.value == "next"
            and bool(value.args)
            and not any(self._is_loader(u) for u in self._unwrapped(value.args[0].value, 0))
            and not from_sharded_loader(self, self._module, value)
        )

    def _produces(self, value: cst.BaseExpression, counters: set[str]) -> bool:
        """The statement builds the batch: slices with the loop counter, `next(it)`, or a
        call given the counter (`get_batch(source, i)`)."""
        parts = value.elements if isinstance(value, cst.Tuple) else [value]
        for part in parts:
            part_value = part.value if isinstance(part, cst.Element) else part
            if isinstance(part_value, cst.Subscript) and _slices_with(part_value, counters):
                return True
        if isinstance(value, cst.Call):
            if name_of(value.func) == "next" and isinstance(value.func, cst.Name):
                return self._next_of_batches(value)
            if not any(v.value in counters for a in value.args for v in variables_under(a.value)):
                return False
            helper = self._helper(value, counters)
            if isinstance(helper, cst.FunctionDef):  # it slices what it is given
                return any(
                    isinstance(n, cst.Subscript)
                    and bool(n.slice)
                    and isinstance(n.slice[0].slice, cst.Slice)
                    for n in walk(helper.body)
                )
            return "batch" in name_of(value.func).lower()
        return False

    def _helper(
        self, value: cst.BaseExpression, counters: set[str]
    ) -> cst.FunctionDef | bool | None:
        """For `get_batch(source, i)`: its definition in this module, False where it is
        not one; None when the statement is not such a call."""
        if not isinstance(value, cst.Call) or (
            isinstance(value.func, cst.Name) and value.func.value == "next"
        ):
            return None
        if isinstance(value.func, cst.Name) and value.func.value in self._functions:
            return self._functions[value.func.value]
        return False

    def _split_at_source(self, value: cst.BaseExpression) -> bool:
        """`get_batch(source, i)` given a source bound only to `ddp_shard_batch(...)`: the
        split placed at its source (`_split_source_of`) by an earlier run."""
        if self._module is None or not isinstance(value, cst.Call):
            return False
        flow = view(self._module)
        for arg in value.args:
            found = [
                o
                for o in origins(flow, arg.value, lambda c: name_of(c.func) == SHARD)
                if not o.selects
            ]
            if found and all(
                isinstance(o.node, cst.Call) and name_of(o.node.func) == SHARD for o in found
            ):
                return True
        return False

    def _reshapes(self, function: cst.FunctionDef) -> bool:
        return any(
            isinstance(n, cst.Call)
            and isinstance(n.func, cst.Attribute)
            and n.func.attr.value in _RESHAPES
            for n in walk(function.body)
        )

    def _rounds(self, loop: cst.For, iterable: str) -> None:
        source = self._batch_source(loop.iter)
        self._split_loops.append(loop)
        self._swap[source] = call_named(ROUNDS, cst.Arg(source.deep_clone()))
        self.state.helpers.add("rank_batches")
        self.record(
            loop,
            f"batches of {iterable}: each rank takes whole batches in turn "
            "(--per-process-batch: the global batch is WORLD_SIZE of them)",
        )

    def _warn(self, loop: cst.For | cst.While, iterable: str, why: str) -> None:
        self._warned.add(loop)
        self._unproved.add("DP037")
        self.warn(loop, "DP037", f"{iterable} ({why}); every rank trains on every batch")

    def on_leave(  # type: ignore[override]  # any node may become a FlattenSentinel
        self, original_node: cst.CSTNode, updated_node: cst.CSTNode
    ) -> cst.CSTNode | cst.RemovalSentinel | cst.FlattenSentinel[cst.CSTNode]:
        replacement = self._swap.get(original_node)
        if replacement is not None and isinstance(updated_node, cst.BaseExpression):
            return replacement.with_changes(lpar=updated_node.lpar, rpar=updated_node.rpar)
        top = self._split_top.get(original_node)  # type: ignore[call-overload]
        if (
            top
            and isinstance(updated_node, cst.For)
            and isinstance(updated_node.body, cst.IndentedBlock)
        ):
            body = updated_node.body
            updated_node = updated_node.with_changes(
                body=body.with_changes(body=[*top, *body.body])
            )
        planned = self._before or self._after  # most modules: nothing to look up
        before = self._before.get(original_node, []) if planned else []  # type: ignore[call-overload]
        after = self._after.get(original_node, []) if planned else []  # type: ignore[call-overload]
        if (before or after) and isinstance(
            updated_node, (cst.SimpleStatementLine, cst.BaseCompoundStatement)
        ):
            # a split loop's running sums averaged where read (data/mean_sums.py)
            lead = updated_node.leading_lines if before else ()
            first = [before[0].with_changes(leading_lines=lead), *before[1:]] if before else []
            kept = updated_node.with_changes(leading_lines=()) if before else updated_node
            return cst.FlattenSentinel([*first, kept, *after])
        if top:
            return updated_node
        statement: cst.CSTNode = updated_node
        if original_node in self._same_random and isinstance(
            updated_node, (cst.SimpleStatementLine, cst.BaseCompoundStatement)
        ):
            statement = cst.With(
                items=[cst.WithItem(cst.Call(func=cst.Name(SAME_RANDOM)))],
                body=cst.IndentedBlock(body=[updated_node.with_changes(leading_lines=[])]),
                leading_lines=updated_node.leading_lines,
            )
        after = self._split_after.get(original_node)
        if after and isinstance(updated_node, cst.SimpleStatementLine):
            return cst.FlattenSentinel([statement, *after])  # a drawn batch: split after
        if statement is not updated_node:
            return statement
        return super().on_leave(original_node, updated_node)


def _receiver_only(loop: cst.For, names: set[str]) -> bool:
    """Every read of the loop's target `names` in its body is the receiver of a method call
    whose value is dropped (a statement of its own: `opt.step()`, `loss.scale_loss(f)`,
    `loss.backward(retain_graph=True)`): no value of the element flows anywhere, so none
    reaches a model's call as data, and the element is no batch (an optimizer, a loss
    object). Round 12 v1-D (adntjr4/denoising_practice@b53363d): a loop over a dict of
    optimizers got `opt = ddp_shard_batch(opt)` before `opt.step()`; round 25 ra
    (i-machine-think/machine@d78d70e): a loop over loss objects in a trainer module that
    holds no wrap got `loss = ddp_shard_batch(loss)`, which crashed on the 0-dim loss the
    object held, or cut a per-sample loss vector it held to this rank's half, silently."""
    reads = [n for n in walk(loop.body) if isinstance(n, cst.Name) and n.value in names]
    receivers = {
        id(n.value.func.value)
        for n in walk(loop.body)
        if isinstance(n, cst.Expr)
        and isinstance(n.value, cst.Call)
        and isinstance(n.value.func, cst.Attribute)
    }
    return bool(reads) and all(id(n) in receivers for n in reads)
