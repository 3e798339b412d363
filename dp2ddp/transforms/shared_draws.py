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
``generator=`` are left as they are. A generator the program creates unseeded
(``np.random.default_rng()``, ``random.Random()``, ``np.random.RandomState()``) for such a
draw cannot be shared this way: DP036 at it.

The same pass draws what DataParallel drew for the global batch (analysis/batch_noise.py):
noise drawn in a loop over a sharded loader for its global batch, `z = torch.randn(
batch_size, nz)`, becomes `ddp_draw_share(lambda: ...)` (the whole batch's draw on rank
0's stream, this rank's rows); a fixed batch fetched once outside the loops, `next(iter(
loader))`, becomes `ddp_whole_batch(loader, batch_size)` (the global batch, whole, on every
rank), or DP050 where the loader's batch size cannot be named at the fetch.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

import libcst as cst
from libcst.codemod import CodemodContext

from dp2ddp.transforms._support.base import MigrationState, MigrationTransform
from dp2ddp.transforms._support.children import children_of
from dp2ddp.transforms._support.names import DATALOADER
from dp2ddp.transforms._support.nodes import code_of, name_of, walk
from dp2ddp.transforms.analysis.batch_noise import (
    BATCH_DRAWS,
    DRAW_SHARE,
    WHOLE_BATCH,
    BatchSizes,
    first_dimension,
    fixed_batch_loader,
    global_batch_sizes,
    is_batch_noise,
    loops_over,
    per_rank_noise,
)
from dp2ddp.transforms.hazards.draws import RANDOM_DRAWS, HelperDraws
from dp2ddp.transforms.hazards.scopes import is_training_loop

SAME_RANDOM = "ddp_same_random"
DATASET_BASES = frozenset({"torch.utils.data.Dataset", "torch.utils.data.dataset.Dataset"})
RANDOM_SPLIT = frozenset({"torch.utils.data.random_split", "torch.utils.data.dataset.random_split"})
#: Calls whose arguments decide what a dataset holds.
DATASET_BUILDERS = (
    DATALOADER
    | RANDOM_SPLIT
    | frozenset(
        f"torch.utils.data{module}.{name}"
        for module in ("", ".dataset")
        for name in ("Subset", "TensorDataset", "ConcatDataset", "StackDataset")
    )
)
#: Generators created here that seed themselves per process when given no seed.
UNSEEDED_GENERATORS = frozenset(
    {"numpy.random.default_rng", "numpy.random.RandomState", "random.Random"}
)
#: Methods of a Dataset that run per sample or per pass, not while it is built.
PER_SAMPLE = frozenset({"__getitem__", "__getitems__", "__len__", "__iter__", "__next__"})
#: Receivers of calls that change no dataset (`torch.manual_seed(s)`, `np.random.seed(s)`).
_MODULES = frozenset({"torch", "np", "numpy", "random", "os", "sys", "math", "logging"})


