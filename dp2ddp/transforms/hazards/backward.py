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
#: Methods whose result carries no autograd graph.
_GRAPHLESS = frozenset({"detach", "item", "tolist", "numpy"})
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


@dataclass
class _Summary:
    """What a call of a function of the module does to the flow, in order: the wrapped
    models it runs forwards of (("forward", model)) and its backward passes (("backward",
    forwards), where a negative id -1-i stands for what its parameter i carries); and what
    its return value carries (per element where each return is a tuple of one length)."""

    actions: list[tuple[str, str | frozenset[int]]] = field(default_factory=list)
    returns: list[frozenset[int]] | None = None
    returned: frozenset[int] = frozenset()


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
        #: functions by name, where the module defines one of that name (None: several).
        self._functions: dict[str, cst.FunctionDef | None] = {}
        self._summaries: dict[str, _Summary] = {}
        self._summary: _Summary | None = None
        self._returns: list[frozenset[int] | list[frozenset[int]]] = []
        self._reported: set[tuple[int, int, int]] = set()

    def run(self, body: Iterable[cst.BaseStatement]) -> None:
        self._block(body, _Flow())

    def know_functions(self, module: cst.Module) -> None:
        """The functions a call of `name(...)` or `x.name(...)` may run: those the module
        defines once under that name (a GAN's process() returning D's losses, and its
        backward() backpropagating them, called from the training loop)."""
        for node in walk(module):
            if isinstance(node, cst.FunctionDef) and isinstance(node.body, cst.IndentedBlock):
                name = node.name.value
                self._functions[name] = None if name in self._functions else node

    def _summarize(self, name: str) -> _Summary | None:
        function = self._functions.get(name)
        if function is None or not isinstance(function.body, cst.IndentedBlock):
            return None
        if name in self._summaries:
            return self._summaries[name]
        summary = _Summary()
        self._summaries[name] = summary  # a recursive call sees the part so far
        params = [p.name.value for p in function.params.params]
        if params and params[0] in ("self", "cls"):
            params = params[1:]
        flow = _Flow({param: frozenset({-1 - i}) for i, param in enumerate(params)})
        saved = self._summary, self.found, self._no_grad, self._returns
        self._summary, self.found, self._no_grad, self._returns = summary, [], 0, []
        self._block(function.body.body, flow)
        returns = self._returns
        self._summary, self.found, self._no_grad, self._returns = saved
        for value in returns:
            if isinstance(value, list):
                summary.returned |= frozenset().union(*value)
            else:
                summary.returned |= value
        lengths = {len(v) if isinstance(v, list) else -1 for v in returns}
        if len(lengths) == 1 and -1 not in lengths and returns:
            summary.returns = [
                frozenset().union(*(v[i] for v in returns if isinstance(v, list)))
                for i in range(lengths.pop())
            ]
        return summary

    def _arguments(
        self, call: cst.Call, function: cst.FunctionDef, flow: _Flow
    ) -> dict[int, frozenset[int]]:
        """Parameter index -> what the argument passed for it carries."""
        params = [p.name.value for p in function.params.params]
        offset = 1 if params and params[0] in ("self", "cls") else 0
        passed: dict[int, frozenset[int]] = {}
        for position, arg in enumerate(call.args):
            carried = self._expression(arg.value, flow)
            if arg.star:
                continue
            if arg.keyword is not None:
                if arg.keyword.value in params[offset:]:
                    passed[params.index(arg.keyword.value) - offset] = carried
            else:
                passed[position] = carried
        return passed

    def _run_summary(
        self, call: cst.Call, summary: _Summary, passed: dict[int, frozenset[int]], flow: _Flow
    ) -> frozenset[int]:
        for kind, what in summary.actions:
            if kind == "forward" and isinstance(what, str):
                flow.since.pop(what, None)
                if self._summary is not None:
                    self._summary.actions.append(("forward", what))
            elif isinstance(what, frozenset):
                # a backward of the callee's own forwards only: its own run reports it
                self._backward(call, self._map(what, passed), flow, quiet=min(what) >= 0)
        return self._map(summary.returned, passed)

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
        if isinstance(small, cst.Assign) and self._assign_elements(small, flow):
            return
        if isinstance(small, cst.Return) and isinstance(small.value, cst.Tuple):
            if self._summary is not None:
                self._returns.append(
                    [self._expression(e.value, flow) for e in small.value.elements]
                )
                return
        if isinstance(small, cst.Return) and small.value is not None:
            if self._summary is not None:
                self._returns.append(self._expression(small.value, flow))
                return
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

    def _assign_elements(self, small: cst.Assign, flow: _Flow) -> bool:
        """`a, b = f(...)` where f returns tuples of two: each name carries its element."""
        value, targets = small.value, small.targets
        if not (isinstance(value, cst.Call) and len(targets) == 1):
            return False
        target = targets[0].target
        summary, function = self._callee(value)
        if summary is None or function is None or summary.returns is None:
            return False
        if not isinstance(target, (cst.Tuple, cst.List)):
            return False
        if len(target.elements) != len(summary.returns):
            return False
        self._expression(value.func, flow)
        passed = self._arguments(value, function, flow)
        self._run_summary(value, summary, passed, flow)
        for element, carried in zip(target.elements, summary.returns, strict=True):
            self._bind(element.value, self._map(carried, passed), flow)
        return True

    @staticmethod
    def _map(ids: frozenset[int], passed: dict[int, frozenset[int]]) -> frozenset[int]:
        """`ids` of a callee at a call: each parameter's stand-in replaced by what the
        argument passed for it carries."""
        out = frozenset(i for i in ids if i >= 0)
        for i in ids:
            if i < 0:
                out |= passed.get(-1 - i, frozenset())
        return out

    def _callee(self, call: cst.Call) -> tuple[_Summary | None, cst.FunctionDef | None]:
        func = call.func
        name = (
            func.attr.value
            if isinstance(func, cst.Attribute)
            else func.value
            if isinstance(func, cst.Name)
            else None
        )
        if name is None or code_of(func) in self.wrapped:
            return None, None
        function = self._functions.get(name)
        if function is None:
            return None, None
        return self._summarize(name), function

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
            if node.attr.value == "data":
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
        if isinstance(func, cst.Attribute) and func.attr.value in _GRAPHLESS:
            self._expression(func.value, flow)
            return frozenset()
        if self._matches(func, _AUTOGRAD_BACKWARD):
            self._backward(call, arguments, flow)
            return frozenset()
        if isinstance(func, cst.Attribute) and func.attr.value == "backward":
            tensor = self._expression(func.value, flow)
            summary, function = self._callee(call) if not tensor else (None, None)
            if summary is None or function is None:  # a tensor's, not the project's own
                self._backward(call, tensor, flow)
                return frozenset()
            return self._run_summary(call, summary, self._arguments(call, function, flow), flow)
        receiver = self._expression(func, flow)
        summary, function = self._callee(call)
        if summary is not None and function is not None:
            passed = self._arguments(call, function, flow)
            return self._run_summary(call, summary, passed, flow) | receiver
        if code_of(func) in self.wrapped and not self._no_grad:
            self._forwards[id(call)] = call
            flow.since.pop(code_of(func), None)
            if self._summary is not None:
                self._summary.actions.append(("forward", code_of(func)))
            return arguments | receiver | {id(call)}
        return arguments | receiver

    def _backward(
        self, call: cst.Call, forwards: frozenset[int], flow: _Flow, quiet: bool = False
    ) -> None:
        if self._summary is not None:
            self._summary.actions.append(("backward", forwards))
        forwards = frozenset(f for f in forwards if f >= 0)
        reported = False
        for forward in sorted(forwards):
            count = flow.backwards.get(forward, 0) + 1
            flow.backwards[forward] = count
            if count == 2:
                reported = True
                self._report(SecondBackward(call, self._forwards[forward]), quiet)
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
                site = SecondBackward(call, self._forwards[forward], self._forwards[first])
                self._report(site, quiet)

    def _report(self, site: SecondBackward, quiet: bool) -> None:
        """Each site once (a function's own run and its replay at a call see the same);
        none while summarizing a function (its sites are its own run's)."""
        key = (id(site.backward), id(site.forward), id(site.earlier))
        if not quiet and self._summary is None and key not in self._reported:
            self._reported.add(key)
            self.found.append(site)

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


