"""What the batches pass's planners and its proof share: the loops, the loaders the data
pass owns, and how a split is written (`ddp_shard_batch(x, dim=D)` along DataParallel's
dim). State the rewriting reads (`_swap`, `_split_after`, `_split_top`, `_same_random`) is
filled by the planners (batches/__init__.py) and the proof (batches/proof.py)."""

from __future__ import annotations

import re

import libcst as cst

from dp2ddp.flow import origins, view
from dp2ddp.transforms._support.names import DATALOADER
from dp2ddp.transforms._support.nodes import (
    ITER_WRAPPERS,
    assigned_value,
    call_named,
    calls_model,
    derived_names,
    iterated,
    name_of,
    target_names,
    variables_under,
    walk,
)
from dp2ddp.transforms.analysis.fixed_fetch import iterates_built_loader, names_no_loader
from dp2ddp.transforms.analysis.training import loop_trains
from dp2ddp.transforms.batches.each_argument import held_model_call, parts_are_arguments
from dp2ddp.transforms.batches.split_draws import share_split_draws
from dp2ddp.transforms.data.evaluation import LoaderEvaluation
from dp2ddp.transforms.data.plan import Loader, named_loader

SHARD = "ddp_shard_batch"
ROUNDS = "ddp_rank_batches"
PER_RANK = "ddp_per_rank_batch"
SAME_RANDOM = "ddp_same_random"
#: What the proof takes as one training step: a loop that trains, or a step function other
#: modules call, with no loop of its own around the model call (batches/pulled.py)
Step = cst.For | cst.While | cst.FunctionDef
#: draws of k items of a sequence: a list of samples (`batch = random.sample(memory, k)`)
_SAMPLE_DRAWS = frozenset({"random.sample", "random.choices"})


