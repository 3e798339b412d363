"""A gradient penalty's forward runs through `model.module`; its gradients are averaged.

A gradient penalty (WGAN-GP, R1) differentiates a model's output with respect to its input,
`torch.autograd.grad(out, x, create_graph=True)`, and backpropagates a function of that
gradient. Through a DDP wrapper this second backward breaks DDP's reducer: the next forward
fails on every rank with "Expected to have finished reduction in the prior iteration"
(static_graph=True does not help). Measured under torchrun with gloo (2 processes):

- the penalty's forward through `model.module` runs: the reducer's hooks act only on a
  backward that follows a DDP forward, so this backward is left alone, and the ranks'
  parameters drift apart (each stepped with its own penalty gradient);
- adding `ddp_average_gradients(model)` (templates/helpers/average_gradients.py.j2) after
  the penalty's backward and before the optimizer step keeps them equal, with the update
  DDP would have made;
- where the penalty shares its backward with DDP forwards (`(d_loss + gp).backward()`,
  which DDP already ran), the parameters are the same with and without the rewrite: DDP
  averaged the whole gradient, and the average of equal gradients is themselves.

So the rewrite is: the wrapped model's call whose output `torch.autograd.grad(...,
create_graph=True)` differentiates (in the call itself, or the last assignment of a name
it reads in the same block) becomes `model.module(...)`, and `ddp_average_gradients(model)`
follows the backward that carries the penalty (the first `.backward()` after the grad in
the same block whose loss is computed from the grad's result) when an optimizer `.step()`
follows it in that block and none comes between.

The inserted average is a collective: every rank must reach it equally often. Each
statement around it whose condition or iteration may differ between ranks (uniformity.py)
must also hold a DDP backward of the same model (a backward of a loss traced, assignment by
assignment, to a DDP forward of it) that is paired with the penalty's backward: every
condition or loop between that backward and the statement holds the penalty's backward
too. DDP's own reduction already needs every rank to reach that backward equally often,
or it would hang; paired, the penalty's backward is reached as often. Without a paired DDP
backward in the function, its call sites count too (uniformity.py's `unreached_call`). Where
the pattern does not match (model not wrapped by dp2ddp, backward or step not found, a step
before the backward) or the place cannot be proven, nothing is rewritten and DP023 names
the reason.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import libcst as cst

from dp2ddp.transforms._support.base import MigrationTransform
from dp2ddp.transforms._support.nodes import (
    call_named,
    calls_model,
    enclosing_function,
    inside,
    method_class,
    model_called,
    name_of,
    statement_header,
    variables_under,
    walk,
)
from dp2ddp.transforms.analysis.module_index import argument
from dp2ddp.transforms.analysis.uniformity import RankUniformity

#: Second-order gradients: with create_graph=True a gradient penalty (WGAN-GP, R1) follows.
_AUTOGRAD_GRAD = frozenset({"torch.autograd.grad"})
_BACKWARD = frozenset({"torch.autograd.backward"})
_HELPER = "ddp_average_gradients"
_BLOCKS = (cst.IndentedBlock, cst.Module)
#: Statements whose body may run a different number of times than the statement itself.
_CONDITIONAL = (cst.If, cst.For, cst.While, cst.ExceptHandler, cst.ExceptStarHandler)
#: How many assignments back a loss is traced to the model's forward.
_TRACE_DEPTH = 12


@dataclass(frozen=True)
class _Rewrite:
    """One penalty: the forward to reroute, the backward statement the average follows."""

    forward: cst.Call
    model: str
    backward: cst.SimpleStatementLine


class RoutePenaltyAroundDDP(MigrationTransform):
    NAME = "gradient_penalty"
    DESCRIPTION = (
        "Run a gradient penalty's forward through model.module and average its gradients "
        "over the ranks."
    )
    TRIGGERS = ("autograd",)

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self._uniform: RankUniformity | None = None
        #: id of a wrapped model's call -> the wrapped model's source (`self.D`).
        self._reroute: dict[int, str] = {}
        #: id of a penalty's backward statement -> the models whose gradients to average.
        self._average_after: dict[int, list[str]] = {}
        #: (id of an expression, id of its statement) -> computed from a DDP forward?
        self._traced: dict[tuple[int, int], bool] = {}

    def visit_Module(self, node: cst.Module) -> bool:
        """Plan every penalty first: its forward comes before it in the tree."""
        self._uniform = RankUniformity.for_pass(self, node)
        for call in walk(node):
            if (
                isinstance(call, cst.Call)
                and self.matches(call.func, _AUTOGRAD_GRAD)
                and creates_graph(call)
            ):
                self._plan_penalty(call)
        return True

    def _plan_penalty(self, node: cst.Call) -> None:
        self._traced.clear()  # the answers depend on the model and the rerouted call
        plan = self._plan(node)
        what = f"{self.code(node.func)}(..., create_graph=True)"
        if plan is None:
            return  # rewritten by an earlier run
        if isinstance(plan, str):
            if _inside_own_forward(self, node):
                return  # proved: no second backward through any DDP forward
            self.warn(node, "DP023", f"{what}: not rewritten: {plan}")
            return
        self.state.helpers.add("average_gradients")
        self._reroute[id(plan.forward)] = plan.model
        models = self._average_after.setdefault(id(plan.backward), [])
        if plan.model not in models:
            models.append(plan.model)
            self.record(
                plan.forward,
                f"the gradient penalty's forward runs through {plan.model}.module and "
                f"{_HELPER}({plan.model}) follows its backward: a second backward through "
                "DDP fails",
            )

    # -- the pattern ------------------------------------------------------------------
    def _plan(self, grad: cst.Call) -> _Rewrite | str | None:
        """The rewrite for `grad`, why there is none, or None when an earlier run made it
        (a `ddp_average_gradients(...)` statement follows in the same block)."""
        statement = self._statement(grad)
        block = self.parent(statement) if statement is not None else None
        if statement is None or not isinstance(block, _BLOCKS):
            return "it is not a statement of its own"
        body = list(block.body)
        at = next(i for i, s in enumerate(body) if s is statement)
        if any(_averages(later) for later in body[at + 1 :]):
            return None
        outputs = argument(grad, "outputs", 0)
        if outputs is None:
            return "its outputs are not given"
        forwards = self._wrapped_calls(outputs)
        if not forwards:
            read = {n.value for n in walk(outputs) if isinstance(n, cst.Name)}
            for name in read:
                value = _last_assigned(body[:at], name)
                if value is not None:
                    forwards += self._wrapped_calls(value)
        if len(forwards) != 1:
            return (
                "the output it differentiates does not come from one model dp2ddp wrapped "
                "in DDP (a call of it in the same block)"
            )
        forward, model = forwards[0]
        backward = _penalty_backward(self, body, at)
        if isinstance(backward, str):
            return backward
        if not any(_has_step(self, later) for later in body[body.index(backward) + 1 :]):
            return "no optimizer step follows its backward in the same block"
        unproven = self._unproven_place(backward, model, forward)
        if unproven is not None:
            return unproven
        return _Rewrite(forward, model, backward)

    def _wrapped_calls(self, expr: cst.CSTNode) -> list[tuple[cst.Call, str]]:
        """Calls of a model dp2ddp wrapped (`D(x)`, `self.D(x)`) under `expr`."""
        found = []
        for node in walk(expr, skip_scopes=True):
            if calls_model(node, self.state.wrapped):
                assert isinstance(node, cst.Call)
                found.append((node, self.code(model_called(node.func))))
        return found

    def _unproven_place(
        self, backward: cst.SimpleStatementLine, model: str, forward: cst.Call
    ) -> str | None:
        """Why not every rank may reach the average after `backward`; None when they do."""
        assert self._uniform is not None
        function = enclosing_function(backward, self)
        scope: cst.CSTNode = function if function is not None else self._uniform.module
        anchors = [
            call
            for call in walk(scope, skip_scopes=True)
            if isinstance(call, cst.Call) and self._ddp_backward(call, model, forward)
        ]
        for around in self._uniform.rank_dependent_statements(backward):
            if not any(self._paired(anchor, backward, around) for anchor in anchors):
                return f"`{statement_header(around)}` may differ between ranks"
        if function is not None and not any(
            self._paired(anchor, backward, function) for anchor in anchors
        ):
            call = self._uniform.unreached_call(function)
            if call is not None:
                return f"{function.name.value}() is called where not every rank may arrive"
        return None

    def _paired(self, anchor: cst.CSTNode, backward: cst.CSTNode, top: cst.CSTNode) -> bool:
        """`anchor` is inside `top`, and every condition or loop between them holds
        `backward` too: each pass through `top` that reaches `backward` reached `anchor`
        as often (so what DDP needs of `anchor`, equal counts on every rank, carries over)."""
        current = self.parent(anchor)
        while current is not None and current is not top:
            if isinstance(current, _CONDITIONAL) and not inside(backward, current, self):
                return False
            current = self.parent(current)
        return current is top

    def _ddp_backward(self, call: cst.Call, model: str, rerouted: cst.Call) -> bool:
        """`call` backpropagates a loss computed from a DDP forward of `model` (not the
        rerouted one), so DDP reduces there: every rank already reaches it equally often."""
        loss = _is_backward(self, call)
        statement = self._statement(call)
        return (
            loss is not None
            and statement is not None
            and self._from_ddp(loss, statement, model, rerouted, _TRACE_DEPTH)
        )

    def _from_ddp(
        self,
        expr: cst.CSTNode,
        statement: cst.CSTNode,
        model: str,
        rerouted: cst.Call,
        depth: int,
    ) -> bool:
        """`expr`, evaluated at `statement`, is computed from a DDP forward of `model`:
        such a call is in it, or in a value that a name it reads holds there."""
        key = (id(expr), id(statement))
        if key not in self._traced:
            self._traced[key] = False  # a value computed from itself: its other parts decide
            self._traced[key] = self._traced_from_ddp(expr, statement, model, rerouted, depth)
        return self._traced[key]

    def _traced_from_ddp(
        self,
        expr: cst.CSTNode,
        statement: cst.CSTNode,
        model: str,
        rerouted: cst.Call,
        depth: int,
    ) -> bool:
        for node in walk(expr, skip_scopes=True):
            if (
                isinstance(node, cst.Call)
                and node is not rerouted
                and self.code(model_called(node.func)) == model
            ):
                return True
        if depth == 0:
            return False
        names = {n.value for n in variables_under(expr)}
        return any(
            self._from_ddp(value, where, model, rerouted, depth - 1)
            for name in names
            for value, where in self._reaching_values(name, statement)
        )

    def _reaching_values(
        self, name: str, statement: cst.CSTNode
    ) -> list[tuple[cst.BaseExpression, cst.CSTNode]]:
        """The values `name` may hold when `statement` starts, each with the statement that
        assigns it: the last statement before it, in its block or the blocks around it,
        that binds `name` (in a compound statement: every assignment in it)."""
        current = statement
        while True:
            block = self.parent(current)
            if not isinstance(block, _BLOCKS):
                return []
            body = list(block.body)
            at = next(i for i, s in enumerate(body) if s is current)
            for earlier in reversed(body[:at]):
                if not _binds(earlier, name):
                    continue
                return [
                    (node.value, self._statement(node) or earlier)
                    for node in walk(earlier, skip_scopes=True)
                    if isinstance(node, cst.Assign)
                    and any(_names(t.target, name) for t in node.targets)
                ]
            owner = self.parent(block)
            if owner is None or isinstance(owner, (cst.FunctionDef, cst.Module)):
                return []
            current = owner
            while not isinstance(self.parent(current), _BLOCKS):
                above = self.parent(current)
                if above is None:
                    return []
                current = above

    def _statement(self, node: cst.CSTNode) -> cst.BaseStatement | None:
        current: cst.CSTNode | None = node
        while current is not None and not isinstance(self.parent(current), _BLOCKS):
            current = self.parent(current)
        return current if isinstance(current, cst.SimpleStatementLine) else None

    # -- the rewrite ------------------------------------------------------------------
    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        model = self._reroute.get(id(original_node))
        if model is None:
            return updated_node
        func = updated_node.func
        if isinstance(func, cst.Attribute) and model_called(func) is not func:
            # `D.forward(x)` -> `D.module.forward(x)`
            return updated_node.with_changes(
                func=func.with_changes(
                    value=cst.Attribute(value=func.value, attr=cst.Name("module"))
                )
            )
        return updated_node.with_changes(func=cst.Attribute(value=func, attr=cst.Name("module")))

    def leave_IndentedBlock(
        self, original_node: cst.IndentedBlock, updated_node: cst.IndentedBlock
    ) -> cst.IndentedBlock:
        return updated_node.with_changes(body=self._with_averages(original_node, updated_node))

    def leave_Module(self, original_node: cst.Module, updated_node: cst.Module) -> cst.Module:
        return updated_node.with_changes(body=self._with_averages(original_node, updated_node))

    def _with_averages(
        self,
        original: cst.IndentedBlock | cst.Module,
        updated: cst.IndentedBlock | cst.Module,
    ) -> list[cst.BaseStatement]:
        if not any(id(s) in self._average_after for s in original.body):
            return list(updated.body)
        body: list[cst.BaseStatement] = []
        for before, after in zip(original.body, updated.body, strict=True):
            body.append(after)
            models = self._average_after.get(id(before))
            if models:
                call = call_named(_HELPER, *(cst.Arg(cst.parse_expression(m)) for m in models))
                body.append(cst.SimpleStatementLine(body=[cst.Expr(call)]))
        return body


def _averages(statement: cst.CSTNode) -> bool:
    """`ddp_average_gradients(...)` (inserted by an earlier run)."""
    return (
        isinstance(statement, cst.SimpleStatementLine)
        and len(statement.body) == 1
        and isinstance(statement.body[0], cst.Expr)
        and isinstance(statement.body[0].value, cst.Call)
        and name_of(statement.body[0].value.func) == _HELPER
    )


def _inside_own_forward(transform: MigrationTransform, grad: cst.Call) -> bool:
    """`grad` is taken inside a module's own forward: in a method of its class that
    forward() reaches through `self.<method>(...)` calls, none of those methods
    backpropagates or calls a callable handed to it (a critic passed in), so the
    differentiated output comes from the class's own layers. A MAML inner loop
    (shirleyzhu233/PyTorch-MAML@eee3fe3, stop 61 v4-A): autograd.grad never accumulates
    into `.grad`, so DDP's hooks do not fire there; the outer loss's one backward per DDP
    forward then differentiates through it, as DataParallel's did."""
    function = enclosing_function(grad, transform)
    owner = method_class(function, transform) if function is not None else None
    if function is None or owner is None or not isinstance(owner.body, cst.IndentedBlock):
        return False
    methods = {m.name.value: m for m in owner.body.body if isinstance(m, cst.FunctionDef)}
    reached: set[str] = set()
    todo = ["forward"]
    while todo:
        name = todo.pop()
        if name in reached or name not in methods:
            continue
        reached.add(name)
        method = methods[name]
        handed = {p.name.value for p in method.params.params[1:]}
        handed |= {p.name.value for p in method.params.kwonly_params}
        for call in walk(method):
            if not isinstance(call, cst.Call):
                continue
            func = call.func
            if _is_backward(transform, call) is not None or (
                isinstance(func, cst.Name) and func.value in handed
            ):
                return False
            if (
                isinstance(func, cst.Attribute)
                and isinstance(func.value, cst.Name)
                and func.value.value == "self"
            ):
                todo.append(func.attr.value)
    return function.name.value in reached


