"""Which outputs of a wrapped model's calls reach the program's loss (DP041).

DataParallel does not mind a forward() that computes outputs no loss uses; DDP waits for
the gradients of the layers that fed them and fails at the next step ("Expected to have
finished reduction in the prior iteration"), or, with static_graph=True, at the third
(JiawangBian/SC-SfMLearner-Release@681a0e7, stop 40 class v1-F: a multi-scale depth net
whose training loop keeps `net(img)[:num_scales]`). Whether a step drops an output is a
question of the program's code after the call, not of forward() alone.

The proof: each gradient-enabled call of the wrapped model (as spelled at the wrap:
`net`, `self.net`, also `.forward`), its result followed over the module's def-use view
(dp2ddp/flow) through names, unpacking, subscripts and slices, lists and comprehensions
that hold the results (one level per container), loops over them, the module's own
functions it is handed to (the parameter's uses), and `return` (the function's calls). A
read of the whole value by anything else (a library function: `sum(out)`, `torch.stack`,
`criterion(out, y)`; arithmetic; a method of it) reaches every output. What is not
followed (handed to a callable of another module of the program or to an object whose
class is not known, stored in an attribute or a container, returned from a function
whose calls are elsewhere) is said as not followed: the caller judges it by what
forward() returns, never assumes it reached.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import libcst as cst

from dp2ddp.flow import DefUse, code
from dp2ddp.flow.defuse import Function

#: Kept.unknown of an output read only under a condition its binding is not under.
CONDITIONAL = "read under a condition"
#: How deep the following goes (names, calls, containers together).
_DEPTH = 8


@dataclass(frozen=True)
class Kept:
    """What the program reads of one call's outputs: `whole` (every output reached), else
    the indices `kept` (an unpacking of `arity` names; 0: a subscript, any length), or
    `unknown` (why the following did not finish; "" when it did). `node` is where the part
    was taken or the following stopped, `how` says it."""

    whole: bool = False
    kept: frozenset[int] = frozenset()
    arity: int = 0
    unknown: str = ""
    node: cst.CSTNode | None = None
    how: str = ""

    def join(self, other: Kept) -> Kept:
        """Two reads of the same value: what either reaches."""
        if self.whole or other.whole:
            return _WHOLE
        first = self if self.node is not None else other
        if other.unknown and not self.unknown:
            first = other  # what was not proved is what the message says
        return Kept(
            False,
            self.kept | other.kept,
            self.arity or other.arity,
            self.unknown or other.unknown,
            first.node,
            first.how,
        )


_WHOLE = Kept(whole=True)


def model_calls(view: DefUse, target: str) -> list[cst.Call]:
    """The calls of `target` (as spelled; `target.forward(...)` too) not under a block or a
    function that switches gradients off (an evaluation dropping an output is no step)."""
    found = []
    for call in view.calls:
        func = call.func
        if isinstance(func, cst.Attribute) and func.attr.value == "forward":
            func = func.value
        if _spelled(func) == target and not _quiet(view, call):
            found.append(call)
    return found


def kept_outputs(view: DefUse, call: cst.Call, program: Callable[[cst.Call], bool | None]) -> Kept:
    """What the program reads of `call`'s result. `program(call)`: True for a callable of
    another module of the program (not followed), False for a library's or a builtin (a
    whole read), None where it is not known (not followed)."""
    return _Follow(view, program).value(call, 0, 0)


class _Follow:
    def __init__(self, view: DefUse, program: Callable[[cst.Call], bool | None]) -> None:
        self.view = view
        self.program = program
        self.seen: set[tuple[int, int]] = set()

    def value(self, expr: cst.CSTNode, level: int, depth: int) -> Kept:
        """Follow `expr`, a value holding the outputs `level` containers deep (0: the
        call's result itself; -1: one output, or a value computed from it, taken by a loop
        over them: `[1 / d for d in net(x)]` is again a list of the outputs)."""
        if depth > _DEPTH or (id(expr), level) in self.seen:
            return Kept(unknown="followed too far", node=expr, how="not followed further")
        self.seen.add((id(expr), level))
        parent = self.view.parent(expr)
        if level < 0:
            return self.element(expr, parent, depth)
        if isinstance(parent, cst.Subscript) and parent.value is expr:
            if level:
                return self.value(parent, level - 1, depth + 1)
            taken = _subscript(parent)
            if len(taken.kept) == 1 and not taken.unknown:
                # the output taken is followed in turn: bound to a name read only under
                # a condition, or never, it is not kept (MaxSquareLoss's `pred_2 = pred[1]`)
                output = self.value(parent, -1, depth + 1)
                if not output.whole and output.unknown in ("", CONDITIONAL):
                    # proved unread in some step; an output followed no further (returned,
                    # handed on) stays taken
                    return Kept(unknown=output.unknown, node=output.node, how=output.how)
            return taken
        if isinstance(parent, (cst.Assign, cst.AnnAssign)) and parent.value is expr:
            targets = (
                [t.target for t in parent.targets]
                if isinstance(parent, cst.Assign)
                else [parent.target]
            )
            found: Kept | None = None
            for target in targets:
                got = self.target(target, parent, level, depth)
                found = got if found is None else found.join(got)
            return found or _WHOLE
        if isinstance(parent, cst.Arg) and parent.value is expr:
            return self.argument(parent, level, depth)
        if isinstance(parent, cst.Return) and parent.value is expr:
            return self.returned(expr, level, depth)
        if isinstance(parent, cst.Element) and parent.value is expr:
            holder = self.view.parent(parent)
            if isinstance(holder, (cst.List, cst.Tuple, cst.Set)):
                return self.value(holder, level + 1, depth + 1)
        if isinstance(parent, (cst.ListComp, cst.GeneratorExp, cst.SetComp)) and parent.elt is expr:
            return self.value(parent, level + 1, depth + 1)
        if isinstance(parent, (cst.For, cst.CompFor)) and parent.iter is expr:
            return self.target(parent.target, parent, level - 1, depth)
        if isinstance(parent, cst.Expr) and not level:
            return Kept(node=parent, how=f"`{code(parent)}` reads none of its outputs")
        return _WHOLE

    def element(self, expr: cst.CSTNode, parent: cst.CSTNode | None, depth: int) -> Kept:
        """One output (level -1): arithmetic keeps it one; a comprehension of such, with
        no filter or nested loop, is a list of the outputs again (level 0); a name, a
        helper's parameter, a return are followed; any other read reaches it, and the loop
        reads every one of them."""
        if isinstance(parent, (cst.BinaryOperation, cst.UnaryOperation)):
            return self.value(parent, -1, depth + 1)
        if (
            isinstance(parent, (cst.ListComp, cst.GeneratorExp))
            and parent.elt is expr
            and parent.for_in.inner_for_in is None
            and not parent.for_in.ifs
        ):
            return self.value(parent, 0, depth + 1)
        if isinstance(parent, cst.Assign) and parent.value is expr:
            targets = [t.target for t in parent.targets]
            if all(isinstance(t, cst.Name) for t in targets):
                found = Kept(node=parent)
                for each in targets:
                    assert isinstance(each, cst.Name)
                    found = found.join(self.name(each, -1, depth))
                return found
        if isinstance(parent, cst.Arg) and parent.value is expr:
            return self.argument(parent, -1, depth)
        if isinstance(parent, cst.Return) and parent.value is expr:
            return self.returned(expr, -1, depth)
        return _WHOLE

    def target(self, target: cst.CSTNode, statement: cst.CSTNode, level: int, depth: int) -> Kept:
        """A binding of the value: a name's reads that this binding reaches; an unpacking
        (of the outputs themselves: which names are read; of a container: each name
        holds outputs); anything else (an attribute, an item) is not followed."""
        if isinstance(target, cst.Name):
            return self.name(target, level, depth)
        if level < 0:
            return _WHOLE  # an output unpacked: its parts are tensors of it
        if isinstance(target, (cst.Tuple, cst.List)):
            if level:
                found = Kept(node=statement)
                for element in target.elements:
                    if isinstance(element.value, cst.Name):
                        found = found.join(self.name(element.value, level - 1, depth))
                    else:
                        return Kept(unknown="unpacked", node=statement, how=_how(statement))
                return found
            kept: set[int] = set()
            for index, element in enumerate(target.elements):
                if isinstance(element, cst.StarredElement):
                    return _WHOLE
                if not isinstance(element.value, cst.Name) or (
                    element.value.value != "_" and self._reads(element.value)
                ):
                    kept.add(index)  # read, or stored on (a state carried: `hidden[i]`),
                    # or unpacked again (`(loss_g, loss_d), _ = model(x)`): reached
            if len(kept) == len(target.elements):
                return _WHOLE
            return Kept(
                kept=frozenset(kept), arity=len(target.elements), node=statement,
                how=f"`{code(statement, 60)}` leaves some of them unread",
            )  # fmt: skip
        return Kept(
            unknown="stored", node=statement,
            how=f"`{code(statement, 60)}` stores them where they are not followed",
        )  # fmt: skip

    def name(self, target: cst.Name, level: int, depth: int) -> Kept:
        """The reads of a name bound to the value (those the binding may reach). A read
        under a condition the binding is not under (`if args.multi: loss += crit(aux, y)`)
        reaches the outputs in some steps only: where no other read reaches them, the
        step the condition is false leaves them unread (round 37, ZJULearning/
        MaxSquareLoss@2fbc18f: its auxiliary head's loss under a flag, off by default;
        DDP failed at step 2 with no warning)."""
        uses = self._uses(target)
        if not uses:
            if level:  # a container never read: judged where it is made; an output: each
                return _WHOLE  # a container of outputs never read: judged where it is made
            return Kept(node=target, how=f"`{target.value}` is never read")
        found: Kept | None = None
        for use in uses:
            if not level and self._typed_away(target, use):
                continue
            got = self.value(use, level, depth + 1)
            test = _condition_between(self.view, target, use)
            if (
                test is not None
                and (got.whole or got.unknown not in ("", CONDITIONAL))
                and not _tests_sequence(test, target.value)
            ):
                # read (or handed where it is not followed: `self.crit(aux, y)`) only
                # when the test holds: not read in the steps it fails (a test that the
                # result is a tuple holds wherever several outputs are at stake)
                got = Kept(
                    unknown=CONDITIONAL, node=test,
                    how=f"`{target.value}` is read only when `{code(test, 60)}`",
                )  # fmt: skip
            if got.whole:
                return _WHOLE
            found = got if found is None else found.join(got)
        return found or _WHOLE

    def argument(self, arg: cst.Arg, level: int, depth: int) -> Kept:
        """Handed to a call: the module's own function's parameter is followed; a
        library's callable reads it whole; the rest is not followed."""
        call = self.view.parent(arg)
        if not isinstance(call, cst.Call) or arg.star:
            return _WHOLE
        func = call.func
        if isinstance(func, cst.Attribute) and func.attr.value in ("append", "extend", "insert"):
            return Kept(
                unknown="collected", node=call,
                how=f"`{code(call, 60)}` collects them into a container not followed",
            )  # fmt: skip
        if isinstance(func, cst.Name) and func.value in _INSPECTING:
            return Kept(node=call, how=f"`{code(call, 60)}` reads none of its outputs")
        callees = self.view.callees(call)
        if callees:
            found: Kept | None = None
            for function in callees:
                param = _param_for(function, call, arg)
                if param is None:
                    return Kept(unknown="handed on", node=call, how=_how(call))
                got = self.name(param.name, level, depth + 1)
                found = got if found is None else found.join(got)
            return found or _WHOLE
        if self.program(call) is False:
            return _WHOLE
        return Kept(unknown="handed on", node=call, how=_how(call))

    def returned(self, expr: cst.CSTNode, level: int, depth: int) -> Kept:
        function = self.view.function_around(expr)
        sites = self.view.call_sites(function) if function is not None else []
        if not sites:
            return Kept(
                unknown="returned", node=expr,
                how=f"`return {code(expr)}` hands them to callers not followed",
            )  # fmt: skip
        found: Kept | None = None
        for site in sites:
            got = self.value(site, level, depth + 1)
            found = got if found is None else found.join(got)
        return found or _WHOLE

    def _uses(self, target: cst.Name) -> list[cst.Name]:
        """The loads of `target`'s name that its binding may reach (a parameter's too)."""
        param = self.view.parent(target)
        bound: cst.CSTNode = param if isinstance(param, cst.Param) else target
        scope = self.view.scope_of(bound)
        return [
            use
            for use in self.view.uses(scope, target.value)
            if any(d.target is bound for d in self.view.reaching(use))
        ]

    def _typed_away(self, target: cst.Name, use: cst.Name) -> bool:
        """`use` is reached by `target`'s binding only where a test of its type failed: a
        rebinding inside `if isinstance(name, tuple):` reaches it too (`if isinstance(pred,
        tuple): pred_2, pred = pred[1], pred[0]`, then `crit(pred, y)`: MaxSquareLoss's
        auxiliary head). The model's result is a tuple wherever several outputs are at
        stake (the only case this following decides), so that test holds and the binding
        does not reach the use whole."""
        for definition in self.view.reaching(use):
            if definition.target is target:
                continue
            for node in self.view.ancestors(definition.target):
                if isinstance(node, cst.If) and _tests_sequence(node.test, target.value):
                    return True
        return False

    def _reads(self, target: cst.Name) -> bool:
        return bool(self._uses(target))


