"""The project model of one run: every file read once, every module analysed once.

`dp2ddp migrate` may ask about many programs of one project (folder mode: every entry
script of a folder, and they import the same modules). A `Project` holds what is known
about the project's modules, so that a module imported by ten entries is read, scanned
for its imports (ast), parsed by libcst (only when its program reaches DataParallel) and
migrated once:

- `graph` (discovery.ImportGraph): each file's text and ast, each module's resolved imports;
- `detected`: the per-file DataParallel detector's verdict (analysis.py);
- `tree`: the libcst tree of a module, kept for the analyses and the migration that read
  it; at most TREE_CHARS characters of source are kept parsed (least recently used first
  out), so memory stays bounded on large projects;
- `names`: each module's one-pass ast summary for the rank-0 hints (program_hints.py);
- `draws`: each module's random-drawing helpers (hazards/draws.py);
- `migrated`: each module's migration, by what its program told it (facts.ProgramFacts):
  a module shared by two programs that tell it the same, and answer its cross-module
  questions (facts.Uniformity) the same, is migrated once.

Nothing here is global: a Project lives for one run (one `plan_paths` / `plan_programs`).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, Any, TypeVar

from dp2ddp.errors import InputError
from dp2ddp.facts import HelperDraw, ProgramFacts, Uniformity
from dp2ddp.migrate.precheck import may_use_dataparallel
from dp2ddp.options import MigrateOptions
from dp2ddp.program.discovery import ImportGraph, ProgramModule
from dp2ddp.result import FileOutcome

if TYPE_CHECKING:  # libcst and the passes load only when a module needs parsing
    import libcst as cst

    from dp2ddp.transforms.rank_zero.program_hints import ModuleNames

#: Source characters whose libcst trees are kept at most (a tree takes far more memory
#: than its text: a module parsed again after being dropped costs time, not correctness).
TREE_CHARS = 3_000_000

_T = TypeVar("_T")
#: hazards/draws.py's module_draws: (import name, path, text, the tree or None) -> draws
DrawFinder = Callable[[str, str, str, "Callable[[], cst.Module | None]"], dict[str, HelperDraw]]


@dataclass(frozen=True)
class ModuleVerdict:
    """The per-file DataParallel detector's verdict on one module (analysis.py)."""

    has_dataparallel: bool = False
    #: The module already has a DDP path (DP003): the program is left as it is.
    has_ddp_path: bool = False
    #: Its only DataParallel uses are isinstance checks: it opens no gate, but a program
    #: with a DDP path of its own leaves it as it is, as a module that wraps.
    checks_only: bool = False


#: A question asked of a program's Uniformity: method name, arguments, answer.
Asked = tuple[str, tuple[Any, ...], Any]


class RecordingUniformity:
    """A program's Uniformity that writes down every question asked and its answer: a
    module's migration depends on its program only through its ProgramFacts and these."""

    def __init__(self, inner: Uniformity) -> None:
        self.inner = inner
        self.asked: list[Asked] = []

    def _ask(self, method: str, *args: Any) -> Any:
        answer = getattr(self.inner, method)(*args)
        self.asked.append((method, args, answer))
        return answer

    def init_parameter(
        self, path: str, class_name: str, index: int | None, name: str, never_none: bool = False
    ) -> bool:
        return bool(self._ask("init_parameter", path, class_name, index, name, never_none))

    def returns_uniform(self, module_name: str, function: str) -> bool:
        return bool(self._ask("returns_uniform", module_name, function))

    def star_source(self, path: str, name: str) -> str | None:
        answer = self._ask("star_source", path, name)
        return answer if isinstance(answer, str) else None

    def attribute_assigned_elsewhere(
        self, path: str, attribute: str, parsed: bool = False, owner: str = ""
    ) -> bool:
        return bool(self._ask("attribute_assigned_elsewhere", path, attribute, parsed, owner))

    def returns_namespace(self, module_name: str, function: str) -> bool:
        return bool(self._ask("returns_namespace", module_name, function))

    def defines_class(self, module_name: str, name: str) -> bool:
        return bool(self._ask("defines_class", module_name, name))

    def defines_function(self, module_name: str, name: str) -> bool:
        return bool(self._ask("defines_function", module_name, name))

    def unreached_elsewhere(self, path: str, name: str, method: bool) -> str | None:
        answer = self._ask("unreached_elsewhere", path, name, method)
        return answer if isinstance(answer, str) else None


def same_answers(asked: list[Asked], uniform: Uniformity | None) -> bool:
    """`uniform` answers every recorded question as it was answered then."""
    if not asked:
        return True
    if uniform is None:
        return False
    return all(getattr(uniform, method)(*args) == answer for method, args, answer in asked)


@dataclass
class _Migration:
    asked: list[Asked]
    outcome: FileOutcome
    data: bytes | None


