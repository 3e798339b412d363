"""Warn about what DDP changes and dp2ddp cannot convert safely.

It runs on the user's own code (positions are theirs) and changes one thing: a loss summed
over the batch is multiplied by WORLD_SIZE where it is backpropagated (see hazards.losses;
`keep_summed_loss` leaves it, warned). Each check is narrow on purpose; a warning must
point at a real difference between one DataParallel process and WORLD_SIZE DDP processes:

- DP004 a loss reduced with sum that is not scaled (see hazards.losses); a `.sum()` sums
  the batch only where it sums dim 0 of a tensor no reduction took dim 0 from.
- DP059 a batch mean under a non-linear function (a mean prediction's entropy) or offsetting
  per-sample terms (a baseline) in a loss: each rank's is its share's (hazards.losses).
- DP043 a mean loss whose denominator the data decides (`ignore_index=`, class `weight=`,
  a mean over a masked selection): each rank averages over its own count (see
  hazards.mean_losses, hazards.masked_means).
- DP005 `X[i:i+bs]` indexed by a counter in a training `while` loop: every rank would train
  on the same samples (a `for` loop's are split by transforms/batches.py, or warned DP037).
- DP006 torch/numpy/random draws inside a training loop (one warning per call), also
  through a project helper the loop calls (see hazards.draws). DP007 `forward()` changing
  state on `self`.
- DP008 BatchNorm layers (once; DP017 with --sync-batchnorm); DP010 CUDA_VISIBLE_DEVICES set.
- DP063 the wrapped model's state written from its output (hazards.output_state).
- DP040 a loss comparing samples across the batch (hazards.pairs); DP115 code outside a
  partial wrap that did so, DP116 a criterion of a class not known statically (sub_wraps);
  DP217 a wrapped model whose own forward() couples its batch's rows (coupled_forwards).
- DP071 a loss dividing one sum over the batch by another (Dice, IoU): each rank's ratio
  over its part, averaged, is not the whole batch's (hazards.batch_ratios: also sums over
  the dims a permute or view moved the rows to, analysis.batch_axis).
- DP070 `torch.save` of an object holding a wrapped model itself (not its `.module` or
  state_dict): the migrated file pickles the DDP object, which loads only in a process group.
  `torch.save(net, path)` (or a dict/list holding `net`) where the wrap is proved to reach
  the save saves `net.module` instead (see hazards.pickled); so does a call passing `net`
  to a function that only pickles that parameter whole (analysis/pickled_params.py, W2).
- DP026 a second backward pass through the outputs of one forward of a wrapped model: its
  gradients are not all-reduced; the weights it updates drift apart (hazards.backward).
An optimizer over a model no DataParallel call wraps (DP069) is the model-wrap pass's, with
the syncs that answer it (analysis/outside_parameters.py). A gradient penalty
(`torch.autograd.grad(..., create_graph=True)`) is rewritten, or warned with DP023, by its
own pass: transforms/gradient_penalty.py.
"""

from __future__ import annotations

import libcst as cst