class BatchLoops(LoaderEvaluation):
    """Reads loaders as the data pass does (LoaderImports: bindings, calls, loaders of other
    modules), to leave loops over DataLoaders to it; changes nothing of theirs. The running
    figures of the loops it splits are read by the data pass's rule (LoaderEvaluation's
    `_warn_running_figures`, DP030), as a loop's over a sharded loader."""

    #: statement -> statements to insert after it; loop -> statements at its top
    _split_after: dict[cst.CSTNode, list[cst.BaseStatement]]
    _split_top: dict[cst.For, list[cst.BaseStatement]]
    #: expressions replaced by a new one (iterables, sources, batch-size arguments)
    _swap: dict[cst.CSTNode, cst.BaseExpression]
    #: statements run inside `with ddp_same_random():`
    _same_random: set[cst.CSTNode]
    #: loop -> whether it trains (`loop_trains`), read once a loop (`_trains`)
    _loops_train: dict[cst.For | cst.While, bool]
    #: loops DP037 was given for
    _warned: set[cst.CSTNode]
    #: training loops whose batches a split of this pass (the proof's, at the call or the
    #: source) or --per-process-batch's rounds make this rank's share (_warn_split_figures)
    _split_loops: list[cst.For | cst.While]
    #: the codes given for batches not proved split (DP037, DP047)
    _unproved: set[str]
    #: wrapped model calls the proof found given this rank's part / a whole batch ("" when
    #: alike on every rank, else why not): which summed losses keep their scale (summed.py)
    _split_calls: set[cst.Call]
    _whole_calls: dict[cst.Call, str]
    #: the wrapped models' names (DataParallel's, or a migrated module's DDP wraps)
    _models: list[str]
    #: the names the proof's call in hand is wrapped by (a parameter handed the wrap too)
    _proving_wrapped: frozenset[str] = frozenset()
    _loader_calls: dict[cst.Call, Loader]
    _definitions: dict[str, cst.FunctionDef | cst.ClassDef]
    _module: cst.Module | None
    _dim: int | None
    #: ids of the nodes data passes through into a wrapped model's call (_reaches_model)
    _fed: set[int | str] | None
    _dim_text: str
    #: loop -> the names this pass's splits bind in it (_warn_split_figures)
    _split_names: dict[int, set[str]] = {}
    _wraps_here: bool
    _known: bool

    def _callee_names(self, call: cst.Call) -> set[str]:
        """The qualified names of `call`'s function, and for a bare name the names it has
        in each module this one star-imports (`from utils import *`: ModelsGenesis@12f7feb
        calls `generate_pair`, which is `utils.generate_pair`)."""
        names = set(self.qualified_names(call.func))
        if isinstance(call.func, cst.Name) and self._module is not None:
            for statement in self._module.body:
                if not isinstance(statement, cst.SimpleStatementLine):
                    continue
                for small in statement.body:
                    if (
                        isinstance(small, cst.ImportFrom)
                        and isinstance(small.names, cst.ImportStar)
                        and small.module is not None
                        and not small.relative
                    ):
                        names.add(f"{self.code(small.module)}.{call.func.value}")
        return names

    def _inside(self, node: cst.CSTNode, ancestor: cst.CSTNode) -> bool:
        current: cst.CSTNode | None = self.parent(node)
        while current is not None:
            if current is ancestor:
                return True
            current = self.parent(current)
        return False

    def _ancestors_to(self, node: cst.CSTNode, stop: cst.CSTNode | None) -> list[cst.CSTNode]:
        found = []
        current = self.parent(node)
        while current is not None and current is not stop:
            found.append(current)
            current = self.parent(current)
        return found

    def _module_root(self, node: cst.CSTNode) -> cst.CSTNode:
        current = node
        while (parent := self.parent(current)) is not None:
            current = parent
        return current

    def _unwrapped(self, expr: cst.BaseExpression, depth: int) -> list[cst.BaseExpression]:
        """`expr` and what it wraps: `bar` of `bar = tqdm(range(n))` -> range(n) too,
        `loaders[0]` -> loaders, and what a name aliases: `tl` of `tl = train_loader` ->
        train_loader too (ternaus/robot-surgery-segmentation@1d18157 utils.train: the loop
        over `tl`, a parameter's alias, was taken for an unknown source and its batches split
        again, while the caller's loader was sharded: each rank trained on half its share;
        class v1-B of stop 42)."""
        found = [expr]
        if depth > 3:
            return found
        if isinstance(expr, cst.Subscript):
            found += self._unwrapped(expr.value, depth + 1)
        elif isinstance(expr, cst.Call) and expr.args and self._wraps_iterable(expr):
            found += self._unwrapped(expr.args[0].value, depth + 1)
        elif isinstance(expr, cst.Name):
            for referent in self.referents(expr):
                value = assigned_value(referent.node, self)
                if isinstance(value, (cst.Call, cst.Subscript, cst.Name)):
                    found += self._unwrapped(value, depth + 1)
        return found

    def _wraps_iterable(self, call: cst.Call) -> bool:
        """enumerate(x), iter(x), tqdm(x) under any alias (`from tqdm import tqdm as bar`)."""
        return name_of(call.func) in ITER_WRAPPERS or any(
            n.startswith("tqdm.") or n.startswith("rich.progress.")
            for n in self.qualified_names(call.func)
        )

    def _trains(self, loop: cst.For | cst.While) -> bool:
        """`loop_trains`, once a loop: asked for the loops around each statement, it read
        an outer loop's whole body once per statement in it (a 400-line training loop:
        quadratic, P2333/Bag-of-Tricks-for-AT's train_cifar.py)."""
        found = self._loops_train.get(loop)
        if found is None:
            found = self._loops_train[loop] = loop_trains(loop, self.qualified_names)
        return found

    def _is_loader(self, expr: cst.BaseExpression, named: bool = True) -> bool:
        """A DataLoader of this module, one of another module of the program, or something
        named like one (a loader factory's result): the data pass's (it shards or warns).
        A value built by a class or function of this module that names no DataLoader
        (`train_loader = BatchIterator(...)`) is not one, whatever its name. With `named`
        False, only what is proved a loader counts (not a name, not a callee's name)."""
        if self._resolve(expr, self._loader_calls, 0) or self._read_through(
            expr, self._loader_calls
        ):
            return True  # also through local names (`loader = self.loaders["train"]`)
        if any(name in self.code(expr) for name, _ in self.state.loaders.unfollowed):
            return True  # DP027 names it
        origins = self._origins(expr, (), 0, attributes=True)
        for origin in origins:
            if self._is_exported(origin, self.state.loaders.exported):
                return True
        origins = [o for o in origins if not o.attribute]
        inner = expr
        if isinstance(inner, cst.Call) and name_of(inner.func) == "iter" and inner.args:
            inner = inner.args[0].value
        if isinstance(inner, cst.Call) and self.matches(inner.func, DATALOADER):
            return True
        calls = [o.call for o in origins if o.call is not None]
        if isinstance(inner, cst.Call):
            calls.append(inner)
        if calls and all(self._wraps_built_loader(c) for c in calls):
            return True
        if calls and all(self._own_batches(c) or self._of_own(c) for c in calls):
            return False
        if isinstance(inner, cst.Call) and self._calls_an_object(inner):
            return False
        if named and named_loader(self.code(expr)):
            return True
        return any(
            self.matches(call.func, DATALOADER)
            or (named and "loader" in self.code(call.func).lower())
            for call in calls
        )

    def _calls_an_object(self, call: cst.Call) -> bool:
        """`dloader(epoch)` where `dloader` is a value this module binds from a call of
        something that is no DataLoader (`dloader = data_loader(dataset=...)`, an instance of
        a class of another module): the object's `__call__` returns what it returns, which
        its name does not prove to be a loader the data pass shards (stop 34, M1:
        MetaOptNet's FewShotDataloader returns torchnet's `.parallel()` DataLoader, which
        no pass of the program builds)."""
        if not isinstance(call.func, cst.Name) or call.func.value in self._definitions:
            return False
        referents = list(self.referents(call.func))
        if not referents:
            return False
        for referent in referents:
            value = assigned_value(referent.node, self)
            if not isinstance(value, cst.Call) or self.matches(value.func, DATALOADER):
                return False
            if (
                isinstance(value.func, cst.Name)
                and value.func.value in self._definitions
                and not self._own_batches(value)
            ):
                return False  # a class of this module that builds a loader (data pass)
        return True

    def _own_batches(self, call: cst.Call) -> bool:
        """A call of a class or function of this module, or of a class of another module of
        the program (ProgramLoaders.batch_classes), that reads no loader: batches of the
        program's own making (an iterator class, a generator). Its code says so, not its
        name (`IndexLoader(n, bs, shuffle)` yielding `randperm(n).split(bs)` is not a
        loader the data pass shards; `InputFetcher(loader)` reading `next(self.iter)` of a
        DataLoader is one; NER-BERT's own class `DataLoader`, imported from data_loader.py,
        is none: class v2-A of stop 40). Another module's class must be given no loader
        either (its body is not read here)."""
        if not isinstance(call.func, cst.Name):
            return False
        definition = self._definitions.get(call.func.value)
        if definition is None:
            told = self.state.loaders.batch_classes
            return (
                bool(told)
                and bool(self.qualified_names(call.func) & set(told))
                and not any("loader" in self.code(a.value).lower() for a in call.args)
            )
        return names_no_loader(definition)

    def _wraps_built_loader(self, call: cst.Call) -> bool:
        """A call of a class of this module whose objects yield the batches of a DataLoader
        the class builds itself (`iterates_built_loader`): the data pass shards that
        loader where the class builds it, so each batch the object yields is this rank's
        part already (P2333/Bag-of-Tricks-for-AT@ebf1e9b's `Batches`, a dict per batch of
        `self.dataloader`: taken for batches of the program's own making and split again at
        the loop's top, each rank trained on half its share, silently; class v1-A of
        stop 43)."""
        if not isinstance(call.func, cst.Name):
            return False
        definition = self._definitions.get(call.func.value)
        return isinstance(definition, cst.ClassDef) and iterates_built_loader(
            definition, lambda c: self.matches(c.func, DATALOADER)
        )

    def _of_own(self, call: cst.Call) -> bool:
        """`loader.next()`, a method of an instance of the module's own batch class (a
        thread filling a queue from a generator): the receiver's making says, not its name."""
        if not isinstance(call.func, cst.Attribute):
            return False
        held = self._origins(call.func.value, (), 0, attributes=True)
        made = [o.call for o in held if not o.attribute and o.call is not None]
        if not held and self._module is not None:
            # a parameter the names of this module do not bind (`loader` of
            # `train_and_evaluate(model, loader, ...)`, given `DataLoader(...)` at its call):
            # the shared def-use view follows it to the values its callers give
            # (a call of an own batch class ends the walk: its arguments are not the object)
            found = origins(view(self._module), call.func.value, self._own_batches)
            made = [o.node for o in found if isinstance(o.node, cst.Call)]
            return bool(made) and len(made) == len(found) and all(map(self._own_batches, made))
        return bool(made) and len(made) == len(held) and all(self._own_batches(c) for c in made)

    def _feeds_wrapped(self, body: cst.CSTNode) -> bool:
        text = self.code(body)
        return any(re.search(rf"(?<![\w.]){re.escape(w)}\b", text) for w in self._models)

    def _batch_source(self, expr: cst.BaseExpression) -> cst.BaseExpression:
        """What yields the batches, through enumerate()/tqdm() (not zip: all of it)."""
        while (
            isinstance(expr, cst.Call)
            and name_of(expr.func) in ITER_WRAPPERS - {"zip"}
            and expr.args
            and expr.args[0].keyword is None
        ):
            expr = expr.args[0].value
        return expr

    def _batch_target(self, loop: cst.For) -> cst.BaseExpression | None:
        target = loop.target
        if isinstance(loop.iter, cst.Call) and name_of(loop.iter.func) == "enumerate":
            if isinstance(target, (cst.Tuple, cst.List)) and len(target.elements) == 2:
                return target.elements[1].value
            return None
        return target

    def _reaches_model(self, batch: cst.BaseExpression) -> bool:
        """Some name `batch` binds reaches a wrapped model's call as data (dp2ddp/flow:
        through assignments, unpacking, helpers' parameters), not only as a key, an index
        or a flag (`loaders[phase]`, `if phase == "train"`), nor not at all. What flows
        into the module's model calls is found once a module; where some of it was not
        followed (an `unknown` source), any target may be data."""
        if self._fed is None:
            self._fed = self._fed_nodes()
        if "unknown" in self._fed:
            return True
        return any(isinstance(n, cst.Name) and id(n) in self._fed for n in walk(batch))

    def _fed_nodes(self) -> set[int | str]:
        """ids of the nodes data passes through into the wrapped models' calls ("unknown"
        among them where a source was not followed)."""
        found: set[int | str] = set()
        if self._module is None:
            return found
        flow = view(self._module)
        wrapped = set(self._models)

        def stop(other: cst.Call) -> bool:  # a model's output: a source, not walked through
            return calls_model(other, wrapped)

        for call in self._calls:
            if not calls_model(call, wrapped):
                continue
            for arg in call.args:
                for origin in origins(flow, arg.value, stop):
                    if origin.kind == "unknown":
                        found.add("unknown")
                    elif not origin.selects:
                        found.update(id(step.node) for step in origin.path)
        return found

    def _along(self) -> str:
        where = (
            ""
            if self._wraps_here
            else " (DataParallel's, which wraps in another module)"
            if self._known
            else " (assumed: no DataParallel wrap seen)"
        )
        return f"along dim {self._dim}{where}"

    def _each(self) -> str:
        return "each rank takes its 1/WORLD_SIZE contiguous part of every batch"

    def _take_per_rank(self, size: cst.BaseExpression, why: str) -> None:
        """`size`, a global batch size, read as this rank's part: `ddp_per_rank_batch(size)`
        (once; not where it is one already), recorded with `why` (the states and targets
        the proof sizes per rank: model_states.per_rank_state and per_rank_states, held_targets)."""
        if size in self._swap or PER_RANK in self.code(size):
            return
        self._swap[size] = call_named(PER_RANK, cst.Arg(size.deep_clone()))
        self.state.helpers.add("per_rank_batch")
        self.record(size, why)

    def _shard_call(
        self,
        value: cst.BaseExpression,
        rows: bool = False,
        source: cst.BaseExpression | None = None,
        each: bool = False,
    ) -> cst.Call:
        args = [cst.Arg(value)]
        if rows:
            args.append(cst.Arg(cst.Name("True"), keyword=cst.Name("rows"), equal=_EQUAL))
        if each:
            args.append(cst.Arg(cst.Name("True"), keyword=cst.Name("each"), equal=_EQUAL))
        if self._dim:
            args.append(
                cst.Arg(
                    cst.Integer(str(self._dim)),
                    keyword=cst.Name("dim"),
                    equal=cst.AssignEqual(
                        whitespace_before=cst.SimpleWhitespace(""),
                        whitespace_after=cst.SimpleWhitespace(""),
                    ),
                )
            )
        if source is not None:
            args.append(cst.Arg(source, keyword=cst.Name("source"), equal=_EQUAL))
        return call_named(SHARD, *args)

    def _guard_source(self, loop: cst.For) -> cst.BaseExpression | None:
        """What the loop iterates, through enumerate()/tqdm(), where reading it again in
        the body reads the same object: a name, an attribute of one, an item picked by a
        name or a constant (`loader`, `self.train_loader`, `loaders["train"]`), none of
        whose names the loop binds. The split is handed it (`source=`), and passes a batch
        through where that object's sampler shards already (a loader sharded in a module
        whose export this one's proof could not follow): no double split in silence."""
        source = self._batch_source(loop.iter)
        bound = target_names(loop.target)

        def plain(expr: cst.BaseExpression) -> bool:
            if isinstance(expr, cst.Name):
                return expr.value not in bound
            if isinstance(expr, cst.Attribute):
                return plain(expr.value)
            if isinstance(expr, cst.Subscript) and len(expr.slice) == 1:
                index = expr.slice[0].slice
                return (
                    isinstance(index, cst.Index)
                    and isinstance(index.value, (cst.Name, cst.SimpleString, cst.Integer))
                    and plain(expr.value)
                    and (not isinstance(index.value, cst.Name) or plain(index.value))
                )
            return False

        return source.deep_clone() if plain(source) else None

    def _split_binding(self, assign: cst.Assign) -> list[cst.SimpleStatementLine]:
        """The statements that go right after `assign` to split the batch it binds: the
        split, then the flattens it took back. A value flattened as it is bound
        (`x, y = data[:, s:e], targets[:, s:e].contiguous().view(-1)`: a word-level LM's
        targets, zihangdai/mos@9c0c608, docs/real-world.md stop 28 L1) has no batch
        dimension left to split along, so the flatten moves after the split: the binding
        keeps `targets[:, s:e].contiguous()`, and `y = y.view(-1)` follows the split, on
        this rank's part (the order of the flattened elements is the original's within it).
        """
        target = assign.targets[-1].target
        after: list[cst.SimpleStatementLine] = []
        pairs: list[tuple[cst.BaseExpression, cst.BaseExpression]] = []
        value = assign.value
        if isinstance(target, cst.Name):
            pairs.append((target, value))
        elif (
            isinstance(target, (cst.Tuple, cst.List))
            and isinstance(value, (cst.Tuple, cst.List))
            and len(target.elements) == len(value.elements)
            and not any(isinstance(e, cst.StarredElement) for e in value.elements)
        ):
            pairs.extend(
                (t.value, v.value) for t, v in zip(target.elements, value.elements, strict=True)
            )
        for name, element in pairs:
            if not isinstance(name, cst.Name) or not _flattens(element):
                continue
            assert isinstance(element, cst.Call) and isinstance(element.func, cst.Attribute)
            self._swap[element] = element.func.value
            flatten = element.with_changes(
                func=element.func.with_changes(value=cst.Name(name.value))
            )
            after.append(cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(name)], flatten)]))
        if not self._dim and not after and len(pairs) > 1:
            names = [name for name, element in pairs if _outer_slice(element)]
            if len(names) == len(pairs) and all(isinstance(n, cst.Name) for n in names):
                # `xs, ys = X[a:b], Y[a:b]`: each a slice of samples (lists too), each cut
                # by its own rows; the pair's tuple form passes tensor-less lists whole
                return [self._split_statement(name, True) for name in names]
        rows = (
            not self._dim
            and isinstance(target, cst.Name)
            and (_outer_slice(value) or self._drawn_samples(value))
        )
        source = _next_source(value)
        if isinstance(source, cst.Name) and source.value in target_names(target):
            source = None  # the binding rebinds it: read again, it is the batch
        return [self._split_statement(target, rows, source), *after]

    def _drawn_samples(self, value: cst.BaseExpression) -> bool:
        """`batch = random.sample(memory, k)`, or a call of this module's function or
        method whose every return is one (`replay.sample(k)` returning `random.sample(
        self.buf, k)`): a list whose items are the samples (a replay memory's transition
        tuples), cut by its own length as the tensors stacked from it later were by
        DataParallel. Without `rows` the helper took the list for fields and cut each
        transition's tuple, so each rank's states and actions came from different fields
        (stop 60, v1-B, ItsNotSoftware/utt-ai-arena@0c99953: IndexError / TypeError on the
        ranks at the first step, no warning); transitions of equal-sized tensors would
        have been cut silently."""
        if not isinstance(value, cst.Call):
            return False
        if self.qualified_names(value.func) & _SAMPLE_DRAWS:
            return True
        if self._module is None:
            return False
        called = view(self._module).callees(value)
        return bool(called) and all(
            function.returns
            and all(
                isinstance(r, cst.Call) and bool(self.qualified_names(r.func) & _SAMPLE_DRAWS)
                for r in function.returns
            )
            for function in called
        )

    def _split_places(self) -> list[tuple[cst.For | cst.While, set[str]]]:
        """Each loop whose batch a split of this pass binds, with the names the split
        binds: a statement splitting the batch right after it binds it (in the innermost
        loop around it), or at the top of a loop over the batches."""
        places: list[tuple[cst.For | cst.While, set[str]]] = []
        for statement in self._split_after:
            small = statement.body[0] if isinstance(statement, cst.SimpleStatementLine) else None
            loop = next(
                (
                    a
                    for a in self._ancestors_to(statement, None)
                    if isinstance(a, (cst.For, cst.While))
                ),
                None,
            )
            if isinstance(small, cst.Assign) and loop is not None:
                names = {n for t in small.targets for n in target_names(t.target)}
                places.append((loop, names))
        for top in self._split_top:
            batch = self._batch_target(top)
            if batch is not None:
                places.append((top, target_names(batch)))
        return places

    def _warn_split_figures(self) -> None:
        """The running figures of the loops whose batches this pass made this rank's share
        (a split where the batch is bound or enters the loop, at the model's call or at
        the source; whole batches in turn with --per-process-batch): summed over this
        rank's batches only, shown or handed on, as a loop's over a sharded loader, so the
        data pass's rule says them (DP030) through a stand-in loader holding the loops
        (data/plan.Loader.stand_in). The data pass runs before this one decides its
        splits (dbiir/UER-py@5743050's "Avg loss" every report_steps after the stop-41
        split: rank 0's half, no word before stop 43). Loops over a loader stay the data
        pass's."""
        places = self._split_places()
        loops = [loop for loop, _ in places] + self._split_loops
        kept = [
            loop
            for loop in dict.fromkeys(loops)
            if not any(self._is_loader(u) for u in self._loop_sources(loop))
        ]
        self._split_names = {}
        for loop, names in places:
            self._split_names.setdefault(id(loop), set()).update(names)
        split_rows = [loop for loop in kept if loop in self._split_top]  # every step's rows
        rest = [loop for loop in kept if loop not in self._split_top]
        if split_rows:
            self._warn_running_figures(Loader.stand_in(split_rows, split_rows=True))
        if rest:
            self._warn_running_figures(Loader.stand_in(rest))

    def _batch_derived(self, loop: cst.For | cst.While) -> set[str]:
        """Names bound from the batches: also, in a loop this pass splits, the names the
        split binds and what the body computes from them (a `while` loop cutting its batch
        from an index array has no target: round 31, Seanny123/da-rnn@1db1e79's per-step
        losses stored by the step counter, rank 0's half, unsaid)."""
        found = super()._batch_derived(loop)
        split = self._split_names.get(id(loop)) if self._split_names else None
        return found | derived_names(loop.body, split) if split else found

    def _loop_sources(self, loop: cst.For | cst.While) -> list[cst.BaseExpression]:
        """What a `for` loop iterates, through progress wrappers and names."""
        if not isinstance(loop, cst.For):
            return []
        return [u for s in iterated(loop.iter) for u in self._unwrapped(s, 0)]

    def _loop_top_split(self, loop: cst.For, batch: cst.BaseExpression) -> cst.SimpleStatementLine:
        """The split of the batch `loop` binds, at its top; `each=True` where each of the
        batch's tensors is one whole argument of the wrapped call (batches/each_argument;
        in a module that sees no wrap, the call of a model the object holds)."""
        wrapped = set(self._models) | self._proving_wrapped
        model = (lambda c: calls_model(c, wrapped)) if wrapped else held_model_call
        each = parts_are_arguments(loop.body, batch, model)
        share_split_draws(self, loop)  # noise drawn for the split batch
        return self._split_statement(batch, source=self._guard_source(loop), each=each)

    def _split_statement(
        self,
        target: cst.BaseExpression,
        rows: bool = False,
        source: cst.BaseExpression | None = None,
        each: bool = False,
    ) -> cst.SimpleStatementLine:
        """`x = ddp_shard_batch(x)`, `x, y = ddp_shard_batch((x, y))`. With `rows` (one name
        bound to a slice `X[a:b]` along dim 0), `x = ddp_shard_batch(x, rows=True)`: a list
        sliced from a list of samples (token-id lists, strings, sample tensors) is cut by
        its length, as the tensor made from it later was by DataParallel (stop 43, v2-B,
        Morizeyao/GPT2-Chinese@bbb4465: `batch = samples[i * bs:(i + 1) * bs]`; without
        it the helper found no tensor and every rank trained on the whole batch). With
        `each` (each tensor one whole argument of the model's call: batches/each_argument.py),
        `each=True`: tensors of unequal sizes cut each by its own, as DataParallel's scatter
        did."""
        if isinstance(target, cst.Tuple):
            target = target.with_changes(lpar=[], rpar=[])
        text = self.code(target).strip()
        value = f"({text})" if isinstance(target, cst.Tuple) else text
        shard = self.code(self._shard_call(cst.parse_expression(value), rows, source, each))
        statement = cst.parse_statement(f"{text} = {shard}\n")
        assert isinstance(statement, cst.SimpleStatementLine)
        return statement


