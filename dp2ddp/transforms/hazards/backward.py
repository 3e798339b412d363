"""DP026: a second backward pass through the outputs of one forward of a wrapped model.

DDP all-reduces gradients while the first backward after a forward runs; the gradients of
a second backward through the same forward's outputs (pix2pixHD: G and D in one module
whose forward returns both losses, then `loss_G.backward(); optimizer_G.step();
loss_D.backward(); optimizer_D.step()`) are not reduced: each rank steps with its own, and
the weights they reach drift apart in silence. DataParallel had no such limit.

Measured under torchrun (2 CPU processes, gloo; a G+D module, 4 steps) against the single
process original: the plain migration ends with different D weights on the two ranks;
find_unused_parameters=True or static_graph=True make the second backward fail ("Trying to
backward through the graph a second time"), and with retain_graph=True they still diverge;
separate DDP wrappers for G and D inside the one forward diverge too. In sync: the forward
under `model.no_sync()` with each `.grad` all-reduced and divided by WORLD_SIZE after each
backward (the original's updates exactly), or one forward per backward (the ranks agree,
but D then sees G after its step, as most GAN loops do).

The analysis is a flow over each function's statements in order (and the module's): an
assignment from a call of a wrapped model opens a forward, names computed from its outputs
carry it (not through `.detach()`, `.item()`, `.data` or under no_grad), and each
`.backward()` counts against the forwards its tensor carries. The same holds across
forwards of one wrapped model (a GAN's D(real), D(fake.detach()), D(fake), then
dis_loss.backward() and gen_loss.backward() before the step; the flat reproduction of
stop 31, B2, measured under torchrun x2: D's weights differ between the ranks): DDP's
reducer is prepared by each forward, so the first backward after the model's latest
forward is all-reduced and a second one before its next forward is not. Per model the
flow counts the backwards since its latest forward; one backward of the sum, or a forward
per backward, keeps the count at one. if/else branches are
alternatives (the larger count of the two); a loop body is read once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import libcst as cst

from dp2ddp.transforms._support.children import children_of
from dp2ddp.transforms._support.nodes import NO_GRAD, code_of, walk

Matches = Callable[[cst.CSTNode, frozenset[str]], bool]
#: Methods whose result carries no autograd graph (a size read of an output: labels sized
#: `torch.zeros(fake.size(0), 1)` for a critic given `cat([real, fake.detach()])`).
_GRAPHLESS = frozenset({"detach", "item", "tolist", "numpy", "size", "dim", "numel"})
#: Attributes that carry no graph: `.data`, a shape.
_GRAPHLESS_ATTRIBUTES = frozenset({"data", "shape", "ndim", "device", "dtype"})
_AUTOGRAD_BACKWARD = frozenset({"torch.autograd.backward"})


@dataclass
class _Flow:
    #: name (or `self.x`) -> the forwards (ids of their call nodes) whose outputs it holds.
    carries: dict[str, frozenset[int]] = field(default_factory=dict)
    #: forward -> backward passes through its outputs so far.
    backwards: dict[int, int] = field(default_factory=dict)
    #: wrapped model -> (backward passes through its forwards since its latest forward,
    #: the forward the first of them went through).
    since: dict[str, tuple[int, int]] = field(default_factory=dict)

    def copy(self) -> _Flow:
        return _Flow(dict(self.carries), dict(self.backwards), dict(self.since))

    def merge(self, other: _Flow) -> None:
        """After an if/else: either branch ran (names: either value; counts: the larger)."""
        for name, forwards in other.carries.items():
            self.carries[name] = self.carries.get(name, frozenset()) | forwards
        for forward, count in other.backwards.items():
            self.backwards[forward] = max(self.backwards.get(forward, 0), count)
        for model, (count, first) in other.since.items():
            if count > self.since.get(model, (0, first))[0]:
                self.since[model] = (count, first)


@dataclass(frozen=True)
class SecondBackward:
    """A backward call that is the second through the outputs of `forward` or, when
    `earlier` is set, the second through forwards of one wrapped model since its latest
    forward (`earlier`: the forward the first backward went through)."""

    backward: cst.Call
    forward: cst.Call
    earlier: cst.Call | None = None


class SecondBackwards:
    """Find the second backward passes through one forward in a module (see above)."""

    def __init__(self, matches: Matches, wrapped: Iterable[str]) -> None:
        self._matches = matches
        self.wrapped = frozenset(wrapped)
        self._forwards: dict[int, cst.Call] = {}
        self._no_grad = 0
        self.found: list[SecondBackward] = []

    def run(self, body: Iterable[cst.BaseStatement]) -> None:
        self._block(body, _Flow())

    # -- statements -----------------------------------------------------------------------
    def _block(self, body: Iterable[cst.BaseStatement], flow: _Flow) -> None:
        for statement in body:
            self._statement(statement, flow)

    def _suite(self, suite: cst.BaseSuite, flow: _Flow) -> None:
        if isinstance(suite, cst.IndentedBlock):
            self._block(suite.body, flow)
        elif isinstance(suite, cst.SimpleStatementSuite):
            for small in suite.body:
                self._small(small, flow)

    def _statement(self, statement: cst.BaseStatement, flow: _Flow) -> None:
        if isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                self._small(small, flow)
        elif isinstance(statement, cst.If):
            self._expression(statement.test, flow)
            branch = flow.copy()
            self._suite(statement.body, branch)
            if statement.orelse is not None:
                other = flow.copy()
                if isinstance(statement.orelse, cst.If):
                    self._statement(statement.orelse, other)
                else:
                    self._suite(statement.orelse.body, other)
                flow.carries, flow.backwards = other.carries, other.backwards
            flow.merge(branch)
        elif isinstance(statement, (cst.For, cst.While)):
            if isinstance(statement, cst.For):
                self._bind(statement.target, self._expression(statement.iter, flow), flow)
            self._suite(statement.body, flow)
            if statement.orelse is not None:
                self._suite(statement.orelse.body, flow)
        elif isinstance(statement, cst.With):
            no_grad = any(self._is_no_grad(item.item) for item in statement.items)
            for item in statement.items:
                forwards = self._expression(item.item, flow)
                if item.asname is not None:
                    self._bind(item.asname.name, forwards, flow)
            self._no_grad += no_grad
            self._suite(statement.body, flow)
            self._no_grad -= no_grad
        elif isinstance(statement, cst.Try):
            self._suite(statement.body, flow)
            for handler in statement.handlers:
                self._suite(handler.body, flow)
            if statement.orelse is not None:
                self._suite(statement.orelse.body, flow)
            if statement.finalbody is not None:
                self._suite(statement.finalbody.body, flow)
        # defs and classes: their bodies run at another time (run() is called on each)

    def _small(self, small: cst.BaseSmallStatement, flow: _Flow) -> None:
        if isinstance(small, cst.Assign):
            forwards = self._expression(small.value, flow)
            for target in small.targets:
                self._bind(target.target, forwards, flow)
        elif isinstance(small, cst.AnnAssign) and small.value is not None:
            self._bind(small.target, self._expression(small.value, flow), flow)
        elif isinstance(small, cst.AugAssign):
            forwards = self._expression(small.value, flow)
            name = code_of(small.target)
            self._bind(small.target, forwards | flow.carries.get(name, frozenset()), flow)
        elif isinstance(small, (cst.Expr, cst.Return)) and small.value is not None:
            self._expression(small.value, flow)

    def _bind(self, target: cst.BaseExpression, forwards: frozenset[int], flow: _Flow) -> None:
        if isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                self._bind(element.value, forwards, flow)
        elif isinstance(target, cst.StarredElement):
            self._bind(target.value, forwards, flow)
        elif isinstance(target, (cst.Name, cst.Attribute)):
            flow.carries[code_of(target)] = forwards
        elif isinstance(target, cst.Subscript):  # d["loss"] = ...: d carries it too
            name = code_of(target.value)
            flow.carries[name] = flow.carries.get(name, frozenset()) | forwards

    # -- expressions ------------------------------------------------------------------------
    def _expression(self, node: cst.CSTNode, flow: _Flow) -> frozenset[int]:
        """The forwards whose outputs the value of `node` carries; backward calls inside
        are counted (in evaluation order: arguments first)."""
        if isinstance(node, (cst.Lambda, cst.FunctionDef, cst.ClassDef)):
            return frozenset()
        if isinstance(node, cst.Call):
            return self._call(node, flow)
        if isinstance(node, cst.Attribute):
            if node.attr.value in _GRAPHLESS_ATTRIBUTES:
                return frozenset()
            spelled = code_of(node)
            if spelled in flow.carries:
                return flow.carries[spelled]
            return self._expression(node.value, flow)
        if isinstance(node, cst.Name):
            return flow.carries.get(node.value, frozenset())
        carried: frozenset[int] = frozenset()
        for child in children_of(node):
            carried |= self._expression(child, flow)
        return carried

    def _call(self, call: cst.Call, flow: _Flow) -> frozenset[int]:
        func = call.func
        arguments: frozenset[int] = frozenset()
        for arg in call.args:
            arguments |= self._expression(arg.value, flow)
        graphless = isinstance(func, cst.Attribute) and func.attr.value in _GRAPHLESS
        if graphless or code_of(func) == "len":
            self._expression(func, flow)
            return frozenset()
        if self._matches(func, _AUTOGRAD_BACKWARD):
            self._backward(call, arguments, flow)
            return frozenset()
        if isinstance(func, cst.Attribute) and func.attr.value == "backward":
            self._backward(call, self._expression(func.value, flow), flow)
            return frozenset()
        receiver = self._expression(func, flow)
        if code_of(func) in self.wrapped and not self._no_grad:
            self._forwards[id(call)] = call
            flow.since.pop(code_of(func), None)
            return arguments | receiver | {id(call)}
        return arguments | receiver

    def _backward(self, call: cst.Call, forwards: frozenset[int], flow: _Flow) -> None:
        reported = False
        for forward in sorted(forwards):
            count = flow.backwards.get(forward, 0) + 1
            flow.backwards[forward] = count
            if count == 2:
                self.found.append(SecondBackward(call, self._forwards[forward]))
                reported = True
        # DDP prepares its reducer in each forward; the first backward after the model's
        # latest forward all-reduces, any further one before its next forward does not,
        # whichever of its forwards (real, fake) it goes through.
        models: dict[str, int] = {}
        for forward in sorted(forwards):
            models.setdefault(code_of(self._forwards[forward].func), forward)
        for model, forward in models.items():
            count, first = flow.since.get(model, (0, forward))
            flow.since[model] = (count + 1, first)
            if count + 1 == 2 and not reported:
                self.found.append(
                    SecondBackward(call, self._forwards[forward], self._forwards[first])
                )

    def _is_no_grad(self, item: cst.BaseExpression) -> bool:
        func = item.func if isinstance(item, cst.Call) else item
        return self._matches(func, NO_GRAD)


def read_through_module(root: cst.CSTNode) -> set[str]:
    """What `.module` is read from (`model` of `model.module.optimizer_G`): a wrapper, by
    the DataParallel idiom, also where it was built in another module (create_model)."""
    return {
        code_of(node.value)
        for node in walk(root)
        if isinstance(node, cst.Attribute) and node.attr.value == "module"
    }


def second_backwards(
    module: cst.Module, matches: Matches, wrapped: set[str]
) -> list[SecondBackward]:
    """DP026 sites of `module`: its top-level code and each function, each on its own."""
    finder = SecondBackwards(matches, wrapped | read_through_module(module))
    if not finder.wrapped:
        return []
    finder.run(module.body)
    for node in walk(module):
        if isinstance(node, cst.FunctionDef) and isinstance(node.body, cst.IndentedBlock):
            finder.run(node.body.body)
    return finder.found