from dp2ddp.facts import PickledParam
from dp2ddp.flow import DefUse, view
from dp2ddp.transforms._support.base import MigrationTransform
from dp2ddp.transforms._support.class_methods import plain_bases
from dp2ddp.transforms._support.names import (
    DATAPARALLEL,
    DISTRIBUTED_DATA_PARALLEL,
    INPLACE_RANDOM_FILLS,
    WRAP_TRAINABLE,
)
from dp2ddp.transforms._support.nodes import (
    ModuleNodes,
    code_of,
    iterated,
    name_of,
    variables_under,
    wrap_target,
)
from dp2ddp.transforms._support.visiting import read_tree
from dp2ddp.transforms.analysis.batch_noise import (
    BatchSizes,
    batch_rows,
    global_batch_sizes,
    is_batch_noise,
    loops_over,
    per_rank_noise,
)
from dp2ddp.transforms.analysis.filled_draws import with_fill
from dp2ddp.transforms.analysis.fixed_fetch import fixed_fetches, kept_iterator_fetches
from dp2ddp.transforms.analysis.handed_loaders import returned_factories
from dp2ddp.transforms.analysis.helper_noise import helper_noise
from dp2ddp.transforms.analysis.inherited_wraps import inherited_wraps
from dp2ddp.transforms.analysis.norm_layers import (
    BATCHNORM_LAYERS,
    TORCHVISION_BN,
    own_forward_norms,
)
from dp2ddp.transforms.analysis.owner_parameters import rebound_whole
from dp2ddp.transforms.analysis.pickled_params import PICKLERS, saved_object
from dp2ddp.transforms.analysis.random_draws import RANDOM_DRAWS, in_same_random, shared_stream
from dp2ddp.transforms.analysis.row_picks import picks_rows
from dp2ddp.transforms.analysis.seeded_streams import alike_streams
from dp2ddp.transforms.analysis.torch_generators import (
    alike_generator,
    batch_sized,
    generator_detail,
    generators_alike,
)
from dp2ddp.transforms.analysis.undone_wraps import undone_wraps
from dp2ddp.transforms.hazards.backward_program import (
    ProgramForeign,
    dp026_message,
    second_backwards,
)
from dp2ddp.transforms.hazards.batch_pairing import batch_pairings
from dp2ddp.transforms.hazards.batch_sum_returns import own_sums
from dp2ddp.transforms.hazards.count_means import CountMeans
from dp2ddp.transforms.hazards.coupled_forwards import coupled_wraps
from dp2ddp.transforms.hazards.draws import HelperDraws
from dp2ddp.transforms.hazards.forward_calls import helper_changes
from dp2ddp.transforms.hazards.generator_objects import seeded_alike
from dp2ddp.transforms.hazards.handed_forwards import handed_forwards
from dp2ddp.transforms.hazards.losses import LossChecks, string_value
from dp2ddp.transforms.hazards.mean_losses import MeanLosses
from dp2ddp.transforms.hazards.module_bypass import module_bypasses
from dp2ddp.transforms.hazards.output_state import output_state_writes
from dp2ddp.transforms.hazards.pairs import ClassPairs, criterion_findings, pair_losses
from dp2ddp.transforms.hazards.pickled_saves import (
    check_pickled_wrapper,
    check_pickling_call,
    wraps_later,
)
from dp2ddp.transforms.hazards.replay_memories import per_rank_memories
from dp2ddp.transforms.hazards.scopes import (
    AUTOGRAD_FUNCTIONS,
    FunctionStateMutations,
    LoopInfo,
    SelfMutations,
    constant_write_note,
    draw_detail,
    in_training_loop,
    loop_info,
    renorm_bound,
)
from dp2ddp.transforms.hazards.sub_wraps import unproved_pairs
from dp2ddp.transforms.hazards.unbuilt_norms import unbuilt
from dp2ddp.transforms.hazards.visible_devices import (
    ENV_SETTERS,
    VISIBLE_DEVICES,
    sets_visible_devices,
)
from dp2ddp.transforms.hazards.world_scaled import scaled_backward

#: Loops over these count batches (also wrapped: `enumerate(range(n))`, `tqdm(range(n))`).
_RANGES = frozenset({"builtins.range", "tqdm.trange", "tqdm.auto.trange", "tqdm.notebook.trange"})


