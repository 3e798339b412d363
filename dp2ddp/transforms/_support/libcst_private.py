"""Every use of libcst's private API in dp2ddp, in this one module, and why.

libcst (bounded in pyproject.toml to the tested range) does not expose these, and each
saves a large share of a migration's time (docs/performance.md):

* `positions` drives code generation (`Module._codegen`) with its own `CodegenState`
  subclass: positions for the whole tree at a fraction of PositionProvider's cost.
* `LibcstHooks` overrides two private hooks of `Codemod`:
  `_handle_metadata_reference`, so metadata is resolved lazily and shared between passes
  instead of up front on a deep copy; `_instantiate_and_run`, so the import visitors libcst
  runs after each pass are dp2ddp's faster ones (see import_edits).
  Both delegate to public methods that MigrationTransform (base.py) implements.
* `NoCopy` overrides `_handle_metadata_reference` for the import visitors, which read no
  metadata, so they run on the tree they are given instead of a deep copy.
* `matcher_gathering_once_a_class` wraps three functions of `libcst.matchers._visitors`
  that every matcher-decoratable visitor (the import visitors libcst runs after each pass)
  calls when it is built: they scan all of the object's hundreds of methods for matcher
  decorators. A class that has none is scanned once, not once an instance (a pass on a
  small module spent more time building its import visitors than running them).

tests/test_metadata.py compares the results with libcst's own, node for node, so a libcst
release that changes these internals fails the suite instead of migrating wrongly.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Generator, Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, replace
from typing import Any, TypeVar, cast

import libcst as cst
from libcst._nodes.internal import CodegenState
from libcst.codemod import Codemod, CodemodCommand
from libcst.matchers import _visitors as _matcher_visitors
from libcst.metadata import CodePosition, CodeRange, MetadataWrapper
from libcst.metadata.position_provider import NEWLINE_RE

from dp2ddp.flow.children import PerTree

_CodemodT = TypeVar("_CodemodT", bound=Codemod)
_GatherT = TypeVar("_GatherT", bound=Callable[[object], dict[Any, Any]])


def _once_a_class(gather: _GatherT) -> _GatherT:
    """`gather`, answering {} without a scan for an object whose class gave {} before
    (matcher decorators are class attributes: the scan finds the same on every instance)."""
    plain: set[type] = set()

    def cached(obj: object) -> dict[Any, Any]:
        kind = type(obj)
        if kind in plain:
            return {}
        found = gather(obj)
        if not found:
            plain.add(kind)
        return found

    cached.__wrapped__ = gather  # type: ignore[attr-defined]
    return cast(_GatherT, cached)


def matcher_gathering_once_a_class() -> None:
    """Install _once_a_class on libcst's three matcher scans (idempotent)."""
    for name in (
        "_gather_constructed_visit_funcs",
        "_gather_constructed_leave_funcs",
        "_gather_matchers",
    ):
        gather = getattr(_matcher_visitors, name)
        if not hasattr(gather, "__wrapped__"):
            setattr(_matcher_visitors, name, _once_a_class(gather))


matcher_gathering_once_a_class()


class NoCopy(Codemod):
    """Runs on the tree it is given: these visitors read no metadata."""

    @contextmanager
    def _handle_metadata_reference(self, module: cst.Module) -> Generator[cst.Module, None, None]:
        old = self.context.wrapper
        self.context = replace(self.context, wrapper=MetadataWrapper(module, unsafe_skip_copy=True))
        try:
            yield module
        finally:
            self.context = replace(self.context, wrapper=old)


class LibcstHooks(CodemodCommand):
    """The private Codemod hooks, forwarded to public methods a subclass implements."""

    @contextmanager
    def _handle_metadata_reference(self, module: cst.Module) -> Generator[cst.Module, None, None]:
        with self.metadata_session(module) as tree:
            yield tree

    def metadata_session(self, module: cst.Module) -> AbstractContextManager[cst.Module]:
        """The tree to transform, with metadata available while the context is open."""
        raise NotImplementedError

    def _instantiate_and_run(self, transform: type[_CodemodT], tree: cst.Module) -> cst.Module:
        done = self.run_import_edits(transform, tree)
        return done if done is not None else super()._instantiate_and_run(transform, tree)

    def run_import_edits(self, transform: type[Codemod], tree: cst.Module) -> cst.Module | None:
        """Run the visitor libcst schedules after a pass (`transform`) a faster way, or
        return None to let libcst run it."""
        return None


