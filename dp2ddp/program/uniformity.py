"""Rank-independence across a program's modules: constructor arguments, returned values.

A training script's configuration usually crosses modules: main.py builds `config =
get_parameters()` (parameter.py returns `parser.parse_args()`) and hands it to
`Trainer(loader, config)` (trainer.py), whose `__init__` stores `self.adv_loss =
config.adv_loss`; a condition on `self.adv_loss` in trainer.py is the same on every rank only
if that argument is. torchrun gives every process the same argv and environment (but
RANK, LOCAL_RANK and the like), so the command line, literals and what is computed only
from them are the same everywhere (rank_zero/uniform.py has the rules for one module).

This module answers the questions that module cannot answer alone, each with the other
module's own RankUniformity (so the same rules apply there):

- `init_parameter`: every reference to the class anywhere in the program is a direct call,
  there is exactly one such call (two sites could pass two different uniform values and
  which one built an object could depend on the rank), no `x.__init__(...)` call other
  than `super().__init__(...)` exists, and that call passes a uniform value for it;
- `returns_uniform`: a top-level function of a program module, bound once there, every
  return of which is uniform;
- `attribute_assigned_elsewhere`: some other module stores an attribute of that name
  (`x.adv_loss = ...`, `setattr(x, "adv_loss", ...)`, or deletes it), so no module alone
  sees all its values. As within one module, a `setattr` whose name is computed is not
  followed (rank_zero/uniform.py). Where the object is a parsed command line, a store on a
  class's own instance (`self.mode = mode` in a method) does not count, unless some module
  calls that class's methods with another object as `self` (analysis/across_modules.py);
- `returns_namespace`: a top-level function of a program module returning a parsed command
  line (`parser.parse_args()`) at every return.

Answers are cached for the program; a question asked again while it is being answered is
answered "no". What one module says (its calls of a class, the attributes it stores, its
star imports; its libcst tree) is read once for the project (program/project.py) and shared
by the programs that include it.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

import libcst as cst
from libcst.codemod import CodemodContext

from dp2ddp.facts import ProgramFacts
from dp2ddp.program.attribute_stores import Stores, stored_attributes
from dp2ddp.program.discovery import Program, ProgramModule
from dp2ddp.program.project import Project, RecordingUniformity, same_answers
from dp2ddp.transforms._support import ast_nodes
from dp2ddp.transforms._support.base import MigrationState, MigrationTransform
from dp2ddp.transforms._support.identifiers import mentions
from dp2ddp.transforms.analysis.across_modules import (
    construction_argument_uniform,
    top_level_function_returns_namespace,
    top_level_function_returns_uniform,
)
from dp2ddp.transforms.analysis.module_index import NameUses
from dp2ddp.transforms.analysis.uniform_answers import sites_reached
from dp2ddp.transforms.analysis.uniformity import RankUniformity


class _Probe(MigrationTransform):
    """Asks one question of a module's RankUniformity while its metadata is resolved."""

    NAME = "uniformity_probe"
    DESCRIPTION = "Answer a rank-independence question about one module of the program."

    def __init__(
        self,
        context: CodemodContext,
        state: MigrationState,
        question: Callable[[RankUniformity], bool],
    ) -> None:
        super().__init__(context, state)
        self._question = question
        self.answer = False

    def visit_Module(self, node: cst.Module) -> bool:
        uniform = RankUniformity.for_pass(self, node)
        uniform.original_text = True  # its loaders as written: sharded_passes reads them so
        self.answer = self._question(uniform)
        return False


