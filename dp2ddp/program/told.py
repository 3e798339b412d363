"""What a program tells each of its modules (ProgramFacts), each part computed once for the
program and only when asked for: the program migration's questions to the project model."""

from __future__ import annotations

import re
from dataclasses import replace
from functools import partial
from typing import TYPE_CHECKING

from dp2ddp.facts import (
    BackwardSummary,
    CommandArgument,
    CommandLine,
    HelperDraw,
    LoaderFeed,
    ModelClass,
    PickledParam,
    ProgramFacts,
    ProgramHints,
    ProgramLoaders,
    Reexports,
    Role,
)
from dp2ddp.loss_facts import BatchSumReturn, MeterClass
from dp2ddp.migrate.line_length import helpers_first_party
from dp2ddp.program.discovery import Program, ProgramModule
from dp2ddp.program.helpers_home import package_home
from dp2ddp.program.import_reach import reached
from dp2ddp.program.project import Project, others
from dp2ddp.program.reexports import ProgramReexports, package_aliases
from dp2ddp.program.replica_classes import with_replicas
from dp2ddp.program.told_loaders import LoaderTeller
from dp2ddp.result import LoaderExport

# The passes' program-wide analyses and the helpers module (libcst, jinja2) load inside
# the functions that need them: a program without DataParallel needs none of them.
if TYPE_CHECKING:
    from dp2ddp.program.uniformity import ProgramUniformity
    from dp2ddp.transforms.analysis.class_facts import ClassFacts
    from dp2ddp.transforms.analysis.class_reach import ModuleReach
    from dp2ddp.transforms.analysis.wrapped_classes import ModuleWraps


