"""The dataset argument: shared by loader and sampler, hoisted when built inline."""

from __future__ import annotations

import libcst as cst
from libcst.metadata import PositionProvider

from dp2ddp.transforms._support.nodes import (
    Shift,
    bare,
    dataset_name,
    is_simple,
)
from dp2ddp.transforms.data.plan import (
    Loader,
)
from dp2ddp.transforms.data.resolution import LoaderResolution


class LoaderArguments(LoaderResolution):
    """The dataset argument the loader and its sampler share."""

    # -- the dataset ----------------------------------------------------------------------
    def _shared_dataset(self, loader: Loader) -> tuple[cst.BaseExpression, cst.Name | None] | None:
        """The dataset for the sampler, and the name a dataset built inline was bound to."""
        dataset = loader.call.args[loader.args["dataset"]].value
        if is_simple(dataset):
            return bare(dataset.deep_clone()), None
        statement = loader.statement
        if statement is None or not self._can_hoist(loader.call, statement):
            self.warn(loader.call, "DP020", "dataset built inline here: bind it to a name first")
            return None
        name = self._free_name(dataset_name(loader.name), statement)
        value = self._reindent(dataset, statement, len(name) + 3)
        hoisted = cst.SimpleStatementLine(
            body=[cst.Assign(targets=[cst.AssignTarget(cst.Name(name))], value=value)]
        )
        self._before.setdefault(statement, []).append(hoisted)
        self.record(dataset, f"bound the inline dataset to {name}, shared by loader and sampler")
        return cst.Name(name), cst.Name(name)

    def _can_hoist(self, call: cst.Call, statement: cst.BaseStatement) -> bool:
        """Evaluating the dataset one statement earlier changes nothing observable."""
        if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) != 1:
            return False
        child: cst.CSTNode = call
        node = self.parent(call)
        while node is not None and node is not statement:
            if isinstance(
                node,
                (cst.Lambda, cst.IfExp, cst.BooleanOperation, cst.BaseComp, cst.FunctionDef),
            ):
                return False
            child, node = node, self.parent(node)
        if isinstance(statement, cst.For):
            return child is statement.iter
        return isinstance(statement, cst.SimpleStatementLine)

    def _free_name(self, base: str, statement: cst.BaseStatement) -> str:
        taken = self._names(self._scope_root(statement))
        taken |= self.bindings().module_names()
        # and the names bound before this statement already: two inline datasets of one
        # statement (`for loader in (DataLoader(A()), DataLoader(B())):`) were both bound
        # to `dataset`, and both loaders loaded B
        taken |= {
            target.target.value
            for line in self._before.get(statement, [])
            if isinstance(line, cst.SimpleStatementLine)
            for small in line.body
            if isinstance(small, cst.Assign)
            for target in small.targets
            if isinstance(target.target, cst.Name)
        }
        name, number = base, 1
        while name in taken:
            number += 1
            name = f"{base}_{number}"
        return name

    def _reindent(
        self, expr: cst.BaseExpression, statement: cst.BaseStatement, prefix: int
    ) -> cst.BaseExpression:
        """Move a multi-line expression to `name = ` in front of `statement`, keeping its shape.

        Hanging indents follow the line they start on, aligned ones the opening bracket.
        """
        code = self.code(expr)
        if "\n" not in code:
            return expr.deep_clone()
        start = self.get_metadata(PositionProvider, expr).start
        indent = self.get_metadata(PositionProvider, statement).start.column
        line = self._lines[start.line - 1]
        first = code.split("\n", 1)[0].split("#", 1)[0].rstrip()
        if first.endswith(("(", "[", "{")):
            delta = indent - (len(line) - len(line.lstrip()))
        else:
            delta = indent + prefix - start.column
        return expr.deep_clone().visit(Shift(delta))  # type: ignore[return-value]
