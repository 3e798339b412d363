"""Models grown after the DDP wrap (class G1 of stop 33, SaoYan/GenerativeSkinLesion's
progressive GAN: `model.module.grow_network()` adds layers mid-training). DDP broadcasts rank
0's parameters and builds its reducer over the parameters the module has at the wrap only:
a layer registered later is drawn by each rank from its own stream and trained on that
rank's shard alone, so the ranks' new layers part, silently. The proof it would take (every
rank draws the same weights and averages their gradients) is out of reach, so such a call is
warned DP098 at its line, naming the wrap's.

Two halves: `growing_methods` reads an nn.Module class (`ast`, once per module, with the
program's model classes: partial_forward.module_classes) for the methods that register
parameters on `self` outside `__init__`; `GrownModels` is asked by the model-wrap pass at
each call it leaves whether the call grows a wrapped model through its `.module`."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

import libcst as cst

from dp2ddp.transforms._support.nodes import (
    code_of,
    name_of,
    nodes_of,
    unmoved,
    walk,
    wrap_target,
)
from dp2ddp.transforms.analysis.growing_methods import FILLS, REGISTERS
from dp2ddp.transforms.analysis.partial_forward import module_classes
from dp2ddp.transforms.analysis.wrap_chains import casts

#: The call that wraps a module again (templates/helpers/rewrap.py.j2).
REWRAP = "ddp_rewrap"

if TYPE_CHECKING:
    from dp2ddp.transforms._support.base import MigrationTransform


class GrownModels:
    """Asked by the model-wrap pass `t` (which owns the warnings) through
    outside_parameters.py: `plan` on the original module, then each call it leaves."""

    def __init__(self, t: MigrationTransform, is_wrap: Callable[[cst.CSTNode], bool]) -> None:
        self.t = t
        self._is_wrap = is_wrap
        #: The wrap target (as spelled) -> the input lines of its wraps.
        self._wraps: dict[str, list[int]] = {}
        #: The wrap target -> the nodes that bind it (the wrap call, or the assignment of
        #: a wrapping function's result).
        self._bound: dict[str, list[cst.CSTNode]] = {}
        #: (statement line, the statement to insert after it): layers replaced after the
        #: wrap, wrapped again (outside_parameters.py places them).
        self.rewraps: list[tuple[cst.SimpleStatementLine, str]] = []
        #: Method name -> "Class: where it registers" ("line N" or "path:line") for each
        #: class of the program that defines it, once.
        self._growers: Mapping[str, list[str]] | None = None

    def plan(
        self,
        module: cst.Module,
        wrappers: frozenset[str] = frozenset(),
        line_of: Callable[[cst.CSTNode], cst.SimpleStatementLine | None] = lambda _: None,
    ) -> None:
        """The module's wraps (`T = DataParallel(...)`, and `T = f(...)` of a function
        `wrappers` names, which returns one: vsepp's `self.cnn = self.get_cnn(...)`) and
        their lines; then each layer replaced through a wrap's `.module`: wrapped again
        after it (`rewraps`) where that is proved safe, else DP107. `line_of`: the
        statement line holding a node in a block of statements (None elsewhere)."""
        for node in nodes_of(module, cst.Call):
            if self._is_wrap(node):
                target = wrap_target(node, self.t)
                if target is not None:
                    self._wraps.setdefault(target, []).append(self.t.input_position(node)[0])
                    self._bound.setdefault(target, []).append(node)
        for assign in nodes_of(module, cst.Assign):
            if (
                len(assign.targets) == 1
                and isinstance(assign.value, cst.Call)
                and name_of(assign.value.func, through=(cst.Call,)) in wrappers
            ):
                target = code_of(assign.targets[0].target)
                self._wraps.setdefault(target, []).append(self.t.input_position(assign)[0])
                self._bound.setdefault(target, []).append(assign)
        for assign in nodes_of(module, cst.Assign):
            self._replaced(assign, line_of)
        for line in nodes_of(module, cst.SimpleStatementLine):
            self._cast_after(line, line_of)

    def _cast_after(
        self,
        line: cst.SimpleStatementLine,
        line_of: Callable[[cst.CSTNode], cst.SimpleStatementLine | None],
    ) -> None:
        """`T = T.cuda().half()` or `T.half()` after T's wrap: DDP made its gradient
        buckets for the dtype the parameters had at the wrap, and after the cast it leaves
        them unreduced, each rank stepping on its own gradients (round 26, NVIDIA/flownet2-
        pytorch@bce69c8's fp16 path: the wrap hoisted out of its branch, before the cast).
        Wrapped again right after where `_rewrap_proved` (the receiver of the cast and the
        name it binds are the statement's own reads of T), else DP107."""
        if len(line.body) != 1 or not self._wraps:
            return
        small = line.body[0]
        own: tuple[cst.CSTNode, ...] = ()
        if isinstance(small, cst.Assign) and len(small.targets) == 1:
            value, bound = small.value, code_of(small.targets[0].target)
            own = (small.targets[0].target,)
        elif isinstance(small, cst.Expr):
            value, bound = small.value, None
        else:
            return
        if not (isinstance(value, cst.Call) and casts(value, self.t.qualified_names)):
            return
        receiver = unmoved(value)
        wrap = self.t.code(receiver).removesuffix(".module")
        if wrap not in self._wraps or bound not in (None, wrap):
            return
        own = (*own, receiver, getattr(receiver, "value", receiver))  # T, or T of T.module
        if line_of(small) is line and self._rewrap_proved(line, wrap, line_of, own):
            self.rewraps.append((line, f"{wrap} = {REWRAP}({wrap})"))
            self.t.state.helpers.add("rewrap")
            self.t.record(
                value,
                f"`{wrap}` cast after its wrap: {wrap} = {REWRAP}({wrap}) wraps its module "
                "again as it is now (DDP reduces the gradients in the dtype of the wrap)",
            )
            return
        at = self._wrap_line(wrap, self.t.input_position(line)[0])
        self.t.warn(
            value,
            "DP107",
            f"`{self.t.code(value)}` casts `{wrap}`'s parameters after its wrap (line {at}): "
            "DDP made its gradient buckets for the dtype they had then and leaves them "
            f"unreduced after the cast, each rank stepping on its own. Cast the module "
            f"before line {at} wraps it, or wrap it again right after (`{wrap} = "
            f"DistributedDataParallel({wrap}.module, ...)`)",
        )

    def _replaced(
        self,
        assign: cst.Assign,
        line_of: Callable[[cst.CSTNode], cst.SimpleStatementLine | None],
    ) -> None:
        """`T.module[.sub].attr = <a layer>` (T a wrap of this module, the value a torch.nn
        layer or one of the program's nn.Module classes, or None): DDP built its reducer
        over the parameters the module held at the wrap, so a replaced layer's parameters
        get no gradient ("Expected to have finished reduction" at the second step, on
        every rank) and a new one's are each rank's own (stop 41 class v3-F). Wrapped
        again right after (`T = ddp_rewrap(T)`) where `_rewrap_proved`, else DP107."""
        for target in assign.targets:
            store = target.target
            if not isinstance(store, cst.Attribute) or not self._wraps:
                continue
            owner = self.t.code(store.value)
            wrap = next(
                (
                    w
                    for w in self._wraps
                    if owner == f"{w}.module" or owner.startswith(f"{w}.module.")
                ),
                None,
            )
            if wrap is None or not self._layer(assign.value):
                continue
            line = line_of(assign)
            if line is not None and self._rewrap_proved(line, wrap, line_of):
                self.rewraps.append((line, f"{wrap} = {REWRAP}({wrap})"))
                self.t.state.helpers.add("rewrap")
                self.t.record(
                    assign,
                    f"`{self.t.code(store)}` replaced after {wrap}'s wrap: {wrap} = "
                    f"{REWRAP}({wrap}) wraps its module again as it is now (DDP averages "
                    "the parameters a module holds at its wrap)",
                )
                return
            at = self._wrap_line(wrap, self.t.input_position(assign)[0])
            self.t.warn(
                assign,
                "DP107",
                f"`{self.t.code(store)}` is replaced after `{wrap}`'s wrap (line {at}): DDP "
                "averages the parameters the module held at the wrap, so the replaced "
                "layer's get no gradient (DDP raises at the second step) and a new layer's "
                f"are each rank's own. Make the assignment on the module before line {at} "
                f"wraps it, or wrap it again right after (`{wrap} = "
                f"DistributedDataParallel({wrap}.module, ...)`)",
            )

    def _wrap_line(self, wrap: str, line: int) -> int:
        lines = self._wraps[wrap]
        return max((w for w in lines if w < line), default=lines[0])

    def _rewrap_proved(
        self,
        line: cst.SimpleStatementLine,
        wrap: str,
        line_of: Callable[[cst.CSTNode], cst.SimpleStatementLine | None],
        own: tuple[cst.CSTNode, ...] = (),
    ) -> bool:
        """A new wrap right after `line` is the wrap the program meant: `line` stands in
        the block of a statement that binds `wrap` (a wrap, or a wrapping function's
        result), and from that statement to `line` nothing leaves the block early (a rank
        that made the wrap makes the new one: both are collectives) and `wrap` is read only
        through `.module` (no other name holds the old wrapper, whose reducer still has
        the replaced layer's parameters)."""
        block = self.t.parent(line)
        if not isinstance(block, (cst.IndentedBlock, cst.Module)):
            return False
        body = list(block.body)
        index = next((i for i, s in enumerate(body) if s is line), None)
        if index is None:
            return False
        bindings = {id(line_of(b)) for b in self._bound.get(wrap, ())}
        start = next((i for i in range(index - 1, -1, -1) if id(body[i]) in bindings), None)
        if start is None:
            return False
        last = name_of(cst.parse_expression(wrap))
        for statement in body[start + 1 : index + 1]:
            for node in walk(statement):
                if isinstance(node, (cst.Return, cst.Raise, cst.Break, cst.Continue)):
                    return False
                if (
                    isinstance(node, (cst.Name, cst.Attribute))
                    and not any(node is o for o in own)
                    and name_of(node) == last
                    and code_of(node) == wrap
                ):
                    parent = self.t.parent(node)
                    if not (
                        isinstance(parent, cst.Attribute)
                        and parent.value is node
                        and parent.attr.value == "module"
                    ):
                        return False
        return True

    def _layer(self, value: cst.BaseExpression) -> bool:
        """`value` is (or holds) a layer: a torch.nn class's or a program model class's
        construction, or None (the layer removed)."""
        if isinstance(value, cst.Name) and value.value == "None":
            return True
        models = {m.name.rsplit(".", 1)[-1] for m in self.t.state.facts.models}
        for node in walk(value):
            if not isinstance(node, cst.Call):
                continue
            if name_of(node.func) in models or any(
                q.startswith("torch.nn.")
                and ".functional." not in q
                and q.rsplit(".", 1)[-1][:1].isupper()
                for q in self.t.qualified_names(node.func)
            ):
                return True
        return False

    def note(self, call: cst.Call) -> None:
        """DP098 at `T.module[.sub].m(...)` (T a wrap target of this module; `.module`
        exists on the wrapper only, so the call runs after the wrap):
        m a method of one of the program's nn.Module classes that registers parameters,
        or a registering call itself (`T.module.body.add_module(n, layer)`)."""
        func = call.func
        if not isinstance(func, cst.Attribute) or not self._wraps:
            return
        owner = self.t.code(func.value)
        target = next(
            (w for w in self._wraps if owner == f"{w}.module" or owner.startswith(f"{w}.module.")),
            None,
        )
        if target is None:
            return
        method = func.attr.value
        if method in REGISTERS or (method in FILLS and self._fills_layer(call)):
            how = f"`{method}` registers new parameters on it"
        else:
            grower = self._methods().get(method)
            if grower is None:
                return
            how = f"`{method}` registers new parameters on it (as defined by {'; '.join(grower)})"
        line = self.t.input_position(call)[0]
        wraps = self._wraps[target]
        wrap = max((w for w in wraps if w < line), default=wraps[0])
        self.t.warn(
            call,
            "DP098",
            f"`{self.t.code(call)}` grows `{target}` after its wrap (line "
            f"{wrap}): {how}; DDP synchronizes only the parameters the "
            "module had at the wrap, so each rank draws and trains its own new layers. "
            "Wrap the grown module again after the call (and rebuild the optimizer over "
            "the new wrapper's parameters)",
        )

    def _fills_layer(self, call: cst.Call) -> bool:
        return any(
            isinstance(n, cst.Call)
            and any(
                q.startswith("torch.nn.")
                and ".functional." not in q
                and q.rsplit(".", 1)[-1][:1].isupper()
                for q in self.t.qualified_names(n.func)
            )
            for a in call.args
            for n in walk(a.value)
        )

    def _methods(self) -> Mapping[str, list[str]]:
        """The growing methods of the program's nn.Module classes (ProgramFacts.models), or
        of this file's own for a single file."""
        if self._growers is None:
            found: dict[str, list[str]] = {}
            models = self.t.state.facts.models
            for model in models:
                for method, where in model.grows:
                    short = model.name.rsplit(".", 1)[-1]
                    if not any(g.startswith(f"{short}: ") for g in found.get(method, [])):
                        found.setdefault(method, []).append(f"{short}: {where}")
            if not models:
                text = self.t.state.text or ""
                for name, facts in module_classes("", "", text).items():
                    for method, line in facts.grows:
                        where = f"line {self.t.state.line_map(line)}"
                        found.setdefault(method, []).append(f"{name}: {where}")
            self._growers = found
        return self._growers