@dataclass
class ProgramUniformity:
    """Rank-independence facts about a program (see the module docstring)."""

    program: Program
    project: Project

    def __post_init__(self) -> None:
        self._answers: dict[tuple[str, ...], bool] = {}
        self._by_path_map = {m.path: m for m in reversed(self.program.modules)}
        self._by_name_map = {m.name: m for m in reversed(self.program.modules)}

    def _by_path(self, path: str) -> ProgramModule | None:
        return self._by_path_map.get(path)

    def _by_name(self, name: str) -> ProgramModule | None:
        return self._by_name_map.get(name)

    def _ask(
        self,
        key: tuple[str, ...],
        module: ProgramModule,
        question: Callable[[RankUniformity], bool],
    ) -> bool:
        if key in self._answers:
            return self._answers[key]
        self._answers[key] = False  # asked again while being answered: no
        # Another program of the project may have asked it: its answer holds here when
        # every question its probe asked in turn is answered the same here.
        earlier = self.project.probes.setdefault((*key, module.real, module.path), [])
        for asked, answer in earlier:
            if same_answers(asked, self):
                self._answers[key] = answer
                return answer
        recorder = RecordingUniformity(self)
        tree = self.project.tree(module)
        context = ProgramFacts("library", True, "", uniform=recorder)
        probe = _Probe(
            CodemodContext(filename=module.path),
            MigrationState(options=self.project.options, facts=context),
            question,
        )
        probe.transform_module(tree)
        earlier.append((recorder.asked, probe.answer))
        self._answers[key] = probe.answer
        return probe.answer

    # -- constructors -----------------------------------------------------------------
    def init_parameter(
        self, path: str, class_name: str, index: int | None, name: str, never_none: bool = False
    ) -> bool:
        """Every call of class (or top-level function: across_modules.function_parameter)
        `class_name` of the module at `path` passes a uniform value for `__init__`'s (its)
        parameter `name` (positional `index`, `self` not counted);
        `never_none`: a value proved never None (analysis/none_tests.py)."""
        module = self._by_path(path)
        if module is None:
            return False
        counts = [self._direct_calls(m, class_name) for m in self.program.modules]
        if None in counts or sum(c or 0 for c in counts) != 1:
            return False  # referenced other than by one direct call, or re-initialised
        caller = self.program.modules[counts.index(1)]
        key = ("init", module.real, class_name, str(index), name, str(never_none))
        return self._ask(
            key,
            caller,
            lambda u: construction_argument_uniform(u, class_name, index, name, never_none),
        )

    # -- functions --------------------------------------------------------------------
    def returns_uniform(self, module_name: str, function: str) -> bool:
        """Top-level function `function` of program module `module_name` returns a uniform
        value (False when it is no such function)."""
        module = self._by_name(module_name)
        if module is None:
            return False
        key = ("returns", module.real, function)
        return self._ask(key, module, lambda u: top_level_function_returns_uniform(u, function))

    def star_source(self, path: str, name: str) -> str | None:
        """The program module a `from X import *` of the module at `path` takes `name`
        from, when that module has exactly one star import, of a program module, which
        defines `name` at top level; None otherwise."""
        module = self._by_path(path)
        if module is None:
            return None
        stars = self.project.remembered(("stars", module.real), lambda: _star_imports(module))
        if len(stars) != 1 or stars[0] is None:
            return None
        source = self._by_name(stars[0])
        if source is None:
            return None
        defined = self.project.remembered(("functions", source.real), partial(_functions, source))
        return source.name if name in defined else None

    # -- attributes -------------------------------------------------------------------
    def attribute_assigned_elsewhere(
        self, path: str, attribute: str, parsed: bool = False, owner: str = ""
    ) -> bool:
        """Another program module stores or deletes attribute `attribute`. A store on a
        class's own instance (`self.a = ...` in a method of class C) counts only where it
        may reach the object read: with `owner` (the read is `self.a` in a method of that
        class), only where C is `owner` or names it as a base; with `parsed` (the object is
        a parsed command line, no instance of a program class), only where some module
        calls C's methods with another object as `self`."""
        unbound: frozenset[str] | None = None
        for module in self.program.modules:
            if module.path == path:
                continue
            stored = self._stores(module)
            if attribute in stored.anywhere:
                return True
            for name, cls, bases in stored.on_self:
                if name != attribute:
                    continue
                if parsed:
                    if unbound is None:
                        unbound = frozenset().union(
                            *(self._stores(m).unbound for m in self.program.modules)
                        )
                    if cls in unbound:
                        return True
                elif not owner or cls == owner or owner in bases:
                    return True
        return False

    def _stores(self, module: ProgramModule) -> Stores:
        return self.project.remembered(("stores", module.real), partial(_stored, module))

    def returns_namespace(self, module_name: str, function: str) -> bool:
        """Top-level function `function` of program module `module_name` returns a parsed
        command line at every return (analysis/across_modules.py)."""
        module = self._by_name(module_name)
        if module is None:
            return False
        key = ("namespace", module.real, function)
        return self._ask(key, module, lambda u: top_level_function_returns_namespace(u, function))

    def defines_class(self, module_name: str, name: str) -> bool:
        """Program module `module_name` defines a top-level class `name`, bound nowhere else
        at its top level."""
        module = self._by_name(module_name)
        if module is None:
            return False
        classes = self.project.remembered(("classes", module.real), partial(_classes, module))
        return name in classes

    def defines_function(self, module_name: str, name: str) -> bool:
        """Program module `module_name` defines a top-level function `name`."""
        module = self._by_name(module_name)
        if module is None:
            return False
        functions = self.project.remembered(("functions", module.real), partial(_functions, module))
        return name in functions

    # -- call sites -----------------------------------------------------------------
    def unreached_elsewhere(self, path: str, name: str, method: bool) -> str | None:
        """The path of a program module other than the one at `path` that calls its
        function `name` (`method`: a method of one of its top-level classes) where not
        every rank may arrive, each module judged by its own RankUniformity; None when
        none does. A module whose text never names `name` calls it nowhere."""
        module = self._by_path(path)
        if module is None:
            return None
        # a top-level function is `x.name(...)` only where x may be its module (or an
        # object given the function as an attribute): else only its calls by name count
        attributes = method or self._reachable_as_attribute(module, name)
        for other in self.program.modules:
            if other.real == module.real or not mentions(other.source.text, name):
                continue
            key = ("sites", module.real, other.real, name, str(method), str(attributes))
            question = partial(sites_reached, module_name=module.name, name=name, method=method)
            if not self._ask(key, other, partial(question, attributes=attributes)):
                return other.path
        return None

    def _reachable_as_attribute(self, module: ProgramModule, name: str) -> bool:
        """Some program module may hold `module` itself as a value (an import binding the
        module object, `import train` / `from pkg import train`, or a dynamic import), or
        stores an attribute `name` on an object (`cfg.train = train`), so an attribute call
        `x.name(...)` may be a call of `module`'s top-level function `name`. Where none
        does, `self.teacher.train()` is nn.Module's method (ku21fan/STR-Fewer-Labels@0d9ef6a:
        taken for train.py's train(), its checkpoint load got no barrier, stop 53)."""
        key = ("module_object", module.real, name)  # this program's modules decide it
        if key not in self._answers:
            self._answers[key] = self._module_object_held(module, name)
        return self._answers[key]

    def _module_object_held(self, module: ProgramModule, name: str) -> bool:
        if self.attribute_assigned_elsewhere("", name):
            return True
        last = module.name.rsplit(".", 1)[-1]
        for other in self.program.modules:
            if mentions(other.source.text, "import_module", "__import__", "sys.modules"):
                return True
            if not mentions(other.source.text, last):
                continue
            for node in ast_nodes.walk(other.passing_tree()):
                if isinstance(node, ast.Import) and any(
                    alias.name == module.name
                    or alias.name.startswith(f"{module.name}.")
                    or module.name.startswith(f"{alias.name}.")
                    for alias in node.names
                ):
                    return True
                if isinstance(node, ast.ImportFrom) and any(
                    alias.name in (last, "*") for alias in node.names
                ):
                    return True  # `from pkg import train`, `from . import train`
        return False

    def _direct_calls(self, module: ProgramModule, class_name: str) -> int | None:
        return self.project.remembered(
            ("name_uses", module.real), lambda: NameUses.of(module.passing_tree())
        ).direct_calls(class_name)


