"""Shared base for dp2ddp's transforms: metadata, warnings and change records.

Transforms never print. They report through `MigrationState`, in positions of their own
input; the pipeline maps those back to the user's file.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

import libcst as cst
import libcst.matchers as m
from libcst.codemod import CodemodCommand, CodemodContext
from libcst.metadata import (
    ParentNodeProvider,
    PositionProvider,
    QualifiedNameProvider,
)

from dp2ddp.codes import CODES
from dp2ddp.options import MigrateOptions


@dataclass(frozen=True)
class RawReport:
    """A warning or change at (line, col) of the current pass's input."""

    line: int
    col: int
    code: str  # warning code, or the transform name for a change
    message: str


@dataclass
class MigrationState:
    """What the transforms learn and tell each other while one file is migrated."""

    options: MigrateOptions
    #: Source of each expression that held a DataParallel model (e.g. "model", "self.netG").
    wrapped: list[str] = field(default_factory=list)
    #: Helpers of templates/ddp_header.py.j2 that the rewritten code calls.
    helpers: set[str] = field(default_factory=set)
    warnings: list[RawReport] = field(default_factory=list)
    changes: list[RawReport] = field(default_factory=list)
    #: Set by the detector: migrate nothing (e.g. the script already has a DDP path).
    skip: bool = False
    #: The file was migrated by dp2ddp before (it defines ddp_setup).
    already_migrated: bool = False
    #: The file uses DataParallel in a way dp2ddp migrates.
    has_dataparallel: bool = False
    #: A DataParallel wrap happens at module level (so setup must run at import).
    module_level_wrap: bool = False


class MigrationTransform(CodemodCommand, cst.CSTTransformer):
    """Base of every transform: subclasses set NAME and DESCRIPTION.

    A libcst codemod command (so AddImportsVisitor/RemoveImportsVisitor run after it) that
    is a plain CSTTransformer: libcst's matcher-decorator machinery is not used, and
    skipping it makes each pass about a third faster.
    """

    NAME: ClassVar[str] = "transform"
    DESCRIPTION: str = ""
    #: The pass is skipped (no metadata resolved, no tree rebuilt) when the code contains
    #: none of these strings; empty means it always runs. A cheap, exact gate: a transform
    #: cannot match a name that does not occur in the text.
    TRIGGERS: ClassVar[tuple[str, ...]] = ()
    METADATA_DEPENDENCIES = (
        PositionProvider,
        QualifiedNameProvider,
        ParentNodeProvider,
    )

    def __init__(self, context: CodemodContext, state: MigrationState) -> None:
        CodemodCommand.__init__(self, context)
        cst.CSTTransformer.__init__(self)
        self.state = state

    def transform_module_impl(self, tree: cst.Module) -> cst.Module:
        return tree.visit(self)

    # -- reporting -----------------------------------------------------------------
    def _position(self, node: cst.CSTNode) -> tuple[int, int]:
        try:
            start = self.get_metadata(PositionProvider, node).start
        except KeyError:
            return (1, 1)
        return (start.line, start.column + 1)

    def warn(  # type: ignore[override]  # libcst's warn(str) is not used by dp2ddp
        self, node: cst.CSTNode, code: str, detail: str | None = None
    ) -> None:
        """Report `code` at `node` (an original node of this pass's input)."""
        assert code in CODES, code
        message = CODES[code][0] + (f": {detail}" if detail else "")
        line, col = self._position(node)
        report = RawReport(line, col, code, message)
        if report not in self.state.warnings:
            self.state.warnings.append(report)

    def record(self, node: cst.CSTNode, description: str) -> None:
        """Record an edit made at `node` (an original node of this pass's input)."""
        line, col = self._position(node)
        self.state.changes.append(RawReport(line, col, self.NAME, description))

    # -- names -----------------------------------------------------------------------
    def qualified_names(self, node: cst.CSTNode) -> set[str]:
        try:
            names = self.get_metadata(QualifiedNameProvider, node, set())
        except KeyError:
            return set()
        return {q.name for q in names}

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
            return isinstance(node, cst.CSTNode) and not self.qualified_names(node).isdisjoint(
                names
            )
        return m.matches(node, names, metadata_resolver=self)

    def parent(self, node: cst.CSTNode) -> cst.CSTNode | None:
        try:
            return self.get_metadata(ParentNodeProvider, node)
        except KeyError:
            return None

    def code(self, node: cst.CSTNode) -> str:
        return cst.Module(body=[]).code_for_node(node)
