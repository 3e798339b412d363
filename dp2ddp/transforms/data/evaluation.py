"""Evaluation loaders: disjoint shards and counters summed over ranks after the loop."""

from __future__ import annotations

import libcst as cst
from libcst.metadata import PositionProvider

from dp2ddp.transforms._support.nodes import (
    NO_GRAD,
    bound_value,
    call_named,
    is_false,
    name_of,
    reduces_counters,
    walk,
)
from dp2ddp.transforms.data.plan import (
    ZERO_TENSOR,
    Loader,
)
from dp2ddp.transforms.data.set_epoch import LoaderSetEpoch


class LoaderEvaluation(LoaderSetEpoch):
    """Evaluation loops and the metric counters reduced after them."""

    # -- evaluation -----------------------------------------------------------------------
    def _plan_eval(self, loader: Loader) -> None:
        if not loader.loops:
            self.warn(loader.call, "DP015", "no loop over this evaluation loader found")
        for loop, expr, _ in loader.loops:
            if loop in self._after and any(reduces_counters(s) for s in self._after[loop]):
                continue
            self._check_batch_count(loop, expr)
            counters = self._counters(loop)
            lists = self._collected(loop)
            if lists:
                self.warn(loop, "DP015", f"{', '.join(lists)} only collect this rank's slice")
            elif not counters:
                self.warn(loop, "DP015")
            self._reduce_after(loop, counters, "after evaluation")

    def _plan_train_metrics(self, loader: Loader) -> None:
        """`total / len(loader.dataset)` after a training loop: the counter must be global."""
        for loop, expr, _ in loader.loops:
            if self._normalised_by_dataset(loop, expr):
                self._reduce_after(
                    loop, self._counters(loop), f"(divided by len({self.code(expr)}.dataset))"
                )

    def _reduce_after(self, loop: cst.For, counters: list[str], why: str) -> None:
        """`a, b = ddp_all_reduce_sum(a, b)` right after `loop`, once."""
        if not counters or reduces_counters(self._next_statement(loop)):
            return
        if any(reduces_counters(s) for s in self._after.get(loop, [])):
            return
        self.state.helpers.add("all_reduce_sum")
        names = [cst.Name(n) for n in counters]
        target: cst.BaseAssignTargetExpression = (
            names[0]
            if len(names) == 1
            else cst.Tuple([cst.Element(n) for n in names], lpar=[], rpar=[])
        )
        reduce = cst.SimpleStatementLine(
            body=[
                cst.Assign(
                    targets=[cst.AssignTarget(target)],
                    value=call_named("ddp_all_reduce_sum", *(cst.Arg(n) for n in names)),
                )
            ]
        )
        self._after.setdefault(loop, []).append(reduce)
        self.record(loop, f"summed {', '.join(counters)} over all ranks {why}")

    def _normalised_by_dataset(self, loop: cst.For, expr: cst.BaseExpression) -> bool:
        end = self.get_metadata(PositionProvider, loop).end.line
        dataset = f"{self.code(expr)}.dataset"
        return any(
            isinstance(node, cst.Call)
            and name_of(node.func) == "len"
            and len(node.args) == 1
            and self.code(node.args[0].value) == dataset
            and self.get_metadata(PositionProvider, node).start.line > end
            for node in walk(self._scope_root(loop), skip_scopes=True)
        )

    def _counters(self, loop: cst.For) -> list[str]:
        names: list[str] = []
        for node in walk(loop.body, skip_scopes=True):
            if (
                isinstance(node, cst.AugAssign)
                and isinstance(node.operator, cst.AddAssign)
                and isinstance(node.target, cst.Name)
                and node.target.value not in names
            ):
                names.append(node.target.value)
        return [n for n in names if self._is_counter(self._initial_value(loop, n))]

    def _check_batch_count(self, loop: cst.For, expr: cst.BaseExpression) -> None:
        """`total / len(loader)` after the loop divides a global sum by this rank's batches."""
        start = self.get_metadata(PositionProvider, loop).start.line
        text = self.code(expr)
        for node in walk(self._scope_root(loop), skip_scopes=True):
            if (
                isinstance(node, cst.Call)
                and name_of(node.func) == "len"
                and len(node.args) == 1
                and self.code(node.args[0].value) == text
                and self.get_metadata(PositionProvider, node).start.line > start
            ):
                self.warn(node, "DP015", f"len({text}) counts this rank's batches only")

    def _collected(self, loop: cst.For) -> list[str]:
        """Lists bound to `[]` before the loop and appended to in it (predictions, losses)."""
        names: list[str] = []
        for node in walk(loop.body, skip_scopes=True):
            if (
                isinstance(node, cst.Call)
                and isinstance(node.func, cst.Attribute)
                and node.func.attr.value in ("append", "extend")
                and isinstance(node.func.value, cst.Name)
                and node.func.value.value not in names
            ):
                initial = self._initial_value(loop, node.func.value.value)
                if isinstance(initial, cst.List) and not initial.elements:
                    names.append(node.func.value.value)
        return names

    def _initial_value(self, loop: cst.For, name: str) -> cst.BaseExpression | None:
        """The value `name` was last bound to before `loop`, in its block or an outer one."""
        child: cst.CSTNode = loop
        node = self.parent(loop)
        while node is not None and not isinstance(node, (cst.FunctionDef, cst.ClassDef)):
            if isinstance(node, (cst.IndentedBlock, cst.Module)):
                body = list(node.body)
                at = next(i for i, s in enumerate(body) if s is child)
                for statement in reversed(body[:at]):
                    bound, value = bound_value(statement, name)
                    if bound:
                        return value
            child, node = node, self.parent(node)
        return None

    def _is_counter(self, value: cst.BaseExpression | None) -> bool:
        if isinstance(value, cst.UnaryOperation) and isinstance(value.operator, cst.Minus):
            value = value.expression
        if isinstance(value, (cst.Integer, cst.Float)):
            return True
        return isinstance(value, cst.Call) and self.matches(value.func, ZERO_TENSOR)

    def _next_statement(self, statement: cst.BaseStatement) -> cst.CSTNode | None:
        block = self.parent(statement)
        if not isinstance(block, (cst.IndentedBlock, cst.Module)):
            return None
        body = list(block.body)
        at = next(i for i, s in enumerate(body) if s is statement)
        return body[at + 1] if at + 1 < len(body) else None

    def _in_eval_context(self, loop: cst.For) -> bool:
        """Under `with torch.no_grad()`/`inference_mode()`, or after `model.eval()`."""
        node = self.parent(loop)
        while node is not None and not isinstance(node, (cst.FunctionDef, cst.Module)):
            if isinstance(node, cst.With) and any(
                self._is_no_grad(item.item) for item in node.items
            ):
                return True
            node = self.parent(node)
        if isinstance(node, cst.FunctionDef):
            if any(self._is_no_grad(d.decorator) for d in node.decorators):
                return True
            line = self.get_metadata(PositionProvider, loop).start.line
            mode = "train"
            for call in walk(node.body, skip_scopes=True):
                if (
                    isinstance(call, cst.Call)
                    and isinstance(call.func, cst.Attribute)
                    and call.func.attr.value in ("eval", "train")
                    and self.get_metadata(PositionProvider, call).start.line < line
                ):
                    off = (
                        call.func.attr.value == "train"
                        and bool(call.args)
                        and is_false(call.args[0].value)
                    )
                    mode = "eval" if call.func.attr.value == "eval" or off else "train"
            return mode == "eval"
        return False

    def _is_no_grad(self, expr: cst.BaseExpression) -> bool:
        func = expr.func if isinstance(expr, cst.Call) else expr
        if self.matches(func, NO_GRAD):
            return True
        return (
            isinstance(expr, cst.Call)
            and name_of(expr.func) == "set_grad_enabled"
            and len(expr.args) == 1
            and is_false(expr.args[0].value)
        )
