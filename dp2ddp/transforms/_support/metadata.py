"""Cheaper stand-ins for the libcst metadata machinery each pass would otherwise pay for.

Every pass used to deep-copy the tree and resolve parent, position and qualified-name
metadata for all of it up front; that was three quarters of a migration's time. Here:
`PassMetadata` resolves providers on first use, builds the parent map by one plain walk
(which also proves no node object occurs twice, the only reason libcst copies), answers
qualified names without libcst's scope analysis where that is exact (`QualifiedNames`),
and computes positions with a lighter code generation (`positions`, which relies on
libcst's codegen hooks: tests/test_metadata.py compares all of these with libcst's own).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

import libcst as cst
from libcst._nodes.internal import CodegenState
from libcst.metadata import (
    BaseMetadataProvider,
    CodePosition,
    CodeRange,
    MetadataWrapper,
    ParentNodeProvider,
    PositionProvider,
    ProviderT,
    ScopeProvider,
)
from libcst.metadata.position_provider import NEWLINE_RE

from dp2ddp.transforms._support.qualified import QualifiedNames

_FIELDS: dict[type[cst.CSTNode], tuple[str, ...]] = {}


def _fields(kind: type[cst.CSTNode]) -> tuple[str, ...]:
    names = _FIELDS.get(kind)
    if names is None:
        names = _FIELDS[kind] = tuple(f.name for f in dataclasses.fields(kind))
    return names


class PassMetadata:
    """The metadata of one pass's input tree, resolved as it is asked for.

    Kept for the next pass when a pass leaves the tree as it was (the pipeline then hands
    on the same module object), so analysis-only passes share one resolution.
    """

    def __init__(self, module: cst.Module, cache: Mapping[ProviderT, object]) -> None:
        self.source = module
        parents = parent_map(module)
        if parents is None:  # a node object occurs twice: copy, as libcst would
            module = module.deep_clone()
            parents = parent_map(module)
            assert parents is not None
        self.wrapper = MetadataWrapper(module, unsafe_skip_copy=True, cache=cache)
        self.parents = parents
        #: provider -> its metadata, for MetadataDependent.get_metadata
        self.resolved: dict[ProviderT, Mapping[cst.CSTNode, object]] = {ParentNodeProvider: parents}
        self._qualified: dict[cst.CSTNode, set[str]] = {}
        self._names: QualifiedNames | None = None

    def resolve(self, provider: type[BaseMetadataProvider[object]]) -> None:
        if provider not in self.resolved:
            if provider is PositionProvider:
                self.resolved[provider] = positions(self.wrapper.module)
            else:
                self.resolved[provider] = self.wrapper.resolve(provider)

    def qualified_names(self, node: cst.CSTNode) -> set[str]:
        """What QualifiedNameProvider gives for `node` (names only), computed for this node
        alone: by QualifiedNames where it can tell, else by libcst's scope analysis."""
        names = self._qualified.get(node)
        if names is None:
            if self._names is None:
                self._names = QualifiedNames(self.wrapper.module, self.parents)
            names = self._names.names(node)
            if names is None:
                scope = self.wrapper.resolve(ScopeProvider).get(node)
                names = {q.name for q in scope.get_qualified_names_for(node)} if scope else set()
            self._qualified[node] = names
        return set(names)


def positions(module: cst.Module) -> Mapping[cst.CSTNode, CodeRange]:
    """Every node's PositionProvider range, from one code generation that tracks
    (line, column) pairs and builds CodeRange objects only for the nodes asked about."""
    state = _PositionState(
        default_indent=module.default_indent, default_newline=module.default_newline
    )
    module._codegen(state)
    return _Positions(state.ranges)


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


def children(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """`node.children`, without libcst's visitor (several times faster)."""
    for name in _fields(type(node)):
        value = getattr(node, name)
        if isinstance(value, cst.CSTNode):
            yield value
        elif isinstance(value, (tuple, list)):
            for item in value:
                if isinstance(item, cst.CSTNode):
                    yield item


def parent_map(module: cst.Module) -> dict[cst.CSTNode, cst.CSTNode] | None:
    """Each node's parent (what ParentNodeProvider gives), or None when a node object
    occurs twice in the tree (then metadata keyed by node would be ambiguous)."""
    parents: dict[cst.CSTNode, cst.CSTNode] = {}
    stack: list[cst.CSTNode] = [module]
    node_type = cst.CSTNode
    while stack:
        node = stack.pop()
        for name in _fields(type(node)):
            value = getattr(node, name)
            if isinstance(value, node_type):
                if value in parents:
                    return None
                parents[value] = node
                stack.append(value)
            elif isinstance(value, (tuple, list)):
                for item in value:
                    if isinstance(item, node_type):
                        if item in parents:
                            return None
                        parents[item] = node
                        stack.append(item)
    return parents
