"""What the program reads of the wrapper's class: `isinstance(m, nn.DataParallel)` and the
class's name.

An isinstance/issubclass test against DataParallel now tests DistributedDataParallel (the
model it passed is now a DDP object). A name built from the wrapped model's class
(`model.__class__.__name__`, `type(model).__name__`) was "DataParallel" in the original:
elektronn3 (ELEKTRONN/elektronn3@8111e5d, docs/real-world.md stop 53, helper x2) names its
run folder `f"{model.__class__.__name__}__{time}"`, which the migration silently turned into
`DistributedDataParallel__<time>` (folders, checkpoint names, log lines other tools read).
Where every value the read may see is a DataParallel wrap (flow/origins.py over the module's
def-use view, through the module's own call sites), the read becomes the original's
`"DataParallel"`; a read that may also see the bare model is left as it was.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst
import libcst.matchers as m
from libcst.codemod.visitors import AddImportsVisitor

from dp2ddp.flow import origins, view
from dp2ddp.transforms._support.names import DATAPARALLEL, DDP_CLASS, DISTRIBUTED_DATA_PARALLEL

if TYPE_CHECKING:
    from collections.abc import Callable

    from dp2ddp.flow.defuse import DefUse
    from dp2ddp.transforms._support.base import MigrationTransform


class WrapperClass:
    """Asked by the model-wrap pass `t` (which owns the warnings and records)."""

    def __init__(self, t: MigrationTransform, is_wrap: Callable[[cst.CSTNode], bool]) -> None:
        self.t = t
        self._is_wrap = is_wrap
        #: The module being migrated (set by the pass as it starts).
        self.module: cst.Module | None = None

    def class_name(self, original: cst.Attribute, updated: cst.Attribute) -> cst.BaseExpression:
        """`model.__class__.__name__` / `type(model).__name__` of a model every value of
        which is a DataParallel wrap -> `"DataParallel"` (the original's name)."""
        if original.attr.value != "__name__" or self.module is None:
            return updated
        owner = original.value
        if m.matches(owner, m.Attribute(attr=m.Name("__class__"))):
            assert isinstance(owner, cst.Attribute)
            model: cst.BaseExpression = owner.value
        elif (
            isinstance(owner, cst.Call)
            and m.matches(owner.func, m.Name("type"))
            and len(owner.args) == 1
            and owner.args[0].keyword is None
            and not owner.args[0].star
        ):
            model = owner.args[0].value
        else:
            return updated
        flow = view(self.module)
        if not (isinstance(model, cst.Name) or self._own_attribute(flow, model)):
            return updated  # `model.module`: a part of what the wrap holds, not the wrap
        stop: Callable[[cst.Call], bool] = self._is_wrap
        found = [o for o in origins(flow, model, stop) if not o.selects]
        if not found or not all(
            o.kind == "call" and not o.cut and self._is_wrap(o.node) for o in found
        ):
            return updated
        self.t.record(
            original,
            f'`{self.t.code(original)}` read as "DataParallel", the wrapper\'s class name in '
            "the original (what it names keeps its name)",
        )
        quote = '"'
        for node in flow.ancestors(original):
            if isinstance(node, cst.FormattedString) and '"' in node.start:
                quote = "'"  # inside f"...": a "..." string there needs Python 3.12
        return cst.SimpleString(f"{quote}DataParallel{quote}")

    @staticmethod
    def _own_attribute(flow: DefUse, model: cst.BaseExpression) -> bool:
        """`self.model` in a method (the instance's attribute, whatever was stored there)."""
        if not (isinstance(model, cst.Attribute) and isinstance(model.value, cst.Name)):
            return False
        function = flow.function_around(model)
        return function is not None and function.self_name == model.value.value

    def type_test(self, original_node: cst.Arg, updated_node: cst.Arg) -> cst.Arg:
        """`isinstance(m, nn.DataParallel)` -> `isinstance(m, DistributedDataParallel)`."""
        t = self.t
        call = t.parent(original_node)
        if not (
            isinstance(call, cst.Call)
            and m.matches(call.func, m.Name("isinstance") | m.Name("issubclass"))
            and len(call.args) == 2
            and call.args[1] is original_node
        ):
            return updated_node
        value = original_node.value
        if t.matches(value, DATAPARALLEL):
            AddImportsVisitor.add_needed_import(t.context, "torch.nn.parallel", DDP_CLASS)
            t.record(original_node, "isinstance check now tests DistributedDataParallel")
            if t.state.checks_only:  # a DDP model it passed over is now unwrapped
                t.warn(original_node, "DP046")
            return updated_node.with_changes(value=cst.Name(DDP_CLASS))
        if isinstance(value, cst.Tuple) and isinstance(updated_node.value, cst.Tuple):
            has_dp = [t.matches(e.value, DATAPARALLEL) for e in value.elements]
            if not any(has_dp):
                return updated_node
            has_ddp = any(t.matches(e.value, DISTRIBUTED_DATA_PARALLEL) for e in value.elements)
            elements = []
            for element, is_dp in zip(updated_node.value.elements, has_dp, strict=True):
                if is_dp and has_ddp:
                    continue
                ddp = element.with_changes(value=cst.Name(DDP_CLASS))
                elements.append(ddp if is_dp else element)
            AddImportsVisitor.add_needed_import(t.context, "torch.nn.parallel", DDP_CLASS)
            t.record(original_node, "isinstance check now tests DistributedDataParallel")
            if len(elements) == 1:
                return updated_node.with_changes(value=elements[0].value)
            elements[-1] = elements[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
            return updated_node.with_changes(
                value=updated_node.value.with_changes(elements=elements)
            )
        return updated_node