class ShareDatasetDraws(MigrationTransform):
    """Every rank draws rank 0's numbers where a dataset's content or order is decided."""

    NAME = "shared_draws"
    DESCRIPTION = "Draws that decide a dataset run alike on every rank (ddp_same_random)."
    TRIGGERS = ("rand", "permutation", "shuffle", "choice", "sample", "iter(")

    def __init__(self, context: CodemodContext, state: MigrationState) -> None:
        super().__init__(context, state)
        #: statement to wrap -> what it draws (for the change record)
        self._wrap: dict[cst.CSTNode, str] = {}
        self._training: dict[cst.CSTNode, bool] = {}
        self._spans: list[cst.IndentedBlock] = []
        #: draws of the global batch's noise in a training loop (analysis/batch_noise.py)
        self._noise: set[cst.Call] = set()
        #: draws sized by this rank's batch, drawn for the global batch (size * WORLD_SIZE)
        self._scaled: set[cst.Call] = set()
        #: `next(iter(loader))` outside loops -> the loader's global batch size
        self._fixed: dict[cst.Call, str] = {}

    # == analysis =======================================================================
    def visit_Module(self, node: cst.Module) -> bool:
        self._draws = HelperDraws(
            node, self.qualified_names, self._position, self.parent, self.state.random_helpers
        )
        finder = _Finder(self, node)
        found = finder.run()
        self._spans = finder.method_bodies
        for draw, statement in found:
            if statement is None:
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
        return bool(self._wrap or self._noise or self._fixed or self._scaled)

    def _find_batch_noise(self, module: cst.Module) -> None:
        """Noise drawn for the global batch (its first dimension is a loader's `batch_size`)
        in a loop over that loader, which the data pass sharded: drawn whole on rank 0's
        stream, each rank keeping its rows. Such a draw in a training loop that goes
        through no such loader gets DP006 here (hazards left it to this pass)."""
        sizes = global_batch_sizes(module, self.matches)
        if not sizes.written:
            return
        for node in walk(module):
            if not isinstance(node, cst.Call):
                continue
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
            names = self.qualified_names(node.func)
            if not names & BATCH_DRAWS:
                continue
            if not is_batch_noise(node, names, sizes.written):
                self._per_rank_noise(node, names, sizes)
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
            elif self._in_training_loop(node):
                self.warn(
                    node,
                    "DP006",
                    f"{code_of(node.func)}() draws {size} rows, a loader's global batch, in "
                    "a loop over no loader split by samples: each rank draws its own rows",
                )
        if self._noise or self._scaled:
            self.state.helpers.update({"draw_share", "same_random", "rank0_value", "rank_slice"})
        if self._fixed:
            self.state.helpers.update({"whole_batch", "same_random", "rank0_value"})

    def _per_rank_noise(self, node: cst.Call, names: set[str], sizes: BatchSizes) -> None:
        """Noise sized by this rank's batch (`torch.randn(real.size(0), nz)`) in a loop over
        a loader: over a sharded one, the global batch's rows (the size times WORLD_SIZE)
        are drawn on rank 0's stream and each rank keeps its own; over one left whole,
        DP006 (hazards left it to here)."""
        current = self.parent(node)
        while current is not None and not isinstance(current, (cst.FunctionDef, cst.Lambda)):
            if isinstance(current, cst.For) and per_rank_noise(node, names, current, sizes.bound):
                first = first_dimension(node, names)
                assert first is not None
                if loops_over(current, sizes.sharded) is not None:
                    self._scaled.add(node)
                    self.record(
                        node,
                        f"{code_of(node.func)}(...) draws {code_of(first)} rows, this rank's "
                        f"batch of {code_of(current.iter)}: the global batch's rows are drawn "
                        f"on rank 0's stream, each rank keeps its own ({DRAW_SHARE})",
                    )
                elif self._in_training_loop(node):
                    self.warn(
                        node,
                        "DP006",
                        f"{code_of(node.func)}() draws {code_of(first)} rows for a batch "
                        "whose loader is not sharded: each rank draws its own",
                    )
                return
            current = self.parent(current)

    def _loop_over_loader(self, node: cst.CSTNode, sizes: BatchSizes, size: str) -> cst.For | None:
        """The loop around `node` (within its function) over a sharded loader whose global
        batch is `size`."""
        current = self.parent(node)
        while current is not None and not isinstance(current, (cst.FunctionDef, cst.Lambda)):
            if isinstance(current, cst.For) and loops_over(current, sizes.sharded) == size:
                return current
            current = self.parent(current)
        return None

    def _visible(self, fixed: tuple[cst.BaseExpression, str, cst.Assign], call: cst.Call) -> bool:
        """The loader's size expression means the same at `call`: both in one function, the
        loader built at module level, or `self.` sizes in methods of one class."""
        _, size, site = fixed
        built, used = self._function_of(site), self._function_of(call)
        if built is used or built is None:
            return True
        if size.startswith("self.") and used is not None:
            return self._class_of(built) is self._class_of(used) is not None
        return False

    def _function_of(self, node: cst.CSTNode) -> cst.FunctionDef | None:
        current = self.parent(node)
        while current is not None and not isinstance(current, cst.FunctionDef):
            current = self.parent(current)
        return current

    def _class_of(self, function: cst.FunctionDef) -> cst.ClassDef | None:
        block = self.parent(function)
        owner = self.parent(block) if block is not None else None
        return owner if isinstance(owner, cst.ClassDef) else None

    def _in_loop(self, node: cst.CSTNode) -> bool:
        """Inside a loop or a comprehension of its function (run more than once)."""
        current = self.parent(node)
        while current is not None and not isinstance(current, (cst.FunctionDef, cst.Lambda)):
            if isinstance(current, (cst.For, cst.While, cst.CompFor)):
                return True
            current = self.parent(current)
        return False

    def _in_training_loop(self, node: cst.CSTNode) -> bool:
        """Inside a loop that trains, within its function (as hazards' DP006 sees it)."""
        current = self.parent(node)
        while current is not None and not isinstance(current, (cst.FunctionDef, cst.Lambda)):
            if isinstance(current, (cst.For, cst.While)) and self.is_training(current):
                return True
            current = self.parent(current)
        return False

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
            first = first_dimension(updated_node, self.qualified_names(original_node.func))
            assert first is not None
            scaled = cst.BinaryOperation(
                left=first, operator=cst.Multiply(), right=cst.Name("WORLD_SIZE")
            )
            updated_node = cast(cst.Call, updated_node.deep_replace(first, scaled))
        elif original_node not in self._noise:
            return updated_node
        draw = cst.Lambda(params=cst.Parameters(), body=updated_node)
        return cst.Call(func=cst.Name(DRAW_SHARE), args=[cst.Arg(draw)])

    def _inside(self, statement: cst.CSTNode, other: cst.CSTNode) -> bool:
        """`statement` is strictly inside `other`."""
        node = self.parent(statement)
        while node is not None:
            if node is other:
                return True
            node = self.parent(node)
        return False

    def is_training(self, loop: cst.For | cst.While) -> bool:
        if loop not in self._training:
            self._training[loop] = is_training_loop(loop, self.qualified_names)
        return self._training[loop]

    def helper_draw(self, call: cst.Call) -> bool:
        return self._draws.of_call(call) is not None

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
            else:
                close()
                body.append(new)
        close()
        return body


