"""The role of a loader whose batches a generator of the module hands on, from their uses.

A Dataset's own generator method builds a DataLoader and yields its batches
(`def create_iterator(self, bs): while True: for item in DataLoader(self, bs): yield item`);
the trainer keeps the generator (`self.sample_iterator = val_set.create_iterator(n)`) and
draws a fixed batch from it to save sample outputs (`x = next(self.sample_iterator)` in
`sample()`, the model under `no_grad()` or after `.eval()`). Nothing at the loader says
whether it is training data: read as such, it was sharded and the saved samples held this
rank's rows only (real-world: knazeri/edge-connect@3142579, class S1 of stop 31). The role
comes from how the batches are used: each call of the generator is followed to where its
batches are taken (`next(...)` of it or of the name or `self.attr` it is kept in, a `for`
over it), and the function taking them is judged:

* TRAINS: it (or a function of this module it calls) runs `.backward()`/`.step()`;
* SHOWS: it does not train, its batch's values leave it by no `return`/`yield`/`self.x =`,
  and it runs the model in evaluation context (`no_grad()` around, `.eval()` before);
* UNKNOWN: anything else (a generator of the module nobody here calls, a batch handed on).

A may-analysis over the module's def-use view (flow/defuse.py): one answer per loop, cached
per view (`generator_role`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from enum import Enum
from weakref import WeakKeyDictionary

import libcst as cst

from dp2ddp.flow import DefUse, view
from dp2ddp.transforms._support.grad_mode import grad_off
from dp2ddp.transforms._support.nodes import (
    ITER_WRAPPERS,
    derived_names,
    name_of,
    self_attribute,
    variables_under,
    walk,
)
from dp2ddp.transforms.analysis.training import own_callees


class Role(Enum):
    TRAINS = "trains"
    SHOWS = "shows"
    UNKNOWN = "unknown"


#: How many functions a call chain is followed into when asking whether it trains.
_MAX_DEPTH = 3
_CACHE: WeakKeyDictionary[DefUse, dict[cst.For, tuple[Role, str] | None]] = WeakKeyDictionary()


def generator_role(
    flow: DefUse,
    loop: cst.For,
    is_no_grad: Callable[[cst.BaseExpression], bool],
    told: tuple[tuple[str, str], ...] = (),
) -> tuple[Role, str] | None:
    """(role, generator name) of the batches `loop` yields from inside a generator function
    of the module; None when the loop does not yield its batches. `told`: (qualified
    name, role) of the calls other modules of the program make of generators by a name
    (ProgramLoaders.generator_takers; `module_generator_takers` there)."""
    cache = _CACHE.setdefault(flow, {})
    if loop not in cache:
        cache[loop] = _Roles(flow, is_no_grad).of(loop, told)
    return cache[loop]


def generator_takers(flow: DefUse, loop: cst.For) -> list[cst.CSTNode]:
    """The `for` loops and `next()` calls of the module taking the batches `loop` yields
    from inside a generator function (`def repeat(self, it): while True: for x in it:
    yield x`, kept as `self.sup_iter = self.repeat(loader)`, then `for i, batch in
    enumerate(tqdm(self.sup_iter))`): they take its loader's batches as a `for` over
    the loader does, so their running figures are this rank's share (DP030)."""
    return _Roles(flow, grad_off).takers(loop)


def loop_role(flow: DefUse, loop: cst.For | cst.FunctionDef) -> str:
    """What a loop does with the batches it takes: "trains" (it, or a function of this
    module it calls, runs `.backward()`/`.step()`), "evaluates" (not that, and in
    evaluation context: `no_grad()` in or around its function, `.eval()` there), else
    "unknown" (analysis/loader_consumers.py)."""
    roles = _Roles(flow, grad_off)
    if roles._trains(loop, 0):
        # `if train: loss.backward()`: one loop for both passes (class E1), its role
        # decided by each call's flag, not proved here
        return "unknown" if guarded_steps(flow, loop) else "trains"
    function = loop if isinstance(loop, cst.FunctionDef) else flow.function_around(loop)
    node = (
        function.node
        if function is not None and not isinstance(function, cst.FunctionDef)
        else function
    )
    if isinstance(node, cst.FunctionDef) and roles._evaluation_context(node, loop):
        return "evaluates"
    return "unknown"


def guarded_steps(flow: DefUse, loop: cst.For | cst.FunctionDef) -> bool:
    """Every `.backward()`/`.step()` written in `loop` runs under an `if` inside it."""
    steps = [
        n
        for n in walk(loop.body, skip_scopes=True)
        if isinstance(n, cst.Call)
        and isinstance(n.func, cst.Attribute)
        and n.func.attr.value in ("backward", "step")
    ]
    return bool(steps) and all(
        any(isinstance(a, cst.If) for a in _between(flow, step, loop)) for step in steps
    )


