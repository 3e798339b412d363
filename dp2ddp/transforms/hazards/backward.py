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
alternatives (the larger count of the two); a loop body is read twice, the second time
from the state the first left (s73: `for loss in losses: loss.backward(retain_graph=True)`
after one forward runs a backward per item, the second unreduced; read once it was one
backward, no DP026), each site said once; loops nested deeper than _LOOP_READS once.

Across modules (stop 32, edge-connect's `EdgeConnect.train()` in edge_connect.py calling
`InpaintingModel.process()`/`.backward()` of models.py): each module's summaries are read
once into a portable form (facts.BackwardSummary, backward_program.py) that the program
model hands to every other module; a call resolving to one by qualified name (a function
imported, `v.m` for `v = C(...)`, `self.v = C(...)` of another module's class) applies it.

Across functions (stop 32, B2 across methods: edge-connect's `process()` makes D's forwards
and returns both losses, `backward()` backwards them, both called from the loop body): each
function of the module is read once, in its own flow, into a summary its callers apply at
the call, never by replaying its body. Its parameters and the `self.` attributes it reads
before binding are inputs (placeholder forwards); the summary keeps the wrapped models it
forwards with the backwards counted since each one's latest forward in it, the backwards
through its inputs in order (at most a few), and what its return value and its `self.`
attributes carry. A caller maps the inputs to its arguments (and its receiver's
attributes), so `model.backward(gen_loss, dis_loss)` counts two backwards through D's
forwards made in `model.process(x)`, and DP026 names the call and the backward inside.
Calls resolve to the module's own functions: a plain name, `self.m` in a class, and `v.m`
for `v = C(...)` of one of its classes, in the same function; recursion reads as a call
to nothing. Not followed: inherited methods, a backward through
an input made before the callee's own forward of that model. Stepping D between the two
backwards (its per-rank gradient then waits for the next zero_grad) is not treated as
safe: torch rejects that backward anyway (D's weights changed in place), and a zero_grad
between the backwards does not help (D then steps on the unreduced second one).
"""

from __future__ import annotations

from collections.abc import Iterable

import libcst as cst

from dp2ddp.facts import BackwardSummary
from dp2ddp.transforms._support.children import children_of
from dp2ddp.transforms._support.grad_mode import grad_off
from dp2ddp.transforms._support.nodes import code_of, walk
from dp2ddp.transforms.hazards.backward_binding import (
    FunctionInstances,
    bound_arguments,
    bound_names,
    instances_of,
    takes_self,
)
from dp2ddp.transforms.hazards.backward_state import (
    _AUTOGRAD_BACKWARD,
    _EMPTY,
    _GRAPHLESS,
    _GRAPHLESS_ATTRIBUTES,
    _KEPT_INPUT_BACKWARDS,
    _LOOP_READS,
    Foreign,
    ForeignSite,
    Matches,
    SecondBackward,
    Site,
    _Flow,
    _Frame,
    _Summary,
)


class SecondBackwards:
    """Find the second backward passes through one forward in a module (see above)."""

    def __init__(
        self,
        matches: Matches,
        wrapped: Iterable[str],
        functions: dict[str, cst.FunctionDef] | None = None,
        classes: dict[str, dict[str, cst.FunctionDef]] | None = None,
        foreign: Foreign | None = None,
    ) -> None:
        self._matches = matches
        self.wrapped = frozenset(wrapped)
        #: forward id -> (its call, the wrapped model as spelled where it is counted)
        self._forwards: dict[int, tuple[Site, str]] = {}
        #: forward id -> when it was first read (ids are addresses: sort by this instead)
        self._order: dict[int, int] = {}
        self._no_grad = 0
        #: loops around the statement being read (_LOOP_READS)
        self._loops = 0
        self.found: list[SecondBackward] = []
        #: names bound to a list or tuple literal -> its length (others: 2, more than one)
        self._literals: dict[str, int] = {}
        #: (backward, inner) of each found, once: a loop's body is read twice
        self._said: set[tuple[int, int]] = set()
        self._functions = functions or {}
        self._classes = classes or {}
        self._foreign = foreign
        #: another module's summaries as read here (by id), each once
        self._imported: dict[int, _Summary] = {}
        self._instances = FunctionInstances(self._class_of)
        #: class -> its `self.x` bound to an instance of a class of the module, in any method
        self._held = {
            name: {
                k: v
                for method in methods.values()
                if isinstance(method.body, cst.IndentedBlock)
                for k, v in self._instances(method).items()
                if k.startswith("self.")
            }
            for name, methods in self._classes.items()
        }
        self._summaries: dict[int, _Summary | None] = {}
        self._frame = _Frame(None, {})
        self._placeholders = 0
        #: ids of the forwards a call of a summarised function makes (above any address)
        self._fresh = 1 << 62
        #: per element of a call's returned tuple, for the assignment it feeds
        self._items: dict[int, tuple[frozenset[int], ...]] = {}

    def run(self, body: Iterable[cst.BaseStatement]) -> None:
        self._frame = _Frame(None, instances_of(body, self._class_of))
        self._block(body, _Flow())

    def run_function(self, function: cst.FunctionDef, cls: str | None) -> _Summary:
        """Read `function` once (memoised): its own DP026 sites and its summary."""
        key = id(function)
        if key in self._summaries:
            return self._summaries[key] or _EMPTY  # None: recursion, a call to nothing
        self._summaries[key] = None
        outer, outer_no_grad = self._frame, self._no_grad
        body = function.body.body if isinstance(function.body, cst.IndentedBlock) else ()
        frame = _Frame(cls, {**self._held.get(cls or "", {}), **self._instances(function)})
        self._frame, self._no_grad = frame, 0
        flow = _Flow()
        params = function.params
        named = [*params.posonly_params, *params.params, *params.kwonly_params]
        named = named[1:] if takes_self(function, cls) else named  # not `self`
        frame.params = frozenset(param.name.value for param in named)
        for param in named:
            flow.carries[param.name.value] = frozenset({self._placeholder(param.name.value)})
        self._block(body, flow)
        self._frame, self._no_grad = outer, outer_no_grad
        attributes = {k: v for k, v in flow.carries.items() if k.startswith("self.") and v}
        kept = frame.returns.union(*attributes.values())
        summary = _Summary(
            inputs=frame.inputs,
            forwards={
                model: (*flow.since.get(model, (0, latest)), latest)
                for model, latest in flow.latest.items()
            },
            input_backwards=tuple(frame.input_backwards),
            returns=frame.returns,
            items=frame.items or None,
            attributes=attributes,
            backwards={f: n for f, n in flow.backwards.items() if f in kept},
        )
        self._summaries[key] = summary
        return summary

    def callees_first(
        self, roots: list[tuple[cst.FunctionDef, str | None]]
    ) -> list[tuple[cst.FunctionDef, str | None]]:
        """`roots` and the functions they call, each once, every callee before its callers
        (an iterative depth-first post-order over the calls `_resolve` finds)."""
        order: list[tuple[cst.FunctionDef, str | None]] = []
        seen: set[int] = set()
        for root in roots:
            if id(root[0]) in seen:
                continue
            seen.add(id(root[0]))
            stack = [(root, iter(self._calls_of(*root)))]
            while stack:
                (function, cls), pending = stack[-1]
                callee = next(pending, None)
                if callee is None:
                    stack.pop()
                    order.append((function, cls))
                elif id(callee[0]) not in seen:
                    seen.add(id(callee[0]))
                    stack.append((callee, iter(self._calls_of(*callee))))
        return order

    def _calls_of(
        self, function: cst.FunctionDef, cls: str | None
    ) -> list[tuple[cst.FunctionDef, str | None]]:
        body = function.body.body if isinstance(function.body, cst.IndentedBlock) else ()
        outer = self._frame
        self._frame = _Frame(cls, {**self._held.get(cls or "", {}), **self._instances(function)})
        found = []
        for statement in body:
            for node in walk(statement, skip_scopes=True):
                if isinstance(node, cst.Call):
                    resolved = self._resolve(node.func)
                    if resolved is not None:
                        found.append((resolved[0], resolved[1]))
        self._frame = outer
        return found

    def read_order(self, forward: int) -> int:
        """When a forward id was first read (ids are addresses: sort by this)."""
        return self._order[forward]

    def forward_site(self, forward: int) -> tuple[Site, str]:
        """The call a forward id stands for, and its model as spelled where counted."""
        return self._forwards[forward]

    def _placeholder(self, name: str) -> int:
        self._placeholders -= 1
        self._frame.inputs[self._placeholders] = name
        return self._placeholders

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
            else:
                other = flow.copy()
            made = flow.made
            flow.carries, flow.backwards = other.carries, other.backwards
            flow.since, flow.latest, flow.made = other.since, other.latest, other.made
            flow.merge(branch)  # either branch ran
            flow.made |= made
        elif isinstance(statement, (cst.For, cst.While)):
            if isinstance(statement, cst.For):
                self._bind(statement.target, self._expression(statement.iter, flow), flow)
            self._loops += 1
            self._suite(statement.body, flow)
            once = isinstance(statement, cst.For) and self._single(statement.iter)
            if self._loops <= _LOOP_READS and not once:  # the second pass: from the first's
                self._suite(statement.body, flow)
            self._loops -= 1
            if statement.orelse is not None:
                self._suite(statement.orelse.body, flow)
        elif isinstance(statement, cst.With):
            no_grad = any(grad_off(item.item, self._matches) for item in statement.items)
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

    def _single(self, iterable: cst.BaseExpression) -> bool:
        """`iterable` has one item at most: a literal of one (`[loss]`), or a name last
        bound to one (`losses = [F.cross_entropy(out, y)]`): its loop runs once a pass."""
        if isinstance(iterable, cst.Name):
            return self._literals.get(iterable.value, 2) <= 1
        return isinstance(iterable, (cst.List, cst.Tuple)) and len(iterable.elements) <= 1

    def _small(self, small: cst.BaseSmallStatement, flow: _Flow) -> None:
        if isinstance(small, cst.Assign):
            for target in small.targets:  # names bound to a literal list: its length
                if isinstance(target.target, cst.Name):
                    literal = isinstance(small.value, (cst.List, cst.Tuple))
                    size = len(small.value.elements) if literal else 2  # type: ignore[attr-defined]
                    self._literals[target.target.value] = size
            if self._construct(small, flow):
                return
            forwards = self._expression(small.value, flow)
            items = self._items.pop(id(small.value), None)
            for target in small.targets:
                elements = target.target
                if (
                    items is not None
                    and isinstance(elements, (cst.Tuple, cst.List))
                    and len(elements.elements) == len(items)
                    and not any(isinstance(e, cst.StarredElement) for e in elements.elements)
                ):  # `g_loss, d_loss = model.process(x)`: each its own
                    for element, carried in zip(elements.elements, items, strict=True):
                        self._bind(element.value, carried, flow)
                else:
                    self._bind(target.target, forwards, flow)
        elif isinstance(small, cst.AnnAssign) and small.value is not None:
            self._bind(small.target, self._expression(small.value, flow), flow)
        elif isinstance(small, cst.AugAssign):
            forwards = self._expression(small.value, flow)
            name = code_of(small.target)
            self._bind(small.target, forwards | flow.carries.get(name, frozenset()), flow)
        elif isinstance(small, cst.Return) and small.value is not None:
            self._return(small.value, flow)
        elif isinstance(small, cst.Expr):
            self._expression(small.value, flow)

    def _construct(self, assign: cst.Assign, flow: _Flow) -> bool:
        """`v = C(out, y)` of a class of the module with an `__init__`: its summary applied
        with `v` as the receiver, so what `__init__` keeps of its arguments (`self.fit =
        F.mse_loss(out, y)`) is `v.fit` here, and a later `v.backward()` of the class
        counts its backwards through them (s73: a loss object's own backward() running two
        backwards through one forward, no DP026)."""
        call = assign.value
        if len(assign.targets) != 1 or not isinstance(assign.targets[0].target, cst.Name):
            return False
        owner = assign.targets[0].target.value
        made = self._made(call, owner, flow)
        if made is None:
            return False
        flow.carries[owner] = made  # as any call's value carries its arguments'
        return True

    def _made(self, call: cst.BaseExpression, owner: str, flow: _Flow) -> frozenset[int] | None:
        """`call` builds an instance of a class of the module with an `__init__`: its
        summary applied with `owner` as the receiver (its attributes are `owner.x`); what
        the arguments carry. None where `call` is no such construction."""
        if not isinstance(call, cst.Call) or not isinstance(call.func, cst.Name):
            return None
        init = self._classes.get(self._class_of(call.func) or "", {}).get("__init__")
        if init is None:
            return None
        summary = self.run_function(init, call.func.value)
        passed = [self._expression(arg.value, flow) for arg in call.args]
        bound = bound_arguments(init, call, method=True)
        given = {name: passed[index] for name, index in bound.items()}
        models = {name: self._passed_model(call.args[i].value) for name, i in bound.items()}
        for name in [k for k in flow.carries if k.startswith(owner + ".")]:
            del flow.carries[name]  # a new object: none of the old one's attributes
        self._apply(call, summary, given, owner, flow, models)
        return frozenset().union(*passed)

    def _return(self, value: cst.BaseExpression, flow: _Flow) -> None:
        frame = self._frame
        if not isinstance(value, cst.Tuple) or any(
            isinstance(e, cst.StarredElement) for e in value.elements
        ):
            frame.returns |= self._expression(value, flow)
            frame.items = None
            return
        items = tuple(self._expression(e.value, flow) for e in value.elements)
        frame.returns = frame.returns.union(*items)
        if frame.items == ():
            frame.items = items
        elif frame.items is not None and len(frame.items) == len(items):
            frame.items = tuple(a | b for a, b in zip(frame.items, items, strict=True))
        else:
            frame.items = None

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
            if self._frame.cls is not None and code_of(node.value) == "self":
                # an attribute another method bound: an input of this one
                flow.carries[spelled] = frozenset({self._placeholder(spelled)})
                return flow.carries[spelled]
            return self._expression(node.value, flow)
        if isinstance(node, cst.Name):
            return flow.carries.get(node.value, frozenset())
        carried: frozenset[int] = frozenset()
        # rows picked by an index carry none of its graph (exact types, once a node)
        picked = node.value if type(node) is cst.Subscript else None
        for child in children_of(node):
            forwards = self._expression(child, flow)  # its backwards counted all the same
            if picked is None or child is picked:
                carried |= forwards
        if type(node) is cst.Comparison:
            return frozenset()  # a mask, no graph (`losses >= top`: an attack's best rows)
        return carried

    def _call(self, call: cst.Call, flow: _Flow) -> frozenset[int]:
        func = call.func
        passed = [self._expression(arg.value, flow) for arg in call.args]
        arguments: frozenset[int] = frozenset().union(*passed)
        graphless = isinstance(func, cst.Attribute) and func.attr.value in _GRAPHLESS
        if graphless or code_of(func) == "len":
            self._expression(func, flow)
            return frozenset()
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Call):
            owner = f"<{id(func.value)}>"  # `LossTerms(out, y).backward()`: a receiver
            if self._made(func.value, owner, flow) is not None:
                cls = self._class_of(func.value.func)
                method = self._classes.get(cls or "", {}).get(func.attr.value)
                if method is not None:
                    summary = self.run_function(method, cls)
                    bound = bound_arguments(method, call, method=True)
                    given = {name: passed[index] for name, index in bound.items()}
                    models = {n: self._passed_model(call.args[i].value) for n, i in bound.items()}
                    return self._apply(call, summary, given, owner, flow, models)
        resolved = self._resolve(func)
        if resolved is not None:  # `model.backward(g, d)` of the model's own class too
            function, cls, owner = resolved
            summary = self.run_function(function, cls)
            bound = bound_arguments(function, call, method=takes_self(function, cls))
            given = {name: passed[index] for name, index in bound.items()}
            models = {name: self._passed_model(call.args[i].value) for name, i in bound.items()}
            return self._apply(call, summary, given, owner, flow, models)
        imported = self._resolve_foreign(func)
        if imported is not None:  # another module's function or method (its summary)
            foreign, owner = imported
            summary = self._import(foreign)
            bound = bound_names(foreign.params, call)
            given = {name: passed[index] for name, index in bound.items()}
            models = {name: self._passed_model(call.args[i].value) for name, i in bound.items()}
            return self._apply(call, summary, given, owner, flow, models)
        if self._matches(func, _AUTOGRAD_BACKWARD):
            self._backward(call, arguments, flow)
            return frozenset()
        if isinstance(func, cst.Attribute) and func.attr.value == "backward":
            self._backward(call, self._expression(func.value, flow), flow)
            return frozenset()
        receiver = self._expression(func, flow)
        if code_of(func) in self.wrapped and not self._no_grad:
            self._forward(call, code_of(func), flow)
            return arguments | receiver | {id(call)}
        if isinstance(func, cst.Name) and func.value in self._frame.params and not self._no_grad:
            self._forward(call, "@" + func.value, flow)  # `net(x)` of `def step(net, x)`
            return arguments | receiver | {id(call)}
        return arguments | receiver

    def _passed_model(self, value: cst.BaseExpression) -> str | None:
        """The model an argument passes: a wrapped one, or this function's parameter."""
        spelled = code_of(value)
        if spelled in self.wrapped:
            return spelled
        return "@" + spelled if spelled in self._frame.params else None

    def _forward(self, forward: cst.Call, model: str, flow: _Flow) -> None:
        self._forwards[id(forward)] = (forward, model)
        self._order.setdefault(id(forward), len(self._order))
        flow.since.pop(model, None)
        flow.latest[model] = id(forward)
        flow.backwards[id(forward)] = 0
        flow.made.add(id(forward))

    def _resolve(self, func: cst.BaseExpression) -> tuple[cst.FunctionDef, str | None, str] | None:
        """The module's own function `func` names: (it, its class, the receiver)."""
        if isinstance(func, cst.Name) and func.value in self._functions:
            return self._functions[func.value], None, ""
        if not isinstance(func, cst.Attribute):
            return None
        owner = code_of(func.value)  # `model`, `self`, `self.inpaint_model`
        cls = self._frame.cls if owner == "self" else self._frame.instances.get(owner)
        method = self._classes.get(cls or "", {}).get(func.attr.value)
        return (method, cls, owner) if method is not None else None

    def _class_of(self, func: cst.BaseExpression) -> str | None:
        """The class `func(...)` builds an instance of: one of the module's, or another
        module's ("=" and its qualified name)."""
        if isinstance(func, cst.Name) and func.value in self._classes:
            return func.value
        found = self._foreign.cls(func) if self._foreign is not None else None
        return "=" + found if found is not None else None

    def _resolve_foreign(self, func: cst.BaseExpression) -> tuple[BackwardSummary, str] | None:
        """Another module's function `func` names (its summary, the receiver)."""
        if self._foreign is None:
            return None
        if isinstance(func, cst.Attribute):
            owner = code_of(func.value)
            cls = self._frame.instances.get(owner, "")
            if cls.startswith("="):
                found = self._foreign.method(cls[1:], func.attr.value)
                return (found, owner) if found is not None else None
        found = self._foreign.function(func)
        return (found, "") if found is not None else None

    def _import(self, foreign: BackwardSummary) -> _Summary:
        """`foreign` in this finder's terms: its sites as forwards of their own (ids above
        any address), its inputs as placeholders; once per summary."""
        if id(foreign) in self._imported:
            return self._imported[id(foreign)]
        ids: dict[int, int] = {}
        for index, (line, text, model) in enumerate(foreign.sites):
            self._fresh += 1
            ids[index] = self._fresh
            self._forwards[self._fresh] = (ForeignSite(foreign.path, line, text), model)
            self._order[self._fresh] = len(self._order)
        for placeholder, _ in foreign.inputs:
            self._placeholders -= 1
            ids[placeholder] = self._placeholders

        def of(items: Iterable[int]) -> frozenset[int]:
            return frozenset(ids[i] for i in items)

        summary = _Summary(
            inputs={ids[p]: name for p, name in foreign.inputs},
            forwards={m: (n, ids[a], ids[b]) for m, n, a, b in foreign.forwards},
            input_backwards=tuple(
                (of(carried), self._forwards[ids[site]][0])
                for carried, site in foreign.input_backwards
            ),
            returns=of(foreign.returns),
            items=tuple(of(i) for i in foreign.items) if foreign.items is not None else None,
            attributes={name: of(carried) for name, carried in foreign.attributes},
            backwards={ids[f]: n for f, n in foreign.backwards},
        )
        self._imported[id(foreign)] = summary
        return summary

    def _apply(
        self,
        call: cst.Call,
        summary: _Summary,
        given: dict[str, frozenset[int]],
        owner: str,
        flow: _Flow,
        models: dict[str, str | None],
    ) -> frozenset[int]:
        """A call of a function read into `summary`: its inputs become what this call
        passes (`given`, and `owner`'s attributes; `models`: the model each parameter is
        given), then its backwards and forwards count here, in that order. Its forwards
        are this call's own (fresh ids: two calls of one helper are two forwards)."""
        fresh: dict[int, int | None] = {}

        def renamed(model: str) -> str | None:  # `self.d` of `model.m()`: `model.d`
            if model.startswith("self.") and owner not in ("", "self"):
                return owner + model[4:]
            return models.get(model[1:]) if model.startswith("@") else model

        def this_call(forward: int) -> int | None:
            if forward not in fresh:
                node, model = self._forwards[forward]
                here = renamed(model)
                fresh[forward] = None
                if here is not None:
                    self._fresh += 1
                    fresh[forward] = self._fresh
                    self._forwards[self._fresh] = (node, here)
                    self._order[self._fresh] = len(self._order)
            return fresh[forward]

        def mapped(forwards: frozenset[int]) -> frozenset[int]:
            out: set[int] = set()
            for forward in forwards:
                name = summary.inputs.get(forward)
                if name is None:
                    here = this_call(forward)
                    if here is not None:
                        out.add(here)
                elif name.startswith("self."):
                    out |= flow.carries.get(owner + name[4:], frozenset()) if owner else set()
                else:
                    out |= given.get(name, frozenset())
            return frozenset(out)

        reads = {f for _, first, latest in summary.forwards.values() for f in (first, latest)}
        reads |= summary.returns.union(*summary.attributes.values(), *summary.items or ())
        reads |= {*summary.backwards}.union(*(c for c, _ in summary.input_backwards))
        for forward in sorted(reads & self._order.keys(), key=self._order.__getitem__):
            this_call(forward)  # this call's forwards in the order they were read
        for carried, inner in summary.input_backwards:
            self._backward(call, mapped(carried), flow, inner)
        if self._no_grad:  # its forwards make no graph here (its backwards still run)
            return frozenset()
        for model, (count, first, latest) in summary.forwards.items():
            here, first_here, latest_here = renamed(model), this_call(first), this_call(latest)
            if here is None or first_here is None or latest_here is None:
                continue
            flow.since.pop(here, None)
            flow.latest[here] = latest_here
            flow.made.add(latest_here)
            if count:
                flow.since[here] = (count, first_here)
        for forward, count in summary.backwards.items():
            made = this_call(forward)
            if made is not None:
                flow.backwards[made] = count
        if owner:
            for name, carried in summary.attributes.items():
                flow.carries[owner + name[4:]] = mapped(carried)
        if summary.items is not None:
            self._items[id(call)] = tuple(mapped(item) for item in summary.items)
        return mapped(summary.returns)

    def _backward(
        self,
        call: cst.Call,
        forwards: frozenset[int],
        flow: _Flow,
        inner: Site | None = None,
    ) -> None:
        inputs = frozenset(forward for forward in forwards if forward < 0)
        if inputs and len(self._frame.input_backwards) < _KEPT_INPUT_BACKWARDS:
            self._frame.input_backwards.append((inputs, inner or call))
        forwards = forwards - inputs
        reported = False
        for forward in sorted(forwards, key=self._order.__getitem__):
            count = flow.backwards.get(forward, 0) + 1
            flow.backwards[forward] = count
            if count == 2 and not self._forwards[forward][1].startswith("@"):
                found = self._forwards[forward][0]
                self._found(SecondBackward(call, found, inner=inner))
                reported = True
        # DDP prepares its reducer in each forward; the first backward after the model's
        # latest forward all-reduces, any further one before its next forward does not,
        # whichever of its forwards (real, fake) it goes through.
        models: dict[str, int] = {}
        for forward in sorted(forwards, key=self._order.__getitem__):
            models.setdefault(self._forwards[forward][1], forward)
        for model, forward in models.items():
            count, first = flow.since.get(model, (0, forward))
            flow.since[model] = (count + 1, first)
            if count + 1 == 2 and not reported and not model.startswith("@"):
                self._found(
                    SecondBackward(
                        call, self._forwards[forward][0], self._forwards[first][0], inner, model
                    )
                )

    def _found(self, site: SecondBackward) -> None:
        key = (id(site.backward), id(site.inner))
        if key not in self._said:
            self._said.add(key)
            self.found.append(site)