_EQUAL = cst.AssignEqual(
    whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")
)


def _next_source(value: cst.BaseExpression) -> cst.BaseExpression | None:
    """`it` of `next(it)` where `it` is a name (a DataLoader's iterator, say): the split is
    handed it, and passes the batch on where its loader's sampler shards already."""
    if (
        isinstance(value, cst.Call)
        and name_of(value.func) == "next"
        and len(value.args) == 1
        and isinstance(value.args[0].value, cst.Name)
    ):
        return value.args[0].value.deep_clone()
    return None


def _outer_slice(value: cst.BaseExpression) -> bool:
    """`X[a:b]`: a slice of the outer axis, whose items are the samples."""
    return (
        isinstance(value, cst.Subscript)
        and len(value.slice) == 1
        and isinstance(value.slice[0].slice, cst.Slice)
    )


def _flattens(value: cst.BaseExpression) -> bool:
    """`t.view(-1)`, `t.reshape(-1)`, `t.flatten()`: the tensor made one-dimensional."""
    if not (isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute)):
        return False
    method, args = value.func.attr.value, value.args
    if method == "flatten":
        return not args
    if method not in ("view", "reshape") or len(args) != 1 or args[0].keyword is not None:
        return False
    number = args[0].value
    return (
        isinstance(number, cst.UnaryOperation)
        and isinstance(number.operator, cst.Minus)
        and isinstance(number.expression, cst.Integer)
        and number.expression.value == "1"
    )


