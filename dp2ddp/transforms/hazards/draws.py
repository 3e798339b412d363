"""DP006 through project helpers: random numbers drawn by a function the training loop calls.

`lam = np.random.beta(a, a)` written in the loop body is a draw every rank makes on its own;
so is `x, ya, yb, lam = mixup_data(x, y, alpha)` when mixup_data(), a function of the
project, draws inside (facebookresearch/mixup-cifar10@eaff31a, clovaai/CutMix-PyTorch@2d8eb68
`rand_bbox`). The warning goes to the call site in the loop and names the helper and its
first draw, followed through the helpers it calls in turn.

A helper is a module-level function or a method of a module-level class: of this module
(found by its qualified name, so an alias or a shadowing local is told apart), or of another
module of the program, whose draws the program step found before the entry is migrated
(`ProgramFacts.draws`, dp2ddp/facts.py, methods as `module.Class.method`). A method is
reached through an instance (stop 45, v3-B: `batch_augs(x, y, epoch)` runs
`BatchAugs.__call__`, whose `torch.randperm(n)` and `torch.rand(n, 1, 1)` every rank drew
alike), `obj.method(...)`, or `self.method(...)` inside another method; the instance's class
is where the def-use view's origins find it built (here, or handed in as a parameter).
Seeding (`np.random.seed`, `torch.manual_seed`) is no draw, and a helper called outside
any training loop is not reported.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import replace

import libcst as cst

from dp2ddp.facts import HelperDraw as Draw
from dp2ddp.flow import DefUse, origins, view
from dp2ddp.transforms._support.names import DATAPARALLEL
from dp2ddp.transforms._support.nodes import code_of, name_of, nodes_of, walk
from dp2ddp.transforms.analysis.batch_noise import DISTRIBUTION_METHODS
from dp2ddp.transforms.analysis.local_functions import local_functions
from dp2ddp.transforms.analysis.random_draws import (
    RANDOM_DRAWS,
    fresh_fill,
    module_distributions,
    own_stream,
)
from dp2ddp.transforms.analysis.random_draws import (
    sampled_distribution as _sample,
)
from dp2ddp.transforms.analysis.row_picks import PERMUTATIONS
from dp2ddp.transforms.analysis.seeded_streams import stream_of
from dp2ddp.transforms.analysis.torch_generators import (
    batch_sized,
    generators_alike,
    given_generator,
)
from dp2ddp.transforms.analysis.training import loop_trains
from dp2ddp.transforms.hazards.generator_objects import (
    GENERATOR_DRAWS,
    builds_generators,
    generator_draw,
    handed_generators,
)
from dp2ddp.transforms.hazards.permuted_rows import mixed_parameter

QualifiedNames = Callable[[cst.CSTNode], set[str]]
Position = Callable[[cst.CSTNode], tuple[int, int]]
Parent = Callable[[cst.CSTNode], cst.CSTNode | None]


def none_guard(
    function: cst.FunctionDef | cst.Lambda, node: cst.CSTNode, parent: Parent
) -> tuple[int, str] | None:
    """(position, name) of the parameter of `function` whose `if <name> is None:` body holds
    `node` (the parameter's default None: the caller may pass none); None otherwise."""
    params = function.params
    positional = [*params.posonly_params, *params.params]
    current: cst.CSTNode | None = node
    while current is not None and current is not function:
        above = parent(current)
        if isinstance(above, cst.If) and current is above.body:
            test = above.test
            if (
                isinstance(test, cst.Comparison)
                and isinstance(test.left, cst.Name)
                and len(test.comparisons) == 1
                and isinstance(test.comparisons[0].operator, cst.Is)
                and isinstance(test.comparisons[0].comparator, cst.Name)
                and test.comparisons[0].comparator.value == "None"
            ):
                for index, param in enumerate([*positional, *params.kwonly_params]):
                    default = param.default
                    if (
                        param.name.value == test.left.value
                        and isinstance(default, cst.Name)
                        and default.value == "None"
                    ):
                        return (index if index < len(positional) else -1, param.name.value)
        current = above
    return None


class HelperDraws:
    """Which module-level functions of one module draw random numbers (computed lazily)."""

    def __init__(
        self,
        module: cst.Module,
        qualified_names: QualifiedNames,
        position: Position,
        parent: Parent,
        imported: Mapping[str, Draw] | None = None,
        text: str | None = None,
    ) -> None:
        self._qualified_names = qualified_names
        self._position = position
        self._parent = parent
        self._imported = imported or {}
        self._functions = {
            statement.name.value: statement
            for statement in module.body
            if isinstance(statement, cst.FunctionDef)
        }
        #: the methods of the module's classes as `Class.method` (stop 45, v3-B: a mixup
        #: object's `__call__` the loop hands its batch to, `batch_augs(x, y, epoch)`)
        self._functions.update(
            {
                f"{statement.name.value}.{method.name.value}": method
                for statement in module.body
                if isinstance(statement, cst.ClassDef)
                for method in statement.body.body
                if isinstance(method, cst.FunctionDef)
            }
        )
        #: the last part of every method here and of every drawing one elsewhere: a call
        #: `obj.name(...)` / `obj(...)` is followed to the class of `obj` only for these
        self._method_names = {k.rpartition(".")[2] for k in (*self._functions, *self._imported)}
        #: another module's functions returning a drawing closure (Draw.closure)
        self._closures = any(d.closure for d in self._imported.values())
        #: functions and lambdas bound to a name inside a function or method here, by the
        #: qualified name a call of them resolves to (`train.<locals>.pick`): stop 60, v4-C;
        #: read on the first lookup (`_locals`), not for a module whose calls never ask
        self._locals_found: dict[str, cst.FunctionDef | cst.Lambda] | None = None
        #: classes of this module whose instances DataParallel wraps (_wrapped_classes)
        self._wrapped: set[str] | None = None
        self._found: dict[str, Draw | None] = {}
        self._training_loops: dict[int, bool] = {}
        #: per-step methods of the module's iterator classes (`__next__`, `__iter__`)
        self._steps = {
            statement.name.value: [
                m
                for m in statement.body.body
                if isinstance(m, cst.FunctionDef) and m.name.value in ("__next__", "__iter__")
            ]
            for statement in module.body
            if isinstance(statement, cst.ClassDef)
        }
        self._module = module
        #: `R.sample` / `R.rsample` of module-level torch.distributions objects (shapegan's
        #: util.py): a helper calling one draws; exported, so that importers' calls draw too
        self._sampled = {
            f"{r}.{method}": Draw(f"{r}.{method}", f"{r}.{method}", line, stream="torch")
            for r, line in module_distributions(module, qualified_names, position, text).items()
            for method in sorted(DISTRIBUTION_METHODS)
        }
        self._instances: dict[str, str] | None = None
        #: the module's torch.Generators are alike on every rank (torch_generators), once
        self._alike: bool | None = None
        self._text = text
        #: whether the module builds a generator object (builds_generators), once
        self._generators: bool | None = None
        #: `from training_utils import *` at module level: a plain name called here and not
        #: defined here may be one of theirs (the last such import first, as Python binds):
        #: jalola/improved-wgan-pytorch@5bb0b72's `gen_rand_noise(batch_size)`, stop 43 v2-F
        self._stars = [
            code_of(line.module)
            for statement in module.body
            if isinstance(statement, cst.SimpleStatementLine)
            for line in statement.body
            if isinstance(line, cst.ImportFrom)
            and isinstance(line.names, cst.ImportStar)
            and line.module is not None
            and not line.relative
        ][::-1]

    def of_call(self, call: cst.Call, objects: bool = False) -> Draw | None:
        """The draw behind `call` when it calls a project helper that draws; else None.
        `ddp_rank0_value(helper, ...)` (a figure the migration made rank 0's) still calls
        the helper on every rank: `--check` reports the DP006 the migration reported. A draw
        from a generator object the program builds (`rng.beta(a, a)`, generator_draw) is
        one too, the call itself (helper ""), asked with `objects` (the training loop's
        DP006; not the dataset draws' `ddp_same_random`, which shares the process-wide
        streams, not such an object's)."""
        func = call.func
        if (
            isinstance(func, cst.Name)
            and func.value == "ddp_rank0_value"
            and call.args
            and call.args[0].keyword is None
            and not call.args[0].star
        ):
            func = call.args[0].value
        names = self._names(func)
        if names & self._sampled.keys() or any(_sample(self._imported.get(n)) for n in names):
            return None  # a distribution object's draw written here: shared_draws says it
        draw = self._call_draw(call, names, set())
        if draw is None and isinstance(func, (cst.Name, cst.Attribute)):
            draw = self._call_draw(call, self._instance_methods(func), set())
        if not objects:
            return None if draw is not None and draw.source else draw
        if draw is None:
            draw = self._own_method_draw(call)
        if draw is None and (built := self._generator_draw(call)):
            return Draw(
                "",
                code_of(func),
                self._position(call)[0],
                source=code_of(built),
                handed=handed_generators(view(self._module), call),
            )
        return draw

    def of_value(self, value: cst.BaseExpression) -> Draw | None:
        """The draw a call of the object `value` holds makes, as `value(...)` would: an
        instance of a program class built here or handed in (`Jitter()`, a name bound to
        one), or an object another module builds at its top level (`jitter.JITTER`: its
        `module.JITTER.__call__`, program/callable_draws.py). A transform handed to a
        dataset (shared_draws/callable_draws.py); a function or lambda is not asked here."""
        names = self._forwards(self._held(view(self._module), value, "__call__"))
        if isinstance(value, (cst.Name, cst.Attribute)):
            names |= {f"{n}.__call__" for n in self._names(value)}
        return self._callee_draw(names, set())

    def of_function(self, value: cst.BaseExpression) -> Draw | None:
        """The draw a call of the function of the program `value` names makes, itself or
        through the functions it calls: this module's, or another module's (ProgramFacts.
        draws): a function handed to a dataset as its transform (`transform=random_flip`,
        shared_draws/callable_draws.py). A draw from a generator object is none (as for
        of_call without `objects`)."""
        if not isinstance(value, (cst.Name, cst.Attribute)):
            return None
        draw = self._callee_draw(self._names(value), set())
        return None if draw is None or draw.source else draw

    def _own_method_draw(self, call: cst.Call) -> Draw | None:
        """The draw of `self.step_helper(...)` where the method belongs to the class of the
        method the call is in (stop 55, v3-A, 1975494921/GAN_research@eb4e07e6: a trainer
        class's `train()` loop calls `self.d_loss_fn(...)`, whose gradient penalty draws
        `torch.rand(batch_size, 1, 1, 1)` for the rows this rank holds; every rank drew the
        same values, silently). Asked for the training loop's DP006 only (`objects`): the
        dataset draws' finder follows a Dataset's own `self._pairs()` itself, and
        _instance_methods leaves such methods to it."""
        func = call.func
        if not (isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name)):
            return None
        flow = view(self._module)
        function = flow.function_around(func)
        if function is None or function.owner is None or func.value.value != function.self_name:
            return None
        if flow.method(function.owner, func.attr.value) is None:
            return None
        return self._call_draw(call, {f"{function.owner.name.value}.{func.attr.value}"}, set())

    def mixer(self) -> Callable[[cst.Call], Draw | None] | None:
        """`of_call` where a helper here or elsewhere may mix its argument's rows in a drawn
        order (HelperDraw.mixes: this module calls a permutation draw, or an imported helper
        mixes), else None (DP147's walk through helpers is not asked)."""
        tails = {name.rsplit(".", 1)[1] for name in PERMUTATIONS}
        permutes = any(name_of(c.func) in tails for c in nodes_of(self._module, cst.Call))
        permutes = permutes or _has_modulo(self._module)  # rows paired at fixed offsets
        if permutes or any(d.mixes is not None for d in self._imported.values()):
            return self.of_call
        return None

    def _generator_draw(self, call: cst.Call) -> cst.Call | None:
        """generator_draw in this module, none where it builds no generator object."""
        func = call.func
        if not (isinstance(func, cst.Attribute) and func.attr.value in GENERATOR_DRAWS):
            return None
        if self._generators is None:
            calls = nodes_of(self._module, cst.Call)
            self._generators = builds_generators(calls, self._qualified_names)
        if not self._generators:
            return None
        return generator_draw(view(self._module), call, self._qualified_names)

    def _instance_methods(self, func: cst.BaseExpression) -> set[str]:
        """What `obj(...)` / `obj.name(...)` runs where `obj` holds an instance of a class
        of the program (the def-use view's origins: `mix = Mixer(a)` in this function, a
        parameter every call of this module binds to one, `self.augs` bound in a method):
        `Class.__call__` / `Class.name` of this module's class, or `module.Class.__call__`
        of another module's (its draws are ProgramFacts.draws). A torch module's
        `__call__` runs its forward, which DataParallel ran per replica too: not followed
        (only a `__call__` the class defines). `self.augs(...)` is a call of what the
        class's methods bind to `self.augs` where the class defines no method `augs` (its
        own methods are not followed from here: the dataset draws' finder, which also asks
        this, follows a Dataset's `self._pairs()` itself)."""
        name = func.attr.value if isinstance(func, cst.Attribute) else "__call__"
        if (
            name not in self._method_names
            and not {"__call__", "forward"} & self._method_names
            and not self._closures
        ):
            return set()  # no class of the program has a method that could run here
        flow = view(self._module)
        if not isinstance(func, cst.Attribute):
            return self._forwards(self._held(flow, func, "__call__"))
        receiver = func.value
        function = flow.function_around(func)
        owner = function.owner if function is not None else None
        if not (isinstance(receiver, cst.Name) and owner is not None and function is not None
                and receiver.value == function.self_name):  # fmt: skip
            return self._held(flow, receiver, name)
        if flow.method(owner, name) is not None:
            return set()  # a method of its own (a Dataset's `self._pairs()`): as before
        found: set[str] = set()
        for definition in flow.attribute_definitions(owner, name):
            if definition.value is not None:
                found |= self._held(flow, definition.value, "__call__")
        return self._forwards(found)

    def _forwards(self, calls: set[str]) -> set[str]:
        """`calls` (`Class.__call__` of the instances a call may run) with `Class.forward`
        where the class defines no `__call__` of its own: a torch module the loop calls
        runs its forward (stop 60, v4-B, hendrycks/ss-ood@8051356 adversarial/train.py:
        `adversary(net, bx, by, ...)`, a PGD attack module whose forward draws the random
        start `torch.zeros_like(adv_bx).uniform_(-eps, eps)` for the rows this rank holds;
        every rank drew the same values, silently). Not for a class whose instance
        DataParallel wraps here: its forward ran per replica under DataParallel too."""
        found = set(calls)
        for name in calls:
            cls = name.removesuffix(".__call__")
            if (
                name not in self._functions
                and name not in self._imported
                and cls not in self._wrapped_classes()
            ):
                found.add(f"{cls}.forward")
        return found

    def _wrapped_classes(self) -> set[str]:
        """The classes whose instances a DataParallel call of this module wraps (found as
        _held finds an instance's class), computed once."""
        if self._wrapped is None:
            flow = view(self._module)
            self._wrapped = {
                held.removesuffix(".__call__")
                for call in nodes_of(self._module, cst.Call)
                if call.args and self._qualified_names(call.func) & DATAPARALLEL
                for held in self._held(flow, call.args[0].value, "__call__")
            }
        return self._wrapped

    def _held(self, flow: DefUse, value: cst.BaseExpression, method: str) -> set[str]:
        """`Class.method` for each program class `value` may hold an instance of: built
        by a call and carried only by bindings (names, attributes, parameters) to it, not
        a value computed from one (`loss` from a batch of a loader built with one)."""
        if not isinstance(value, (cst.Name, cst.Attribute, cst.Call)) or (
            isinstance(value, cst.Name) and value.value in self._functions
        ):
            return set()
        found: set[str] = set()
        for origin in origins(flow, value):
            call = origin.node
            if origin.kind not in ("instance", "call") or not isinstance(call, cst.Call):
                continue
            if not all(
                isinstance(step.node, (cst.Name, cst.Attribute, cst.Param)) and not step.cut
                for step in origin.path[1:]
            ):
                continue
            owner = flow.class_called(call)
            if owner is not None:
                found.add(f"{owner.name.value}.{method}")
            elif origin.kind == "call":
                found |= {f"{name}.{method}" for name in self._qualified_names(call.func)}
        return found

    def _call_draw(self, call: cst.Call, names: set[str], seen: set[str]) -> Draw | None:
        """The draw `call` makes through the helper it calls: none where the helper draws
        only when a parameter is None and the call passes it a value (jalola/improved-wgan-
        pytorch@5bb0b72's `generate_image(aG, ..., noise=fixed_noise)`, stop 43)."""
        draw = self._callee_draw(names, seen)
        if draw is None or draw.when_none is None:
            return draw
        index, name = draw.when_none
        for position, arg in enumerate(call.args):
            if arg.star:
                return draw  # `*args`, `**kwargs`: which parameter they fill is not read
            named = arg.keyword.value if arg.keyword is not None else None
            if named == name or (named is None and position == index):
                none = isinstance(arg.value, cst.Name) and arg.value.value == "None"
                return draw if none else None
        return draw

    def of_iterator(self, source: cst.BaseExpression) -> Draw | None:
        """The draw made on each step of an iterator of the module's own class that `source`
        names (`next(fetcher)`, `for x, y, z in fetcher`, `fetcher = DataFetcher(loader)`):
        a random value drawn in its `__next__` (or a generator `__iter__`) for each batch, as
        a custom fetcher's latent codes are."""
        if not isinstance(source, (cst.Name, cst.Attribute)):
            return None
        if self._instances is None:
            self._instances = {}
            for assign in nodes_of(self._module, cst.Assign):
                if (
                    len(assign.targets) == 1
                    and isinstance(assign.value, cst.Call)
                    and isinstance(assign.value.func, cst.Name)
                    and assign.value.func.value in self._steps
                ):
                    self._instances[code_of(assign.targets[0].target)] = assign.value.func.value
        cls = self._instances.get(code_of(source))
        if cls is None:
            return None
        for method in self._steps[cls]:
            for node in self._calls(method.body):
                names = self._qualified_names(node.func)
                if names & RANDOM_DRAWS and not own_stream(node):
                    what = code_of(node.func)
                    return Draw(
                        f"{cls}.{method.name.value}", what, self._position(node)[0],
                        stream=stream_of(names),
                    )  # fmt: skip
                inner = self._callee_draw(names, set())
                if inner is not None:
                    return replace(inner, helper=f"{cls}.{method.name.value}")
        return None

    def exported(self) -> dict[str, Draw]:
        """Every drawing function of this module by its name (for the program's other modules)."""
        found = {name: self._first_draw(name, set()) for name in self._functions}
        return {**self._sampled, **{name: d for name, d in found.items() if d is not None}}

    def _calls(self, root: cst.CSTNode) -> Iterator[cst.Call]:
        """Calls under `root` in source order, outside nested scopes and outside training
        loops (a `train()` helper's own loop: its draws get DP006 where they are)."""
        for node in walk(root, skip_scopes=True):
            if isinstance(node, cst.Call) and not self._in_training_loop(node, root):
                yield node

    def _in_training_loop(self, node: cst.CSTNode, root: cst.CSTNode) -> bool:
        parent = self._parent(node)
        while parent is not None and parent is not root:
            if isinstance(parent, (cst.For, cst.While)):
                training = self._training_loops.get(id(parent))
                if training is None:
                    training = loop_trains(parent, self._qualified_names)
                    self._training_loops[id(parent)] = training
                if training:
                    return True
            parent = self._parent(parent)
        return False

    @property
    def _locals(self) -> dict[str, cst.FunctionDef | cst.Lambda]:
        if self._locals_found is None:
            self._locals_found = local_functions(self._module)
        return self._locals_found

    def _first_draw(self, name: str, seen: set[str]) -> Draw | None:
        """`name`'s first draw, directly or through the helpers it calls (`seen`: the
        helpers on the way, so that recursion ends; only a draw or a complete search is
        remembered, not the "nothing" of a search cut short by recursion)."""
        if name in self._found:
            return self._found[name]
        if name in seen:
            return None
        complete = not seen
        seen.add(name)
        draw = guarded = None
        function: cst.FunctionDef | cst.Lambda
        if name in self._locals:
            function, owner = self._locals[name], ""
        else:
            function, owner = self._functions[name], name.rpartition(".")[0]
        shown = name.rpartition("<locals>.")[2]  # a local function by its own name
        for node in self._calls(function if isinstance(function, cst.Lambda) else function.body):
            names = self._names(node.func)
            func = node.func
            if (
                owner
                and isinstance(func, cst.Attribute)
                and isinstance(func.value, cst.Name)
                and func.value.value == "self"
            ):
                names.add(f"{owner}.{func.attr.value}")  # `self._mix(x)` in a method
            found = None
            if names & RANDOM_DRAWS and not own_stream(node):
                found = Draw(
                    shown, code_of(node.func), self._position(node)[0], stream=stream_of(names)
                )
            elif fresh_fill(node):
                found = Draw(shown, code_of(node.func), self._position(node)[0], stream="torch")
            elif built := self._generator_draw(node):
                found = Draw(
                    shown,
                    code_of(node.func),
                    self._position(node)[0],
                    source=code_of(built),
                    handed=handed_generators(view(self._module), node),
                )
            elif self._batch_generator(node, names, function, bool(owner)):
                generator = code_of(given_generator(node) or node)
                found = Draw(shown, code_of(node.func), self._position(node)[0], source=generator)
            elif (inner := self._call_draw(node, names, seen)) is not None:
                found = replace(inner, helper=shown, when_none=None)
            if found is None:
                continue
            when = none_guard(function, node, self._parent)
            if when is None or (guarded is not None and guarded.when_none != when):
                draw = found
                break
            guarded = guarded or replace(found, when_none=when)
        draw = draw or guarded
        if draw is not None and isinstance(function, cst.FunctionDef):
            # its own mixing only, not a callee's (whose parameters differ)
            mixes, fixed = self._mixes(function, bool(owner))
            if (mixes, fixed) != (draw.mixes, draw.pairs_fixed):
                draw = replace(draw, mixes=mixes, pairs_fixed=fixed)
        if draw is not None or complete:
            self._found[name] = draw
        return draw

    def _batch_generator(
        self,
        node: cst.Call,
        names: set[str],
        function: cst.FunctionDef | cst.Lambda,
        method: bool,
    ) -> bool:
        """A draw of the helper given a torch.Generator alike on every rank and sized by a
        parameter of the helper (analysis/torch_generators.py: every rank draws the same
        values for its part of the batch it is handed; Neighbor2Neighbor's masks)."""
        if not names & RANDOM_DRAWS or given_generator(node) is None:
            return False
        if self._alike is None:
            self._alike = generators_alike(self._module, self._text)
        if not self._alike or not isinstance(function, cst.FunctionDef):
            return False
        params = [p.name.value for p in function.params.params][int(method) :]
        return batch_sized(node, function.body, params)

    def _mixes(
        self, function: cst.FunctionDef, method: bool
    ) -> tuple[tuple[int, str, int, bool] | None, bool]:
        """The parameter whose rows `function` mixes in a drawn order (mixed_parameter), the
        module's def-use view asked only where the function calls a permutation draw; else
        one whose rows it pairs at fixed offsets (`x[(i + 1) % b]`, where a `%` is in it):
        (that parameter's place, whether at fixed offsets)."""
        line, names = self._position, self._qualified_names
        if any(self._names(c.func) & PERMUTATIONS for c in self._calls(function.body)):
            drawn = mixed_parameter(view(self._module), function, method, names, line)
            if drawn is not None:
                return drawn, False
        if not _has_modulo(function):
            return None, False
        fixed = mixed_parameter(view(self._module), function, method, names, line, True)
        return fixed, fixed is not None

    def _names(self, func: cst.BaseExpression) -> set[str]:
        """`func`'s qualified names; a plain name bound by nothing here (a star import's:
        libcst resolves none) as itself, for `_callee_draw` to look up in `self._stars`."""
        names = set(self._qualified_names(func))
        if not names and self._stars and isinstance(func, cst.Name):
            names.add(func.value)
        return names

    def _callee_draw(self, names: set[str], seen: set[str]) -> Draw | None:
        for callee in sorted(names):
            if callee in self._functions or callee in self._locals:
                draw = self._first_draw(callee, seen)
            else:
                draw = self._imported.get(callee) or self._sampled.get(callee)
                if draw is not None and draw.closure:
                    draw = None  # the factory's call draws nothing: its closure's calls do
            if draw is None and callee.endswith(".__call__"):
                # an object another module's function returned, whose draw is in a
                # function it defines (a loss factory's closure: `self.loss_fn =
                # get_sde_loss_fn(...)`, then `self.loss_fn(model, x)` in the loop; round
                # 26, harryjo97/GDSS@24cc490's spelling): calling the object draws
                made = self._imported.get(callee.removesuffix(".__call__"))
                draw = made if made is not None and made.closure else None
            if draw is None and "." not in callee:
                star = next(
                    (f"{m}.{callee}" for m in self._stars if f"{m}.{callee}" in self._imported), ""
                )
                draw = self._imported.get(star)
            if draw is not None:
                return draw
        return None


def _has_modulo(node: cst.CSTNode) -> bool:
    """A `%` operation under `node`: positions wrapped around the batch may be paired
    (`(i + 1) % b`), the cheap test before mixed_parameter's walk for them."""
    return any(isinstance(n.operator, cst.Modulo) for n in nodes_of(node, cst.BinaryOperation))
