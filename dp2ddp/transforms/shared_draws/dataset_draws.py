"""The draws that decide what a dataset holds (the finder of the shared-draws pass).

A draw in a Dataset's ``__init__`` (and the methods it calls), ``random_split`` without a
generator, and the draws of the statements a dataset is built from: each is found with the
statement ``with ddp_same_random():`` can hold (see the package's docstring for why).
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, cast

import libcst as cst

import dp2ddp.transforms.shared_draws.callable_draws as called
from dp2ddp.facts import HelperDraw
from dp2ddp.flow import view
from dp2ddp.transforms._support.children import SCOPE_KINDS, children_of
from dp2ddp.transforms._support.class_methods import bound_aliases, resolved_methods
from dp2ddp.transforms._support.grad_mode import under_grad_off
from dp2ddp.transforms._support.names import DATALOADER
from dp2ddp.transforms._support.nodes import (
    calls_model,
    code_of,
    enclosing_function,
    model_called,
    name_of,
    nodes_of,
    variables_under,
    walk,
)
from dp2ddp.transforms.analysis.random_draws import RANDOM_DRAWS, fresh_fill, own_stream
from dp2ddp.transforms.analysis.sample_code import handed_datasets
from dp2ddp.transforms.analysis.seeded_streams import alike_streams, seeding, stream_of
from dp2ddp.transforms.shared_draws.handed_evaluations import handed_to_evaluation, step_names
from dp2ddp.transforms.shared_draws.own_generators import own_generator_draw

if TYPE_CHECKING:
    from dp2ddp.transforms.shared_draws import ShareDatasetDraws

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


def _self_reached(methods: dict[str, cst.FunctionDef], start: list[str]) -> set[str]:
    """The methods `start` names and those they call through `self.`, transitively (not
    `__init__`)."""
    todo, done = list(start), set()
    while todo:
        name = todo.pop()
        if name in done or name not in methods or name == "__init__":
            continue
        done.add(name)
        for node in walk(methods[name].body, skip_scopes=True):
            if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
                if code_of(node.func.value) == "self":
                    todo.append(node.func.attr.value)
    return done


def found_statements(found: list[tuple[cst.Call, cst.CSTNode | None]]) -> list[cst.CSTNode]:
    return [s for _, s in found if s is not None]


class DatasetDrawFinder:
    """The draws that decide a dataset, each with the statement to wrap (None: it cannot be
    wrapped). Draws already inside `with ddp_same_random():` are not listed."""

    def __init__(self, transform: ShareDatasetDraws, module: cst.Module) -> None:
        self.t = transform
        self.module = module
        self.found: list[tuple[cst.Call, cst.CSTNode | None]] = []
        self.seen: set[cst.Call] = set()
        #: bodies of the Dataset methods that build it (__init__ and what it calls)
        self.method_bodies: list[cst.IndentedBlock] = []
        #: this module's transform classes that draw per call (_drawing_transform)
        self._drawing: list[tuple[str, str | None]] | None = None
        #: the last names of the wrapped models' spellings (_wrapped_names), once
        self._last_names: set[str] | None = None
        #: the streams every rank seeds alike (analysis/seeded_streams.py), once
        self._alike: frozenset[str] | None = None
        #: names of the functions a training loop of this module calls (_step_helpers)
        self._step_names: set[str] | None = None
        #: the draws DP067 named (a base's, met again through each subclass)
        self._said: set[cst.Call] = set()

    def run(self) -> list[tuple[cst.Call, cst.CSTNode | None]]:
        classes = self._dataset_classes()
        for cls in classes:
            self._dataset_class(cls)
        own = {cls.name.value for cls in classes}  # their __getitem__ is read (_per_sample)
        for call, what, stream in called.handed_transforms(self):
            if code_of(call.func) not in own:
                self.t.warn(call, "DP067", called.handed_detail(call, what, self._seeded([stream])))
        for call, what, stream in called.handed_collates(self):
            self.t.warn(call, "DP067", called.collate_detail(call, what, self._seeded([stream])))
        for node in nodes_of(self.module, cst.Call):
            if self._is_split_without_generator(node):
                self._add(node)
        scopes: list[cst.CSTNode] = [self.module]
        scopes += nodes_of(self.module, cst.FunctionDef)
        for scope in scopes:
            self._slice(scope)
        return self.found

    # -- what is a draw -------------------------------------------------------------------
    def _is_draw(self, call: cst.Call) -> bool:
        names = self.t.qualified_names(call.func)
        if names & RANDOM_SPLIT:
            return self._is_split_without_generator(call)
        if names & RANDOM_DRAWS:
            return not own_stream(call)
        # an in-place fill of a tensor built there (`torch.empty(n).uniform_() < p`): the
        # same draw as `torch.rand(n) < p` (round 26: a split drawn so differed per rank)
        return fresh_fill(call) or self.t.helper_draw(call)

    def _is_split_without_generator(self, call: cst.Call) -> bool:
        if not self.t.matches(call.func, RANDOM_SPLIT):
            return False
        positional = [a for a in call.args if a.keyword is None and not a.star]
        return len(positional) < 3 and not any(
            a.star or (a.keyword is not None and a.keyword.value == "generator") for a in call.args
        )

    def _unseeded_generator(self, call: cst.Call) -> bool:
        return not call.args and self.t.matches(call.func, UNSEEDED_GENERATORS)

    def _alike_draw(self, call: cst.Call) -> bool:
        """The draw reads a process-wide stream every rank provably seeds alike: the
        program's (ProgramFacts.seeded_streams), else this module's own reading."""
        return self.alike(stream_of(self.t.qualified_names(call.func)))

    def describe(self, helper: HelperDraw) -> str:
        """The helper's draw, its line in the user's file where it is this module's (this
        pass reads the module after earlier passes added lines)."""
        if helper.path is None:
            helper = replace(helper, line=self.t.state.line_map(helper.line))
        return helper.describe()

    def alike(self, stream: str | None) -> bool:
        """`stream` (None: not known) is one every rank provably seeds alike."""
        if self._alike is None:
            self._alike = alike_streams(self.t.state.facts.seeded_streams, lambda: self.module.code)
        return stream is None or stream in self._alike

    def _seeded(self, streams: list[str | None]) -> str:
        """DP067's words for how the streams drawn from are seeded alike on every rank (the
        program's seed, or its loader workers'), "where ..." for a stream not known."""
        self.alike(None)
        alike = self._alike or frozenset()
        known = sorted({s for s in streams if s is not None and s in alike})
        if not known:
            return "where every rank seeds it alike"
        return (
            "seeded alike on every rank ("
            + "; ".join(
                f"{s}: {seeding(s, alike)}" if len(known) > 1 else seeding(s, alike) for s in known
            )
            + ")"
        )

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
        classes = nodes_of(self.module, cst.ClassDef)
        found: list[cst.ClassDef] = []
        names: set[str] = set()
        loaded = handed_datasets(self.module, self.t) | self.t.state.hints.per_sample.datasets
        for cls in classes:
            if cls.name.value in loaded and _indexed(cls):
                found.append(cls)
                names.add(cls.name.value)
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
                        or last in self.t.state.hints.per_sample.datasets  # another module's
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
        if not self._position_state(cls, methods):
            self._per_sample(cls, methods)
        per_sample = _self_reached(methods, [n for n in PER_SAMPLE if n in methods])
        todo = ["__init__"]
        done: set[str] = set()
        while todo:
            name = todo.pop()
            if name in done or name not in methods or name in PER_SAMPLE:
                continue
            done.add(name)
            if isinstance(body := methods[name].body, cst.IndentedBlock):
                self.method_bodies.append(body)
            for node in walk(methods[name].body, skip_scopes=True):
                if not isinstance(node, cst.Call):
                    continue
                func = node.func
                if isinstance(func, cst.Attribute) and code_of(func.value) == "self":
                    called = func.attr.value
                    if called in per_sample and self._draws_in(methods, called):
                        # the helper runs per sample too: its draws shared there would give
                        # every rank rank 0's values for its own samples (adntjr4/
                        # denoising_practice's noise, stop 59 v1-C); the call that builds
                        # the dataset is shared instead
                        self._add(node)
                        continue
                    todo.append(called)
                self._check_call(node)

    def _draws_in(self, methods: dict[str, cst.FunctionDef], name: str) -> bool:
        """The method `name`, or a method of the class it calls, draws."""
        return any(
            isinstance(node, cst.Call) and self._is_draw(node)
            for method in _self_reached(methods, [name])
            for node in walk(methods[method].body, skip_scopes=True)
        )

    def _position_state(self, cls: cst.ClassDef, methods: dict[str, cst.FunctionDef]) -> bool:
        """DP093 at state a per-sample method (PER_SAMPLE) advances under a condition on its
        sample's index (its first parameter after self): a global it declares, an attribute
        of `self` (D1 of stop 34, DeepFill v2's `if index % self.opt.batch_size == 0: SEED
        += 2`). A sharded sampler gives each rank its own indices, so each rank's copy
        advances at other positions than the original's (one may never). True where said:
        what the class draws then depends on that state, and DP067's reading (draws alike
        from a stream seeded alike) is not what goes wrong there."""
        for name in sorted(PER_SAMPLE & methods.keys()):
            method = methods[name]
            params = [p.name.value for p in method.params.params]
            if len(params) < 2 or params[0] != "self":
                continue
            index = params[1]
            declared = {
                n.name.value
                for node in walk(method.body, skip_scopes=True)
                if isinstance(node, cst.Global)
                for n in node.names
            }
            for node in walk(method.body, skip_scopes=True):
                if not isinstance(node, cst.If) or index not in _names_in(node.test):
                    continue
                for inner in walk(node.body, skip_scopes=True):
                    targets = (
                        [inner.target]
                        if isinstance(inner, cst.AugAssign)
                        else [t.target for t in inner.targets]
                        if isinstance(inner, cst.Assign)
                        else []
                    )
                    kept = [
                        t
                        for t in targets
                        if (isinstance(t, cst.Name) and t.value in declared)
                        or (isinstance(t, cst.Attribute) and code_of(t.value) == "self")
                    ]
                    if kept:
                        self.t.warn(
                            inner,
                            "DP093",
                            f"`{code_of(kept[0])}` in {cls.name.value}.{name}() changes when "
                            f"`{code_of(node.test)}` holds, a condition on the sample's index: "
                            "each rank's sampler shard holds other indices, so each rank's "
                            "copy advances at its own samples, not at the original's (a rank "
                            "may never advance it)",
                        )
                        return True
        return False

    def _per_sample(self, cls: cst.ClassDef, methods: dict[str, cst.FunctionDef]) -> None:
        """DP067 at the first draw from a process-wide generator (`np.random.uniform()`) in
        a per-sample method (`__getitem__` and the methods it calls on the instance: its
        class's, inherited, or bound in an attribute, `self.transform = self.train_aug`).
        Seeded alike, every rank draws the same sequence: rank r's k-th sample of a sharded
        loader gets every rank's k-th draw (WangYueFt/dcp@bcd7def's rotations); DataParallel
        drew the global batch's samples one after the other from one stream. Only where the
        stream is proved seeded alike (analysis/seeded_streams.py; AnTao97/dgcnn.pytorch@
        07d534c seeds torch only: its ranks draw differently). Left as it is: the warning."""
        classes = {c.name.value: c for c in nodes_of(self.module, cst.ClassDef)}
        methods = resolved_methods(cls, classes) | methods
        aliases = bound_aliases(methods)
        todo = [name for name in PER_SAMPLE if name in methods]
        done: set[str] = set()
        while todo:
            name = todo.pop()
            if name in done or name not in methods or name == "__init__":
                continue
            done.add(name)
            for node in walk(methods[name].body, skip_scopes=True):
                if not isinstance(node, cst.Call) or node in self._said:
                    continue
                func = node.func
                if isinstance(func, cst.Attribute) and code_of(func.value) == "self":
                    if func.attr.value in methods or func.attr.value in aliases:
                        todo.append(func.attr.value)
                        todo += sorted(aliases.get(func.attr.value, ()))
                        continue
                    drawing = self._drawing_transform() or called.drawing_callable(self, func)
                    if drawing:
                        seeded = self._seeded([stream for _, stream in drawing])
                        self._said.add(node)
                        self.t.warn(
                            node,
                            "DP067",
                            f"{code_of(func)}() in {cls.name.value}.{name}() may be a transform "
                            f"of this module that draws from the process-wide generator "
                            f"({', '.join(text for text, _ in drawing)}): {seeded}, rank r's "
                            "k-th sample gets every rank's k-th draw",
                        )
                        return
                elif (
                    self.t.qualified_names(func) & RANDOM_DRAWS
                    and self._is_draw(node)
                    and self._alike_draw(node)
                ):
                    self._said.add(node)
                    self.t.warn(
                        node,
                        "DP067",
                        f"{code_of(func)}() in {cls.name.value}.{name}() draws from the "
                        "process-wide generator: "
                        f"{self._seeded([stream_of(self.t.qualified_names(func))])}, rank r's "
                        "k-th sample gets every rank's k-th draw",
                    )
                    return
                elif own_generator_draw(self, cls, methods, name, node):
                    return  # `self.rng.randint(...)` of a generator seeded alike
                elif (helper := self.t.helper_draw_of(node)) is not None and self.alike(
                    helper.stream
                ):
                    # A function of the program that draws, itself or through the functions
                    # it calls, of this module or another (AugMix's `aug(image, preprocess)`,
                    # google-research/augmix@9b9824c): a draw per sample all the same.
                    self._said.add(node)
                    self.t.warn(
                        node,
                        "DP067",
                        f"{code_of(func)}() in {cls.name.value}.{name}() draws from the "
                        f"process-wide generator ({self.describe(helper)}): "
                        f"{self._seeded([helper.stream])}, rank r's k-th sample gets every "
                        "rank's k-th draw",
                    )
                    return

    def _drawing_transform(self) -> list[tuple[str, str | None]]:
        """The classes of this module whose `__call__` draws from a process-wide generator,
        directly, in the methods of the class it calls or in the module's top-level
        functions it calls (`random_rot_flip(image, label)`: TransUNet@02ef001's
        `RandomGenerator`, defined beside its Dataset and built in another module): the
        transform objects `self.transform(sample)` may call per sample. Another module's
        is asked where it is built (callable_draws.py), a library's not seen."""
        if self._drawing is not None:
            return self._drawing
        functions = {s.name.value: s for s in self.module.body if isinstance(s, cst.FunctionDef)}
        self._drawing = []
        for cls in nodes_of(self.module, cst.ClassDef):
            if not isinstance(cls.body, cst.IndentedBlock):
                continue
            methods = {s.name.value: s for s in cls.body.body if isinstance(s, cst.FunctionDef)}
            todo: list[cst.FunctionDef] = [methods["__call__"]] if "__call__" in methods else []
            done: set[cst.FunctionDef] = set()
            while todo:
                function = todo.pop()
                if function in done:
                    continue
                done.add(function)
                for node in walk(function.body, skip_scopes=True):
                    if not isinstance(node, cst.Call):
                        continue
                    func = node.func
                    if isinstance(func, cst.Attribute) and code_of(func.value) == "self":
                        if func.attr.value in methods:
                            todo.append(methods[func.attr.value])
                    elif isinstance(func, cst.Name) and func.value in functions:
                        todo.append(functions[func.value])
                    elif (
                        self.t.qualified_names(func) & RANDOM_DRAWS
                        and self._is_draw(node)
                        and self._alike_draw(node)
                    ):
                        self._drawing.append(
                            (
                                f"{cls.name.value}: {code_of(func)}()",
                                stream_of(self.t.qualified_names(func)),
                            )
                        )
                        todo = []
                        break
                    elif (helper := self.t.helper_draw_of(node)) is not None and self.alike(
                        helper.stream
                    ):
                        # a function of another module (or this one's, reached by an alias)
                        self._drawing.append(
                            (f"{cls.name.value}: {self.describe(helper)}", helper.stream)
                        )
                        todo = []
                        break
        return self._drawing

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
        wrapped = set(self.t.state.wrapped)
        last = self._wrapped_names()
        for line in lines:
            for call in calls_in[line]:
                if self._builds_dataset(call):
                    needed |= _read_keys(call)
                    in_slice.append(line)
                    break
                if (
                    name_of(model_called(call.func), through=(cst.Subscript,)) in last
                    and calls_model(call, wrapped)
                    and self._evaluated(call, scope)
                ):  # the lines that make what it is given (not draws in its own line)
                    needed |= _read_keys(call)
                for value in handed_to_evaluation(
                    lambda: view(self.module), call, wrapped, last, self._evaluated
                ):
                    needed |= _read_keys(value)  # `evaluate(model, X[val_idx])` (stop 53 s3)
        if not in_slice and not needed:
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

    def _wrapped_names(self) -> set[str]:
        """The last names of the wrapped models' spellings (`self.nets["g"]` -> "nets"):
        asked of a call first, so the call's code is made only for those that may match."""
        if self._last_names is None:
            self._last_names = set()
            for spelled in self.t.state.wrapped:
                try:
                    expr = cst.parse_expression(spelled)
                except cst.ParserSyntaxError:
                    continue
                self._last_names.add(name_of(expr, through=(cst.Subscript,)))
        return self._last_names

    def _evaluated(self, call: cst.Call, scope: cst.CSTNode) -> bool:
        """A call of the wrapped model every rank makes whole: with gradients off, or in no
        loop of its function that trains. The data it is given (`xv = X[val_idx]`, `val_idx
        = np.random.choice(n, k)` before the loop: a validation set drawn once) is what
        DataParallel's one process drew; each rank drawing its own, rank 0's figure (and
        what it decides: a best checkpoint, an early stop on every rank) would be of a set
        of its own (stop 52, s2). The draws of the statements that make what it is given
        are shared like a dataset's; a draw in the call's own line (`model(torch.randn(2,
        4))`, a probe) is not followed."""
        if under_grad_off(call, self.t.parent, self.t.matches):
            return True
        if self._in_training_loop(call, scope):
            return False
        function = enclosing_function(call, self.t)
        return function is None or function.name.value not in self._step_helpers()

    def _step_helpers(self) -> set[str]:
        """The last names of what a training loop of this module calls (`self.d_loss_fn(
        ...)`, `penalty(...)`): a model call in such a function is part of the step, made on
        this rank's share, not an evaluation every rank makes whole (stop 55 v3-A). Its
        draws stay per rank, as DP006 at the loop's call says; made rank 0's they would be
        the rows of rank 0's share on every rank."""
        if self._step_names is None:
            self._step_names = step_names(self.module, self.t.in_training_loop)
        return self._step_names

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
    while stack:  # exact types: leaf classes (no ABC check a node)
        node, calls = stack.pop()
        kind = type(node)
        if kind is cst.SimpleStatementLine:
            calls = found[cast(cst.SimpleStatementLine, node)] = []
        elif calls is not None and kind is cst.Call:
            calls.append(cast(cst.Call, node))
        if kind in SCOPE_KINDS and node is not body:
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


def _names_in(node: cst.CSTNode) -> set[str]:
    """The names `node` reads (`index % self.bs == 0` -> index, self)."""
    return {n.value for n in variables_under(node)}


def _indexed(cls: cst.ClassDef) -> bool:
    """A map-style dataset: `__getitem__` in its body (a DistributedSampler indexes it). An
    iterable one (`__iter__` only) draws per pass, which ddp_same_random must not share."""
    body = cls.body.body if isinstance(cls.body, cst.IndentedBlock) else ()
    return any(isinstance(s, cst.FunctionDef) and s.name.value == "__getitem__" for s in body)