def _plain_target(target: cst.BaseExpression) -> bool:
    if isinstance(target, cst.Name):
        return True
    if isinstance(target, (cst.Tuple, cst.List)):
        return bool(target.elements) and all(
            not isinstance(e, cst.StarredElement) and _plain_target(e.value)
            for e in target.elements
        )
    return False


def _slices_with(node: cst.Subscript, counters: set[str]) -> bool:
    if not node.slice or not isinstance(node.slice[0].slice, cst.Slice):
        return False
    first = node.slice[0].slice
    bounds = [b for b in (first.lower, first.upper) if b is not None]
    return any(v.value in counters for b in bounds for v in variables_under(b))


def _values(
    producers: list[tuple[cst.SimpleStatementLine, cst.Assign]], produced: set[int]
) -> list[cst.BaseExpression]:
    return [assign.value for _, assign in producers if id(assign.value) in produced]


def straight_statements(block: cst.BaseSuite) -> list[tuple[cst.SimpleStatementLine, bool]]:
    """The simple statements of a loop's body that run once per pass, each with whether it
    sits in a block: the body's own, and those of the `if`/`else`, `try`/`except`/`else`/
    `finally` and `with` blocks in it (not of an inner loop, function or class). A batch
    cut in a `try:` with a fallback cut in its `except:` (123sherlocklee/Generative-BiLSTM@
    4341d29's train.py, stop 61 v2-C) is a batch cut per pass as much as one cut in the
    body itself; read only from the body, both were "sliced inside an expression", DP037,
    every rank training on every batch."""
    found: list[tuple[cst.SimpleStatementLine, bool]] = []
    top = list(block.body) if isinstance(block, cst.IndentedBlock) else []
    todo: list[tuple[cst.CSTNode, bool]] = [(node, False) for node in top]
    while todo:
        node, nested = todo.pop(0)
        inner: list[cst.CSTNode] = []
        if isinstance(node, cst.SimpleStatementLine):
            found.append((node, nested))
        elif isinstance(node, cst.If | cst.Else | cst.With | cst.ExceptHandler | cst.Finally):
            if isinstance(node.body, cst.IndentedBlock):
                inner += node.body.body
            if isinstance(node, cst.If) and node.orelse is not None:
                inner.append(node.orelse)
        elif isinstance(node, cst.Try):
            inner += [*node.body.body, *node.handlers]
            inner += [p for p in (node.orelse, node.finalbody) if p is not None]
        todo[0:0] = [(n, True) for n in inner]
    return found


def cuts_with(value: cst.BaseExpression, counters: set[str]) -> bool:
    """`value` (or an element of its tuple) slices with a loop counter: `X[i:i + bs]`."""
    parts = [e.value for e in value.elements] if isinstance(value, cst.Tuple) else [value]
    return any(isinstance(p, cst.Subscript) and _slices_with(p, counters) for p in parts)
