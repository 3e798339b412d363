"""Shared base for dp2ddp's transforms: metadata, warnings and change records.

Transforms never print. They report through `MigrationState`, in positions of their own
input; the pipeline maps those back to the user's file.
"""

from __future__ import annotations

import builtins
import functools
import re
from collections.abc import Callable, Generator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar, TypeVar

import libcst as cst
import libcst.matchers as m
from libcst.codemod import Codemod, CodemodCommand, CodemodContext
from libcst.codemod.visitors import AddImportsVisitor, RemoveImportsVisitor
from libcst.metadata import (
    BaseMetadataProvider,
    ParentNodeProvider,
    PositionProvider,
    QualifiedNameProvider,
)

from dp2ddp.codes import CODES
from dp2ddp.facts import HelperDraw, ProgramFacts, ProgramHints, ProgramLoaders
from dp2ddp.options import MigrateOptions
from dp2ddp.result import LoaderExport, LoaderHandoff
from dp2ddp.transforms._support.dynamic_imports import imported_attribute_names
from dp2ddp.transforms._support.import_edits import TopLevelAddImports, remove_imports
from dp2ddp.transforms._support.libcst_private import LibcstHooks
from dp2ddp.transforms._support.metadata import PassMetadata
from dp2ddp.transforms._support.nodes import code_of, is_script_guard
from dp2ddp.transforms._support.visiting import field_hooks, visit_tree

_T = TypeVar("_T")
_CodemodT = TypeVar("_CodemodT", bound=Codemod)
_MISSING: Any = object()


@functools.cache
def _last_parts(names: frozenset[str]) -> frozenset[str]:
    """The last dotted part of each name: `torch.nn.DataParallel` -> `DataParallel`."""
    return frozenset(n.rpartition(".")[2] for n in names)


def _hook(cls: type, name: str) -> Any:
    """The function `name` of `cls`, or None when it has none or it is one of libcst's
    no-op stubs (marked `_is_no_op`: a visit that returns None, a leave that returns the
    updated node)."""
    func = getattr(cls, name, None)
    return None if func is None or getattr(func, "_is_no_op", False) else func


def _no_attribute_hook(self: object, node: cst.CSTNode, attribute: str) -> None:
    """A pass without per-field hooks: nothing to look up."""


@dataclass(frozen=True)
class RawReport:
    """A warning or change at (line, col) of the current pass's input."""

    line: int
    col: int
    code: str  # warning code, or the transform name for a change
    message: str
    #: The places a warning names at once, one report each (see result.Diagnostic.places).
    places: tuple[RawReport, ...] = ()