#: Builtins that look at a value without computing from it: no gradient reaches it there
#: (`if isinstance(pred, tuple): pred, aux = pred` reads neither output).
_INSPECTING = frozenset({"isinstance", "len", "type", "hasattr", "callable", "id"})


def _tests_sequence(test: cst.CSTNode, name: str) -> bool:
    """`isinstance(name, tuple)`, `isinstance(name, (list, tuple))`."""
    if not (
        isinstance(test, cst.Call)
        and isinstance(test.func, cst.Name)
        and test.func.value == "isinstance"
        and len(test.args) == 2
        and isinstance(test.args[0].value, cst.Name)
        and test.args[0].value.value == name
    ):
        return False
    kinds = test.args[1].value
    names = [e.value for e in kinds.elements] if isinstance(kinds, cst.Tuple) else [kinds]
    return any(isinstance(n, cst.Name) and n.value in ("tuple", "list") for n in names)


def _condition_between(view: DefUse, target: cst.Name, use: cst.CSTNode) -> cst.CSTNode | None:
    """The test of an `if`, a conditional expression or a `while` that `use` lies under
    (in its body or else) and the binding `target` does not; None where there is none."""
    around = set(map(id, view.ancestors(target)))
    child: cst.CSTNode = use
    for node in view.ancestors(use):
        if id(node) in around:
            return None
        if isinstance(node, (cst.If, cst.While)) and child is not node.test:
            return node.test
        if isinstance(node, cst.IfExp) and child is not node.test:
            return node.test
        child = node
    return None