def found_statements(found: list[tuple[cst.Call, cst.CSTNode | None]]) -> list[cst.CSTNode]:
    return [s for _, s in found if s is not None]


class _Finder:
    """The draws that decide a dataset, each with the statement to wrap (None: it cannot be
    wrapped). Draws already inside `with ddp_same_random():` are not listed."""

    def __init__(self, transform: ShareDatasetDraws, module: cst.Module) -> None:
        self.t = transform
        self.module = module
        self.nodes = list(walk(module))
        self.found: list[tuple[cst.Call, cst.CSTNode | None]] = []
        self.seen: set[cst.Call] = set()
        #: bodies of the Dataset methods that build it (__init__ and what it calls)
        self.method_bodies: list[cst.IndentedBlock] = []

    def run(self) -> list[tuple[cst.Call, cst.CSTNode | None]]:
        classes = self._dataset_classes()
        for cls in classes:
            self._dataset_class(cls)
        for node in self.nodes:
            if isinstance(node, cst.Call) and self._is_split_without_generator(node):
                self._add(node)
        scopes: list[cst.CSTNode] = [self.module]
        scopes += [n for n in self.nodes if isinstance(n, cst.FunctionDef)]
        for scope in scopes:
            self._slice(scope)
        return self.found

    # -- what is a draw -------------------------------------------------------------------
    def _is_draw(self, call: cst.Call) -> bool:
        names = self.t.qualified_names(call.func)
        if names & RANDOM_SPLIT:
            return self._is_split_without_generator(call)
        if names & RANDOM_DRAWS:
            return not any(
                a.keyword is not None and a.keyword.value == "generator" for a in call.args
            )
        return self.t.helper_draw(call)

    def _is_split_without_generator(self, call: cst.Call) -> bool:
        if not self.t.matches(call.func, RANDOM_SPLIT):
            return False
        positional = [a for a in call.args if a.keyword is None and not a.star]
        return len(positional) < 3 and not any(
            a.star or (a.keyword is not None and a.keyword.value == "generator") for a in call.args
        )

    def _unseeded_generator(self, call: cst.Call) -> bool:
        return not call.args and self.t.matches(call.func, UNSEEDED_GENERATORS)

    # -- where it goes ------------------------------------------------------------------
    def _add(self, call: cst.Call) -> None:
        if call in self.seen:
            return
        self.seen.add(call)
        if self._already_shared(call):
            return
        self.found.append((call, self._statement(call)))

    def _already_shared(self, node: cst.CSTNode) -> bool:
        current = self.t.parent(node)
        while current is not None:
            if isinstance(current, cst.With) and any(
                isinstance(i.item, cst.Call) and name_of(i.item.func) == SAME_RANDOM
                for i in current.items
            ):
                return True
            current = self.t.parent(current)
        return False

    def _statement(self, call: cst.Call) -> cst.CSTNode | None:
        """The innermost statement holding the draw, or the outermost loop around it that
        trains nothing, within its function; None where it cannot be wrapped."""
        node: cst.CSTNode | None = call
        statement: cst.CSTNode | None = None
        while node is not None and not isinstance(node, (cst.FunctionDef, cst.Module)):
            if isinstance(node, (cst.Lambda, cst.ClassDef)):
                return None if statement is None else statement
            if isinstance(node, (cst.For, cst.While)):
                if self.t.is_training(node):
                    break
                statement = node
            elif isinstance(node, cst.SimpleStatementLine | cst.BaseCompoundStatement):
                if statement is None:
                    statement = node
            node = self.t.parent(node)
        if statement is None:
            return None
        holder = self.t.parent(statement)
        if not isinstance(holder, (cst.IndentedBlock, cst.Module)):
            return None
        return statement

    # -- Dataset classes ------------------------------------------------------------------
    def _dataset_classes(self) -> list[cst.ClassDef]:
        classes = [n for n in self.nodes if isinstance(n, cst.ClassDef)]
        found: list[cst.ClassDef] = []
        names: set[str] = set()
        changed = True
        while changed:
            changed = False
            for cls in classes:
                if cls in found:
                    continue
                for base in cls.bases:
                    qualified = self.t.qualified_names(base.value)
                    last = name_of(base.value)
                    if (
                        qualified & DATASET_BASES
                        or (last.endswith("Dataset") and "Iterable" not in last)
                        or last in names
                    ):
                        found.append(cls)
                        names.add(cls.name.value)
                        changed = True
                        break
        return found

    def _dataset_class(self, cls: cst.ClassDef) -> None:
        if not isinstance(cls.body, cst.IndentedBlock):
            return
        methods = {s.name.value: s for s in cls.body.body if isinstance(s, cst.FunctionDef)}
        todo = ["__init__"]
        done: set[str] = set()
        while todo:
            name = todo.pop()
            if name in done or name not in methods or name in PER_SAMPLE:
                continue
            done.add(name)
            body = methods[name].body
            if isinstance(body, cst.IndentedBlock):
                self.method_bodies.append(body)
            for node in walk(methods[name].body, skip_scopes=True):
                if not isinstance(node, cst.Call):
                    continue
                func = node.func
                if (
                    isinstance(func, cst.Attribute)
                    and isinstance(func.value, cst.Name)
                    and func.value.value == "self"
                ):
                    todo.append(func.attr.value)
                self._check_call(node)

    def _check_call(self, call: cst.Call) -> None:
        if self._unseeded_generator(call):
            if call not in self.seen and not self._already_shared(call):
                self.seen.add(call)
                self.t.warn(
                    call,
                    "DP036",
                    f"{code_of(call)} seeds itself in each process, so each rank builds "
                    "another dataset; give it a seed that every rank shares",
                )
        elif self._is_draw(call):
            self._add(call)

    # -- statements a dataset is built from -----------------------------------------------
    def _slice(self, scope: cst.CSTNode) -> None:
        body = scope.body if isinstance(scope, cst.FunctionDef) else scope
        calls_in = _line_calls(body)
        lines = list(calls_in)
        needed: set[str] = set()
        in_slice: list[cst.SimpleStatementLine] = []
        for line in lines:
            for call in calls_in[line]:
                if self._builds_dataset(call):
                    needed |= _read_keys(call)
                    in_slice.append(line)
                    break
        if not in_slice:
            return
        changed = True
        while changed:
            changed = False
            for line in lines:
                if line in in_slice:
                    continue
                if _written_keys(line) & needed:
                    in_slice.append(line)
                    needed |= _read_keys(line)
                    changed = True
        for line in in_slice:
            if self._in_training_loop(line, scope):
                continue  # per-step randomness (noise, augmentation) stays per rank
            for call in calls_in[line]:
                self._check_call(call)

    def _in_training_loop(self, node: cst.CSTNode, scope: cst.CSTNode) -> bool:
        current = self.t.parent(node)
        while current is not None and current is not scope:
            if isinstance(current, (cst.For, cst.While)) and self.t.is_training(current):
                return True
            current = self.t.parent(current)
        return False

    def _builds_dataset(self, call: cst.Call) -> bool:
        if self.t.matches(call.func, DATASET_BUILDERS):
            return True
        last = name_of(call.func)
        return last.endswith("Dataset") and "Iterable" not in last