def _between(flow: DefUse, node: cst.CSTNode, top: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """The ancestors of `node` below `top`."""
    for above in flow.ancestors(node):
        if above is top:
            return
        yield above


def loader_generators(tree: cst.Module) -> set[str]:
    """Names of the module's functions whose loops yield their batches, in a module that
    names a DataLoader (what other modules' calls are read for: `module_generator_takers`)."""
    if "DataLoader" not in tree.code:
        return set()
    return {
        node.name.value
        for node in walk(tree)
        if isinstance(node, cst.FunctionDef)
        and any(
            isinstance(loop, cst.For)
            and any(isinstance(n, cst.Yield) for n in walk(loop.body, skip_scopes=True))
            for loop in walk(node.body, skip_scopes=True)
        )
    }


def module_generator_takers(module: str, tree: cst.Module, names: set[str]) -> dict[str, str]:
    """For a program module: the role of the batches taken from its calls of generators by
    one of `names` (defined in other modules), keyed `module.name`: "trains" where one
    call's batches reach a training, else "unknown" where one's are not followed, else
    "shows". The no_grad contexts are recognised by their names here (the module's
    qualified names are its own pass's)."""
    if not names:
        return {}
    flow = view(tree)
    roles = _Roles(flow, grad_off)
    found: dict[str, set[Role]] = {}
    for call in flow.calls:
        func = call.func
        name = (
            func.value
            if isinstance(func, cst.Name)
            else func.attr.value
            if isinstance(func, cst.Attribute)
            else None
        )
        if name in names and not flow.callees(call):
            found.setdefault(name, set()).update(roles.of_sites([call]))
    return {f"{module}.{name}": _verdict(kinds).value for name, kinds in found.items()}


def _verdict(roles: set[Role]) -> Role:
    if not roles or Role.TRAINS in roles:
        return Role.TRAINS if roles else Role.UNKNOWN
    return Role.UNKNOWN if Role.UNKNOWN in roles else Role.SHOWS


class _Roles:
    def __init__(self, flow: DefUse, is_no_grad: Callable[[cst.BaseExpression], bool]) -> None:
        self.flow = flow
        self.is_no_grad = is_no_grad

    def of(self, loop: cst.For, told: tuple[tuple[str, str], ...]) -> tuple[Role, str] | None:
        if not any(isinstance(n, cst.Yield) for n in walk(loop.body, skip_scopes=True)):
            return None
        function = self.flow.function_around(loop)
        if function is None or not isinstance(function.node, cst.FunctionDef):
            return None
        name = function.node.name.value
        sites = self.flow.call_sites(function)
        if name == "__iter__" and function.owner is not None:
            # Iterated by protocol: its batches are taken where the instances are.
            sites = [c for c in self.flow.calls if self.flow.class_called(c) is function.owner]
        roles = self.of_sites(sites)
        roles |= {Role(role) for key, role in told if key.rpartition(".")[2] == name}
        return _verdict(roles), name

    def takers(self, loop: cst.For) -> list[cst.CSTNode]:
        """The `for` loops and `next()` calls of the module that take the batches `loop`
        yields from inside a generator function (empty when it yields none)."""
        if not any(isinstance(n, cst.Yield) for n in walk(loop.body, skip_scopes=True)):
            return []
        function = self.flow.function_around(loop)
        if function is None or not isinstance(function.node, cst.FunctionDef):
            return []
        sites = self.flow.call_sites(function)
        if function.node.name.value == "__iter__" and function.owner is not None:
            return []  # taken where the instances are iterated: not followed here
        return [t for site in sites for t in self._taken(site) if t is not None]

    def of_sites(self, sites: list[cst.Call]) -> set[Role]:
        """The roles of the batches taken from the generators `sites` return."""
        return {self._judge(taken) for site in sites for taken in self._taken(site)}

    # -- where the generator's batches are taken ------------------------------------------
    def _taken(self, site: cst.Call) -> Iterator[cst.CSTNode | None]:
        """The `next(...)` calls and `for` loops that take the batches of the generator
        `site` returns; None for a use that is neither (handed on: not followed)."""
        holder = self._unwrap_iter(site)
        parent = self.flow.parent(holder)
        if self._taking(holder) is not None:
            yield self._taking(holder)
            return
        if isinstance(parent, cst.Assign) and len(parent.targets) == 1:
            target = parent.targets[0].target
            uses: list[cst.CSTNode]
            if isinstance(target, cst.Name):
                uses = list(self.flow.uses(self.flow.scope_of(target), target.value))
            elif self_attribute(target) is not None:
                uses = list(self._attribute_reads(target))
            else:
                uses = []
            if not uses:
                yield None
            for use in uses:
                yield self._taking(self._unwrap_iter(use))
            return
        yield None

    def _unwrap_iter(self, node: cst.CSTNode) -> cst.CSTNode:
        """The outermost of the wrappers around `node` that hand its items on as they come
        (`iter(g)`, `enumerate(tqdm(self.unsup_iter))`, `zip(g, h)`, `cycle(g)`): a `for`
        over them or a `next()` of them takes the generator's batches (class v1-E of stop
        39: UDA_pytorch's `for i, batch in enumerate(tqdm(self.unsup_iter))` was no taker,
        its generator's batches "not followed" (DP074), its running loss not said)."""
        while True:
            arg = self.flow.parent(node)
            call = self.flow.parent(arg) if isinstance(arg, cst.Arg) else None
            if not (
                isinstance(call, cst.Call)
                and isinstance(arg, cst.Arg)
                and name_of(call.func) in ITER_WRAPPERS
                and arg.keyword is None
                and not arg.star
                and (name_of(call.func) == "zip" or call.args[0] is arg)
            ):
                return node
            node = call

    def _taking(self, node: cst.CSTNode) -> cst.CSTNode | None:
        """`next(node)` or `for ... in node`, else None."""
        parent = self.flow.parent(node)
        if isinstance(parent, cst.For) and parent.iter is node:
            return parent
        call = self.flow.parent(parent) if isinstance(parent, cst.Arg) else None
        if (
            isinstance(call, cst.Call)
            and isinstance(call.func, cst.Name)
            and call.func.value == "next"
            and call.args[0].value is node
        ):
            return call
        return None

    def _attribute_reads(self, target: cst.BaseExpression) -> Iterator[cst.Attribute]:
        """The other `self.attr` expressions of the class whose method binds `target`."""
        attr = self_attribute(target)
        owner = next((a for a in self.flow.ancestors(target) if isinstance(a, cst.ClassDef)), None)
        if owner is None or attr is None:
            return
        for node in walk(owner.body):
            if node is not target and isinstance(node, cst.Attribute):
                if self_attribute(node) == attr:
                    yield node

    # -- what the taker does with them ----------------------------------------------------
    def _judge(self, taken: cst.CSTNode | None) -> Role:
        if taken is None:
            return Role.UNKNOWN
        function = self.flow.function_around(taken)
        scope_body: cst.CSTNode = (
            taken if isinstance(taken, cst.For) else function.node if function else taken
        )
        if self._trains(scope_body, 0):
            return Role.TRAINS
        if function is None or not isinstance(function.node, cst.FunctionDef):
            return Role.UNKNOWN
        batch = self._batch_names(function.node, taken)
        if self._escapes(function.node, batch):
            return Role.UNKNOWN
        return Role.SHOWS if self._evaluation_context(function.node, taken) else Role.UNKNOWN

    def _trains(self, node: cst.CSTNode, depth: int) -> bool:
        for call in walk(node, skip_scopes=True):
            if not isinstance(call, cst.Call):
                continue
            if isinstance(call.func, cst.Attribute) and call.func.attr.value in (
                "backward",
                "step",
            ):
                return True
            if depth < _MAX_DEPTH:
                for callee in own_callees(self.flow, call):
                    if self._trains(callee.body, depth + 1):
                        return True
        return False

    def _batch_names(self, function: cst.FunctionDef, taken: cst.CSTNode) -> set[str]:
        """Names of `function` bound from the batch `taken` gives and from those."""
        if isinstance(taken, cst.For):
            derived = {n.value for n in variables_under(taken.target)}
        else:
            statement = self.flow.parent(taken)
            derived = (
                {n.value for t in statement.targets for n in variables_under(t.target)}
                if isinstance(statement, cst.Assign)
                else set()
            )
        return derived_names(function.body, derived)

    def _escapes(self, function: cst.FunctionDef, batch: set[str]) -> bool:
        """A value of the batch leaves the function: returned, yielded, or kept in an
        attribute (`self.batch = x`) for another method."""
        for node in walk(function.body, skip_scopes=True):
            value: cst.BaseExpression | None = None
            if isinstance(node, (cst.Return, cst.Yield)):
                value = node.value if isinstance(node.value, cst.BaseExpression) else None
            elif isinstance(node, cst.Assign) and any(
                isinstance(t.target, (cst.Attribute, cst.Subscript)) for t in node.targets
            ):
                value = node.value
            if value is not None and any(n.value in batch for n in variables_under(value)):
                return True
        return False

    def _evaluation_context(self, function: cst.FunctionDef, taken: cst.CSTNode) -> bool:
        """`no_grad()` decorates the function or surrounds a statement of it, or a `.eval()`
        call is in it (the model switched to evaluation before the forward)."""
        if any(self.is_no_grad(d.decorator) for d in function.decorators):
            return True
        for node in walk(function.body, skip_scopes=True):
            if isinstance(node, cst.With) and any(self.is_no_grad(i.item) for i in node.items):
                return True
            if (
                isinstance(node, cst.Call)
                and isinstance(node.func, cst.Attribute)
                and node.func.attr.value == "eval"
                and not node.args
            ):
                return True
        return False