def held(module: cst.Module, wrapped: set[str]) -> set[str]:
    """Attributes a wrapped model is stored in: `self.d = d`, `self.add_module("d", d)`
    (its forwards are then spelled `self.d(...)`)."""
    found: set[str] = set()
    for node in walk(module):
        if isinstance(node, cst.Assign) and code_of(node.value) in wrapped:
            found |= {
                code_of(t.target) for t in node.targets if isinstance(t.target, cst.Attribute)
            }
        elif (
            isinstance(node, cst.Call)
            and isinstance(node.func, cst.Attribute)
            and node.func.attr.value == "add_module"
            and len(node.args) == 2
            and isinstance(node.args[0].value, cst.SimpleString)
            and code_of(node.args[1].value) in wrapped
        ):
            name = node.args[0].value.evaluated_value
            if isinstance(name, str):
                found.add(f"{code_of(node.func.value)}.{name}")
    return found


def second_backwards(
    module: cst.Module, matches: Matches, wrapped: set[str]
) -> list[SecondBackward]:
    """DP026 sites of `module`: its top-level code and each function, each on its own."""
    finder = SecondBackwards(matches, wrapped | read_through_module(module) | held(module, wrapped))
    if not finder.wrapped:
        return []
    finder.know_functions(module)
    finder.run(module.body)
    for node in walk(module):
        if isinstance(node, cst.FunctionDef) and isinstance(node.body, cst.IndentedBlock):
            finder.run(node.body.body)
    return finder.found
