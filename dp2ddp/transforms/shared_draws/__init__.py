"""Randomness before the sampler: every rank builds the same dataset.

DistributedSampler shards a dataset by index, so it is only right when every rank holds the
same samples in the same order. Under torchrun each process seeds its generators on its
own, so a draw that decides what a dataset holds gives each rank another dataset: a sample
list shuffled in a Dataset's ``__init__`` (arcface-pytorch's ``np.random.permutation``),
``random_split`` without a generator, indices permuted for a ``Subset``. The ranks' shards
then overlap, miss samples, and mix one rank's validation samples into another's training.

Such a draw is run inside ``with ddp_same_random():`` (templates/helpers/same_random.py.j2):
every rank draws rank 0's numbers there, rank 0 draws exactly what the original program
drew, and after the block the other ranks get their own generator states back, so the
training loop's randomness (augmentation, dropout) stays per rank. Which draws:

* in a Dataset class (a subclass of torch's Dataset or of a class named ``...Dataset``), the
  draws of ``__init__`` and of the methods it calls (``self._split()``), not those of
  ``__getitem__`` and the other per-sample methods;
* ``random_split(...)`` without ``generator=``, outside a training loop;
* in a function or at module level, the draws of the statements a dataset is built from:
  followed back through assignments (and ``random.shuffle(files)``-style changes in place)
  from the arguments of ``DataLoader``, ``Subset``, ``random_split``, ``TensorDataset``,
  ``ConcatDataset`` and ``...Dataset(...)`` calls; also a call of a project helper that
  draws (hazards/draws.py), of this module or another module of the program.

The block holds the statement of the draw, or the outermost loop around it that trains
nothing (one exchange for the loop, not one per iteration). Draws with an explicit
``generator=`` are left as they are, and so are draws reached from
``torch.manual_seed(<int>)`` in their block through statements that compute from literals,
torch's functions and the names bound since (_seeded_before): every rank draws alike
there. A generator the program creates unseeded
(``np.random.default_rng()``, ``random.Random()``, ``np.random.RandomState()``) for such a
draw cannot be shared this way: DP036 at it.

The same pass draws what DataParallel drew for the global batch (analysis/batch_noise.py):
noise drawn in a loop over a sharded loader for its global batch, `z = torch.randn(
batch_size, nz)` or `zdist.sample((batch_size,))` of a torch.distributions object, becomes
`ddp_draw_share(lambda: ...)` (the whole batch's draw on rank 0's stream, this rank's rows);
a fixed batch fetched once outside the loops, `next(iter(loader))`, becomes
`ddp_whole_batch(loader, batch_size)` (the global batch, whole, on every rank), and a
loader read where nothing trains (a fixed batch gathered from it) reads
`ddp_whole_loader(loader, batch_size)` (whole_reads.py); DP050 where the loader's batch
size cannot be named there.
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst
from libcst.codemod import CodemodContext
from libcst.metadata import PositionProvider

from dp2ddp.facts import HelperDraw
from dp2ddp.flow import DefUse, view
from dp2ddp.transforms._support.base import MigrationState
from dp2ddp.transforms._support.bound_values import all_targets
from dp2ddp.transforms._support.names import DDP_WRAPS
from dp2ddp.transforms._support.nodes import (
    bound_names,
    calls_model,
    code_of,
    enclosing_function,
    name_of,
    nodes_of,
    parsed_or_none,
    walk,
)
from dp2ddp.transforms.analysis.aliased_draws import aliased_draw
from dp2ddp.transforms.analysis.batch_noise import (
    BATCH_DRAWS,
    DISTRIBUTION_METHODS,
    DISTRIBUTION_SAMPLE,
    DRAW_SHARE,
    WHOLE_BATCH,
    BatchSizes,
    distribution_receivers,
    first_dimension,
    fixed_batch_loader,
    global_batch_sizes,
    is_batch_noise,
    is_distribution_draw,
    like_argument,
    loops_over,
    per_rank_noise,
)
from dp2ddp.transforms.analysis.draw_shares import DRAW_HELPERS, global_batch_draw, shared_draw
from dp2ddp.transforms.analysis.fed_slots import fed_share_loops
from dp2ddp.transforms.analysis.filled_draws import with_fill
from dp2ddp.transforms.analysis.handed_loaders import returned_factories
from dp2ddp.transforms.analysis.helper_noise import helper_noise
from dp2ddp.transforms.analysis.random_draws import RANDOM_DRAWS, imported_distributions
from dp2ddp.transforms.analysis.row_picks import picks_rows
from dp2ddp.transforms.analysis.torch_generators import generators_alike
from dp2ddp.transforms.analysis.training import evaluation_draw, loop_trains
from dp2ddp.transforms.hazards.draws import HelperDraws
from dp2ddp.transforms.shared_draws.dataset_draws import (
    SAME_RANDOM,
    DatasetDrawFinder,
    found_statements,
)
from dp2ddp.transforms.shared_draws.search_studies import SEARCH, search_calls
from dp2ddp.transforms.shared_draws.whole_reads import WholeReads

#: Names that read alike on every rank where a seeded draw may read them: the constants, and
#: the device this pass's predecessor wrote for `torch.device("cuda" if ...)` (on whichever
#: GPU, torch's seed seeds its generator alike).
_UNIFORM_NAMES = frozenset({"True", "False", "None", "DEVICE"})
#: Seeds every global generator torch draws from (CPU and CUDA).
_TORCH_SEED = frozenset({"torch.manual_seed", "torch.random.manual_seed"})


class ShareDatasetDraws(WholeReads):
    """Every rank draws rank 0's numbers where a dataset's content or order is decided."""

    NAME = "shared_draws"
    DESCRIPTION = "Draws that decide a dataset run alike on every rank (ddp_same_random)."
    #: "break": a loop that gathers a fixed batch from a loader and stops (whole_reads.py)
    #: and the search calls of search_studies.py (DP174)
    TRIGGERS = ("rand", "permutation", "shuffle", "choice", "sample", "iter(", "break", *SEARCH)

    @classmethod
    def triggered(cls, code: str, state: MigrationState) -> bool:
        """Also where the module calls another module's function that only reads samples
        (whole_reads.py), whatever it is named, or fetches from an iterator class of the
        program (analysis/fixed_fetch.py)."""
        return (
            super().triggered(code, state)
            or any(name.rpartition(".")[2] in code for name in state.facts.readers)
            or "next(" in code
            and (
                "__next__" in code
                or any(name.rpartition(".")[2] in code for name, _ in state.loaders.fetchers)
            )
        )

    def __init__(self, context: CodemodContext, state: MigrationState) -> None:
        super().__init__(context, state)
        self._training: dict[cst.CSTNode, bool] = {}
        self._spans: list[cst.IndentedBlock] = []
        #: draws of the global batch's noise in a training loop (analysis/batch_noise.py)
        self._noise: set[cst.Call] = set()
        #: draws sized by this rank's batch, drawn for the global batch (size * WORLD_SIZE)
        self._scaled: set[cst.Call] = set()
        #: `next(iter(loader))` outside loops -> the loader's global batch size
        self._fixed: dict[cst.Call, str] = {}
        #: what `torch.distributions` objects are bound to (batch_noise)
        self._receivers: set[str] = set()
        #: the module's def-use view, where it has loaders (batch_noise.handed_loader)
        self._flow: DefUse | None = None
        #: the module's generators are alike on every rank (torch_generators.py)
        self._alike = False
        self._fed: frozenset[cst.For] = frozenset()  # loops over a loader handed sharded
        #: what an earlier migration's DDP wraps are assigned to (_migrated_wraps), once
        self._ddp_targets: set[str] | None = None
        self._tree: cst.Module | None = None

    # == analysis =======================================================================
    def visit_Module(self, node: cst.Module) -> bool:
        self._tree = node
        self._draws = HelperDraws(
            node,
            self.qualified_names,
            self._position,
            self.parent,
            self.state.random_helpers,
            self.state.text or None,
        )
        for call, detail in search_calls(node, self.qualified_names):
            self.warn(call, "DP174", detail)
        finder = DatasetDrawFinder(self, node)
        found = finder.run()
        self._spans = finder.method_bodies
        for draw, statement in found:
            if statement is None or self._seeded_before(statement):
                continue
            if any(self._inside(statement, other) for other in found_statements(found)):
                continue
            if statement not in self._wrap:
                self._wrap[statement] = code_of(draw.func)
        for statement, what in self._wrap.items():
            self.record(
                statement,
                f"{what}(...) decides the dataset: every rank draws rank 0's numbers "
                f"({SAME_RANDOM})",
            )
        if self._wrap:
            self.state.helpers.update({"same_random", "rank0_value"})
        self._find_batch_noise(node)
        self._find_fixed_fetches(node)
        return bool(self._wrap or self._noise or self._fixed or self._scaled or self._whole)

    def _seeded_before(self, statement: cst.CSTNode) -> bool:
        """`torch.manual_seed(<int>)` earlier in `statement`'s block, and from it to
        `statement` only simple statements computing from literals, torch's functions and
        the names bound there (`torch.manual_seed(0)`, `n = 800`, `x = torch.rand(n, 3)`):
        every rank runs them from the same state of the only generators they draw from, with
        the same sizes, so they draw alike on every rank as written, and need no
        `ddp_same_random()`. A seed that is not a literal may differ by rank (`seed =
        random.randint(...)`); a name bound before the seed may hold a per-rank size; any
        other call may draw from numpy's or Python's generator, which torch's seed leaves
        as they were."""
        block = self.parent(statement)
        body = list(block.body) if isinstance(block, (cst.IndentedBlock, cst.Module)) else []
        index = next((i for i, s in enumerate(body) if s is statement), None)
        if index is None:
            return False
        seeds = [i for i in range(index) if self._is_seed(body[i])]
        if not seeds:
            return False
        bound: set[str] = set()
        return all(self._torch_only(s, bound) for s in body[seeds[-1] + 1 : index + 1])

    def _is_seed(self, statement: cst.CSTNode) -> bool:
        return (
            isinstance(statement, cst.SimpleStatementLine)
            and len(statement.body) == 1
            and isinstance(statement.body[0], cst.Expr)
            and isinstance(call := statement.body[0].value, cst.Call)
            and self.matches(call.func, _TORCH_SEED)
            and len(call.args) == 1
            and isinstance(call.args[0].value, cst.Integer)
        )

    def _torch_only(self, statement: cst.CSTNode, bound: set[str]) -> bool:
        """`statement` (simple) calls torch's functions only (not torch.distributed's) and
        reads no name but torch's, literals' and those in `bound`; adds the names it binds."""
        if not isinstance(statement, cst.SimpleStatementLine):
            return False
        for small in statement.body:
            if not isinstance(small, (cst.Assign, cst.AnnAssign, cst.Expr, cst.Pass)):
                return False
            targets: list[cst.Name] = []
            if isinstance(small, cst.Assign):
                for target in small.targets:
                    targets += bound_names(target.target)
            elif isinstance(small, cst.AnnAssign):
                targets += bound_names(small.target)
            skip = {id(t) for t in targets}
            for node in walk(small):
                if isinstance(node, cst.Call):
                    names = self.qualified_names(node.func)
                    if not names or not all(
                        n.startswith("torch.") and not n.startswith("torch.distributed")
                        for n in names
                    ):
                        return False
                elif isinstance(node, cst.Name) and id(node) not in skip:
                    parent = self.parent(node)
                    if isinstance(parent, cst.Attribute) and parent.attr is node:
                        continue
                    if isinstance(parent, cst.Arg) and parent.keyword is node:
                        continue
                    if node.value in bound or node.value in _UNIFORM_NAMES:
                        continue
                    names = self.qualified_names(node)
                    if not names or not all(n == "torch" or n.startswith("torch.") for n in names):
                        return False
            if len(targets) != sum(1 for _ in all_targets(small)):
                return False  # `self.x = ...`, `a[i] = ...`: reads a name bound elsewhere
            bound.update(t.value for t in targets)
        return True

    def _find_batch_noise(self, module: cst.Module) -> None:
        """Noise drawn for the global batch (its first dimension is a loader's `batch_size`)
        in a loop over that loader, which the data pass sharded: drawn whole on rank 0's
        stream, each rank keeping its rows. Such a draw in a training loop that goes
        through no such loader gets DP006 here (hazards left it to this pass)."""
        sizes = global_batch_sizes(
            module, self.matches, returned_factories(self.state.loaders.exported)
        )
        fed = self.state.loaders.fed  # loops over a loader other modules hand in sharded
        if not sizes.written and not sizes.returned and not fed:
            return
        self._flow = view(module)  # a loader handed to a function (batch_noise.handed_loader)
        self._fed = fed_share_loops(self._flow, nodes_of(module, cst.For), fed)
        if not sizes.written and not sizes.returned and not self._fed:
            return
        self._alike = generators_alike(module, self.state.text or None)  # torch_generators
        self._receivers = distribution_receivers(module, self.qualified_names)
        self._receivers |= imported_distributions(module, self.state.random_helpers.keys())
        for node in nodes_of(module, cst.Call):
            fixed = fixed_batch_loader(node, sizes)
            if fixed is not None and not self._in_loop(node):
                if not self._visible(fixed, node):
                    self.warn(
                        node,
                        "DP050",
                        f"next(iter({code_of(fixed[0])})) fetches this rank's share of a "
                        f"batch of {fixed[1]}, which does not name the same value here",
                    )
                    continue
                self._fixed[node] = fixed[1]
                self.record(
                    node,
                    f"a fixed batch of {code_of(fixed[0])} fetched once: the global batch of "
                    f"{fixed[1]}, as the original fetched it, not this rank's share "
                    f"({WHOLE_BATCH})",
                )
                continue
            names = self._draw_names(node)
            if not names & BATCH_DRAWS:
                self._unproved_sample(node, sizes)
                continue
            if picks_rows(self._flow, node, names):
                continue  # positions of the batch's rows (`x[j]`): DP006/DP147, hazards'
            if not is_batch_noise(node, names, sizes.written, self._alike):
                if not self._per_rank_noise(node, names, sizes) and DISTRIBUTION_SAMPLE in names:
                    self._unsized_distribution_draw(node)
                continue
            first = first_dimension(node, names)
            assert first is not None
            size = code_of(first)
            loop = self._loop_over_loader(node, sizes, size)
            if loop is not None:
                self._noise.add(node)
                self.record(
                    node,
                    f"{code_of(node.func)}(...) draws {size} rows, the global batch of "
                    f"{code_of(loop.iter)}: drawn whole on rank 0's stream, each rank keeps "
                    f"its rows ({DRAW_SHARE})",
                )
            elif self.in_training_loop(node) or (
                DISTRIBUTION_SAMPLE in names and self._feeds_wrapped_model(node)
            ):
                self.warn(
                    node,
                    "DP006",
                    f"{code_of(node.func)}() draws {size} rows, a loader's global batch, in "
                    "a loop over no loader split by samples: each rank draws its own rows",
                )
        self._helper_noise(module, sizes)
        self._find_whole_reads(module, sizes)
        if self._noise or self._scaled:
            self.state.helpers.update(DRAW_HELPERS)
        if any(like_argument(c, self._draw_names(c)) is not None for c in self._scaled):
            self.state.helpers.add("global_like")
        if self._fixed:
            self.state.helpers.update({"whole_batch", "whole_loader", "same_random", "rank0_value"})

    def _draw_names(self, call: cst.Call) -> set[str]:
        """The draw's qualified names; a `torch.distributions` object's `sample`/`rsample`
        (batch_noise.is_distribution_draw) also named DISTRIBUTION_SAMPLE."""
        names = with_fill(
            call,
            self.qualified_names(call.func) | aliased_draw(self._flow, call, self.qualified_names),
        )
        if is_distribution_draw(call, self._receivers, self.qualified_names):
            names = {*names, DISTRIBUTION_SAMPLE}
        return names

    def _unproved_sample(self, node: cst.Call, sizes: BatchSizes) -> None:
        """`zdist.sample((batch_size,))` in a loop over a sharded loader where `zdist` is
        not shown to be a torch.distributions object (GAN_stability builds it with
        `get_zdist(...)` of another module): sized by the loader's global batch or by this
        rank's batch, as noise for the batch is, but drawn as written. DP006: it is not
        rewritten on a guess (any object may have a `sample` method)."""
        if not (
            isinstance(node.func, cst.Attribute) and node.func.attr.value in DISTRIBUTION_METHODS
        ):
            return
        first = first_dimension(node, {DISTRIBUTION_SAMPLE})
        if first is None:
            return
        size = code_of(first)
        current = self.parent(node)
        while current is not None and not isinstance(current, (cst.FunctionDef, cst.Lambda)):
            if (
                isinstance(current, cst.For)
                and loops_over(current, sizes.sharded, self._flow) is not None
            ):
                if size in sizes.written or per_rank_noise(
                    node, {DISTRIBUTION_SAMPLE}, current, sizes.sharded, self._flow
                ):
                    self.warn(
                        node,
                        "DP006",
                        f"{code_of(node.func)}() draws {size} rows for the batch of "
                        f"{code_of(current.iter)}; if {code_of(node.func.value)} is a "
                        "torch.distributions object (not shown here: bound elsewhere), "
                        "every rank draws its own rows, not its part of the global batch's",
                    )
                return
            current = self.parent(current)

    def _feeds_wrapped_model(self, node: cst.Call) -> bool:
        """`node` is in a function that calls a wrapped model (`def step(self, x): z =
        self.prior.rsample(...); D(G(z))`): a distribution's draw there feeds training
        though no loop is in sight (hazards, which warns for torch's draws in functions a
        training loop calls, does not know distributions)."""
        function = self._function_of(node)
        if function is None:
            return False
        wrapped = set(self.state.wrapped) | self._migrated_wraps()
        if any(calls_model(call, wrapped) for call in walk(function.body)):
            return True
        # or a method of its class that calls it and the model (`z = self.get_z(q)`, then
        # `self.net(z)`: round 35, lyndonzheng/Pluralistic-Inpainting@034a758)
        owner = self.parent(self.parent(function) or function)
        if not isinstance(owner, cst.ClassDef) or not isinstance(owner.body, cst.IndentedBlock):
            return False
        name = function.name.value
        return any(
            isinstance(method, cst.FunctionDef)
            and any(
                isinstance(c, cst.Call)
                and isinstance(c.func, cst.Attribute)
                and c.func.attr.value == name
                and code_of(c.func.value) == "self"
                for c in walk(method.body)
            )
            and any(calls_model(c, wrapped) for c in walk(method.body))
            for method in owner.body.body
        )

    def _migrated_wraps(self) -> set[str]:
        """What a DDP wrap of an earlier migration is assigned to (`self.net =
        DistributedDataParallel(...)`), once: a migrated file is checked as its original."""
        if self._ddp_targets is None:
            module = self._tree
            self._ddp_targets = {
                code_of(target.target)
                for node in (walk(module) if module is not None else ())
                if isinstance(node, cst.Assign)
                and isinstance(node.value, cst.Call)
                and name_of(node.value.func) in DDP_WRAPS
                for target in node.targets
            }
        return self._ddp_targets

    def _unsized_distribution_draw(self, node: cst.Call) -> None:
        """A distribution's draw in a training loop that is not shown to be the global
        batch's or this rank's batch's (`zdist.sample((16,))`, `zdist.sample()`): each
        rank draws its own, as DP006 says for torch's draws (hazards does not know
        distributions)."""
        if self.in_training_loop(node) or self._feeds_wrapped_model(node):
            self.warn(
                node,
                "DP006",
                f"{code_of(node.func)}() draws from a torch.distributions object in a "
                "training loop, sized by no loader's batch: each rank draws its own values",
            )

    def _per_rank_noise(self, node: cst.Call, names: set[str], sizes: BatchSizes) -> bool:
        """Noise sized by this rank's batch (`torch.randn(real.size(0), nz)`) in a loop over
        a loader: over a sharded one, the global batch's rows (the size times WORLD_SIZE)
        are drawn on rank 0's stream and each rank keeps its own; over one left whole,
        DP006 (hazards left it to here)."""
        current = self.parent(node)
        while current is not None and not isinstance(current, (cst.FunctionDef, cst.Lambda)):
            fed = current in self._fed
            if isinstance(current, cst.For) and per_rank_noise(
                node, names, current, sizes.every(), self._flow, self._alike, fed
            ):
                first = first_dimension(node, names)
                if first is None:  # a like-draw: its first dimension is its tensor's
                    like = like_argument(node, names)
                    assert like is not None
                    first = cst.parse_expression(f"len({code_of(like)})")
                if fed or loops_over(current, sizes.per_rank(), self._flow) is not None:
                    self._scaled.add(node)
                    self.record(
                        node,
                        f"{code_of(node.func)}(...) draws {code_of(first)} rows, this rank's "
                        f"batch of {code_of(current.iter)}: the global batch's rows are drawn "
                        f"on rank 0's stream, each rank keeps its own ({DRAW_SHARE})",
                    )
                elif self.in_training_loop(node):
                    self.warn(
                        node,
                        "DP006",
                        f"{code_of(node.func)}() draws {code_of(first)} rows for a batch "
                        "whose loader is not sharded: each rank draws its own",
                    )
                return True
            current = self.parent(current)
        return False

    def _helper_noise(self, module: cst.Module, sizes: BatchSizes) -> None:
        """A function of this module whose draws are sized by a batch it is given, called
        only from loops over loaders with their batch (`loss = dsm(model, X, labels)` and
        `torch.randn_like(samples)` inside): where every such loop's loader is sharded, its
        draws take the global batch's rows on rank 0's stream and keep this rank's, as a
        draw in the loop does; else DP006 at the calls (hazards left them to here)."""
        for helper in helper_noise(
            module, self.qualified_names, self.parent, sizes.bound, RANDOM_DRAWS, self._alike
        ):
            unsharded = helper.unsharded(sizes.sharded)
            if not unsharded:
                self._scaled.update(helper.draws)
                for draw in helper.draws:
                    self.record(
                        draw,
                        f"{code_of(draw.func)}(...) in {helper.function.name.value}() draws "
                        "for this rank's batch, which every call gives it: the global batch's "
                        "rows are drawn on rank 0's stream, each rank keeps its own "
                        f"({DRAW_SHARE})",
                    )
                continue
            for call in helper.sites:  # hazards left every call of it to here
                if self.in_training_loop(call):
                    self.warn(
                        call,
                        "DP006",
                        f"{code_of(call.func)}() draws {code_of(helper.draws[0].func)}() for "
                        f"the batch it is given, and {code_of(unsharded[0])} gives it a batch "
                        "of a loader that is not sharded: its draws stay per rank",
                    )

    def _loop_over_loader(self, node: cst.CSTNode, sizes: BatchSizes, size: str) -> cst.For | None:
        """The loop around `node` (within its function) over a sharded loader whose global
        batch is `size`."""
        current = self.parent(node)
        while current is not None and not isinstance(current, (cst.FunctionDef, cst.Lambda)):
            if (
                isinstance(current, cst.For)
                and loops_over(current, sizes.sharded, self._flow) == size
            ):
                return current
            current = self.parent(current)
        return None

    def in_training_loop(self, node: cst.CSTNode) -> bool:
        """Inside a loop that trains, within its function, and not a call in an evaluation
        nested in it (as hazards' DP006 sees it: analysis/training.evaluation_draw)."""
        current = self.parent(node)
        inner: cst.For | cst.While | None = None
        while current is not None and not isinstance(current, (cst.FunctionDef, cst.Lambda)):
            if isinstance(current, (cst.For, cst.While)):
                inner = inner or current
                if self.is_training(current):
                    trains = self.is_training(inner)
                    return not isinstance(node, cst.Call) or not evaluation_draw(
                        node, inner, trains, self.parent, self.matches
                    )
            current = self.parent(current)
        return False

    def is_training(self, loop: cst.For | cst.While) -> bool:
        if loop not in self._training:
            self._training[loop] = loop_trains(loop, self.qualified_names)
        return self._training[loop]

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        size = self._fixed.get(original_node)
        if size is not None:
            inner = updated_node.args[0].value
            assert isinstance(inner, cst.Call)
            return cst.Call(
                func=cst.Name(WHOLE_BATCH),
                args=[cst.Arg(inner.args[0].value), cst.Arg(cst.parse_expression(size))],
            )
        if original_node in self._scaled:
            updated_node = global_batch_draw(updated_node, self._draw_names(original_node))
        elif original_node not in self._noise:
            return updated_node
        return shared_draw(updated_node)

    def _inside(self, statement: cst.CSTNode, other: cst.CSTNode) -> bool:
        """`statement` is strictly inside `other`."""
        node = self.parent(statement)
        while node is not None:
            if node is other:
                return True
            node = self.parent(node)
        return False

    def helper_draw(self, call: cst.Call) -> bool:
        return self._draws.of_call(call) is not None

    def helper_draw_of(self, call: cst.Call) -> HelperDraw | None:
        """The draw behind a call of a function of the program (of this module or another)."""
        return self._draws.of_call(call)

    def value_draw(self, value: cst.BaseExpression) -> HelperDraw | None:
        """The draw a call of the object `value` holds makes (HelperDraws.of_value)."""
        return self._draws.of_value(value)

    def function_draw(self, value: cst.BaseExpression) -> HelperDraw | None:
        """The draw a call of the function `value` names makes (HelperDraws.of_function)."""
        return self._draws.of_function(value)

    # == rewriting ======================================================================
    def leave_IndentedBlock(
        self, original_node: cst.IndentedBlock, updated_node: cst.IndentedBlock
    ) -> cst.IndentedBlock:
        body = self._wrapped(original_node.body, updated_node.body)
        return updated_node if body is None else updated_node.with_changes(body=body)

    def leave_Module(self, original_node: cst.Module, updated_node: cst.Module) -> cst.Module:
        body = self._wrapped(original_node.body, updated_node.body)
        return updated_node if body is None else updated_node.with_changes(body=body)

    def _wrapped(
        self, original: Sequence[cst.BaseStatement], updated: Sequence[cst.BaseStatement]
    ) -> list[cst.BaseStatement] | None:
        """Consecutive statements to wrap share one `with ddp_same_random():` block."""
        marked = [i for i, s in enumerate(original) if s in self._wrap]
        if not marked:
            return None
        if any(original is b.body for b in self._spans):
            # A Dataset method builds the dataset: one block from its first draw to its last.
            for statement in original[marked[0] : marked[-1] + 1]:
                self._wrap.setdefault(statement, "")
        body: list[cst.BaseStatement] = []
        group: list[cst.BaseStatement] = []

        def close() -> None:
            if group:
                first = group[0]
                assert isinstance(first, (cst.SimpleStatementLine, cst.BaseCompoundStatement))
                inner = [first.with_changes(leading_lines=[]), *group[1:]]
                body.append(
                    cst.With(
                        items=[cst.WithItem(cst.Call(func=cst.Name(SAME_RANDOM)))],
                        body=cst.IndentedBlock(body=inner),
                        leading_lines=first.leading_lines,
                    )
                )
                group.clear()

        for old, new in zip(original, updated, strict=True):
            if old in self._wrap:
                group.append(new)
                self._shared_span(old)
            else:
                close()
                body.append(new)
        close()
        return body

    def _shared_span(self, statement: cst.CSTNode) -> None:
        """The user's lines of a statement put in the block (MigrationState.shared_spans)."""
        try:
            where = self.get_metadata(PositionProvider, statement)
        except KeyError:
            return
        line_map = self.state.line_map
        function = enclosing_function(statement, self)
        owner = line_map(self._position(function)[0]) if function is not None else 0
        self.state.shared_spans.append(
            (line_map(where.start.line), line_map(where.end.line), owner)
        )


class _ReadDraws(ShareDatasetDraws):
    """Reads a module: its draws that decide a dataset and are not shared (changes nothing)."""

    def visit_Module(self, node: cst.Module) -> bool:
        self._draws = HelperDraws(
            node,
            self.qualified_names,
            self._position,
            self.parent,
            self.state.random_helpers,
            self.state.text or None,
        )
        self.found = [
            (self._position(draw)[0], code_of(draw.func))
            for draw, _ in DatasetDrawFinder(self, node).run()
        ]
        return False


def unshared_draws(source: str) -> list[tuple[int, str]]:
    """(line, function) of each draw in `source` that decides a dataset and runs outside
    `with ddp_same_random():`: what `dp2ddp verify` names when the ranks' datasets differ.
    Source that does not parse has none."""
    if not any(word in source for word in ShareDatasetDraws.TRIGGERS):
        return []
    tree = parsed_or_none(source)
    if tree is None:
        return []
    from dp2ddp.options import MigrateOptions

    reader = _ReadDraws(CodemodContext(), MigrationState(MigrateOptions()))
    reader.found = []
    reader.transform_module(tree)
    return sorted(set(reader.found))