def _line_calls(body: cst.CSTNode) -> dict[cst.SimpleStatementLine, list[cst.Call]]:
    """The simple statement lines under `body` (not in nested defs, classes or lambdas), in
    source order, each with its calls (in the line, not in its lambdas), from one walk."""
    found: dict[cst.SimpleStatementLine, list[cst.Call]] = {}
    stack: list[tuple[cst.CSTNode, list[cst.Call] | None]] = [(body, None)]
    while stack:
        node, calls = stack.pop()
        if isinstance(node, cst.SimpleStatementLine):
            calls = found[node] = []
        elif calls is not None and isinstance(node, cst.Call):
            calls.append(node)
        if node is not body and isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            continue
        stack.extend((child, calls) for child in reversed(children_of(node)))
    return found


def _key(node: cst.CSTNode) -> str | None:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute) and _key(node.value) is not None:
        return code_of(node)
    if isinstance(node, cst.Subscript):
        return _key(node.value)
    return None


def _read_keys(root: cst.CSTNode) -> set[str]:
    keys: set[str] = set()
    for node in walk(root, skip_scopes=True):
        key = _key(node) if isinstance(node, (cst.Name, cst.Attribute)) else None
        if key is not None:
            keys.add(key)
    return keys


def _targets(target: cst.BaseExpression) -> set[str]:
    if isinstance(target, (cst.Tuple, cst.List)):
        return {k for e in target.elements for k in _targets(e.value)}
    if isinstance(target, cst.StarredElement):
        return _targets(target.value)
    key = _key(target)
    return {key} if key is not None else set()