def creates_graph(node: cst.Call) -> bool:
    """`create_graph=<anything but False>` (positionally the 5th argument)."""
    for index, arg in enumerate(node.args):
        if (arg.keyword is not None and arg.keyword.value == "create_graph") or (
            arg.keyword is None and index == 4 and not arg.star
        ):
            return not (isinstance(arg.value, cst.Name) and arg.value.value in ("False", "None"))
    return False


def _last_assigned(statements: Sequence[cst.CSTNode], name: str) -> cst.BaseExpression | None:
    """The value of the last plain assignment of `name` among `statements` (`out = ...`,
    `out, _, _ = ...`); None when the last binding is anything else or there is none."""
    for statement in reversed(statements):
        if not isinstance(statement, cst.SimpleStatementLine):
            if _binds(statement, name):
                return None
            continue
        for small in reversed(statement.body):
            if isinstance(small, cst.Assign) and any(_names(t.target, name) for t in small.targets):
                return small.value
            if _binds(small, name):
                return None
    return None


def _binds(node: cst.CSTNode, name: str) -> bool:
    for item in walk(node, skip_scopes=True):
        targets: list[cst.CSTNode] = []
        if isinstance(item, cst.Assign):
            targets = [t.target for t in item.targets]
        elif isinstance(item, (cst.AnnAssign, cst.AugAssign, cst.For)):
            targets = [item.target]
        elif isinstance(item, cst.AsName):
            targets = [item.name]
        if any(_names(target, name) for target in targets):
            return True
    return False