def _subscript(node: cst.Subscript) -> Kept:
    """`out[0]`, `out[:2]`: the constant indices kept; a computed one: not known which."""
    how = f"`{code(node, 60)}`"
    if len(node.slice) != 1:
        return Kept(unknown="indexed", node=node, how=how)
    part = node.slice[0].slice
    if isinstance(part, cst.Index):
        index = _int(part.value)
        if index is not None and index >= 0:
            return Kept(kept=frozenset({index}), node=node, how=how)
        if isinstance(part.value, cst.SimpleString):
            return _WHOLE  # a key of a dict of outputs: not what this reads
        return Kept(unknown="an index computed at run time", node=node, how=how)
    if isinstance(part, cst.Slice):
        lower = _int(part.lower) if part.lower is not None else 0
        upper = _int(part.upper) if part.upper is not None else None
        if part.step is None and lower == 0 and part.upper is None:
            return _WHOLE
        if lower is not None and upper is not None and part.step is None and 0 <= lower:
            return Kept(kept=frozenset(range(lower, upper)), node=node, how=how)
        return Kept(unknown="a slice bounded at run time", node=node, how=how)
    return Kept(unknown="indexed", node=node, how=how)


def _param_for(function: Function, call: cst.Call, arg: cst.Arg) -> cst.Param | None:
    """The parameter of `function` that `arg` of `call` binds (a method's self skipped)."""
    params = list(function.params)
    if function.self_name is not None and isinstance(call.func, cst.Attribute):
        params = params[1:]
    if arg.keyword is not None:
        return next((p for p in params if p.name.value == arg.keyword.value), None)
    position = [a for a in call.args if a.keyword is None].index(arg)
    return params[position] if position < len(params) else None


def _int(node: cst.BaseExpression | None) -> int | None:
    if isinstance(node, cst.Integer):
        return int(node.evaluated_value)
    return None


def _how(node: cst.CSTNode) -> str:
    return f"`{code(node, 60)}` hands them on, not followed"


def _quiet(view: DefUse, node: cst.CSTNode) -> bool:
    """Under `with torch.no_grad():` / `inference_mode()`, or in a function decorated so."""

    def off(expr: cst.BaseExpression) -> bool:
        if isinstance(expr, cst.Call):
            expr = expr.func
        name = expr.attr.value if isinstance(expr, cst.Attribute) else getattr(expr, "value", "")
        return name in ("no_grad", "inference_mode")

    for ancestor in view.ancestors(node):
        if isinstance(ancestor, cst.With) and any(off(i.item) for i in ancestor.items):
            return True
        if isinstance(ancestor, cst.FunctionDef) and any(
            off(d.decorator) for d in ancestor.decorators
        ):
            return True
    return False


def _spelled(node: cst.BaseExpression) -> str | None:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name):
        return f"{node.value.value}.{node.attr.value}"
    return None