def _written_keys(line: cst.SimpleStatementLine) -> set[str]:
    """What the statement binds or changes in place (`files.append(x)`, `shuffle(files)`)."""
    keys: set[str] = set()
    for small in line.body:
        if isinstance(small, cst.Assign):
            for target in small.targets:
                keys |= _targets(target.target)
        elif isinstance(small, (cst.AnnAssign, cst.AugAssign)):
            keys |= _targets(small.target)
        elif isinstance(small, cst.Expr) and isinstance(small.value, cst.Call):
            call = small.value
            if isinstance(call.func, cst.Attribute):
                receiver = _key(call.func.value)
                if (
                    receiver is not None
                    and receiver.split(".")[0] not in _MODULES
                    and name_of(call.func) not in ("shuffle", "permutation")
                ):
                    keys.add(receiver)
            if name_of(call.func) == "shuffle" and call.args:
                first = _key(call.args[0].value)
                if first is not None:
                    keys.add(first)
    return keys


class _ReadDraws(ShareDatasetDraws):
    """Reads a module: its draws that decide a dataset and are not shared (changes nothing)."""

    def visit_Module(self, node: cst.Module) -> bool:
        self._draws = HelperDraws(
            node, self.qualified_names, self._position, self.parent, self.state.random_helpers
        )
        self.found = [
            (self._position(draw)[0], code_of(draw.func)) for draw, _ in _Finder(self, node).run()
        ]
        return False


def unshared_draws(source: str) -> list[tuple[int, str]]:
    """(line, function) of each draw in `source` that decides a dataset and runs outside
    `with ddp_same_random():`: what `dp2ddp verify` names when the ranks' datasets differ.
    Source that does not parse has none."""
    if not any(word in source for word in ShareDatasetDraws.TRIGGERS):
        return []
    try:
        tree = cst.parse_module(source)
    except (cst.ParserSyntaxError, RecursionError):
        return []
    from dp2ddp.options import MigrateOptions

    reader = _ReadDraws(CodemodContext(), MigrationState(MigrateOptions()))
    reader.found = []
    reader.transform_module(tree)
    return sorted(set(reader.found))