class ProgramTeller(LoaderTeller):
    """What a program tells its modules, each part computed once for the program and only
    when asked for (a program whose gate is shut needs none of it)."""

    def __init__(
        self,
        program: Program,
        project: Project,
        helpers: str | None = None,
        reexports: ProgramReexports | None = None,
    ) -> None:
        self.program = program
        self.project = project
        self._reexports = reexports
        self._helpers = helpers
        self._hints: dict[str, ProgramHints] | None = None
        self._draws: tuple[tuple[str, HelperDraw], ...] | None = None
        self._sample_readers: tuple[tuple[str, tuple[tuple[int, str], ...]], ...] | None = None
        self._pickling: tuple[tuple[str, tuple[PickledParam, ...]], ...] | None = None
        self._backward: tuple[tuple[str, BackwardSummary], ...] | None = None
        self._owners: dict[str, str] | None = None
        self._reach: dict[str, frozenset[str]] | None = None
        self._uniform: ProgramUniformity | None = None
        self._models: dict[str, str] | None = None
        self._model_classes: tuple[ModelClass, ...] = ()
        self._wrap_functions: tuple[tuple[str, ...], tuple[str, ...]] | None = None
        self._contained_wraps: tuple[str, ...] | None = None
        self._seeded: frozenset[str] | None = None
        self._untouched: dict[str, tuple[tuple[int, str], ...]] | None = None
        self._batch_sums: tuple[tuple[str, tuple[BatchSumReturn, ...]], ...] | None = None
        self._tensor_lists: tuple[tuple[str, str], ...] | None = None
        self._meters: tuple[tuple[str, MeterClass], ...] | None = None
        self._command_line: CommandLine | None = None
        #: function name -> whether some module names it otherwise than by its def
        self._names: dict[str, bool] = {}
        #: module (real path) -> the import name of the helpers module it imports
        self._homes: dict[str, str] = {}

    @property
    def helpers(self) -> str:
        return self._helpers or self.program.helpers_import

    def helpers_of(self, module: ProgramModule) -> str:
        """The import name of the generated module `module` imports its helpers from: its
        package's for a library module of a package imported from another folder
        (program/helpers_home.py), else the one beside the entry."""
        found = self._homes.get(module.real)
        if found is None:
            home = package_home(self.program, module) if self._helpers is None else None
            found = self._homes[module.real] = home[0] if home is not None else self.helpers
        return found

    def hints(self, module: ProgramModule) -> ProgramHints:
        if self._hints is None:
            from dp2ddp.transforms.rank_zero.program_hints import program_hints

            self._hints = program_hints(self.program, self.project.names)
        return self._hints[module.real]

    def uniform(self) -> ProgramUniformity:
        if self._uniform is None:
            from dp2ddp.program.uniformity import ProgramUniformity

            self._uniform = ProgramUniformity(self.program, self.project)
        return self._uniform

    def draws(self, module: ProgramModule) -> tuple[tuple[str, HelperDraw], ...]:
        """Functions of the program's other modules that draw random numbers, by qualified
        name: a training loop in one module that calls a drawing helper of another gets
        DP006."""
        if self._draws is None:
            from dp2ddp.program.callable_draws import program_draws

            # chains through modules, re-exports, the calls of the program's objects
            draws = program_draws(self.program, self.project)
            # One (name, draw) pair each, shared by every module's facts: torch's programs
            # hold 1,700 modules and thousands of drawing helpers, and new pairs for each
            # module took memory quadratic in the program.
            self._draws = tuple(draws.items())
        return others(self._draws, module)

    def models(self, module: ProgramModule) -> tuple[ModelClass, ...]:
        """The program's nn.Module classes, with what may leave parameters of each without
        a gradient (DP041); `module`'s own classes also by their bare names."""
        if self._models is None:
            from dp2ddp.transforms.analysis import class_reach
            from dp2ddp.transforms.analysis.bare_modules import bare_classes, empty_classes
            from dp2ddp.transforms.analysis.dropped_outputs import resolve_several
            from dp2ddp.transforms.analysis.layer_methods import (
                Alone,
                Methods,
                forwardless_modules,
                held_runs,
                judged_alone,
                layer_classes,
                program_classified,
                quiet_through_held,
            )
            from dp2ddp.transforms.analysis.norm_layers import norm_classes
            from dp2ddp.transforms.analysis.part_wraps import partly_wrapped
            from dp2ddp.transforms.analysis.partial_forward import module_classes, partial_models
            from dp2ddp.transforms.analysis.weight_draws import drawing_methods, weight_draw_calls
            from dp2ddp.transforms.analysis.wrapped_classes import held_classes, wrapped_directly

            classes: dict[str, ClassFacts] = {}
            paths: dict[str, str] = {}
            bare: set[str] = set()
            empty: set[str] = set()
            layered: list[tuple[dict[str, Methods], Alone]] = []
            forwardless: set[str] = set()
            held: dict[str, dict[str, frozenset[str]]] = {}
            redraws: dict[str, dict[str, tuple[bool, frozenset[str], frozenset[str]]]] = {}
            reaches: list[tuple[str, class_reach.ModuleReach]] = []
            wraps: list[ModuleWraps] = []
            for each in self.program.modules:
                if "DataParallel" in each.source.text or "class " in each.source.text:
                    wraps.append(
                        self.project.remembered(("wraps", each.real), partial(_wraps, each))
                    )
                key = ("model_classes", each.real, each.name)
                read = self.project.remembered(
                    key, partial(module_classes, each.name, each.path, each.source.text)
                )
                classes.update(read)
                paths.update(dict.fromkeys(read, each.path))
                # a module's classes trained through their own methods alone, with no
                # forward() (layer_methods.py): their methods are classified all the same
                judged = self.project.remembered(
                    ("layer_classes", each.real, each.name),
                    partial(layer_classes, each.name, each.source.text),
                )
                if judged:  # judged alone once, read again in every program holding it
                    key = ("layer_alone", each.real, each.name)
                    alone = self.project.remembered(key, partial(judged_alone, judged))
                    layered.append((judged, alone))
                forwardless |= self.project.remembered(
                    ("forwardless_modules", each.real, each.name),
                    partial(forwardless_modules, each.name, each.source.text),
                )
                if read:
                    bare |= self.project.remembered(
                        ("bare_classes", each.real, each.name),
                        partial(bare_classes, each.name, each.source.text),
                    )
                    empty |= self.project.remembered(
                        ("empty_classes", each.real, each.name),
                        partial(empty_classes, each.name, each.source.text),
                    )
                    held.update(
                        self.project.remembered(
                            ("held_runs", each.real, each.name),
                            partial(held_runs, each.name, each.source.text, each.is_package),
                        )
                    )
                    redraws.update(
                        self.project.remembered(
                            ("weight_draws", each.real, each.name),
                            partial(weight_draw_calls, each.name, each.source.text),
                        )
                    )
                key = ("class_reach", each.real, each.name)
                reaches.append((each.name, self.project.remembered(key, partial(_reach, each))))
            # the program's classes together (v4-C), from each module's judged alone
            methods = program_classified(layered)
            # A method calling only attributes that hold parameterless classes runs none.
            aliases = package_aliases(self.program, empty) if held else {}
            methods = quiet_through_held(methods, held, empty | aliases.keys())
            # Layers called from outside their class are no "never used" (class_reach.py).
            called = class_reach.called_attributes(r for _, r in reaches)
            classes = class_reach.spare_called(classes, called)
            built = None if self.program.dynamic_sites else class_reach.built_classes(reaches)
            partial_uses = partial_models(classes, frozenset(empty))
            several = resolve_several({n: facts.several for n, facts in classes.items()})
            children_of = {n: f.children for n, f in classes.items()}
            part_wraps = partly_wrapped({n: f.held_wrap for n, f in classes.items()}, children_of)
            self._models = {
                name: (partial_uses[name].describe() if name in partial_uses else "")
                for name in classes
            }
            drawing = drawing_methods(redraws)
            norms = norm_classes({n: f.norms for n, f in classes.items()}, children_of)
            holding = held_classes(wraps)  # those a DataParallel may hold (DP022, DP007)
            wrapped = wrapped_directly(wraps)  # and those it wraps itself (trainers)
            # Shared by every module's facts (see draws).
            self._model_classes = tuple(
                ModelClass(
                    n,
                    use,
                    classes[n].outputs,
                    classes[n].pairs,
                    tuple((m, f"{paths[n]}:{line}") for m, line in classes[n].grows),
                    several[n],
                    n in bare,
                    built is None or n.rpartition(".")[2] in built,
                    tuple(sorted(methods.get(n, ((), ()))[0])),
                    tuple(sorted(methods.get(n, ((), ()))[1])),
                    classes[n].cuts,
                    part_wraps.get(n, ""),
                    tuple(sorted(drawing.get(n, ()))),
                    holding is None or n.rpartition(".")[2] in holding,
                    n in norms,
                    classes[n].pools,
                    wrapped=n.rpartition(".")[2] in wrapped,
                )  # fmt: skip
                for n, use in self._models.items()
            )
            # ... the classes with no forward() whose methods run layers (DP190 names a
            # call of one on a wrap): no model facts of theirs, never built for DP041
            self._model_classes += tuple(
                ModelClass(
                    n,
                    built=False,
                    runs=tuple(sorted(runs)),
                    quiet=tuple(sorted(quiet)),
                    wrapped=n.rpartition(".")[2] in wrapped,
                )
                for n, (runs, quiet) in sorted(methods.items())
                if n in forwardless and n not in self._models and runs
            )
            # ... what each held class's forward() returns on a replica (replica_classes)
            self._model_classes = with_replicas(self.project, self.program, self._model_classes)
            # ... and under each name a package re-exports one by (a class imported from
            # its package is the same class: reexports.package_aliases, stop 56 v4-A)
            by_name = {each.name: each for each in self._model_classes}
            aliases = package_aliases(self.program, set(by_name))
            self._model_classes += tuple(
                replace(by_name[full], name=alias)
                for alias, full in sorted(aliases.items())
                if alias not in by_name
            )
        prefix = f"{module.name}."
        own = [
            replace(each, name=each.name[len(prefix) :])
            for each in self._model_classes
            if each.name.startswith(prefix) and "." not in each.name[len(prefix) :]
        ]
        return (*own, *self._model_classes)

    def facts(
        self,
        module: ProgramModule,
        role: Role | None,
        exported: tuple[LoaderExport, ...] = (),
        split: tuple[str, ...] = (),
        fed: tuple[LoaderFeed, ...] = (),
        *,
        epochs_set: tuple[str, ...] = (),
        hints: bool = True,
        draws: bool = True,
        uniform: bool = True,
        gate: bool = True,
        models: bool = True,
    ) -> ProgramFacts:
        """The one value `module` is told (role None: migrated as a single file; hints,
        draws, uniform, models: with the program's hints, other modules' drawing helpers,
        uniformity answers and nn.Module classes (DP041); gate: the gate is open; split:
        the module's factories other modules call for evaluation loaders; fed: the loaders
        other modules pass to its functions; epochs_set: its exports whose importers placed
        set_epoch around every loop over them)."""
        in_program = role is not None
        helpers = self.helpers_of(module)
        return ProgramFacts(
            role,
            gate and in_program,
            helpers,
            self.hints(module) if hints else ProgramHints(),
            self.draws(module) if draws else (),
            ProgramLoaders(
                exported,
                self.program.unfollowed,
                split,
                fed,
                self.generator_takers(module) if gate and in_program else (),
                self.fetchers(module) if gate and in_program else (),
                self.no_grad_functions(module) if gate and in_program else (),
                # also for an entry migrated as a single file (its libraries unchanged):
                # the loaders it hands them take their roles from their loops all the same
                self.consumers(module) if gate else (),
                self.batch_classes(module) if gate else (),
                self.trained_factories(module) if gate and in_program else (),
                epochs_set,
                stepping=self.stepping(module) if gate else (),
                flagged_loaders=self.flagged_loaders(module) if gate and in_program else (),
            ),
            self.models(module) if gate and models else (),
            self.uniform() if in_program and uniform else None,
            # an entry alone (role None) imports the module beside it just the same
            helpers_first_party(self.program.entry_dir, helpers),
            self._reexports.told(module) if self._reexports is not None else Reexports(),
            self.wrap_functions() if gate and models else (),
            self.wrap_returns() if gate and models else (),
            self.sample_readers(module) if draws else (),
            # an entry alone too: its unchanged libraries' seeds run all the same (stop 59)
            self.seeded_streams() if in_program or module is self.program.entry else None,
            self.pickling(module) if gate else (),
            self.grad_toggles(module) if gate and models else (),
            self.backward_summaries(module) if gate and in_program else (),
            self.untouched(module) if gate and models else None,
            # only where DP003 may be said (a module naming DDP), else the options defaulting
            # to 1 or an odd integer that a module building a DataLoader names (DP133, DP184):
            # the facts of the other modules stay alike across the programs sharing them,
            # migrated once
            command_line=(
                (
                    self.command_line()
                    if "DistributedDataParallel" in module.source.text
                    else self._undividable_named(module.source.text)
                )
                if in_program
                else None
            ),
            contained_wraps=self.contained_wraps() if gate and models else (),
            unfreezes=self.unfreezes(module) if gate and models else (),
            batch_sum_returns=self.batch_sum_returns(module) if gate else (),
            tensor_lists=self.tensor_lists(module, "list") if gate else (),
            tensor_holders=self.tensor_lists(module, "held") if gate else (),
            tensor_list_holders=self.tensor_lists(module, "heldlist") if gate else (),
            meters=self.meters(module) if gate else (),
        )

    def _undividable_named(self, text: str) -> CommandLine | None:
        """The program's options defaulting to 1 or to an odd integer whose destination
        `text` (a module building a DataLoader) names: a batch size they may set cannot be
        divided (DP133) or no even WORLD_SIZE divides it (DP184)."""
        if "DataLoader" not in text:
            return None
        found = tuple(
            a
            for a in self.command_line().arguments
            if (a.default == 1 or (isinstance(a.default, int) and a.default % 2)) and a.dest in text
        )
        return CommandLine(found) if found else None

    def command_line(self) -> CommandLine:
        """ProgramFacts.command_line: every module's argparse options, read once a project
        (DP003 names the module that parses torch.distributed.launch's `--local_rank`)."""
        if self._command_line is None:
            from dp2ddp.transforms.analysis.command_line import declared

            arguments: list[CommandArgument] = []
            reads = False
            for each in self.program.modules:
                found = self.project.remembered(
                    ("command_line", each.real, each.path),
                    partial(declared, each.source.text, each.path),
                )
                arguments.extend(found.arguments)
                reads = reads or found.reads_local_rank
            self._command_line = CommandLine(tuple(arguments), reads)
        return self._command_line

    def batch_sum_returns(
        self, module: ProgramModule
    ) -> tuple[tuple[str, tuple[BatchSumReturn, ...]], ...]:
        """ProgramFacts.batch_sum_returns: the other modules' loss classes and functions
        that return a sum over the batch of what they are passed, each module read once a
        project; told only to a module that calls backward() (VAE-Tacotron's train.py)."""
        if "backward" not in module.source.text:
            return ()
        if self._batch_sums is None:
            from dp2ddp.transforms.hazards.batch_sum_returns import (
                forwarded_sums,
                module_batch_sum_returns,
            )

            found = self.project.per_module(
                self.program.modules,
                "batch_sum_returns",
                lambda m: module_batch_sum_returns(
                    m.name, m.path, m.source.text, partial(self.project.parsed_or_none, m)
                ),
            )
            # a method returning what a loss object of another module returns: its sums
            self._batch_sums = tuple(sorted(forwarded_sums(dict(found)).items()))
        return others(self._batch_sums, module)

    def meters(self, module: ProgramModule) -> tuple[tuple[str, MeterClass], ...]:
        """ProgramFacts.meters: the other modules' averaging meter classes, each module read
        once a project, and the names a module re-exports them by (`from .utils import
        AverageMeter` in a package's __init__.py), and the classes whose methods add to
        their attributes (`running`: a meter fed through `meter(x)`, round 11 v1-B); told
        only to a module with a loop (stop 54 x4)."""
        if "for " not in module.source.text and "while " not in module.source.text:
            return ()
        if self._meters is None:
            from dp2ddp.program.reexports import module_bindings
            from dp2ddp.transforms.data.meters import module_meters

            found = dict(
                self.project.per_module(
                    self.program.modules,
                    "meters",
                    lambda m: module_meters(
                        m.name, m.source.text, partial(self.project.parsed_or_none, m)
                    ),
                )
            )
            for each in self.program.modules if found else ():  # a package's re-export
                for name, target in module_bindings(each).items():
                    if target in found:
                        found.setdefault(f"{each.name}.{name}", found[target])
            self._meters = tuple(sorted(found.items()))
        return others(self._meters, module)

    def tensor_lists(self, module: ProgramModule, kind: str) -> tuple[str, ...]:
        """ProgramFacts.tensor_lists ("list"): the other modules' functions returning lists
        of trainable leaf tensors; .tensor_holders ("held"): their classes' attributes
        holding such tensors. Each module read once a project; told only to a module that
        names an optimizer (`optim`)."""
        if "optim" not in module.source.text:
            return ()
        if self._tensor_lists is None:
            self._tensor_lists = self._joined_tensor_lists()
        return tuple(name for name, k in others(self._tensor_lists, module) if k == kind)

    def _joined_tensor_lists(self) -> tuple[tuple[str, str], ...]:
        """The modules that can build a trained tensor read first, then (a bounded number
        of rounds) those naming what the read ones return or hold (`from b import build`,
        `class Child(Base)`), each module once; joined by `resolved` (stop 52 s1)."""
        from dp2ddp.transforms.analysis import tensor_lists as lists

        def read(m: ProgramModule) -> dict[str, str]:
            parsed = partial(self.project.parsed_or_none, m)
            return lists.module_tensor_lists(m.name, m.path, m.source.text, parsed)

        first = [m for m in self.program.modules if lists.can_build(m.source.text)]
        found = dict(self.project.per_module(first, "tensor_lists", read))
        done = {m.real for m in first}
        for _ in range(lists.DEPTH):
            names = lists.named(lists.resolved(tuple(found.items())))
            more = [
                m
                for m in self.program.modules
                if m.real not in done and any(n in m.source.text for n in names)
            ]
            if not more:
                break
            done |= {m.real for m in more}
            found |= dict(self.project.per_module(more, "tensor_lists", read))
        return lists.resolved(tuple(sorted(found.items())))

    def grad_toggles(self, module: ProgramModule) -> tuple[tuple[str, str, bool], ...]:
        """The toggles of the program's other modules (ProgramFacts.grad_toggles), each
        module read once a project."""
        from dp2ddp.transforms.analysis.module_parts import module_grad_toggles

        return tuple(
            (text, where, early)
            for m in self.program.modules
            if m.name != module.name
            for text, where, early, callee in self.project.remembered(
                ("grad_toggles", m.real, m.name),
                partial(module_grad_toggles, m.path, m.source.text),
            )
            if not callee or self._named(callee)
        )

    def unfreezes(self, module: ProgramModule) -> tuple[str, ...]:
        """The unfreezing statements of the program's other modules (ProgramFacts.unfreezes),
        each module read once a project."""
        from dp2ddp.transforms.analysis.module_parts import module_unfreezes

        return tuple(
            where
            for m in self.program.modules
            if m.name != module.name
            for where, callee in self.project.remembered(
                ("unfreezes", m.real, m.name),
                partial(module_unfreezes, m.path, m.source.text),
            )
            if not callee or self._named(callee)
        )

    def _named(self, name: str) -> bool:
        """Some module of the program names `name` other than by a `def` of it: where none
        does, no statement of the program calls a function so named (CTR-GCN's torchlight
        `IO.load_weights`, whose toggle main.py never runs: stop 43's false DP041)."""
        if name not in self._names:
            word = re.compile(rf"\b{re.escape(name)}\b")
            define = re.compile(rf"\bdef\s+{re.escape(name)}\b")
            self._names[name] = any(
                len(word.findall(m.source.text)) > len(define.findall(m.source.text))
                for m in self.program.modules
            )
        return self._names[name]

    def untouched(self, module: ProgramModule) -> tuple[tuple[int, str], ...]:
        """ProgramFacts.untouched_toggles: the program's toggles tied to the objects they
        switch (analysis/toggled_models.py), once a program; only where some module sets
        requires_grad."""
        if self._untouched is None:
            self._untouched = {}
            modules = self.program.modules
            if any("requires_grad" in m.source.text for m in modules):
                from dp2ddp.transforms.analysis.toggled_models import untouched

                found = untouched(
                    [(m.name, m.passing_tree, m.is_package, m.source.text) for m in modules],
                    [m.path for m in modules],
                )
                self._untouched = {modules[i].real: pairs for i, pairs in found}
        return self._untouched.get(module.real, ())

    def seeded_streams(self) -> frozenset[str]:
        """ProgramFacts.seeded_streams, each module read once a project."""
        if self._seeded is None:
            from dp2ddp.transforms.analysis import seeded_streams as seeds

            modules = self.program.modules
            streams = [
                self.project.remembered(
                    ("streams", m.real), partial(seeds.tree_streams, m.passing_tree)
                )
                for m in modules
            ]
            # a seed handed in by a caller of another module (stop 59 s2, round 10 v1-D)
            seeders = seeds.parameter_seeders(streams)
            handed = [
                h
                for m in modules
                if seeders and any(name in m.source.text for name in seeders)
                for h in seeds.handed_seeds(m.passing_tree(), seeders)
            ]
            self._seeded = seeds.seeded_streams(streams, handed)
        return self._seeded

    def pickling(self, module: ProgramModule) -> tuple[tuple[str, tuple[PickledParam, ...]], ...]:
        """Functions of the program's other modules that pickle a parameter whole
        (ProgramFacts.pickling: class W2), read from the tree each module's migration uses."""
        if self._pickling is None:
            from dp2ddp.transforms.analysis.pickled_params import module_pickled_params as find

            self._pickling = self.project.per_module(
                self.program.modules,
                "pickled_params",
                lambda m: find(
                    m.name, m.path, m.source.text, partial(self.project.parsed_or_none, m)
                ),
            )
        return others(self._pickling, module)

    def backward_summaries(self, module: ProgramModule) -> tuple[tuple[str, BackwardSummary], ...]:
        """The summaries of the functions of the program's other modules for DP026
        (ProgramFacts.backward_summaries: B2 across modules), each module read once."""
        if self._backward is None:
            from dp2ddp.transforms.hazards.backward_program import module_backward_summaries

            self._backward = self.project.per_module(
                self.program.modules,
                "backward_summaries",
                lambda m: module_backward_summaries(
                    m.name, m.path, m.source.text, partial(self.project.parsed_or_none, m)
                ),
            )
        owners = self._backward_owners()
        told = self._backward_reach().get(module.name, frozenset())
        return tuple(item for item in others(self._backward, module) if owners.get(item[0]) in told)

    def _backward_owners(self) -> dict[str, str]:
        """For each summary, the module of the program defining it, once a program."""
        if self._owners is None:
            modules = {m.name for m in self.program.modules}
            self._owners = {}
            for key, _ in self._backward or ():
                owner = key
                while "." in owner and owner not in modules:
                    owner = owner.rsplit(".", 1)[0]
                self._owners[key] = owner
        return self._owners

    def _backward_reach(self) -> dict[str, frozenset[str]]:
        """For each module, the modules owning summaries that it imports, directly or
        through the modules it imports (import_reach.py), once a program. A module is told
        only those: a call can resolve to another module's function by qualified name only
        through an import (`pkg.models.Model` after `import pkg`, whose `__init__` imports
        `.models`), and a library shared by several entries is told the same by each
        program and migrated once (an entry's own summaries differ per program)."""
        if self._reach is None:
            owners = set(self._backward_owners().values())
            self._reach = reached(self.program, owners) if owners else {}
        return self._reach

    def sample_readers(
        self, module: ProgramModule
    ) -> tuple[tuple[str, tuple[tuple[int, str], ...]], ...]:
        """Functions of the program's other modules that only read samples from a loader
        they are given (ProgramFacts.sample_readers)."""
        if self._sample_readers is None:
            from dp2ddp.transforms.shared_draws.whole_reads import module_sample_readers as find

            self._sample_readers = self.project.per_module(
                self.program.modules,
                "sample_readers",
                lambda m: find(m.name, m.source.text, m.passing_tree),
            )
        return others(self._sample_readers, module)

    def contained_wraps(self) -> tuple[str, ...]:
        """The program's functions that wrap only models of their own
        (ProgramFacts.contained_wraps), once."""
        self._wraps()
        assert self._contained_wraps is not None
        return self._contained_wraps

    def wrap_functions(self) -> tuple[str, ...]:
        """The program's functions whose own body wraps (ProgramFacts.wrap_functions), once."""
        return self._wraps()[0]

    def wrap_returns(self) -> tuple[str, ...]:
        """The program's functions that may return a wrap (ProgramFacts.wrap_returns)."""
        return self._wraps()[1]

    def _wraps(self) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """The three wrap facts (wrap_functions, wrap_returns, contained_wraps) from one
        parse of each module that names DataParallel."""
        if self._wrap_functions is None:
            from dp2ddp.transforms.analysis.wrap_calls import program_wrap_facts

            wrapping: set[str] = set()
            returning: set[str] = set()
            contained: set[str] = set()
            for m in self.program.modules:
                found, returns, kept = program_wrap_facts(m.source.text)
                wrapping |= found
                returning |= returns
                contained |= kept
            self._wrap_functions = (tuple(sorted(wrapping)), tuple(sorted(returning)))
            self._contained_wraps = tuple(sorted(contained))
        return self._wrap_functions


def _reach(module: ProgramModule) -> ModuleReach:
    """analysis/class_reach.py's reading of one module (nothing where it does not parse)."""
    from dp2ddp.transforms.analysis.class_reach import ModuleReach, module_reach

    try:
        return module_reach(module.name, module.passing_tree())
    except (SyntaxError, ValueError, RecursionError):
        return ModuleReach(frozenset(), (), frozenset(), False, frozenset())


def _wraps(module: ProgramModule) -> ModuleWraps:
    """analysis/wrapped_classes.py's reading of one module (where it does not parse: its
    wraps unknown if it names DataParallel)."""
    from dp2ddp.transforms.analysis.wrapped_classes import ModuleWraps, module_wraps

    try:
        return module_wraps(module.passing_tree())
    except (SyntaxError, ValueError, RecursionError):
        unknown = "DataParallel" in module.source.text
        return ModuleWraps(None if unknown else frozenset(), (), frozenset())
