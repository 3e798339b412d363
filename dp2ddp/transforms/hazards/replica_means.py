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
never scaled silently. A class of another module is not read (its forward is not seen here).
"""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from dp2ddp.flow import DefUse, Function, Origin, origins
from dp2ddp.flow.text import code
from dp2ddp.transforms._support.names import DATAPARALLEL, DISTRIBUTED_DATA_PARALLEL
from dp2ddp.transforms.hazards.per_row_sums import argument_sources, rows_of

QualifiedNames = Callable[[cst.CSTNode], set[str]]
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
    batch in that function (hazards.losses' proof), `alike(divisor)`: a count every rank
    holds alike (hazards.uniform_counts)."""

    def __init__(
        self,
        flow: DefUse,
        qualified_names: QualifiedNames,
        summed: Callable[[Function, cst.BaseExpression], bool],
        alike: Callable[[cst.BaseExpression], bool],
    ) -> None:
        self.flow = flow
        self.qualified_names = qualified_names
        self.summed = summed
        self.alike = alike
        self._wraps: dict[cst.Call, cst.ClassDef] | None = None
        self._calls: dict[cst.ClassDef, list[cst.Call]] = {}
        self._classes: dict[int, cst.ClassDef | None] = {}

    def returned(self, call: cst.Call) -> str | None:
        """What the wrapped model `call` returns: MEAN where every return of its forward()
        is a summed loss over the replica's batch size; a reason where one is a quotient
        not proved either way; None where its forward is not seen or returns no quotient
        (the sum's proof stands as it was)."""
        owner = self.wrapped_class(call)
        forward = None if owner is None else self.flow.method(owner, "forward")
        if owner is None or forward is None or not forward.returns:
            return None
        calls = self.model_calls(owner)
        found = [self._quotient(r, forward, calls, 0) for r in forward.returns]
        return _combine(found, f"{owner.name.value}.forward()")

    def outputs(self, loss: cst.BaseExpression) -> str | None:
        """For a summed loss at its backward: MEAN where each wrapped model call it comes
        from (the bindings reaching there) returns a replica's mean; the text of DP004
        where one returns a quotient not proved either way (or means meet other values);
        None where none returns a quotient (or no class of this module is wrapped)."""
        if not self._wrap_classes():
            return None
        found = [
            self.returned(origin.node)
            for origin in origins(self.flow, loss, self.model_call)
            if isinstance(origin.node, cst.Call) and self.model_call(origin.node)
        ]
        reason = _combine(found, "the wrapped model")
        if not reason:
            return reason
        return (
            f"the losses a wrapped model's replicas return, {reason}: left unscaled "
            "(a sum needs * WORLD_SIZE, a mean nothing)"
        )

    def model_call(self, call: cst.Call) -> bool:
        """`call` calls a wrapped instance of a class of this module."""
        library = any(n.startswith(_LIBRARIES) for n in self.qualified_names(call.func))
        return not library and self.wrapped_class(call) is not None

    def divided(self, loss: cst.Call, parent: Callable[[cst.CSTNode], cst.CSTNode | None]) -> bool:
        """`loss` (times any factor) in a wrapped class's forward() is divided by the
        replica's batch size (no DP004 at its sum reduction)."""
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
        if forward.owner not in self._wrap_classes().values():
            return False
        return self._batch_size(node.right, forward, self.model_calls(forward.owner), 0)

    def wrapped_class(self, call: cst.Call) -> cst.ClassDef | None:
        """The class of this module whose instance the wrap `call` calls holds."""
        key = id(call)
        if key not in self._classes:
            wraps = self._wrap_classes()
            self._classes[key] = next(
                (
                    wraps[o.node]
                    for o in origins(self.flow, call.func)
                    if o.kind == "call"
                    and isinstance(o.node, cst.Call)
                    and o.node in wraps
                    and not _read_off(o)
                ),
                None,
            )
        return self._classes[key]

    def model_calls(self, owner: cst.ClassDef) -> list[cst.Call]:
        """The calls of this module of a wrapped instance of `owner`."""
        if owner not in self._calls:
            wraps = self._wrap_classes()
            self._calls[owner] = [
                c
                for c in self.flow.calls
                if isinstance(c.func, (cst.Name, cst.Attribute))
                and c not in wraps
                and self.model_call(c)
                and self.wrapped_class(c) is owner
            ]
        return self._calls[owner]

    def _wrap_classes(self) -> dict[cst.Call, cst.ClassDef]:
        if self._wraps is None:
            self._wraps = {}
            for call in self.flow.calls:
                if not self.qualified_names(call.func) & _WRAPS:
                    continue
                positional = [a.value for a in call.args if a.keyword is None and not a.star]
                owner = self._instance_class(positional[0]) if positional else None
                if owner is not None:
                    self._wraps[call] = owner
        return self._wraps

    def _instance_class(self, value: cst.BaseExpression) -> cst.ClassDef | None:
        found = {
            id(owner): owner
            for origin in origins(self.flow, value)
            if origin.kind == "instance" and isinstance(origin.node, cst.Call)
            for owner in [self.flow.class_called(origin.node)]
            if owner is not None
        }
        return next(iter(found.values())) if len(found) == 1 else None

    def _quotient(
        self, value: cst.BaseExpression, forward: Function, calls: list[cst.Call], depth: int
    ) -> str | None:
        """MEAN, a reason, or None (no quotient) for one returned value."""
        if depth > _DEPTH:
            return None
        if (
            isinstance(value, cst.Call)
            and isinstance(value.func, cst.Attribute)
            and value.func.attr.value in _KEEPS
        ):
            return self._quotient(value.func.value, forward, calls, depth + 1)
        if isinstance(value, cst.Name):
            bound = self.flow.reaching(value)
            if not bound or any(d.kind != "assign" or d.value is None or d.element for d in bound):
                return None
            found = [
                self._quotient(d.value, forward, calls, depth + 1)
                for d in bound
                if d.value is not None
            ]
            return _combine(found, f"`{value.value}`")
        if not isinstance(value, cst.BinaryOperation):
            return None
        if isinstance(value.operator, cst.Multiply) and isinstance(
            value.right, (cst.Integer, cst.Float)
        ):
            return self._quotient(value.left, forward, calls, depth + 1)
        if not isinstance(value.operator, cst.Divide):
            return None
        divisor = value.right
        if self._batch_size(divisor, forward, calls, 0):
            return MEAN if self.summed(forward, value.left) else None
        if isinstance(divisor, (cst.Integer, cst.Float)) or self.alike(divisor):
            return None  # a sum times a weight alike on every rank: scaled as a sum
        return (
            f"divided by `{code(divisor)}`, which is not proved the replica's batch size "
            "(nor a count alike on every rank)"
        )

    def _batch_size(
        self, divisor: cst.BaseExpression, forward: Function, calls: list[cst.Call], depth: int
    ) -> bool:
        """`divisor`, read in `forward`, is the size of the replica's batch."""
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
                and self._batch_size(d.value, forward, calls, depth + 1)
                for d in bound
            )
        if not (
            isinstance(divisor, cst.Attribute)
            and isinstance(divisor.value, cst.Name)
            and divisor.value.value == forward.self_name
        ):
            return False
        attr = divisor.attr.value
        stored = self._stored_in(forward, divisor, attr)
        if stored is not None:
            return self._batch_size(stored, forward, calls, depth + 1)
        return bool(calls) and all(self._stored_before(call, attr) for call in calls)

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


def _combine(found: list[str | None], where: str) -> str | None:
    """MEAN where every part is one; the first reason where a part has one; a reason where
    means and values of no quotient meet; else None."""
    reasons = [f for f in found if f]
    if reasons:
        return reasons[0]
    if found and all(f == MEAN for f in found):
        return MEAN
    if any(f == MEAN for f in found):
        return f"{where} returns a mean over the replica's rows on some paths only"
    return None
