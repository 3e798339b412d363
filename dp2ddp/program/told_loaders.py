"""What a program tells each module about its loaders and batches (ProgramLoaders'
program-wide parts): each module read once a project, each part computed once for the program
and only when asked for. ProgramTeller (program/told.py) takes these questions from here."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from dp2ddp.program.discovery import Program, ProgramModule
from dp2ddp.program.import_reach import imported_names
from dp2ddp.program.project import Project, others

# The passes' analyses load inside the functions that need them: a program without
# DataParallel needs none of them.
if TYPE_CHECKING:
    from dp2ddp.transforms.analysis.loader_consumers import Consumer


class LoaderTeller:
    """The ProgramLoaders questions of ProgramTeller, each answer cached on first use."""

    program: Program
    project: Project
    _generator_takers: tuple[tuple[str, str], ...] | None = None
    _batch_classes: tuple[tuple[str, bool], ...] | None = None
    _fetchers: tuple[tuple[str, tuple[tuple[int | None, str], ...]], ...] | None = None
    _no_grad: tuple[tuple[str, bool], ...] | None = None
    _consumers: tuple[tuple[str, tuple[Consumer, ...]], ...] | None = None
    _trained: tuple[tuple[str, str], ...] | None = None
    _stepping: tuple[tuple[str, bool], ...] | None = None
    _flagged: tuple[tuple[str, bool], ...] | None = None

    def flagged_loaders(self, module: ProgramModule) -> tuple[str, ...]:
        """ProgramLoaders.flagged_loaders: the other modules' DataLoader subclasses sharded
        at run time whose `__init__` takes ddp_shard (analysis/loader_builds.py
        flagged_subclasses), those this module's text names (round 26: MRN-ICASSP22's
        BatchMetaDataLoader, its validation and test instances built in main.py)."""
        if self._flagged is None:
            from dp2ddp.transforms.analysis.loader_builds import flagged_subclasses
            from dp2ddp.transforms.data.plan import EVAL_NAME

            def find(m: ProgramModule) -> dict[str, bool]:
                if "DataLoader" not in m.source.text:
                    return {}
                found = flagged_subclasses(m.passing_tree())
                return {f"{m.name}.{c}": True for c in found if not EVAL_NAME.search(c)}

            self._flagged = self.project.per_module(self.program.modules, "flagged", find)
        text = module.source.text
        return tuple(
            name for name, _ in others(self._flagged, module) if name.rpartition(".")[2] in text
        )

    def stepping(self, module: ProgramModule) -> tuple[str, ...]:
        """ProgramLoaders.stepping: the other modules' functions and methods that train and
        that this module's text names, each module read once a project (round 25:
        ethanj801/GAN's trainer object). Not every one of the program: a module holding no
        call of them was told a value that differs between programs, and migrated again for
        each (the project's cache keys on the facts: 4x the calls of a monorepo)."""
        if self._stepping is None:
            from dp2ddp.transforms.analysis.object_steps import module_steppers

            def find(m: ProgramModule) -> dict[str, bool]:
                tree = self.project.parsed_or_none(m)
                return module_steppers(m.name, tree) if tree is not None else {}

            self._stepping = self.project.per_module(self.program.modules, "stepping", find)
        # only those this module's text names (`trainer.train_step(...)`): a module naming
        # none is told none, so its migration stays one for every program that holds it
        text = module.source.text
        return tuple(
            name for name, _ in others(self._stepping, module) if name.rpartition(".")[2] in text
        )

    def generator_takers(self, module: ProgramModule) -> tuple[tuple[str, str], ...]:
        """ProgramLoaders.generator_takers: the other modules' calls of the program's loader
        generators, each module read once a project (class S1 of stop 31: edge-connect's
        `create_iterator` in dataset.py, its sample iterator drawn in edge_connect.py)."""
        if self._generator_takers is None:
            from dp2ddp.transforms.analysis.generator_batches import (
                loader_generators,
                module_generator_takers,
            )

            defined: set[str] = set()
            for m in self.program.modules:
                tree = self.project.parsed_or_none(m)
                if tree is not None and "yield" in m.source.text:
                    defined |= self.project.remembered(
                        ("loader_generators", m.real, m.name), partial(loader_generators, tree)
                    )
            names = frozenset(defined)

            def find(m: ProgramModule) -> dict[str, str]:
                tree = self.project.parsed_or_none(m)
                if tree is None or not any(n in m.source.text for n in names):
                    return {}
                return module_generator_takers(m.name, tree, set(names))

            self._generator_takers = self.project.per_module(
                self.program.modules, "generator_takers:" + ",".join(sorted(names)), find
            )
        return others(self._generator_takers, module)

    def batch_classes(self, module: ProgramModule) -> tuple[str, ...]:
        """ProgramLoaders.batch_classes: the other modules' classes that name no loader,
        each module read once a project (class v2-A of stop 40: NER-BERT's own `DataLoader`
        class in data_loader.py, its batches taken in train.py)."""
        if self._batch_classes is None:
            from dp2ddp.transforms.analysis.fixed_fetch import own_batch_classes

            def find(m: ProgramModule) -> dict[str, bool]:
                tree = self.project.parsed_or_none(m)
                if tree is None or "class " not in m.source.text:
                    return {}
                return {f"{m.name}.{c}": True for c in own_batch_classes(tree)}

            self._batch_classes = self.project.per_module(
                self.program.modules, "batch_classes", find
            )
        return tuple(name for name, _ in others(self._batch_classes, module))

    def fetchers(
        self, module: ProgramModule
    ) -> tuple[tuple[str, tuple[tuple[int | None, str], ...]], ...]:
        """ProgramLoaders.fetchers: the program's iterator classes drawing from the loaders
        their constructors are handed (analysis/fixed_fetch.py), each module read once a
        project (class S7 of stop 32: stargan-v2's InputFetcher in data_loader.py, its
        fixed batch fetched in solver.py)."""
        if self._fetchers is None:
            from dp2ddp.transforms.analysis.fixed_fetch import iterator_classes

            def find(m: ProgramModule) -> dict[str, tuple[tuple[int | None, str], ...]]:
                tree = self.project.parsed_or_none(m)
                if tree is None or "__next__" not in m.source.text:
                    return {}
                return {f"{m.name}.{c}": p for c, p in iterator_classes(tree).items()}

            self._fetchers = self.project.per_module(self.program.modules, "fetchers", find)
        return others(self._fetchers, module)

    def no_grad_functions(self, module: ProgramModule) -> tuple[str, ...]:
        """ProgramLoaders.no_grad_functions, each module read once a project (S7:
        stargan-v2's `debug_image` in core/utils.py, handed the fixed batch in solver.py)."""
        if self._no_grad is None:
            from dp2ddp.transforms.analysis.fixed_fetch import no_grad_functions

            def find(m: ProgramModule) -> dict[str, bool]:
                tree = self.project.parsed_or_none(m)
                if tree is None or "@" not in m.source.text:  # decorated functions only
                    return {}
                return {f"{m.name}.{f}": True for f in no_grad_functions(tree)}

            self._no_grad = self.project.per_module(self.program.modules, "no_grad", find)
        return tuple(name for name, _ in others(self._no_grad, module))

    def consumers(self, module: ProgramModule) -> tuple[tuple[str, tuple[Consumer, ...]], ...]:
        """ProgramLoaders.consumers: the loops of the program's modules over what their
        functions and classes are handed, each module read once a project (class v1-F of
        stop 39: QANet's Trainer iterating its dev loader under no_grad)."""
        if self._consumers is None:
            from dp2ddp.transforms.analysis.loader_consumers import module_loader_consumers

            def find(m: ProgramModule) -> dict[str, tuple[Consumer, ...]]:
                tree = self.project.parsed_or_none(m)
                if tree is None:
                    return {}
                found = module_loader_consumers(m.name, tree)
                # the same loops' trained factories while the tree's def-use view is cached
                key = ("trained", m.real, m.name, m.path)
                self.project.remembered(key, partial(self._trained_of, m))
                return found

            self._consumers = self.project.per_module(self.program.modules, "consumers", find)
        # Only the callables of the modules it imports: a loader is handed to one by a call
        # through an import, and a library shared by several entries is told the same by
        # each program (and migrated once).
        imported = set(imported_names(module))
        return tuple(
            item
            for item in others(self._consumers, module)
            if item[0].rpartition(".")[0] in imported
        )

    def trained_factories(self, module: ProgramModule) -> tuple[str, ...]:
        """ProgramLoaders.trained: this module's functions and methods whose returned loader
        another module's training loop iterates (analysis/trained_factories.py; class x1 of
        stop 54: longterm's `corpus.get_train_loader()`), each module read once a project.
        Names only: a library shared by several entries is told the same by each program
        that trains on it (and migrated once)."""
        if self._trained is None:
            modules = self.program.modules
            self._trained = self.project.per_module(modules, "trained", self._trained_of)
        prefix = f"{module.name}."
        own = {n[len(prefix) :] for _, n in others(self._trained, module) if n.startswith(prefix)}
        return tuple(sorted(own))

    def _trained_of(self, m: ProgramModule) -> dict[str, str]:
        """One module's part of ProgramLoaders.trained: the qualified callables."""
        from dp2ddp.transforms.analysis.trained_factories import module_trained_factories

        tree = self.project.parsed_or_none(m)
        if tree is None:
            return {}
        found = module_trained_factories(tree)
        return {f"{m.name}.{index}": name for index, name in enumerate(found)}