def positions(module: cst.Module) -> Mapping[cst.CSTNode, CodeRange]:
    """Every node's PositionProvider range, from one code generation that tracks
    (line, column) pairs and builds CodeRange objects only for the nodes asked about."""
    return _printing(module)[1]


def printed(module: cst.Module) -> str:
    """`module.code`, from the code generation that also finds its positions: the pipeline
    prints the tree a pass hands on (to compare and map lines), and the next pass asks for
    the same tree's positions, which this one generation answers (kept for the last tree:
    the next pass's metadata holds them from then on)."""
    return _printing(module)[0]


def _print(module: cst.Module) -> tuple[str, Mapping[cst.CSTNode, CodeRange]]:
    state = _PositionState(
        default_indent=module.default_indent, default_newline=module.default_newline
    )
    module._codegen(state)
    # the tokens are what Module.code joins: _PositionState only adds bookkeeping
    return "".join(state.tokens), _Positions(state.ranges)


_printing = PerTree(_print, size=1)


_Range = tuple[int, int, int, int]  # start line, start column, end line, end column


@dataclass
class _PositionState(CodegenState):
    """libcst's PositionProvidingCodegenState, with plain tuples and a fast path for
    tokens without line breaks (nearly all of them)."""

    line: int = 1
    column: int = 0
    ranges: dict[cst.CSTNode, _Range] = dataclasses.field(default_factory=dict)
    starts: list[tuple[int, int]] = dataclasses.field(default_factory=list)

    def add_indent_tokens(self) -> None:
        self.tokens.extend(self.indent_tokens)
        for token in self.indent_tokens:
            self._advance(token)

    def add_token(self, value: str) -> None:
        self.tokens.append(value)
        self._advance(value)

    def _advance(self, value: str) -> None:
        if "\n" in value or "\r" in value:
            segments = NEWLINE_RE.split(value)
            self.line += len(segments) - 1
            self.column = len(segments[-1])
        else:
            self.column += len(value)

    def before_codegen(self, node: cst.CSTNode) -> None:
        self.starts.append((self.line, self.column))

    def after_codegen(self, node: cst.CSTNode) -> None:
        start = self.starts.pop()
        if node not in self.ranges:  # a syntactic position recorded inside wins
            self.ranges[node] = (*start, self.line, self.column)

    def record_syntactic_position(  # type: ignore[override]
        self,
        node: cst.CSTNode,
        *,
        start_node: cst.CSTNode | None = None,
        end_node: cst.CSTNode | None = None,
    ) -> _SyntacticPosition:
        return _SyntacticPosition(self, node, start_node, end_node)


class _SyntacticPosition:
    """The context manager record_syntactic_position returns (a class: a generator-based
    one costs more than the rest of the bookkeeping)."""

    __slots__ = ("state", "node", "start_node", "end_node", "start")

    def __init__(
        self,
        state: _PositionState,
        node: cst.CSTNode,
        start_node: cst.CSTNode | None,
        end_node: cst.CSTNode | None,
    ) -> None:
        self.state, self.node = state, node
        self.start_node, self.end_node = start_node, end_node
        self.start = (0, 0)

    def __enter__(self) -> None:
        self.start = (self.state.line, self.state.column)

    def __exit__(self, *exc: object) -> None:
        state, ranges = self.state, self.state.ranges
        start = ranges[self.start_node][:2] if self.start_node is not None else self.start
        end = ranges[self.end_node][2:] if self.end_node is not None else (state.line, state.column)
        ranges[self.node] = (start[0], start[1], end[0], end[1])


class _Positions(Mapping[cst.CSTNode, CodeRange]):
    """PositionProvider's mapping, building each CodeRange when it is looked up."""

    def __init__(self, ranges: dict[cst.CSTNode, _Range]) -> None:
        self._ranges = ranges

    def __getitem__(self, node: cst.CSTNode) -> CodeRange:
        line, column, end_line, end_column = self._ranges[node]
        return CodeRange(CodePosition(line, column), CodePosition(end_line, end_column))

    def __iter__(self) -> Iterator[cst.CSTNode]:
        return iter(self._ranges)

    def __len__(self) -> int:
        return len(self._ranges)