def _names(target: cst.CSTNode, name: str) -> bool:
    """The assignment target `target` (`out`, `out, _`) binds `name`."""
    return any(isinstance(n, cst.Name) and n.value == name for n in walk(target))


def _names_bound(statement: cst.SimpleStatementLine) -> set[str]:
    names: set[str] = set()
    for small in statement.body:
        if isinstance(small, cst.Assign):
            targets = [t.target for t in small.targets]
        elif isinstance(small, (cst.AnnAssign, cst.AugAssign)):
            targets = [small.target]
        else:
            continue
        for target in targets:
            names.update(n.value for n in walk(target) if isinstance(n, cst.Name))
    return names


def _reads(node: cst.CSTNode, names: set[str]) -> bool:
    return any(isinstance(n, cst.Name) and n.value in names for n in walk(node))


def _is_backward(transform: MigrationTransform, call: cst.Call) -> cst.CSTNode | None:
    """The loss that `call` backpropagates, or None when it is no backward."""
    func = call.func
    if isinstance(func, cst.Attribute) and func.attr.value == "backward":
        return func.value
    if transform.matches(func, _BACKWARD) and call.args:
        return call.args[0].value
    return None


def _has_step(transform: MigrationTransform, node: cst.CSTNode) -> bool:
    return any(
        isinstance(call, cst.Call)
        and isinstance(call.func, cst.Attribute)
        and call.func.attr.value == "step"
        for call in walk(node, skip_scopes=True)
    )


def _penalty_backward(
    transform: MigrationTransform, body: list[cst.BaseStatement], at: int
) -> cst.SimpleStatementLine | str:
    """The first statement after body[at] (the grad) in the same block that backpropagates
    a loss computed from the grad's result; or why there is none."""
    grad_statement = body[at]
    if not isinstance(grad_statement, cst.SimpleStatementLine):
        return "it is not a statement of its own"
    carried = _names_bound(grad_statement)
    if not carried:
        return "its result is not assigned"
    for statement in body[at + 1 :]:
        if not isinstance(statement, cst.SimpleStatementLine):
            if any(
                isinstance(c, cst.Call) and _is_backward(transform, c) is not None
                for c in walk(statement, skip_scopes=True)
            ):
                return "its backward is inside a nested block"
            if _has_step(transform, statement):
                return "an optimizer step comes before its backward"
            continue
        for small in statement.body:
            if isinstance(small, cst.Expr) and isinstance(small.value, cst.Call):
                loss = _is_backward(transform, small.value)
                if loss is not None and _reads(loss, carried):
                    return statement
            if _has_step(transform, small):
                return "an optimizer step comes before its backward"
        if _reads(statement, carried):
            carried |= _names_bound(statement)
    return "no backward of the penalty follows in the same block"
