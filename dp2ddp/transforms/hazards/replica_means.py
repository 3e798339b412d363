"""A wrapped model whose forward() returns its replica's loss as a quotient: a mean where the
divisor is the replica's batch size, not a sum to scale by WORLD_SIZE.

Round 22 (cls), bhheo/AB_distillation@a7701d3: the distillation module's forward() sums its
losses (`nn.CrossEntropyLoss(reduction='sum')`, a hand-summed L2) and divides them by
`self.batch_size`, which the training loop sets before each call from the batch it passes
(`distill_net.module.batch_size = inputs.shape[0]`; elsewhere `self.batch_size =
inputs.size(0)` in forward() itself); the loop sums the gathered per-replica losses
(`outputs[:, 0].sum()`) and calls backward(). That sum is over replicas, each a mean over
its own rows: DataParallel's loss was the batch mean. dp2ddp read the `.sum()` of the model's
output as a sum over the batch and wrote `(loss * WORLD_SIZE).backward()`: every update
WORLD_SIZE times DataParallel's (weights 6.022645 under DataParallel, 5.870408 migrated on 2
ranks), and DP004 said the forward's `reduction='sum'` though it was divided into a mean.

Proved here, for a call of a wrapped model whose class is this module's (the wrap's
argument an instance of it): each value its forward() returns (through shape-keeping
methods, `.unsqueeze(0)`, and plain bindings) is a summed loss divided by the replica's
batch size: a `t.size(0)` / `t.shape[0]` / `len(t)` of one of forward()'s own inputs, a name
bound to one, or `self.<attr>` stored so earlier in forward()'s body or, before every call
of the wrapped model in the module, in the statement block of the call from the size of a
tensor the call is given (`model.module.attr = xb.shape[0]` or `model.attr = ...`, through
the def-use view). Then the loss is a mean: no WORLD_SIZE, no DP004. A divisor alike on
every rank (a number, `args.batch_size`) leaves it a sum (hazards.uniform_counts: scaled);
any other divisor is not proved either way: left unscaled and said at the backward (DP004),
never scaled silently.

Stop 70 (across): a value forward() averages over its rows (a mean over dim 0 or every
element, a torch.nn loss with its default mean: `self.ce(out, y).unsqueeze(0)`) is a replica's
mean as well, and sums and constant multiples of means are one. A class of another module of
the program is read in its own module (`class_returns`, told as ModelClass.replica through
hazards/replica_classes.py; a package's re-export names the same class): `attrs` its
forward() divides by are checked here, at this module's calls of the wrap. A wrapped model
whose class is not read (a library's, a module outside the migrated files: `unread`) and
whose output the loss sums with no function between is DP221: scaled as a sum over the batch,
or left beside other terms, said either way.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

import libcst as cst

from dp2ddp.facts import ModelClass
from dp2ddp.flow import DefUse, Function, Origin, origins
from dp2ddp.flow.text import code
from dp2ddp.loss_facts import ReplicaReturns
from dp2ddp.transforms._support.names import DATAPARALLEL, DISTRIBUTED_DATA_PARALLEL
from dp2ddp.transforms._support.qualified import told_matches
from dp2ddp.transforms.hazards.per_row_sums import argument_sources, rows_of

QualifiedNames = Callable[[cst.CSTNode], set[str]]
#: A class of this module, or one of the program's by its told name (ModelClass.name).
Owner = cst.ClassDef | str
#: `stored(attr)`: every call of the wrap stores `attr` from its batch first.
Stored = Callable[[str], bool]
_WRAPS = DATAPARALLEL | DISTRIBUTED_DATA_PARALLEL
#: Methods that keep a replica's loss what it is (its shape or device only).
_KEEPS = frozenset(
    "unsqueeze view reshape squeeze flatten float double half to cuda cpu contiguous clone".split()
)
#: Callees that are no model's (by qualified name).
_LIBRARIES = ("torch.", "numpy.", "builtins.", "math.", "os.")
#: A quotient proved a mean over the replica's rows.
MEAN = ""
_DEPTH = 6


class ReplicaMeans:
    """One module's proof; `summed(forward, value)`: the value is a loss summed over the
    batch in that function (hazards.losses' proof), `meaned(forward, value)`: averaged over
    it (a mean over dim 0 or every element, a torch.nn loss averaging so), `alike(divisor)`:
    a count every rank holds alike (hazards.uniform_counts); `models`: the program's classes
    (ModelClass.replica: their forward() read in their own module)."""

    def __init__(
        self,
        flow: DefUse,
        qualified_names: QualifiedNames,
        summed: Callable[[Function, cst.BaseExpression], bool],
        alike: Callable[[cst.BaseExpression], bool],
        models: Iterable[ModelClass] = (),
        meaned: Callable[[Function, cst.BaseExpression], bool] = lambda f, v: False,
    ) -> None:
        self.flow = flow
        self.qualified_names = qualified_names
        self.summed = summed
        self.meaned = meaned
        self.alike = alike
        self.told = {m.name: m.replica for m in models}
        self._wraps: dict[cst.Call, Owner] | None = None
        #: wraps of a model whose class is not read: the construction's text
        self._unread: dict[cst.Call, str] = {}
        self._calls: dict[Owner, list[cst.Call]] = {}
        self._classes: dict[int, Owner | None] = {}
        self._returns: dict[cst.ClassDef, ReplicaReturns | None] = {}
        self._by_last: dict[str, list[str]] | None = None

    def returned(self, call: cst.Call) -> str | None:
        """What the wrapped model `call` returns: MEAN where every return of its forward()
        is a loss averaged over the replica's rows (or summed and divided by their count);
        a reason where one is a quotient not proved either way; None where its forward is
        not seen or returns neither (the sum's proof stands as it was)."""
        owner = self.wrapped_class(call)
        facts = self.class_returns(owner) if isinstance(owner, cst.ClassDef) else None
        facts = self.told.get(owner) if isinstance(owner, str) else facts
        if owner is None or facts is None:
            return None
        calls = self.model_calls(owner)
        stored = bool(calls) and all(
            self._stored_before(c, attr) for c in calls for attr in facts.attrs
        )
        return facts.stored if stored or not facts.attrs else facts.alone

    def class_returns(self, owner: cst.ClassDef) -> ReplicaReturns | None:
        """What `owner`'s forward() returns on a replica (ReplicaReturns): read once, as
        told to the program's other modules (program/replica_classes.py)."""
        if owner not in self._returns:
            forward = self.flow.method(owner, "forward")
            found = None
            if forward is not None and forward.returns:
                need: list[str] = []

                def assumed(attr: str) -> bool:  # stored by every call: the callers tell
                    need.append(attr)
                    return True

                where = f"{owner.name.value}.forward()"
                stored = self._returned(forward, assumed, where)
                alone = self._returned(forward, lambda _: False, where) if need else stored
                if stored is not None or alone is not None:
                    found = ReplicaReturns(tuple(dict.fromkeys(need)), stored, alone)
            self._returns[owner] = found
        return self._returns[owner]

    def _returned(self, forward: Function, stored: Stored, where: str) -> str | None:
        found = [self._quotient(r, forward, stored, 0) for r in forward.returns]
        return _combine(found, _mixed(where))

    def outputs(self, loss: cst.BaseExpression) -> str | None:
        """For a summed loss at its backward: MEAN where each wrapped model call it comes
        from (the bindings reaching there) returns a replica's mean; the text of DP004
        where one returns a quotient not proved either way (or means meet other values);
        None where none returns a quotient (or no class of the program is wrapped)."""
        if not self._wrap_classes():
            return None
        found = [
            self.returned(origin.node)
            for origin in origins(self.flow, loss, self.model_call)
            if isinstance(origin.node, cst.Call) and self.model_call(origin.node)
        ]
        reason = _combine(found, _mixed("the wrapped model"))
        if not reason:
            return reason
        return (
            f"the losses a wrapped model's replicas return, {reason}: left unscaled "
            "(a sum needs * WORLD_SIZE, a mean nothing)"
        )

    def unread(self, loss: cst.BaseExpression) -> str | None:
        """The construction (its text) of a wrapped model whose class is not read (a
        library's: its forward() is not the program's) and whose output `loss` sums with
        no function between (indexing, shape-keeping methods, sums and arithmetic): what
        each replica returns, a per-row value or a loss over its rows, is not known."""
        self._wrap_classes()
        if not self._unread:
            return None
        for origin in origins(self.flow, loss, self._unread_call):
            if isinstance(origin.node, cst.Call) and self._unread_call(origin.node):
                wrap = self._wrap_of(origin.node)
                if wrap is not None and all(_keeps(s.node, origin.node) for s in origin.path):
                    return self._unread[wrap]
        return None

    def model_call(self, call: cst.Call) -> bool:
        """`call` calls a wrapped instance of a class of the program (read)."""
        library = any(n.startswith(_LIBRARIES) for n in self.qualified_names(call.func))
        return not library and self.wrapped_class(call) is not None

    def _unread_call(self, call: cst.Call) -> bool:
        library = any(n.startswith(_LIBRARIES) for n in self.qualified_names(call.func))
        return not library and self._wrap_of(call) in self._unread

    def divided(self, loss: cst.Call, parent: Callable[[cst.CSTNode], cst.CSTNode | None]) -> bool:
        """`loss` (times any factor) in a class's forward() is divided by the replica's
        batch size (no DP004 at its sum reduction): its rows' count, or `self.attr` that
        every call of a wrap of this module stores so (a class wrapped only elsewhere: its
        forward's own count only)."""
        child: cst.CSTNode = loss
        node = parent(child)
        while isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Multiply):
            child, node = node, parent(node)
        if not (
            isinstance(node, cst.BinaryOperation)
            and isinstance(node.operator, cst.Divide)
            and node.left is child
        ):
            return False
        forward = self.flow.function_around(loss)
        if forward is None or forward.name != "forward" or forward.owner is None:
            return False
        owner = forward.owner
        calls = self.model_calls(owner) if owner in self._wrap_classes().values() else []
        stored = lambda a: bool(calls) and all(self._stored_before(c, a) for c in calls)  # noqa: E731
        return self._batch_size(node.right, forward, stored, 0)

    def wrapped_class(self, call: cst.Call) -> Owner | None:
        """The class (of this module, or the program's told name) whose instance the wrap
        `call` calls holds."""
        key = id(call)
        if key not in self._classes:
            wrap = self._wrap_of(call)
            self._classes[key] = self._wrap_classes().get(wrap) if wrap is not None else None
        return self._classes[key]

    def _wrap_of(self, call: cst.Call) -> cst.Call | None:
        """The wrap (`DataParallel(...)`) whose instance `call` calls."""
        wraps = self._wrap_classes()
        return next(
            (
                o.node
                for o in origins(self.flow, call.func)
                if o.kind == "call"
                and isinstance(o.node, cst.Call)
                and (o.node in wraps or o.node in self._unread)
                and not _read_off(o)
            ),
            None,
        )

    def model_calls(self, owner: Owner) -> list[cst.Call]:
        """The calls of this module of a wrapped instance of `owner`."""
        if owner not in self._calls:
            wraps = self._wrap_classes()
            self._calls[owner] = [
                c
                for c in self.flow.calls
                if isinstance(c.func, (cst.Name, cst.Attribute))
                and c not in wraps
                and self.model_call(c)
                and self.wrapped_class(c) == owner
            ]
        return self._calls[owner]

    def _wrap_classes(self) -> dict[cst.Call, Owner]:
        if self._wraps is None:
            self._wraps = {}
            for call in self.flow.calls:
                if not self.qualified_names(call.func) & _WRAPS:
                    continue
                positional = [a.value for a in call.args if a.keyword is None and not a.star]
                owner, unread = self._instance_class(positional[0]) if positional else (None, "")
                if owner is not None:
                    self._wraps[call] = owner
                elif unread:
                    self._unread[call] = unread
        return self._wraps

    def _instance_class(self, value: cst.BaseExpression) -> tuple[Owner | None, str]:
        """The one class `value` is an instance of (this module's, or the program's by its
        told name); else None and the text of a construction of a class not read."""
        found: dict[str, Owner] = {}
        unread = ""
        for origin in origins(self.flow, value):
            if not isinstance(origin.node, cst.Call) or origin.selects:
                continue
            if _through_argument(origin):
                continue  # an argument of the construction (`Diffusion(Unet(...))`): not its class
            if origin.kind == "instance":
                owner = self.flow.class_called(origin.node)
                if owner is not None:
                    found[f"<{id(owner)}>"] = owner
            elif origin.kind == "call":
                names = self.qualified_names(origin.node.func)
                told = told_matches(names, self.told) or self._starred(origin.node.func, names)
                if len(told) == 1:
                    found[told[0]] = told[0]
                elif not any(n.startswith(_LIBRARIES) for n in names) or not names:
                    unread = unread or code(origin.node.func)
        if len(found) == 1:
            return next(iter(found.values())), ""
        return None, unread if not found else ""

    def _starred(self, func: cst.BaseExpression, names: set[str]) -> list[str]:
        """A bare name no import resolves (a star import's: `from models import *`, then
        `Net()`) as the one class of the program of that name, if there is exactly one."""
        if names or not isinstance(func, cst.Name):
            return []
        if self._by_last is None:
            self._by_last = {}
            for name in self.told:
                self._by_last.setdefault(name.rpartition(".")[2], []).append(name)
        same = self._by_last.get(func.value, [])
        return same[:1] if len({self.told[n] for n in same}) == 1 else []

    def _quotient(
        self, value: cst.BaseExpression, forward: Function, stored: Stored, depth: int
    ) -> str | None:
        """MEAN, a reason, or None (neither a mean nor a quotient) for one returned value."""
        if depth > _DEPTH:
            return None
        if (
            isinstance(value, cst.Call)
            and isinstance(value.func, cst.Attribute)
            and value.func.attr.value in _KEEPS
        ):
            return self._quotient(value.func.value, forward, stored, depth + 1)
        if isinstance(value, cst.Call) and (inner := self._own_method(forward, value)) is not None:
            found = [self._quotient(r, inner, stored, depth + 1) for r in inner.returns]
            return _combine(found, _mixed(f"`{code(value.func)}`"))  # `self.p_losses(x, t)`
        if isinstance(value, cst.Call) and (prop := self._property(forward, value)) is not None:
            returned = [r for r in prop.returns if not isinstance(r, cst.Name) or r.value != "None"]
            found = [self._function_loss(forward, r, value, stored, depth) for r in returned]
            return _combine(found, _mixed(f"`{code(value.func)}`"))
        if isinstance(value, cst.Call):  # `self.ce(out, y)`, `(out - y).pow(2).mean()`
            return MEAN if self.meaned(forward, value) else None
        if isinstance(value, cst.Dict):  # `{"loss": mse}` (round 33, askerlee/denoising-
            # diffusion-pytorch@c97a044: `model(x)["loss"].sum()` scaled, updates doubled)
            items = [e.value for e in value.elements if isinstance(e, cst.DictElement)]
            found = [self._quotient(v, forward, stored, depth + 1) for v in items]
            return _combine(found, f"`{code(value)}` holds a replica's mean beside other values")
        if isinstance(value, cst.Name):
            bound = self.flow.reaching(value)
            if not bound or any(d.kind != "assign" or d.value is None or d.element for d in bound):
                return None
            found = [
                self._quotient(d.value, forward, stored, depth + 1)
                for d in bound
                if d.value is not None
            ]
            return _combine(found, _mixed(f"`{value.value}`"))
        if not isinstance(value, cst.BinaryOperation):
            return None
        if isinstance(value.operator, (cst.Add, cst.Subtract)):  # `ce + 0.1 * mse`
            terms = [
                self._quotient(v, forward, stored, depth + 1) for v in (value.left, value.right)
            ]
            return _combine(
                terms,
                f"`{code(value)}` adds a mean over the replica's rows to a value that is none",
            )
        if isinstance(value.operator, cst.Multiply):
            for factor, other in ((value.right, value.left), (value.left, value.right)):
                if isinstance(factor, (cst.Integer, cst.Float)):
                    return self._quotient(other, forward, stored, depth + 1)
        if not isinstance(value.operator, cst.Divide):
            return None
        divisor = value.right
        if self._batch_size(divisor, forward, stored, 0):
            return MEAN if self.summed(forward, value.left) else None
        if isinstance(divisor, (cst.Integer, cst.Float)) or self.alike(divisor):
            return None  # a sum times a weight alike on every rank: scaled as a sum
        return (
            f"divided by `{code(divisor)}`, which is not proved the replica's batch size "
            "(nor a count alike on every rank)"
        )

    def _self_method(self, forward: Function, call: cst.Call) -> tuple[Function, set[str]] | None:
        """The method of forward()'s class `call` runs on forward()'s own object (`self.m(...)`,
        `self.loss_fn(...)`), with its decorators' texts; None for anything else."""
        func = call.func
        if forward.owner is None or not (
            isinstance(func, cst.Attribute)
            and isinstance(func.value, cst.Name)
            and func.value.value == forward.self_name
        ):
            return None
        found = self.flow.method(forward.owner, func.attr.value)
        if found is None or found is forward or not isinstance(found.node, cst.FunctionDef):
            return None
        return found, {code(d.decorator) for d in found.node.decorators}

    def _own_method(self, forward: Function, call: cst.Call) -> Function | None:
        """The method of forward()'s class `call` runs on its own object (`self.p_losses(x,
        t)`, not a property), whose returns are forward()'s; None for anything else."""
        found = self._self_method(forward, call)
        if found is None or not found[0].returns or found[1] & {"property", "staticmethod"}:
            return None
        return found[0]

    def _property(self, forward: Function, call: cst.Call) -> Function | None:
        """The property of forward()'s class `call` calls what it returns of (`self.loss_fn(
        pred, y)` of `@property def loss_fn(self): return F.mse_loss`; round 33, askerlee/
        denoising-diffusion-pytorch@c97a044: scaled by WORLD_SIZE, every update doubled)."""
        found = self._self_method(forward, call)
        return found[0] if found is not None and "property" in found[1] else None

    def _function_loss(
        self,
        forward: Function,
        returned: cst.BaseExpression,
        call: cst.Call,
        stored: Stored,
        depth: int,
    ) -> str | None:
        """What calling `returned` (a function a property hands back) as `call` gives: a
        torch.nn.functional loss reducing by its default, a mean over the rows; a method of
        the class (`self.laploss`), what its returns are; else neither (None)."""
        if any(a.keyword is not None for a in call.args):
            return None  # `reduction=` or another keyword: not the default
        names = self.qualified_names(returned)
        if any(
            n.startswith("torch.nn.functional.") and ("loss" in n or "entropy" in n) for n in names
        ):
            return MEAN
        if isinstance(returned, cst.Attribute) and forward.owner is not None:
            method = self.flow.method(forward.owner, returned.attr.value)
            if method is not None and method.returns and depth < _DEPTH:
                found = [self._quotient(r, method, stored, depth + 1) for r in method.returns]
                return _combine(found, _mixed(f"`{code(returned)}`"))
        return None

    def _batch_size(
        self, divisor: cst.BaseExpression, forward: Function, stored: Stored, depth: int
    ) -> bool:
        """`divisor`, read in `forward`, is the size of the replica's batch; `self.attr`
        not stored so in forward() is where `stored(attr)`."""
        if depth > _DEPTH:
            return False
        rows = rows_of(divisor)
        if rows is not None:
            bound = self.flow.reaching(rows)
            inputs = forward.params[1:]
            return bool(bound) and all(d.kind == "param" and d.target in inputs for d in bound)
        if isinstance(divisor, cst.Name):
            bound = self.flow.reaching(divisor)
            return bool(bound) and all(
                d.kind == "assign"
                and d.value is not None
                and not d.element
                and self._batch_size(d.value, forward, stored, depth + 1)
                for d in bound
            )
        if not (
            isinstance(divisor, cst.Attribute)
            and isinstance(divisor.value, cst.Name)
            and divisor.value.value == forward.self_name
        ):
            return False
        attr = divisor.attr.value
        value = self._stored_in(forward, divisor, attr)
        if value is not None:
            return self._batch_size(value, forward, stored, depth + 1)
        return stored(attr)

    def _stored_in(
        self, forward: Function, read: cst.CSTNode, attr: str
    ) -> cst.BaseExpression | None:
        """The value of the last `self.attr = v` among forward()'s own statements before the
        one holding `read` (run whenever the read is), else None."""
        body = forward.node.body
        if not isinstance(body, cst.IndentedBlock):
            return None
        statements: list[cst.CSTNode] = list(body.body)
        statement = next(iter(self._up_to(read, body)), None)
        if statement is None or statement not in statements:
            return None
        for earlier in reversed(statements[: statements.index(statement)]):
            value = _attribute_store(earlier, attr, lambda t: code(t) == forward.self_name)
            if value is not None:
                return value
        return None

    def _stored_before(self, call: cst.Call, attr: str) -> bool:
        """The nearest statement before `call`'s in its block that stores `X.attr` or
        `X.module.attr` (X the wrapped model called) stores the row count of a tensor
        `call` is given."""
        statement = self.flow.statement_of(call)
        block = self.flow.parent(statement)
        statements = list(getattr(block, "body", ()))
        if statement not in statements:
            return False
        model = code(call.func)

        def holder(target: cst.BaseExpression) -> bool:
            text = code(target)
            return text in (model, f"{model}.module")

        for earlier in reversed(statements[: statements.index(statement)]):
            value = _attribute_store(earlier, attr, holder)
            if value is None:
                continue
            rows = rows_of(value)
            if rows is None:
                return False
            bound = {id(d.target) for d in self.flow.reaching(rows)}
            return bool(bound) and bound <= argument_sources(call, self.flow)
        return False

    def _up_to(self, node: cst.CSTNode, block: cst.IndentedBlock) -> list[cst.CSTNode]:
        """The ancestor of `node` that is a statement of `block`."""
        current: cst.CSTNode | None = node
        while current is not None:
            above = self.flow.parent(current)
            if above is block:
                return [current]
            current = above
        return []


def _through_argument(origin: Origin) -> bool:
    """The walk reached `origin` through an argument of a call on its path (`Unet(...)` of
    `Diffusion(Unet(...))`), not through the call's receiver (`Net().to(device)`)."""
    on_path = {id(step.node) for step in origin.path}
    return any(
        isinstance(step.node, cst.Call)
        and step.node is not origin.node
        and any(id(arg.value) in on_path for arg in step.node.args)
        for step in origin.path
    )


def _read_off(origin: Origin) -> bool:
    """The value reaches as an attribute read off it (`model.parameters`), not itself."""
    steps = [origin.node, *(s.node for s in origin.path)]
    return any(
        isinstance(later, cst.Attribute) and later.value is earlier
        for earlier, later in zip(steps, steps[1:], strict=False)
    )


def _attribute_store(
    statement: cst.CSTNode, attr: str, holder: Callable[[cst.BaseExpression], bool]
) -> cst.BaseExpression | None:
    """`v` of a statement `H.attr = v` whose holder H `holder` accepts."""
    if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
        return None
    assign = statement.body[0]
    if not isinstance(assign, cst.Assign) or len(assign.targets) != 1:
        return None
    target = assign.targets[0].target
    if isinstance(target, cst.Attribute) and target.attr.value == attr and holder(target.value):
        return assign.value
    return None


def _mixed(where: str) -> str:
    return f"{where} returns a mean over the replica's rows on some paths only"


def _combine(found: list[str | None], mixed: str) -> str | None:
    """MEAN where every part is one; the first reason where a part has one; `mixed` where
    means and values of neither meet; else None."""
    reasons = [f for f in found if f]
    if reasons:
        return reasons[0]
    if found and all(f == MEAN for f in found):
        return MEAN
    if any(f == MEAN for f in found):
        return mixed
    return None


def _keeps(node: cst.CSTNode, call: cst.Call) -> bool:
    """A step from a model's output to a loss that keeps its values what they are (the
    call itself, a name, an index, an operator, a sum, a shape-keeping method)."""
    if node is call or isinstance(
        node, (cst.Name, cst.Subscript, cst.BinaryOperation, cst.UnaryOperation, cst.Attribute)
    ):
        return True
    return (
        isinstance(node, cst.Call)
        and isinstance(node.func, cst.Attribute)
        and node.func.attr.value in _KEEPS | {"sum", "mean"}
    )