@dataclass
class Project:
    """What is known about the project's modules during one run (see the module docstring)."""

    options: MigrateOptions
    graph: ImportGraph = field(default_factory=ImportGraph)

    def __post_init__(self) -> None:
        self._verdicts: dict[str, ModuleVerdict] = {}
        #: Modules whose detection failed (a parse error, the time limit): asked again,
        #: the same error at once, not another run to the limit.
        self._failed_verdicts: dict[str, InputError] = {}
        self._trees: OrderedDict[str, tuple[cst.Module, int]] = OrderedDict()
        self._tree_chars = 0
        self._prechecked: dict[str, bool] = {}
        self.names: dict[tuple[str, str, bool], ModuleNames] = {}
        self._draws: dict[tuple[str, str, str], dict[str, HelperDraw]] = {}
        self._migrations: dict[tuple[str, str, ProgramFacts, bool], list[_Migration]] = {}
        self._remembered: dict[tuple[str, ...], Any] = {}
        #: Uniformity probes of a module (program/uniformity.py), with the questions each
        #: asked in turn and its answer, shared by the programs of the project.
        self.probes: dict[tuple[str, ...], list[tuple[list[Asked], bool]]] = {}

    # -- per module ---------------------------------------------------------------------
    def may_use_dataparallel(self, module: ProgramModule) -> bool:
        """The text pre-check (migrate/precheck.py), once a module."""
        found = self._prechecked.get(module.real)
        if found is None:
            found = self._prechecked[module.real] = may_use_dataparallel(module.source.text)
        return found

    def verdict(
        self, module: ProgramModule, detect: Callable[[cst.Module], ModuleVerdict]
    ) -> ModuleVerdict:
        """`detect`'s verdict on the module's tree, once a module (analysis.py)."""
        found = self._verdicts.get(module.real)
        if found is None:
            failed = self._failed_verdicts.get(module.real)
            if failed is not None:
                raise failed
            try:
                found = self._verdicts[module.real] = detect(self.tree(module))
            except InputError as exc:
                self._failed_verdicts[module.real] = exc
                raise
        return found

    def tree(self, module: ProgramModule) -> cst.Module:
        """The module's libcst tree, parsed once while it is kept (InputError as `parse`)."""
        kept = self._trees.get(module.real)
        if kept is not None:
            self._trees.move_to_end(module.real)
            return kept[0]
        from dp2ddp.migrate.parse import parse

        tree = parse(module.source.text)
        chars = len(module.source.text)
        self._trees[module.real] = (tree, chars)
        self._tree_chars += chars
        while self._tree_chars > TREE_CHARS and len(self._trees) > 1:
            _, (_, dropped) = self._trees.popitem(last=False)
            self._tree_chars -= dropped
        return tree

    def parsed(self, module: ProgramModule) -> cst.Module | None:
        """The module's tree if it is kept (never parses)."""
        kept = self._trees.get(module.real)
        return kept[0] if kept is not None else None

    def draws(self, module: ProgramModule, find: DrawFinder) -> dict[str, HelperDraw]:
        """`find`'s drawing helpers of the module (hazards/draws.py), once a module, read
        from the tree its migration uses (`tree`: parsed once)."""
        key = (module.real, module.name, module.path)
        found = self._draws.get(key)
        if found is None:
            found = self._draws[key] = find(
                module.name, module.path, module.source.text, partial(self._tree_or_none, module)
            )
        return found

    def per_module(
        self,
        modules: Sequence[ProgramModule],
        kind: str,
        find: Callable[[ProgramModule], dict[str, _T]],
    ) -> tuple[tuple[str, _T], ...]:
        """`find`'s facts (by qualified name) of every module of `modules`, each module's
        computed once a project (`kind` names the fact)."""
        found: dict[str, _T] = {}
        for each in modules:
            key = (kind, each.real, each.name, each.path)
            found.update(self.remembered(key, partial(find, each)))
        return tuple(sorted(found.items()))

    def parsed_or_none(self, module: ProgramModule) -> cst.Module | None:
        """The module's tree (parsed once, see tree); None where it does not parse."""
        return self._tree_or_none(module)

    def _tree_or_none(self, module: ProgramModule) -> cst.Module | None:
        try:
            return self.tree(module)
        except InputError:
            return None

    def remembered(self, key: tuple[str, ...], compute: Callable[[], _T]) -> _T:
        """`compute()`, once for `key` (a fact of one module: its real path is in the key)."""
        if key not in self._remembered:
            self._remembered[key] = compute()
        found: _T = self._remembered[key]
        return found

    # -- migrations ---------------------------------------------------------------------
    def migrated(
        self, module: ProgramModule, facts: ProgramFacts
    ) -> tuple[FileOutcome, bytes | None] | None:
        """The module's migration under `facts`, if one was made whose cross-module
        questions `facts.uniform` answers the same way."""
        for done in self._migrations.get(_key(module, facts), ()):
            if same_answers(done.asked, facts.uniform):
                return done.outcome, done.data
        return None

    def remember(
        self,
        module: ProgramModule,
        facts: ProgramFacts,
        asked: list[Asked],
        outcome: FileOutcome,
        data: bytes | None,
    ) -> None:
        self._migrations.setdefault(_key(module, facts), []).append(
            _Migration(asked, outcome, data)
        )


def _key(module: ProgramModule, facts: ProgramFacts) -> tuple[str, str, ProgramFacts, bool]:
    """What a module's migration depends on besides its uniformity answers: its text (one
    a run, by real path), the path it is shown as, its facts, and whether it may ask."""
    return (module.real, module.path, facts, facts.uniform is None)


def others(items: tuple[tuple[str, _T], ...], module: ProgramModule) -> tuple[tuple[str, _T], ...]:
    """`items` less `module`'s own (keyed by qualified names `module.name.x`)."""
    prefix = f"{module.name}."
    return tuple(item for item in items if not item[0].startswith(prefix))
