"""Choices between a wrapped model and its `.module` that the wrap's guard used to decide.

FloWaveNet (ksw0306/FloWaveNet@44061ca, docs/real-world.md stop 28 L3) wraps under `if
args.num_gpu > 1:` and later picks `model.reverse(z) if args.num_gpu == 1 else
model.module.reverse(z)`. The migration wraps on every process, so the first branch now asks
a DistributedDataParallel object for `reverse` (AttributeError). model_wrap.py asks this
collaborator, at each conditional expression and if/else, which branch to keep (the two
differ only in `W.module` against `W`: the `.module` one), or warns DP057 where the branches
differ otherwise and one asks the wrapper for an attribute only the inner module has.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING

import libcst as cst
import libcst.matchers as m

from dp2ddp.flow import view
from dp2ddp.transforms._support.nodes import nodes_of, unmoved, wrap_target
from dp2ddp.transforms.analysis.device_terms import drop_device_terms

if TYPE_CHECKING:
    from dp2ddp.transforms._support.base import MigrationTransform


class WrapperBranches:
    """Asked by the model-wrap pass `t` (which owns the warnings and records)."""

    def __init__(
        self,
        t: MigrationTransform,
        is_wrap: Callable[[cst.CSTNode], bool],
        is_guard: Callable[[str], bool],
        type_test: re.Pattern[str],
    ) -> None:
        self.t = t
        self._is_wrap = is_wrap
        self._is_guard = is_guard
        self._type_test = type_test
        #: The module being migrated (set by the pass as it starts).
        self.module: cst.Module | None = None
        #: What this module's DataParallel wraps are assigned to (wrapped_here).
        self._wrap_targets: set[str] | None = None
        #: The names the conditions a wrap was kept under read (kept_under, DP012).
        self._kept: set[str] = set()
        #: What a read of a model sees (wrapper_class.WrapperClass.seen): "wrap" or "maybe"
        #: where the def-use view follows a wrap to it (`self.model` of a class handed it).
        self.seen: Callable[[cst.BaseExpression], str | None] = lambda model: None

    def unwrap_choice(self, original: cst.IfExp, updated: cst.IfExp) -> cst.BaseExpression | None:
        """`model.reverse(z) if args.num_gpu == 1 else model.module.reverse(z)` ->
        `model.module.reverse(z)` (unwrap_side); None: not that shape (DP057 where it is
        almost that shape)."""
        side = self.unwrap_side(original.test, original.body, original.orelse)
        if side is None:
            self.warn_attributes(original, original.test, original.body, original.orelse)
            return None
        test = self.t.code(original.test)
        self.t.record(
            original,
            f"unwrapped with .module whatever `{test}` is: the model is always wrapped now",
        )
        chosen = updated.body if side == "body" else updated.orelse
        return chosen.with_changes(lpar=updated.lpar, rpar=updated.rpar)

    def wrap_in_else(self, original: cst.IfExp, updated: cst.IfExp) -> cst.BaseExpression:
        """`m.cuda() if torch.cuda.device_count() == 1 else DataParallel(m.cuda())`
        (contemn1/title_tagger@6b009e7, stop 60 v3-B): the wrap on the else side of a test
        of devices only. Every process wraps now, so the else side stays: with the test
        kept, a process that sees one GPU (one a process, or one a node) trained its share
        alone, unsaid. A test with other terms stays, DP012. Not that shape: `updated`."""
        if not self._is_wrap(unmoved(original.orelse)):
            return updated
        test, dropped = self.t.code(original.test), list[str]()
        if self._is_guard(test) and drop_device_terms(updated.test, dropped) is True:
            self.t.record(original, f"removed the guard `if {test}` of the wrap in its else")
            return updated.orelse.with_changes(lpar=updated.lpar, rpar=updated.rpar)
        self.kept_under(original, [original.test], f"if {test} (the wrap in its else)")
        return updated

    def kept_under(
        self, where: cst.CSTNode, tests: list[cst.BaseExpression], condition: str
    ) -> None:
        """DP012 at `where`: the wrap stays under `condition`; the names `tests` read are kept
        for _kept_wrap (a choice between `W` and `W.module` on them stays whole)."""
        self.t.warn(where, "DP012", condition)
        self._kept |= {name for test in tests for name in _read_names(self.t, test)}

    def unwrap_branch(
        self, original: cst.If, updated: cst.If
    ) -> cst.FlattenSentinel[cst.BaseStatement] | None:
        """`if args.num_gpu == 1: y = model.reverse(z)` / `else: y = model.module.reverse(z)`
        -> `y = model.module.reverse(z)` (unwrap_side); None: not that shape."""
        orelse = original.orelse
        if not isinstance(orelse, cst.Else) or not isinstance(updated.orelse, cst.Else):
            return None
        body = cst.Module(body=statements(original.body))
        other = cst.Module(body=statements(orelse.body))
        side = self.unwrap_side(original.test, body, other)
        if side is None:
            self.warn_attributes(original, original.test, body, other)
            return None
        kept = statements(updated.body if side == "body" else updated.orelse.body)
        dropped = statements(orelse.body if side == "body" else original.body)
        if dropped:  # from its first statement to its last, not the `if`/`else` line
            span = (self.t.input_span(dropped[0])[0], self.t.input_span(dropped[-1])[1])
            self.t.state.dropped_spans.append(span)
        first = kept[0]
        kept[0] = first.with_changes(leading_lines=[*updated.leading_lines, *first.leading_lines])
        test = self.t.code(original.test)
        self.t.record(
            original,
            f"kept the .module branch of `if {test}`: the model is always wrapped now",
        )
        return cst.FlattenSentinel(kept)

    def unwrap_side(
        self, test: cst.BaseExpression, body: cst.CSTNode, orelse: cst.CSTNode
    ) -> str | None:
        """ "body" or "orelse": the branch to keep of a choice on a GPU guard between the
        wrapped model and its module (`net.module if use_cuda else net`; FloWaveNet's
        `model.reverse(z) if args.num_gpu == 1 else model.module.reverse(z)`, and the same
        as an if/else statement). The two branches differ only in `W.module` against `W`,
        W a model wrapped in this module: the guard followed the wrap, which now always
        happens, so the `.module` branch is right whatever the guard says (the other calls
        a method DDP does not have). None: not that shape."""
        code = self.t.code(test)
        if not self._is_guard(code) or self._type_test.search(code) or self._kept_wrap(test):
            return None
        for side, unwrapped, other in (("body", body, orelse), ("orelse", orelse, body)):
            for node in _module_accesses(unwrapped):
                model = self.t.code(node.value)
                if self.holds_wrap(node.value) and (
                    _without_module(self.t.code(unwrapped), model) == self.t.code(other)
                ):
                    return side
        return None

    def _kept_wrap(self, test: cst.BaseExpression) -> bool:
        """A wrap kept under a condition reading what `test` reads (DP012 said so before:
        `if not args.multi: ... else: model = DataParallel(model)`): the model is wrapped on
        some runs only, so both branches stay (round 33, wvangansbeke/Sparse-Depth-
        Completion@a01ac3c: `model.depthnet` against `model.module.depthnet` on the wrap's
        own flag became `.module` alone: AttributeError with the flag off)."""
        return bool(_read_names(self.t, test) & self._kept)

    def warn_attributes(
        self,
        where: cst.CSTNode,
        test: cst.BaseExpression,
        body: cst.CSTNode,
        orelse: cst.CSTNode,
    ) -> None:
        """DP057 where one branch unwraps a model wrapped here (`model.module.x`) and the
        other asks the wrapper itself for an attribute only the inner module has
        (`model.reverse(z)`): the original wrapped under a flag, the migration wraps always,
        so that branch now fails with AttributeError on the DDP object (not the same call
        on both sides, so unwrap_side could not pick the branch). A condition that asks
        the object itself (`hasattr(model, "module")`, `isinstance(model, ...)`) follows the
        wrap: right as it is."""
        if self._kept_wrap(test):
            return  # wrapped on some runs only: both branches are right (_kept_wrap)
        if self._type_test.search(self.t.code(test)):
            return
        for unwrapped, other in ((body, orelse), (orelse, body)):
            models = {
                self.t.code(a.value)
                for a in _module_accesses(unwrapped)
                if self.holds_wrap(a.value)
            }
            if not models:
                continue
            for attribute in m.findall(other, m.Attribute()):
                assert isinstance(attribute, cst.Attribute)
                name = attribute.attr.value
                if name in _WRAPPER_ATTRIBUTES or self.t.code(attribute.value) not in models:
                    continue
                model = self.t.code(attribute.value)
                self.t.warn(
                    where,
                    "DP057",
                    f"`{model}.{name}` in one branch, `{model}.module` in the other: "
                    f"`{model}` is always a DistributedDataParallel now; use "
                    f"`{model}.module.{name}`",
                )
                return

    def dropped_else(self, where: cst.If) -> str:
        """`where`'s guard goes with its else branch (a flag, not a device count: `if
        args.data_parallel:`): " and its else branch" for the record ("" where it has none),
        and the DP057 said at it withdrawn: the branch asking the wrapper is gone, the
        `.module` one stays (round 23, Andrewzh112/codebase's avae: DP057 told to use
        `trainer.module.fit`, the very call left)."""
        if where.orelse is None:
            return ""
        line, col = self.t._position(where)
        self.t.state.warnings[:] = [
            w
            for w in self.t.state.warnings
            if not (w.code == "DP057" and (w.line, w.col) == (line, col))
        ]
        return " and its else branch"

    def holds_wrap(self, model: cst.BaseExpression) -> bool:
        """`model` is a name a wrap of this module is assigned to (wrapped_here), or a read
        the def-use view follows a wrap to: `self.model` of a class whose constructor is
        handed the wrap, here or by another module (round 26, kaituoxu/Tacotron2@8efdee5:
        `self.model.module if self.use_cuda else self.model` in its Solver; the wrap made
        unconditional, the flag off handed the DDP object to `serialize()`, AttributeError)."""
        return self.wrapped_here(self.t.code(model)) or self.seen(model) is not None

    def wrapped_here(self, model: str) -> bool:
        """`model` is what some DataParallel wrap of this module is assigned to (the whole
        module looked at once: a function defined above the wrap unwraps too)."""
        if self._wrap_targets is None:
            module = self.module
            calls = m.findall(module, m.Call()) if module is not None else []
            self._wrap_targets = {
                target
                for call in calls
                if isinstance(call, cst.Call) and self._is_wrap(call)
                for target in [wrap_target(call, self.t)]
                if target is not None
            }
            if module is not None:
                self._wrap_targets |= self._holders(module)
        return model in self._wrap_targets

    def _holders(self, module: cst.Module) -> set[str]:
        """Attributes that hold a wrapped model: `args.model = model` where the def-use
        view's reaching definitions of `model` include a DataParallel wrap (UER-py keeps
        its model in the argument namespace and reloads through `args.model.module` under
        the wrap's own condition, stop 41 class v2-B)."""
        defuse = view(module)
        found: set[str] = set()
        for assign in nodes_of(module, cst.Assign):
            value = assign.value
            if not isinstance(value, cst.Name):
                continue
            if not any(
                d.value is not None and any(self._is_wrap(c) for c in nodes_of(d.value, cst.Call))
                for d in defuse.reaching(value)
            ):
                continue
            found.update(
                self.t.code(target.target)
                for target in assign.targets
                if isinstance(target.target, cst.Attribute)
            )
        return found


#: Attributes a DistributedDataParallel object has itself (nn.Module's and DDP's own): a
#: branch that asks the wrapper for one of these is not broken by the wrap.
_WRAPPER_ATTRIBUTES = frozenset(
    {"module", "forward", "parameters", "named_parameters", "buffers", "named_buffers",
     "children", "named_children", "modules", "named_modules", "state_dict",
     "load_state_dict", "train", "eval", "training", "to", "cuda", "cpu", "half", "float",
     "double", "bfloat16", "type", "zero_grad", "requires_grad_", "apply", "add_module",
     "register_buffer", "register_parameter", "register_module", "register_forward_hook",
     "register_forward_pre_hook", "register_backward_hook", "register_full_backward_hook",
     "get_submodule", "get_parameter", "get_buffer", "share_memory", "extra_repr",
     "no_sync", "join", "device_ids", "process_group", "dim", "__class__", "__dict__"}
)  # fmt: skip


def statements(
    suite: cst.BaseSuite,
) -> list[cst.SimpleStatementLine | cst.BaseCompoundStatement]:
    """The statements of a block (a one-line `if x: a; b` suite as one statement line)."""
    if isinstance(suite, cst.IndentedBlock):
        return [
            s
            for s in suite.body
            if isinstance(s, (cst.SimpleStatementLine, cst.BaseCompoundStatement))
        ]
    assert isinstance(suite, cst.SimpleStatementSuite)
    return [cst.SimpleStatementLine(body=suite.body)]


def _read_names(t: MigrationTransform, test: cst.BaseExpression) -> set[str]:
    """The names and dotted names `test` reads, whole (`args.multi`, not `args` again)."""
    return {
        t.code(n)
        for n in nodes_of(test, (cst.Name, cst.Attribute))
        if not isinstance(t.parent(n), cst.Attribute)
    }


def _module_accesses(node: cst.CSTNode) -> list[cst.Attribute]:
    """The `X.module` attributes in `node`, outermost first."""
    found = m.findall(node, m.Attribute(attr=m.Name("module")))
    return [a for a in found if isinstance(a, cst.Attribute)]


def _without_module(code: str, model: str) -> str:
    """`code` with `model.module` read as `model` (whole names only)."""
    return re.sub(rf"(?<![\w.]){re.escape(model)}\.module\b", model, code)