def _functions(module: ProgramModule) -> frozenset[str]:
    """The module's top-level functions."""
    return frozenset(
        node.name
        for node in module.passing_tree().body
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
    )


def _classes(module: ProgramModule) -> frozenset[str]:
    """The module's top-level classes whose names no other top-level statement binds."""
    body = module.passing_tree().body
    classes = [node.name for node in body if isinstance(node, ast.ClassDef)]
    bound = [
        name
        for node in body
        if not isinstance(node, ast.ClassDef)
        for target in ast_nodes.walk(node)
        for name in _bound_names(target)
    ]
    return frozenset(c for c in classes if classes.count(c) == 1 and c not in bound)


def _bound_names(node: ast.AST) -> list[str]:
    if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
        return [node.id]
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return [node.name]
    if isinstance(node, ast.alias):
        return [(node.asname or node.name).split(".")[0]]
    return []


def _star_imports(module: ProgramModule) -> tuple[str | None, ...]:
    """The module each `from X import *` of `module` names (None: relative, or none)."""
    return tuple(
        node.module if node.level == 0 else None
        for node in ast_nodes.walk(module.passing_tree())
        if isinstance(node, ast.ImportFrom) and any(a.name == "*" for a in node.names)
    )


def _stored(module: ProgramModule) -> Stores:
    """Attributes `module` stores or deletes on objects that may be handed to it."""
    return stored_attributes(module.passing_tree())