@dataclass
class MigrationState:
    """What the transforms learn and tell each other while one file is migrated."""

    options: MigrateOptions
    #: Source of each expression that held a DataParallel model (e.g. "model", "self.netG").
    wrapped: list[str] = field(default_factory=list)
    #: DataParallel's `dim` at each wrap, as written ("0" where not given): the dimension
    #: along which it split every batch (transforms/batches.py splits them the same way).
    scatter_dims: list[str] = field(default_factory=list)
    #: Helpers of templates/ddp_header.py.j2 that the rewritten code calls.
    helpers: set[str] = field(default_factory=set)
    #: The names the module imports from the generated helpers module (set by the
    #: process-group pass); None: it imports none (the inline form, or no setup at all).
    helper_imports: tuple[str, ...] | None = None
    warnings: list[RawReport] = field(default_factory=list)
    changes: list[RawReport] = field(default_factory=list)
    #: Set by the detector: migrate nothing (e.g. the script already has a DDP path).
    skip: bool = False
    #: The file was migrated by dp2ddp before (it defines ddp_setup).
    already_migrated: bool = False
    #: Changes an earlier pass recorded and a later one took back (how their descriptions
    #: start): the batches pass undoes the WORLD_SIZE scale of a summed loss whose batch
    #: is not proved split; the result does not list them.
    withdrawn: set[str] = field(default_factory=set)
    #: DP006s of a call that draws from a process-wide stream ddp_same_random shares
    #: (Python's `random`, numpy's, torch's CPU one: no generator, no device), as the
    #: hazards pass said them: (line of the user's input, column).
    stream_draws: set[tuple[int, int]] = field(default_factory=set)
    #: The user's input lines (first, last) of each statement the batches pass put in
    #: `with ddp_same_random():` (a draw that selects a split batch, proof.py). A DP006 of
    #: `stream_draws` there ("each rank draws its own") is false: every rank draws rank 0's
    #: numbers; the result does not list it, as the hazards pass does not say it of a draw
    #: inside such a block of a file migrated before (the same answer on --check).
    alike_spans: set[tuple[int, int]] = field(default_factory=set)
    #: The user's input lines (first, last, the line of the function holding it or 0) of
    #: each statement the shared_draws pass put in `with ddp_same_random():`: a memory
    #: filled there is filled alike on every rank (DP200's text, replay_memories.shared_fill).
    shared_spans: list[tuple[int, int, int]] = field(default_factory=list)
    #: DP200's fills: the user's line of each fill call -> the line of the function holding
    #: it (0 at module level), to tell a fill in a function whose draws are shared.
    memory_fills: dict[int, int] = field(default_factory=dict)
    #: Calls in a training loop of another module's function or method that draws from a
    #: process-wide stream (the hazards pass's DP006 through ProgramFacts.draws): (line of
    #: the user's input, the call's function as written). What one returns is made anew at
    #: every call: a batch the batches pass splits where it meets the model (stop 56 s1).
    elsewhere_draws: set[tuple[int, str]] = field(default_factory=set)
    #: The user's input lines (first, last) of the branches a pass deleted (the model-wrap
    #: pass's `if multi: save(net.module) else: save(net)` keeps the `.module` side): a
    #: warning an earlier pass said there is about code no longer in the file (round 21:
    #: DP070 and its marker stayed, and `--check` failed on a right migration).
    dropped_spans: list[tuple[int, int]] = field(default_factory=list)
    #: The module's functions that return a figure of this rank's batches (the data pass's
    #: DP030 at a `return` after the loop): name -> that return's line. A learning rate
    #: decided by a call of one is decided by each rank's share (DP090, rank_zero/run_dir).
    per_rank_figures: dict[str, int] = field(default_factory=dict)
    #: The file uses DataParallel in a way dp2ddp migrates.
    has_dataparallel: bool = False
    #: The file is DataParallel machinery of the project's own (it defines a DataParallel
    #: subclass or builds such wrappers) and wraps no model with torch's DataParallel: a
    #: library such as a vendored sync_batchnorm/replicate.py, left as it is (DP002 names it).
    wrapper_library: bool = False
    #: The file's only DataParallel uses are isinstance/issubclass checks, and no program
    #: tells it the gate is open: it trains nothing with DataParallel, so it is no DDP
    #: program. Only its checks follow the new wrapper (no setup, sharding or rank 0).
    checks_only: bool = False
    #: What the program's forwarding DataParallel subclasses are taken for (facts.Reexports.
    #: forwarding): torch's DataParallel until model_wrap has migrated them, DDP after.
    forwarding_as: str = "torch.nn.DataParallel"
    #: A DataParallel wrap happens at module level (so setup must run at import).
    module_level_wrap: bool = False
    #: The code the running pass starts from (set by migrate_source before each pass): a
    #: substring test on it is an exact, cheap gate before a walk of the whole tree.
    text: str = ""
    #: Line n of `text` -> its line in the input (set by migrate_source before each pass):
    #: for a line a warning's text names (a warning's own place is mapped afterwards).
    line_map: Callable[[int], int] = lambda line: line
    #: What the program tells this module (dp2ddp/facts.py): the one value program mode
    #: hands down; the default is a single file.
    facts: ProgramFacts = field(default_factory=ProgramFacts)
    #: Training loaders this module shards for its importers' epoch loops (program mode).
    exports: list[LoaderExport] = field(default_factory=list)
    #: ... of them, those already sharded when read (`**ddp_loader_arguments(...)`, a second
    #: run): told also from a module the run leaves unchanged (a fixed point).
    standing: list[LoaderExport] = field(default_factory=list)
    #: Exported loaders of other modules iterated here, with whether set_epoch was placed
    #: around each loop (MigrationResult.epoch_loops).
    epoch_loops: list[tuple[str, bool]] = field(default_factory=list)
    #: (class, attribute, line) of the counters on an instance of this module's top-level
    #: classes summing this rank's batches (MigrationResult.share_attributes).
    share_attributes: list[tuple[str, str, int]] = field(default_factory=list)
    #: Factories of other modules called here for an evaluation loader (`ddp_shard=False`),
    #: as "module.function" (program mode; data/imported.py).
    evaluation_factories: list[str] = field(default_factory=list)
    #: DataLoaders this module passes to other modules' functions (program mode;
    #: data/handoffs.py).
    handoffs: list[LoaderHandoff] = field(default_factory=list)
    #: The data pass has run on this module (set as it ends): a DataLoader the later
    #: passes see with no sampler is one it left whole (analysis/alike_evaluations.py).
    loaders_placed: bool = False
    #: Metadata of the last pass's input. A pass that leaves the tree as it was hands on
    #: the same module, and the next pass reuses this instead of resolving it again.
    metadata: PassMetadata | None = field(default=None, repr=False, compare=False)

    @property
    def program(self) -> ProgramFacts | None:
        """The facts of a module migrated with a role in a program; None: a single file."""
        return self.facts if self.facts.role is not None else None

    @property
    def hints(self) -> ProgramHints:
        return self.facts.hints

    @property
    def random_helpers(self) -> Mapping[str, HelperDraw]:
        return self.facts.random_helpers

    @property
    def loaders(self) -> ProgramLoaders:
        return self.facts.loaders

    def text_count(self, fragment: str) -> int | None:
        """How often `fragment` occurs in the running pass's code; None when that code is
        not known (a pass run alone, as tests do), or when the module may name it through
        a project module's re-export (`from data_utils import Loader`, facts.Reexports):
        then no gate applies."""
        if not self.text:
            return None
        found = self.text.count(fragment)
        if found == 0 and self.facts.reexports.mentions(fragment):
            return None
        return found


