"""The edits for a proved forwarding DataParallel subclass (_support/forwarding_classes.py
proves it): the class rebased on DistributedDataParallel, its wraps calling the program's
class again."""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst
from libcst.codemod import CodemodContext
from libcst.codemod.visitors import AddImportsVisitor

from dp2ddp.transforms._support.forwarding_classes import DDP_QUALIFIED
from dp2ddp.transforms._support.names import DDP_CLASS

if TYPE_CHECKING:
    from dp2ddp.transforms._support.base import MigrationTransform


def rebased(node: cst.ClassDef, context: CodemodContext) -> cst.ClassDef:
    """The proved class on DistributedDataParallel: its base DDP, its pass-through
    `__init__` gone (DDP's own takes the keywords the migrated wrap passes)."""
    AddImportsVisitor.add_needed_import(context, "torch.nn.parallel", DDP_CLASS)
    base = node.bases[0].with_changes(value=cst.Name(DDP_CLASS))
    if not isinstance(node.body, cst.IndentedBlock):  # `class P(DataParallel): pass`
        return node.with_changes(bases=[base])
    body = [
        s
        for s in node.body.body
        if not (isinstance(s, cst.FunctionDef) and s.name.value == "__init__")
    ]
    if not any(not _cst_docstring(s) for s in body):
        body.append(cst.SimpleStatementLine([cst.Pass()]))
    if body and body[0] is not node.body.body[0] and hasattr(body[0], "leading_lines"):
        body[0] = body[0].with_changes(leading_lines=[])
    return node.with_changes(bases=[base], body=node.body.with_changes(body=body))


def _cst_docstring(statement: cst.BaseStatement) -> bool:
    return (
        isinstance(statement, cst.SimpleStatementLine)
        and len(statement.body) == 1
        and isinstance(statement.body[0], cst.Expr)
        and isinstance(statement.body[0].value, (cst.SimpleString, cst.ConcatenatedString))
    )


class ForwardingWraps:
    """model_wrap's part: a wrap by a forwarding class keeps the class as what it calls
    (rebased, it is a DistributedDataParallel that forwards), and the class is rebased."""

    def __init__(self, transform: MigrationTransform) -> None:
        self.t = transform
        #: id of a migrated wrap's call -> the program's class as the wrap spelled it
        self._spelled: dict[int, cst.BaseExpression] = {}

    def _names(self) -> frozenset[str]:
        return frozenset(self.t.state.facts.reexports.forwarding)

    def note(self, original: cst.Call, updated: cst.Call, migrated: cst.Call, wrap: str) -> None:
        """`migrated` (the DDP call `original` became) is to call the class `original`
        called, where that is a forwarding class and the wrap plain DDP."""
        names = self._names()
        if not names or wrap != DDP_CLASS:
            return
        if self.t.qualified_names(original.func).isdisjoint(names):
            return
        self._spelled[id(migrated)] = updated.func
        self.t.record(
            original,
            f"kept {self.t.code(updated.func)}: a DataParallel subclass that only forwards "
            "attribute reads to the wrapped module, rebased on DistributedDataParallel",
        )

    def rebase(self, original: cst.ClassDef, updated: cst.ClassDef) -> cst.ClassDef:
        """The module's own forwarding class on DistributedDataParallel."""
        if original.name.value not in self._names() or not isinstance(
            self.t.parent(original), cst.Module
        ):
            return updated
        self.t.record(
            original,
            f"class {original.name.value} rebased on DistributedDataParallel: it adds only "
            "attribute forwarding to DataParallel, which DDP needs as much",
        )
        return rebased(updated, self.t.context)

    def respelled(self, module: cst.Module) -> cst.Module:
        """`module` with each noted wrap calling the program's class (after the hoists, so
        they find the wraps as DDP's) and the class taken for DDP by the passes after."""
        if self._names():
            self.t.state.forwarding_as = DDP_QUALIFIED
        if not self._spelled:
            return module
        return module.visit(_Respell(self._spelled))


class _Respell(cst.CSTTransformer):
    def __init__(self, spelled: dict[int, cst.BaseExpression]) -> None:
        super().__init__()
        self.spelled = spelled

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.Call:
        func = self.spelled.get(id(original_node))
        return updated_node if func is None else updated_node.with_changes(func=func)