class FlagHazards(MigrationTransform):
    NAME = "hazards"
    DESCRIPTION = "Warn about what DDP changes and dp2ddp cannot convert safely."

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self._losses = LossChecks(self, lambda module: own_sums(self, module))
        self._means = MeanLosses(self, self._losses)
        self._counts = CountMeans(self, self._losses)
        #: Enclosing loops, innermost last; None marks a function boundary.
        self._loops: list[LoopInfo | None] = []
        self._sliced_loops: set[int] = set()
        self._batchnorms: list[cst.Call] = []
        self._first_wrap: cst.Call | None = None
        #: What DataParallel wraps are assigned to (DP026 follows their forwards).
        self._wrapped: set[str] = set()
        #: ... and DDP wraps, a migrated file's (DP040 at a criterion call re-derived).
        self._ddp_wrapped: set[str] = set()
        self._draws: HelperDraws | None = None
        #: DataLoaders' global batch sizes, as written (analysis/batch_noise.py)
        self._batch_sizes = BatchSizes()
        #: `torch.save(net, path)` calls that save `net.module` instead (hazards.pickled).
        self._inner_saves: set[cst.Call] = set()
        #: Wrapped names pickled whole that are saved as their `.module` instead: in a
        #: container literal saved here, or passed to a function that only pickles that
        #: parameter (class W2, analysis/pickled_params.py).
        self._inner_values: set[cst.CSTNode] = set()
        #: This module's top-level functions that pickle a parameter whole, once.
        self._own_picklers: dict[str, tuple[PickledParam, ...]] | None = None
        self._undone_helds: set[str] | None = None
        self._module: cst.Module | None = None
        #: The module-level wraps a save inside a function reads (pickled_saves.py).
        self._module_wraps: set[str] | None = None

    def visit_Module(self, node: cst.Module) -> bool:
        self._module = node
        self._wrapped |= inherited_wraps(node, self.state.hints.wrapped_attributes)  # a base's
        self._helper_noise: set[cst.Call] = set()
        self._alike = generators_alike(node, self.state.text or None)  # torch_generators
        factories = returned_factories(self.state.loaders.exported)
        if self.state.text_count("DataLoader") != 0 or factories:
            self._batch_sizes = global_batch_sizes(node, self.matches, factories)
            for helper in helper_noise(
                node,
                self.qualified_names,
                self.parent,
                self._batch_sizes.bound,
                RANDOM_DRAWS,
                self._alike,
            ):
                self._helper_noise.update(helper.sites)
        self._losses.enter_module(node)
        self._means.enter_module(node)
        self._counts.enter_module(node)
        self._draws = HelperDraws(
            node,
            self.qualified_names,
            self._position,
            self.parent,
            self.state.random_helpers,
            self.state.text or None,
        )
        told = dict(self.state.loaders.fetchers)
        for fetch in fixed_fetches(
            node, self.qualified_names, told, self.state.loaders.no_grad_functions
        ):
            if not fetch.loaders:  # proved: fetched whole (shared_draws pass)
                what = f"next({fetch.source}) of a {fetch.made} object, before the loop"
                self.warn(fetch.call, "DP091", what)
        for call, source, loader in kept_iterator_fetches(node, self.qualified_names):
            what = f"next({source}) of iter({loader}), before the loop that reads the batch"
            self.warn(call, "DP091", what)
        return True

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        if original_node in self._inner_saves:
            first = updated_node.args[0]
            inner = cst.Attribute(value=first.value, attr=cst.Name("module"))
            return updated_node.with_changes(
                args=[first.with_changes(value=inner), *updated_node.args[1:]]
            )
        if original_node not in self._losses.scaled:
            return updated_node
        autograd = "torch.autograd.backward" in self.qualified_names(original_node.func)
        return scaled_backward(updated_node, autograd)

    def leave_Name(self, original_node: cst.Name, updated_node: cst.Name) -> cst.BaseExpression:
        if self._inner_values and original_node in self._inner_values:
            return cst.Attribute(value=updated_node, attr=cst.Name("module"))
        return updated_node

    def leave_Attribute(
        self, original_node: cst.Attribute, updated_node: cst.Attribute
    ) -> cst.BaseExpression:
        if self._inner_values and original_node in self._inner_values:
            return cst.Attribute(value=updated_node, attr=cst.Name("module"))
        return updated_node

    def leave_BinaryOperation(
        self, original_node: cst.BinaryOperation, updated_node: cst.BinaryOperation
    ) -> cst.BaseExpression:
        return self._counts.rewrite(original_node, updated_node)  # type: ignore[return-value]

    def leave_AugAssign(
        self, original_node: cst.AugAssign, updated_node: cst.AugAssign
    ) -> cst.AugAssign:
        return self._counts.rewrite(original_node, updated_node)  # type: ignore[return-value]

    def leave_Module(self, original_node: cst.Module, updated_node: cst.Module) -> cst.Module:
        wrapped = self._wrapped | self._ddp_wrapped
        if wrapped and self.state.text_count(".module") != 0:
            nodes = ModuleNodes(original_node)
            found = module_bypasses(nodes, wrapped, self, original_node)  # and DP223
            for call, code, detail in found:
                self.warn(call, code, detail)
            for undone in undone_wraps(original_node, self.parent, self._is_wrap):
                self.warn(undone.unwrap, "DP062", undone.detail(lambda n: self._position(n)[0]))
        if not wrapped and self.state.facts.has_dataparallel and "backward" in self.state.text:
            for at, detail in handed_forwards(original_node, self._position):
                self.warn(at, "DP072", detail)
        told = self.state.facts.backward_summaries
        foreign = ProgramForeign(told, self.qualified_names) if told else None
        sites = (
            second_backwards(original_node, self.matches, self._wrapped, foreign)
            if self._may_backward_twice()
            else []
        )
        for site in sites:
            message = dp026_message(site, self.code, lambda n: self._position(n)[0])
            self.warn(site.backward, "DP026", message)
        for function, name, expression in pair_losses(original_node, self.code):
            self.warn(
                function,
                "DP040",
                f"{name}() ({expression.splitlines()[0][:60]}): each rank's "
                "loss sees its own part of each batch, DataParallel's saw the whole batch",
            )
        text = self.state.text or original_node.code
        pairs_of = ClassPairs(self.state.facts.models, lambda: text, self.qualified_names)
        for at, code, detail in criterion_findings(original_node, wrapped, pairs_of, self):
            self.warn(at, code, detail)
        own = frozenset(n.split(".")[0] for n, _ in self.state.loaders.consumers)
        mix = self._draws.mixer() if self._draws is not None else None  # DP147 via helpers
        paired = batch_pairings(
            original_node, wrapped, text, self.code, self._position, self.qualified_names, own, mix
        )
        memories = per_rank_memories(
            original_node, self.qualified_names, self._position, self.state.memory_fills
        )
        subs = unproved_pairs(original_node, wrapped, self, pairs_of)
        written = output_state_writes(original_node, self._wrapped, self.code, self._position)
        facts = self.state.facts
        coupled = coupled_wraps(original_node, self._is_wrap, pairs_of, facts, text)
        for at, code, detail in [*paired, *memories, *subs, *written, *coupled]:
            self.warn(at, code, detail)
        if self._batchnorms:  # those no construction builds are no BatchNorm held
            home = self.state.facts.hints.home_classes if self.state.facts.in_program else None
            models = self.state.facts.models
            never = unbuilt(original_node, self._batchnorms, self.parent, home, models)
            self._batchnorms = [bn for bn in self._batchnorms if bn not in never]
        if self.state.options.sync_batchnorm:
            where = self._batchnorms[0] if self._batchnorms else self._first_wrap
            if where is not None:
                self.warn(where, "DP017")
            for norm, detail in own_forward_norms(original_node, self.qualified_names):
                self.warn(norm, "DP008", detail)
        elif self._batchnorms:
            first = self._batchnorms[0]
            more = len(self._batchnorms) - 1
            detail = self.code(first.func) + (f" and {more} more" if more else "")
            places = [(bn, self.code(bn.func)) for bn in self._batchnorms] if more else []
            self.warn(first, "DP008", detail, places)
        return self._losses.scale_terms(updated_node)

    def _is_wrap(self, call: cst.Call) -> bool:
        return bool(self.qualified_names(call.func) & DATAPARALLEL)

    def _may_backward_twice(self) -> bool:
        """DP026 needs two backward calls. A module that never names `backward` has none (an
        alias imported under another name still names it once, in its import, and is
        analysed); one `.backward(` may run twice per step (in a function called twice, in
        a loop over a list of losses: s73), so naming it once is enough to be read."""
        named = self.state.text_count("backward")
        return named is None or named >= 1 or bool(self.state.facts.backward_summaries)

    # -- scopes and loops -------------------------------------------------------------
    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._loops.append(None)
        self._losses.enter_function(node)
        self._counts.enter_function(node)
        self._check_forward(node)

    def leave_FunctionDef(
        self, original_node: cst.FunctionDef, updated_node: cst.FunctionDef
    ) -> cst.FunctionDef:
        self._loops.pop()
        self._losses.leave_function()
        return updated_node

    def visit_With(self, node: cst.With) -> None:
        self._losses.enter_with(node)

    def leave_With(self, original_node: cst.With, updated_node: cst.With) -> cst.With:
        self._losses.leave_with()
        return updated_node

    def visit_Lambda(self, node: cst.Lambda) -> None:
        self._loops.append(None)

    def leave_Lambda(self, original_node: cst.Lambda, updated_node: cst.Lambda) -> cst.Lambda:
        self._loops.pop()
        return updated_node

    def visit_For(self, node: cst.For) -> None:
        info = loop_info(node, self.qualified_names, _RANGES)
        if info.training and self._draws is not None:
            # `for x, y, z in fetcher`: an iterator of the module drawing on each step
            draw = self._draws.of_iterator(node.iter)
            if draw is not None and not seeded_alike(draw.source):
                self.warn(node.iter, "DP006", draw.describe())
        self._loops.append(info)

    def leave_For(self, original_node: cst.For, updated_node: cst.For) -> cst.For:
        self._loops.pop()
        return updated_node

    def visit_While(self, node: cst.While) -> None:
        self._loops.append(loop_info(node, self.qualified_names, _RANGES))

    def leave_While(self, original_node: cst.While, updated_node: cst.While) -> cst.While:
        self._loops.pop()
        return updated_node

    def _enclosing(self) -> list[LoopInfo]:
        """Loops around the current node within its function, innermost first."""
        loops: list[LoopInfo] = []
        for info in reversed(self._loops):
            if info is None:
                break
            loops.append(info)
        return loops

    def _in_training_loop(self, draw: cst.Call | None = None) -> bool:
        return in_training_loop(self._enclosing(), draw, self.parent, self.matches)

    # -- calls, assignments, subscripts ---------------------------------------------------
    def visit_Call(self, node: cst.Call) -> None:
        names = self.qualified_names(node.func)
        if names & DATAPARALLEL:
            self._first_wrap = self._first_wrap or node
            target = wrap_target(node, self)
            if target is not None:
                self._wrapped.add(target)
        elif (names & DISTRIBUTED_DATA_PARALLEL or code_of(node.func) == WRAP_TRAINABLE) and (
            target := wrap_target(node, self)
        ):
            self._ddp_wrapped.add(target)
        if node.args and (self._wrapped or wraps_later(self)):
            if names & PICKLERS:
                saved = saved_object(node)
                if saved is not None:
                    check_pickled_wrapper(self, node, saved)
            else:
                check_pickling_call(self, node)
        self._losses.check_call(node, names)
        self._means.check_call(node, names)
        if self._in_training_loop(node):
            self._check_draw(node, names)
        if names & BATCHNORM_LAYERS or any(TORCHVISION_BN.match(n) for n in names):
            self._batchnorms.append(node)
        if names & ENV_SETTERS and sets_visible_devices(node):
            self.warn(node, "DP010", self.code(node))
        if (bound := renorm_bound(node, names)) is not None:
            self.warn(node, "DP089", f"{self.code(node.func)}(..., max_norm={self.code(bound)})")

    def _flow(self) -> DefUse | None:
        """The module's def-use view (built once per tree): a loop over a loader handed to
        its function (batch_noise.handed_loader)."""
        return None if self._module is None else view(self._module)

    def _alike_streams(self) -> frozenset[str]:
        module = self._module
        return alike_streams(self.state.facts.seeded_streams, lambda: getattr(module, "code", ""))

    def _check_draw(self, node: cst.Call, names: set[str]) -> None:
        """DP006: a draw in the loop, or a call of a project helper that draws. Also a
        tensor filled in place from the global generator (`torch.FloatTensor(size)
        .normal_(std=s)`: SaoYan/DnCNN-PyTorch's noise), which no qualified name shows."""
        func, names = node.func, with_fill(node, names)
        every, alike = self._batch_sizes.every(), self._alike
        if not picks_rows(self._flow(), node, names) and (
            is_batch_noise(node, names, self._batch_sizes.written, alike)
            or any(
                isinstance(info.node, cst.For)
                and per_rank_noise(node, names, info.node, every, self._flow(), alike)
                for info in self._enclosing()
            )
            or node in self._helper_noise
        ):
            return  # noise for the batch: shared_draws draws it as DataParallel did
        if names & RANDOM_DRAWS and alike_generator(node, alike) is not None:
            loops = [i.node for i in self._enclosing() if isinstance(i.node, cst.For)]
            if any(batch_sized(node, loop.body, batch_rows(loop, node)) for loop in loops):
                self.warn(node, "DP006", f"{self.code(func)}(){generator_detail(node)}")
                return
            if any(loops_over(loop, every, self._flow()) is not None for loop in loops):
                return  # not sized by a loader's batch: alike, as DataParallel's one draw
        if names & RANDOM_DRAWS or (
            isinstance(func, cst.Attribute)
            and func.attr.value in INPLACE_RANDOM_FILLS
            and not any(arg.keyword and arg.keyword.value == "generator" for arg in node.args)
        ):
            loops = [i.node for i in self._enclosing() if isinstance(i.node, cst.For)]
            picks = picks_rows(self._flow(), node, names)
            detail = draw_detail(node, names, loops, self._module, self._alike_streams, picks)
            # an order or a plain draw: drawn alike, its text is false (not MixUp's partners)
            shared = shared_stream(node, names) and detail[:10] in ("", ": an order")
            if shared and in_same_random(node, self.parent):
                return  # migrated before: every rank draws rank 0's numbers there
            self.warn(node, "DP006", f"{self.code(node.func)}(){detail}")
            if shared:  # state.alike_spans: the batches pass may draw it alike
                line, col = self._position(node)
                self.state.stream_draws.add((self.state.line_map(line), col))
            return
        draw = self._draws.of_call(node, True) if self._draws is not None else None
        if draw is not None and draw.path is not None and draw.source is None:  # a batch
            self.state.elsewhere_draws.add((self.input_position(node)[0], self.code(func)))
        if draw is None and self._draws is not None and name_of(func) == "next" and node.args:
            draw = self._draws.of_iterator(node.args[0].value)  # next(fetcher)
        if draw is not None and not (seeded_alike(draw.source) and self._iterated(node)):
            self.warn(node, "DP006", draw.describe())

    def _iterated(self, call: cst.Call) -> bool:
        """`call` is what a loop iterates (`for x, y in batches():`, through enumerate): its
        batches, drawn alike from a generator seeded alike, are split by the batch pass."""
        loop = self.parent(call)
        while isinstance(loop, (cst.Arg, cst.Call)):
            loop = self.parent(loop)
        return isinstance(loop, cst.For) and any(i is call for i in iterated(loop.iter))

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            item = target.target
            if (
                isinstance(item, cst.Subscript)
                and self.matches(item.value, frozenset({"os.environ"}))
                and len(item.slice) == 1
                and isinstance(item.slice[0].slice, cst.Index)
                and string_value(item.slice[0].slice.value) == VISIBLE_DEVICES
            ):
                self.warn(node, "DP010", f"{self.code(item)} = {self.code(node.value)}")

    def visit_Subscript(self, node: cst.Subscript) -> None:
        """DP005: `X[i:i+bs]` with `i` a loop counter, inside a training loop."""
        if not self._in_training_loop() or not node.slice:
            return
        first = node.slice[0].slice
        if not isinstance(first, cst.Slice) or isinstance(self.parent(node), cst.AssignTarget):
            return
        bounds = [b for b in (first.lower, first.upper) if b is not None]
        used = {name.value for bound in bounds for name in variables_under(bound)}
        loops = self._enclosing()
        if isinstance(node.value, cst.Name) and any(
            node.value.value in info.targets for info in loops
        ):
            return  # slicing a batch the loop already received (micro-batches)
        for info in loops:
            if isinstance(info.node, cst.For):
                continue  # a `for` loop's batches are split (or DP037 says why not): batches.py
            if used & info.counters and id(info.node) not in self._sliced_loops:
                self._sliced_loops.add(id(info.node))
                self.warn(node, "DP005", self.code(node))
                return

    # -- the checks -----------------------------------------------------------------------
    def _check_forward(self, node: cst.FunctionDef) -> None:
        """DP007: a forward() (a method) that assigns or mutates attributes of self; the
        forward() or backward() of a torch.autograd.Function that changes in place the
        tensors it was handed (FunctionStateMutations): wherever such a function is applied,
        in the model or on the loss path, each rank changes its own copy, by its own part
        of the batch."""
        block = self.parent(node)
        cls = self.parent(block) if block is not None else None
        if node.name.value not in ("forward", "backward") or not isinstance(cls, cst.ClassDef):
            return
        if not node.params.params:
            return
        siblings = getattr(self.parent(cls), "body", ())
        if any(self.qualified_names(base.value) & AUTOGRAD_FUNCTIONS for base in cls.bases):
            changes = FunctionStateMutations(node, node.name.value == "backward")
            read_tree(node.body, changes)
            for where, what in changes.found:
                self.warn(
                    where,
                    "DP007",
                    f"{self.code(what)} in {cls.name.value}.{node.name.value}() (a "
                    "torch.autograd.Function: each rank changes its own copy, by its part "
                    "of the batch)",
                )
            return
        if node.name.value != "forward" or plain_bases(cls, siblings):
            return  # the bases: a plain class (class_methods.plain_bases): no model's forward()
        mutations = SelfMutations(node.params.params[0].name.value)
        read_tree(node.body, mutations)
        for where, what in mutations.found:
            if rebound_whole(self, cls, where, what):
                continue  # `self.loss = v` in a class no DataParallel holds (stop 63 s3)
            note = constant_write_note(where, what, mutations.self_name)
            self.warn(where, "DP007", f"{self.code(what)} in {cls.name.value}.forward(){note}")
        for where, what, whose in helper_changes(cls, node, siblings):
            self.warn(where, "DP007", f"{self.code(what)} in {whose}")