class MigrationTransform(LibcstHooks, cst.CSTTransformer):
    """Base of every transform: subclasses set NAME and DESCRIPTION.

    A libcst codemod command (so AddImportsVisitor/RemoveImportsVisitor run after it) that
    is a plain CSTTransformer: libcst's matcher-decorator machinery is not used, and
    skipping it makes each pass about a third faster.

    Metadata is resolved on first use, not up front: a pass pays only for what it asks.
    Parents come from one plain walk, which also shows whether the tree can be used
    without libcst's defensive deep copy (it can unless a node object occurs twice).
    """

    NAME: ClassVar[str] = "transform"
    DESCRIPTION: str = ""
    #: The pass is skipped (no metadata resolved, no tree rebuilt) when the code contains
    #: none of these strings; empty means it always runs. A cheap, exact gate: a transform
    #: cannot match a name that does not occur in the text.
    TRIGGERS: ClassVar[tuple[str, ...]] = ()

    @classmethod
    def triggered(cls, code: str, state: MigrationState) -> bool:
        """Whether the pass can change or warn about `code`: no TRIGGERS, or one occurs
        (in the code or in the real name of a project module's re-export it imports)."""
        return (
            not cls.TRIGGERS
            or any(trigger in code for trigger in cls.TRIGGERS)
            or state.facts.reexports.mentions(*cls.TRIGGERS)
        )

    METADATA_DEPENDENCIES = (
        PositionProvider,
        QualifiedNameProvider,
        ParentNodeProvider,
    )

    def __init__(self, context: CodemodContext, state: MigrationState) -> None:
        CodemodCommand.__init__(self, context)
        cst.CSTTransformer.__init__(self)
        self.state = state
        #: This pass's metadata while it runs (self.metadata is its `resolved`).
        self._meta: PassMetadata | None = None

    def transform_module_impl(self, tree: cst.Module) -> cst.Module:
        if type(self).on_visit_attribute is not _no_attribute_hook:
            return tree.visit(self)  # per-field hooks: libcst's own visit calls them
        # Copy-on-write (visiting.py): a pass that changes nothing returns `tree` itself.
        result = visit_tree(self, tree)
        assert isinstance(result, cst.Module)
        return result

    # -- visitor dispatch, looked up once a node type ----------------------------------
    # libcst finds `visit_<Type>` / `leave_<Type>` / `visit_<Type>_<field>` by building the
    # name and calling getattr at every node and every field of every pass; most of them are
    # libcst's no-op stubs. Here each pass class looks a node type up once and keeps what it
    # found (None for a no-op stub), and skips the per-field hooks when it defines none.
    _visits: ClassVar[dict[type[cst.CSTNode], Any]] = {}
    _leaves: ClassVar[dict[type[cst.CSTNode], Any]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._visits, cls._leaves = {}, {}
        if not field_hooks(cls):
            cls.on_visit_attribute = _no_attribute_hook  # type: ignore[method-assign]
            cls.on_leave_attribute = _no_attribute_hook  # type: ignore[method-assign,assignment]

    def on_visit(self, node: cst.CSTNode) -> bool:
        kind = type(node)
        try:
            func = self._visits[kind]
        except KeyError:
            func = self._visits[kind] = _hook(type(self), f"visit_{kind.__name__}")
        return func is None or func(self, node) is not False

    def on_leave(  # type: ignore[override]  # as libcst's: a node, a removal or a flattening
        self, original_node: cst.CSTNode, updated_node: cst.CSTNode
    ) -> cst.CSTNode | cst.RemovalSentinel | cst.FlattenSentinel[cst.CSTNode]:
        kind = type(original_node)
        try:
            func = self._leaves[kind]
        except KeyError:
            func = self._leaves[kind] = _hook(type(self), f"leave_{kind.__name__}")
        return updated_node if func is None else func(self, original_node, updated_node)

    # -- metadata, resolved lazily ------------------------------------------------------
    @contextmanager
    def metadata_session(self, module: cst.Module) -> Generator[cst.Module, None, None]:
        shared = self.state.metadata
        if shared is None or shared.source is not module:
            manager, filename = self.context.metadata_manager, self.context.filename
            cache = manager.get_cache_for_path(filename) if manager and filename else {}
            shared = self.state.metadata = PassMetadata(
                module, cache, self.state.facts.reexports, self.state.forwarding_as
            )
        old_wrapper = self.context.wrapper
        self.context = replace(self.context, wrapper=shared.wrapper)
        self._meta = shared
        self.metadata = shared.resolved
        try:
            yield shared.wrapper.module
        finally:
            self._meta = None
            self.metadata = {}
            self.context = replace(self.context, wrapper=old_wrapper)

    def get_metadata(
        self,
        key: type[BaseMetadataProvider[_T]],
        node: cst.CSTNode,
        default: _T = _MISSING,
    ) -> _T:
        if self._meta is not None and key in self.get_inherited_dependencies():
            self._meta.resolve(key)
        if default is _MISSING:
            return super().get_metadata(key, node)
        return super().get_metadata(key, node, default)

    def run_import_edits(self, transform: type[Codemod], tree: cst.Module) -> cst.Module | None:
        if transform is AddImportsVisitor:
            return TopLevelAddImports(self.context).transform_module(tree)
        if transform is RemoveImportsVisitor:
            return remove_imports(self.context, tree)
        return None

    # -- reporting -----------------------------------------------------------------
    def line_of(self, node: cst.CSTNode) -> int:
        """The line `node` starts at, in the user's source."""
        return self._position(node)[0]

    def _position(self, node: cst.CSTNode) -> tuple[int, int]:
        try:
            start = self.get_metadata(PositionProvider, node).start
        except KeyError:
            return (1, 1)
        return (start.line, start.column + 1)

    def warn(  # type: ignore[override]  # libcst's warn(str) is not used by dp2ddp
        self,
        node: cst.CSTNode,
        code: str,
        detail: str | None = None,
        places: Sequence[tuple[cst.CSTNode, str]] = (),
    ) -> None:
        """Report `code` at `node` (an original node of this pass's input). A warning that
        stands for several places (`detail` names the first "and N more") lists them all in
        `places` (node, detail of that place alone), so each can be silenced on its line."""
        assert code in CODES, code
        if self._in_dead_script_block(node):
            return
        message = CODES[code][0] + (f": {detail}" if detail else "")
        if "\n" in message:  # code quoted from several lines: a report is one line
            message = one_line_code(message)
        line, col = self._position(node)
        parts = tuple(
            RawReport(*self._position(place), code, CODES[code][0] + f": {text}")
            for place, text in places
        )
        report = RawReport(line, col, code, message, parts)
        if report not in self.state.warnings:
            self.state.warnings.append(report)

    def _in_dead_script_block(self, node: cst.CSTNode) -> bool:
        """`node` lies in the `if __name__ == "__main__":` block of a module the program
        imports (ProgramHints.imported): a self-test torchrun never runs, which the
        migration leaves as written (RankZeroFacts.dead_script_block), so a warning there
        would be about code this program does not run (stop 54 v1: DP133 and DP018 in
        torch-light's data_loader.py and pretrain.py, failing `--check`)."""
        if not self.state.hints.imported:
            return False
        parent = self.parent(node)
        while parent is not None and not isinstance(parent, cst.Module):
            node, parent = parent, self.parent(parent)
        return parent is not None and isinstance(node, cst.If) and is_script_guard(node.test)

    def input_position(self, node: cst.CSTNode) -> tuple[int, int]:
        """`node`'s line in the input and its 0-based column: for a place a warning's text
        names (a flow's steps), as the warning's own place is reported."""
        line, col = self._position(node)
        return self.state.line_map(line), col - 1

    def input_span(self, node: cst.CSTNode) -> tuple[int, int]:
        """`node`'s first and last lines in the input."""
        try:
            where = self.get_metadata(PositionProvider, node)
        except KeyError:
            return (0, 0)
        return self.state.line_map(where.start.line), self.state.line_map(where.end.line)

    def record(self, node: cst.CSTNode, description: str) -> None:
        """Record an edit made at `node` (an original node of this pass's input)."""
        line, col = self._position(node)
        self.state.changes.append(RawReport(line, col, self.NAME, description))

    # -- names -----------------------------------------------------------------------
    def qualified_names(self, node: cst.CSTNode) -> set[str]:
        """What QualifiedNameProvider gives for `node`: the names only; and for an attribute
        of `importlib.import_module(...)`, the names of the modules it imports
        (_support/dynamic_imports.py)."""
        names = self._meta.qualified_names(node) if self._meta is not None else set()
        if type(node) is cst.Attribute and type(node.value) is cst.Call:
            found = imported_attribute_names(node, self.qualified_names, self.parent)
            return names | found if found else names
        return names

    def matches(
        self,
        node: cst.CSTNode | cst.MaybeSentinel | cst.RemovalSentinel,
        names: frozenset[str] | m.BaseMatcherNode,
    ) -> bool:
        """With a set of names: does `node` resolve to one of them (aliases included)?

        With a libcst matcher it behaves as libcst's own `matches` (which libcst's
        decorator machinery calls), so both uses stay available.
        """
        if isinstance(names, (frozenset, set)):
            return (
                isinstance(node, cst.CSTNode)
                and self.may_name(node, names)
                and not self.qualified_names(node).isdisjoint(names)
            )
        return m.matches(node, names, metadata_resolver=self)

    def may_name(self, node: cst.CSTNode, names: frozenset[str] | set[str]) -> bool:
        """False where no qualified name of `node` can be one of `names`, told without
        resolving any (a name libcst's scope analysis must resolve costs seconds on a large
        file: torch's 460 KB distributed_test.py). Qualified names keep the spelled tail:
        those of `a.b.attr` end in `attr` (unless `a` is a builtin: `builtins.a`), those of
        a Name in the name itself, unless an import binds it as an alias (`from m import
        DataParallel as DP`, `import a.b as DP`), whose imported name then ends one of them."""
        kind = type(node)
        if kind is not cst.Attribute and kind is not cst.Name:
            return True
        lasts = _last_parts(names if isinstance(names, frozenset) else frozenset(names))
        if kind is cst.Attribute:
            assert isinstance(node, cst.Attribute)
            head: cst.BaseExpression = node
            while isinstance(head, cst.Attribute):
                head = head.value
            if isinstance(head, cst.Name) and hasattr(builtins, head.value):
                return True
            return node.attr.value in lasts or self._reexported_as(node.attr.value, lasts)
        assert isinstance(node, cst.Name)
        if node.value in lasts or self._meta is None:
            return True
        if self._reexported_as(node.value, lasts):
            return True
        return not lasts.isdisjoint(self._meta.import_aliases().get(node.value, ()))

    def _reexported_as(self, name: str, lasts: frozenset[str]) -> bool:
        """`name` is a program module's re-export of one ending in `lasts` under another
        name (`from torch.utils.data import DataLoader as Loader` there, `Loader` here)."""
        reexports = self._meta.reexports if self._meta is not None else None
        return reexports is not None and not lasts.isdisjoint(reexports.lasts.get(name, ()))

    def parent(self, node: cst.CSTNode) -> cst.CSTNode | None:
        return self._meta.parents.get(node) if self._meta is not None else None

    def code(self, node: cst.CSTNode) -> str:
        return code_of(node)


def one_line_code(code: str) -> str:
    """`code` on one line: its runs of white space one space, none inside brackets' ends
    (`torch.where(m, a, b)` of a call written over three lines)."""
    text = re.sub(r"\s+", " ", code.strip())
    return re.sub(r" ([)\]}])", r"\1", re.sub(r"([(\[{]) ", r"\1", text))
