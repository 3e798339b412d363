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
`"DataParallel"`. A read that may also see the bare model (a guarded wrap), or that reads a
parameter another module's call may hand a wrap (ProgramHints.wrap_reaches: elektronn3's
wrap is in benchmark/train_benchmark.py, its Trainer in elektronn3/training/trainer.py, stop
54 s2), becomes `("DataParallel" if isinstance(model, DistributedDataParallel) else
model.__class__.__name__)`: a DDP object stands where the original had a DataParallel one
(the migration makes one from each), so each run names what the original named. Not where
the module names DistributedDataParallel itself (an object of the original's own DDP).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import libcst as cst
import libcst.matchers as m
from libcst.codemod.visitors import AddImportsVisitor

from dp2ddp.flow import Origin, origins, view
from dp2ddp.transforms._support.names import DATAPARALLEL, DDP_CLASS, DISTRIBUTED_DATA_PARALLEL
from dp2ddp.transforms._support.nodes import walk

#: The last name of an assignment's left side (`self.model = ...`: model).
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
#: Methods of a module that return the module itself.
_RECEIVER = frozenset({"cuda", "to", "cpu", "float", "double", "half", "train", "eval"})
#: The class's name, as the original's own code may spell it.
DISTRIBUTED = "DistributedDataParallel"

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
        self._ddp_named: tuple[cst.Module | None, bool] | None = None
        self._bound: tuple[cst.Module | None, frozenset[str]] | None = None

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
        seen = self.seen(model)
        if seen is None:
            return updated
        if seen == "maybe":
            return self._tested(original, updated, model)
        self.t.record(
            original,
            f'`{self.t.code(original)}` read as "DataParallel", the wrapper\'s class name in '
            "the original (what it names keeps its name)",
        )
        quote = '"'
        for node in view(self.module).ancestors(original):
            if isinstance(node, cst.FormattedString) and '"' in node.start:
                quote = "'"  # inside f"...": a "..." string there needs Python 3.12
        return cst.SimpleString(f"{quote}DataParallel{quote}")

    def may_name_wrap(self, model: cst.BaseExpression) -> bool:
        """A cheap filter before `seen` (the proof) where many reads are asked (every
        f-string field): a line of the module binds the name (`model`, `self.model`'s
        `model`) to something naming DataParallel, or another module's call may hand it a
        wrap. A wrap handed to a parameter of another name of this module's own function is
        not followed here (the class name's read is)."""
        if self.t.state.hints.wrap_reaches:
            return True
        if self._bound is None or self._bound[0] is not self.module:
            bound: set[str] = set()
            for line in self.t.state.text.splitlines():
                left, equals, right = line.partition("=")
                if equals and "DataParallel" in right:  # the lines that may bind a wrap
                    bound.update(_NAME.findall(left)[-1:])
            self._bound = (self.module, frozenset(bound))
        name = model.value if isinstance(model, cst.Name) else None
        if isinstance(model, cst.Attribute):
            name = model.attr.value
        return name in self._bound[1]

    def seen(self, model: cst.BaseExpression) -> str | None:
        """What a read of `model` (a name, or the method's own `self.attr`) sees: "wrap"
        where every value is a DataParallel wrap, "maybe" where one may be (a guarded wrap,
        a parameter another module's call may hand one: ProgramHints.wrap_reaches), else
        None (or where the module names DistributedDataParallel itself)."""
        if self.module is None:
            return None
        flow = view(self.module)
        if not (isinstance(model, cst.Name) or self._own_attribute(flow, model)):
            return None  # `model.module`: a part of what the wrap holds, not the wrap
        stop: Callable[[cst.Call], bool] = self._is_wrap
        found = _results_only([o for o in origins(flow, model, stop) if not o.selects])
        if not all(self._itself(flow, o) for o in found):
            return None  # a value made from the model (a path, a name), not the model
        wraps = [o for o in found if o.kind == "call" and not o.cut and self._is_wrap(o.node)]
        if found and len(wraps) == len(found):
            return "wrap"
        if self._names_ddp() or not (wraps or any(self._reached(flow, o) for o in found)):
            return None
        return "maybe"

    def _tested(
        self, original: cst.Attribute, updated: cst.Attribute, model: cst.BaseExpression
    ) -> cst.BaseExpression:
        """`("DataParallel" if isinstance(model, DistributedDataParallel) else <the read>)`."""
        AddImportsVisitor.add_needed_import(self.t.context, "torch.nn.parallel", DDP_CLASS)
        self.t.record(
            original,
            f'`{self.t.code(original)}` reads "DataParallel" where the model is the DDP wrap '
            "(the wrapper's class name in the original), else the model's own",
        )
        quote = '"'
        for node in view(self.module or cst.Module([])).ancestors(original):
            if isinstance(node, cst.FormattedString) and '"' in node.start:
                quote = "'"
        bare = isinstance(self.t.parent(original), (cst.Arg, cst.FormattedStringExpression))
        return cst.IfExp(
            test=cst.Call(
                cst.Name("isinstance"), [cst.Arg(model.deep_clone()), cst.Arg(cst.Name(DDP_CLASS))]
            ),
            body=cst.SimpleString(f"{quote}DataParallel{quote}"),
            orelse=updated,
            lpar=[] if bare else [cst.LeftParen()],
            rpar=[] if bare else [cst.RightParen()],
        )

    def _itself(self, flow: DefUse, origin: Origin) -> bool:
        """The origin reaches the read as the object itself: through names, parameters,
        the instance's own attributes and the moves that return their receiver (`.cuda()`,
        `.to()`) and the module's own functions that return it, never an operator, a
        format, a part or another call's result."""
        if origin.cut:
            return False
        for step in origin.path:
            node = step.node
            if node is origin.node or isinstance(node, (cst.Name, cst.Param)):
                continue
            if step.call:  # a call of this module's function returning it: `model = build(4, 2)`
                continue
            if isinstance(node, cst.Attribute) and self._own_attribute(flow, node):
                continue
            if (
                isinstance(node, cst.Call)
                and isinstance(node.func, cst.Attribute)
                and node.func.attr.value in _RECEIVER
            ):
                continue
            return False
        return True

    def _reached(self, flow: DefUse, origin: Origin) -> bool:
        """A parameter of this module's top-level function, or of a top-level class's
        `__init__`, that another module's call may hand a wrap (ProgramHints.wrap_reaches)."""
        told = self.t.state.hints.wrap_reaches
        if origin.kind != "parameter" or not told or not isinstance(origin.node, cst.Param):
            return False
        function = flow.function_around(origin.node)
        if function is None or not isinstance(function.node, cst.FunctionDef):
            return False
        body = self.module.body if self.module is not None else ()
        positional = [*function.node.params.posonly_params, *function.node.params.params]
        index = next((i for i, p in enumerate(positional) if p is origin.node), None)
        if function.owner is None:
            name, shift = function.name, 0
        elif function.name == "__init__" and function.owner.name.value:
            name, shift = function.owner.name.value, 1
        else:
            return False
        if not any(s is (function.owner or function.node) for s in body):
            return False
        slots = {f"{name}|{origin.node.name.value}"}
        if index is not None and index >= shift:
            slots.add(f"{name}|{index - shift}")
        return not slots.isdisjoint(told)

    def _names_ddp(self) -> bool:
        """The module's code (not a comment) names DistributedDataParallel (once a module)."""
        if self._ddp_named is None or self._ddp_named[0] is not self.module:
            named = DISTRIBUTED in self.t.state.text and any(
                (type(n) is cst.Name and n.value == DISTRIBUTED)
                or (type(n) is cst.Attribute and n.attr.value == DISTRIBUTED)
                for n in walk(self.module or cst.Module([]))
            )
            self._ddp_named = (self.module, named)
        return self._ddp_named[1]

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
            and isinstance(call.func, cst.Name)
            and call.func.value in ("isinstance", "issubclass")
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


def _results_only(found: list[Origin]) -> list[Origin]:
    """The sources a read of the model may see, less those the walk reached only through
    the arguments of a call it reports as a source too: `model = nn.Linear(3, 3)` or
    `model = init_model_by_key(args, tokenizer)` before a guarded wrap is that call's
    result, not its `3`s, `args` or `tokenizer` (the walk adds a library call's arguments
    in case it returns one of them; the call itself stands for what it returns). Before,
    those arguments made the read "a value made from the model" and a guarded wrap's class
    name stayed "DistributedDataParallel" with no warning (WiseDoge/CoupletAI@fc052f8's
    checkpoint `f"{model.__class__.__name__}_{epoch + 1}.bin"`, stop 56 class v2-A)."""
    calls = {id(o.node) for o in found if o.kind == "call"}
    return [
        o for o in found if not any(s.node is not o.node and id(s.node) in calls for s in o.path)
    ]
