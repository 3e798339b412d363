"""`origins(view, expr)`: where a value may come from, with the path it took.

A backward walk over the def-use view (dp2ddp/flow/defuse.py), iterative and bounded: each
(node, calling context) is visited once per question, so a question costs at most the size
of the module. What it goes through, and the step it records:

* names -> their definitions (every binding in scope: loops' `i += n` included), `self.x`
  -> its bindings in the class's methods, `a.b` and `a[k]` -> what `a` holds (and the key or
  index, `indexed by`), `d["x"] = v` / `args.x = v` -> v is part of what d / args holds;
* unpacking (`a, b = f()`: the walk follows the whole value; where it is a literal tuple of
  the same length, only the element), slices, operators, f-strings and `.format()`,
  `os.path.join` / `pathlib` (`Path(a) / b`), containers;
* calls of this module's functions -> their `return`s and `yield`s, parameters -> the
  argument each call passes (the call the walk came through where there is one, else every
  call site of the module: a parameter no call of this module passes is a source of kind
  `parameter`); methods through `x.name(...)`, constructors through `__init__`;
* iteration: a `for` target, `next(it)`, `iter(x)` ask for an element: an element of a
  call of a generator is what it yields, of an instance of this module's class what its
  `__next__` returns / `__iter__` yields / `__getitem__` returns, of a container what it
  holds;
* conversions that keep the data (`torch.from_numpy`, `torch.tensor`, `np.asarray`,
  `enumerate`, `zip`, `list`, `tqdm`, any method of a value: `.to()`, `.view()`,
  `.float()`...) -> their receiver and arguments; a conversion given the value first
  (`Variable(x, flag)`, flow/carriers.py) -> its first argument, the rest shape it.

Sources (`Origin.kind`): `constant` (a literal), `call` (a call the walk does not enter: a
library function, `torch.zeros(...)`, `DataLoader(...)`, `np.random.permutation(n)`; its
node is the Call), `parameter` (a parameter no call of this module binds), `import` (a name
bound by an import: what another module gives; the program model answers for those),
`global` (a name with no binding in the module: a builtin), `definition` (a function or
class object), `instance` (an instance of a class of this module), `attribute` (`self.x`
never bound in the class), `unknown` (the walk's bound was reached, an expression it does
not read, or an element taken out of a store other code fills, `self.queue.get()`, where
not all its puts are known (flow/stores.py; where they are, the values put are followed):
say so, never assume).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import libcst as cst

from dp2ddp.flow.carriers import TRANSPARENT, kept_argument
from dp2ddp.flow.defuse import Definition, DefUse, Function, Scope
from dp2ddp.flow.elements import element_of, keyed, literal_key
from dp2ddp.flow.stores import puts
from dp2ddp.flow.text import code

#: Methods taking out an element put into their receiver (`q.get()`, `items.pop()`).
TAKEN = frozenset({"get", "get_nowait", "popleft", "pop"})
#: Decorators (by their last name) that leave what a function returns as it is.
_KEEP_RETURNS = frozenset(
    {
        "no_grad", "inference_mode", "enable_grad", "set_grad_enabled", "wraps",
        "lru_cache", "cache", "cached_property", "property", "staticmethod", "classmethod",
        "abstractmethod", "overload", "override", "script", "ignore", "unused", "export",
        "autocast", "custom_fwd", "custom_bwd", "compile", "njit", "jit", "timeit",
    }
)  # fmt: skip
#: Library calls allocating an array or tensor: their arguments are its sizes, not data
#: it holds (`np.zeros((len(idx), T, D))`: round 31, Seanny123/da-rnn@1db1e79, split twice).
ALLOCATIONS = frozenset({"zeros", "ones", "empty", "full"})
#: Calls that take an element of what they are given.
ELEMENT = frozenset({"next", "iter"})
#: The most work items one question visits (a module's size bounds it anyway).
BUDGET = 20_000
#: How many calls deep the walk enters functions.
MAX_CALLS = 6
#: The deepest unpacked element told apart (`out, aux = out` in a loop); deeper, the whole.
MAX_PICK = 4


#: The most hops a flow's text tells (Origin.flow): the source's end and the sink's.
_FLOW_HOPS = 16


@dataclass(frozen=True, eq=False)
class Step:
    """One hop of a flow: the node the value passed through and how (`what`)."""

    node: cst.CSTNode
    what: str
    index: bool = False  # the value selects (a key, an index, a slice's bound)
    shapes: bool = False  # the value shapes it (a method's argument: `x.view(n)`, a dtype=)
    call: bool = False  # a call of this module's function the walk entered (node: the Call)
    cut: bool = False  # the value is a part of this node's (sliced, indexed, iterated)


@dataclass(frozen=True, eq=False)
class Origin:
    """A source the value may come from: its kind (see the module docstring), its node,
    and the path from the source to the expression asked about (source first)."""

    kind: str
    node: cst.CSTNode
    path: tuple[Step, ...]

    @property
    def selects(self) -> bool:
        """The source reaches the value as a key, index or slice bound (`X[idx]`: the
        sources of idx) or as an argument that shapes it (`x.view(n)`, `dtype=`,
        `"{}".format(a)`), not as the data itself."""
        return any(step.index or step.shapes for step in self.path)

    @property
    def selection(self) -> bool:
        """The source reaches the value only as a key, index or slice bound."""
        return any(step.index for step in self.path) and not any(step.shapes for step in self.path)

    @property
    def cut(self) -> bool:
        """The value is a part of the source's (a slice, an item, an element of an
        iteration) on the way: a batch cut from data, not the data whole."""
        return any(step.cut for step in self.path)

    def entered(self) -> list[cst.Call]:
        """The calls of the module's functions the path went through, source side first
        (a parameter on the path is bound by the argument of the first such call of its
        function after it)."""
        return [s.node for s in self.path if s.call and isinstance(s.node, cst.Call)]

    def flow(self, position: Callable[[cst.CSTNode], tuple[int, int] | None]) -> str:
        """`source at 12:8 → x at 13:0 → model(x) at 14:4`: the path as a warning's text;
        `position` gives a node's 1-based line and 0-based column (the pass's positions).
        A hop already told is not told again (a name rebound from itself, `batch = {k:
        v for k, v in batch.items()}`, is walked around the loop: a path of thousands of
        hops once made one warning line of 210 KB), and a long path keeps its ends."""
        parts: list[str] = []
        told: set[str] = set()
        for step in self.path:
            where = position(step.node)
            text = step.what + (f" at {where[0]}:{where[1]}" if where else "")
            if text not in told:
                parts.append(text)
                told.add(text)
        if len(parts) > _FLOW_HOPS:
            parts = [*parts[: _FLOW_HOPS // 2], "…", *parts[1 - _FLOW_HOPS // 2 :]]
        return " → ".join(parts)


Context = tuple[tuple[cst.Call, Function], ...]
"""The calls the walk entered, innermost last: a parameter reached maps to the argument
of the innermost call of its function."""


@dataclass(frozen=True)
class _Item:
    node: cst.CSTNode
    steps: tuple[Step, ...]  # sink first
    context: Context
    element: bool  # an element of the value is asked for (iteration)
    pick: tuple[int, ...] = ()  # the element an unpacking target takes, still to find
    selects: bool = False  # some step so far selects or shapes (see Origin.selects)
    key: str | None = None  # the item a literal key takes of a dict literal, still to find


_Stop = Callable[[cst.Call], bool] | None


def origins(
    view: DefUse,
    expr: cst.BaseExpression,
    stop: Callable[[cst.Call], bool] | None = None,
    free: Function | None = None,
) -> list[Origin]:
    """The sources `expr` may come from (see the module docstring), each once per source
    node, kind and role (data or selection), with the first path found to it. `stop`: calls
    the walk must not enter or go through (a wrapped model's call: its output is a source
    of kind `call`). `free`: a function whose parameters are sources, whatever is passed."""
    return _Walk(view, stop, free).run(expr)


class _Walk:
    def __init__(self, view: DefUse, stop: _Stop = None, free: Function | None = None) -> None:
        self.view = view
        self.stop = stop
        self.free = free
        self.found: dict[tuple[int, str, bool], Origin] = {}
        self.seen: set[tuple[int, Context, bool, tuple[int, ...], bool, str | None]] = set()
        self.todo: list[_Item] = []

    def run(self, expr: cst.BaseExpression) -> list[Origin]:
        self.todo.append(_Item(expr, (Step(expr, code(expr)),), (), False))
        budget = BUDGET
        while self.todo:
            item = self.todo.pop()
            key = (id(item.node), item.context, item.element, item.pick, item.selects, item.key)
            if key in self.seen:
                continue
            self.seen.add(key)
            budget -= 1
            if budget < 0:
                self._source("unknown", item)
                break
            self._visit(item)
        return list(self.found.values())

    # == helpers ========================================================================
    def _source(self, kind: str, item: _Item) -> None:
        # one data path and one selecting path per source: the first path found to a
        # source may be its size (`data.size(0)`), and the data path must not be lost
        key = (id(item.node), kind, item.selects)
        if key not in self.found:
            steps = tuple(reversed(item.steps))
            if not steps or steps[0].node is not item.node:
                steps = (Step(item.node, code(item.node)), *steps)
            self.found[key] = Origin(kind, item.node, steps)

    def _go(
        self,
        item: _Item,
        node: cst.CSTNode,
        what: str | None = None,
        *,
        element: bool | None = None,
        context: Context | None = None,
        pick: tuple[int, ...] | None = None,
        index: bool = False,
        cut: bool = False,
        shapes: bool = False,
        key: str | None = None,
    ) -> None:
        step = Step(node, what or "", index, cut=cut, shapes=shapes)
        steps = item.steps if what is None else (*item.steps, step)
        self.todo.append(
            _Item(
                node,
                steps,
                item.context if context is None else context,
                item.element if element is None else element,
                item.pick if pick is None else pick,
                item.selects or index or shapes,
                key if key is not None else item.key if pick is None else None,
            )
        )

    # == the walk =======================================================================
    def _visit(self, item: _Item) -> None:
        node = item.node
        if isinstance(node, cst.Name):
            self._name(item, node)
        elif isinstance(node, (cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString)):
            self._source("constant", item)
        elif isinstance(node, cst.ConcatenatedString):
            self._go(item, node.left)
            self._go(item, node.right)
        elif isinstance(node, cst.FormattedString):
            parts = [
                p.expression for p in node.parts if isinstance(p, cst.FormattedStringExpression)
            ]
            if not parts:
                self._source("constant", item)
            for expression in parts:
                self._go(item, expression, code(expression))
        elif isinstance(node, cst.Attribute):
            self._attribute(item, node)
        elif isinstance(node, cst.Subscript):
            key = literal_key(node)  # `state["loader"]`: that item of a dict literal
            self._go(item, node.value, code(node.value), pick=(), cut=True, key=key)
            for subscript in node.slice:
                index = subscript.slice
                if isinstance(index, cst.Index):
                    what = f"indexed by {code(index.value)}"
                    self._go(item, index.value, what, element=False, pick=(), index=True)
                elif isinstance(index, cst.Slice):
                    for bound in (index.lower, index.upper):
                        if bound is not None:
                            what = f"sliced by {code(bound)}"
                            self._go(item, bound, what, element=False, pick=(), index=True)
        elif isinstance(node, cst.Call):
            self._call(item, node)
        elif isinstance(node, (cst.BinaryOperation, cst.BooleanOperation)):
            self._go(item, node.left)
            self._go(item, node.right)
        elif isinstance(node, cst.UnaryOperation):
            self._go(item, node.expression)
        elif isinstance(node, cst.Comparison):
            self._go(item, node.left)
            for target in node.comparisons:
                self._go(item, target.comparator)
        elif isinstance(node, cst.IfExp):
            self._go(item, node.body)
            self._go(item, node.orelse)
        elif isinstance(node, (cst.Tuple, cst.List)) and item.pick:
            first, rest = item.pick[0], item.pick[1:]
            chosen = node.elements[first] if first < len(node.elements) else None
            if chosen is None or any(isinstance(e, cst.StarredElement) for e in node.elements):
                for element in node.elements:
                    self._go(item, element.value, element=False, pick=())
            else:
                self._go(item, chosen.value, element=False, pick=rest)
        elif isinstance(node, (cst.Tuple, cst.List, cst.Set)):
            if not node.elements:
                self._source("constant", item)
            for element in node.elements:
                self._go(item, element.value, element=False)
        elif isinstance(node, cst.Dict):
            if not node.elements:
                self._source("constant", item)
            taken = keyed(node, item.key)
            if taken is not None:
                self._go(item, taken, element=False, pick=())
                return
            for entry in node.elements:
                if isinstance(entry, cst.DictElement):
                    self._go(item, entry.value, element=False)
                else:
                    self._go(item, entry.value, element=False)
        elif isinstance(node, (cst.ListComp, cst.SetComp, cst.GeneratorExp)):
            self._go(item, node.elt, element=False)
        elif isinstance(node, cst.DictComp):
            self._go(item, node.value, element=False)
        elif isinstance(node, (cst.Await, cst.NamedExpr)):
            self._go(item, node.expression if isinstance(node, cst.Await) else node.value)
        elif isinstance(node, cst.StarredElement):
            self._go(item, node.value)
        elif isinstance(node, cst.Lambda):
            self._source("definition", item)
        else:
            self._source("unknown", item)

    def _name(self, item: _Item, node: cst.Name) -> None:
        if node.value in ("True", "False", "None"):
            self._source("constant", item)
            return
        found = self.view.reaching(node)
        if not found:
            self._source("global", item)
            return
        for definition in found:
            self._definition(item, definition)

    def _definition(self, item: _Item, definition: Definition) -> None:
        kind = definition.kind
        target = definition.target
        if kind == "param":
            assert isinstance(target, cst.Param)
            self._parameter(item, target)
            return
        if kind == "import":
            self._source(
                "import",
                _Item(target, item.steps, item.context, item.element, selects=item.selects),
            )
            return
        if kind in ("def", "class"):
            self._source(
                "definition",
                _Item(definition.statement, item.steps, (), False, selects=item.selects),
            )
            return
        value = definition.value
        if value is None:
            self._source(
                "unknown",
                _Item(target, item.steps, item.context, item.element, selects=item.selects),
            )
            return
        what = code(target) if kind != "for" else f"{code(target)} (each of {code(value)})"
        pick = definition.element
        if kind != "for":
            value, pick = element_of(value, pick)
        element = True if kind == "for" else item.element
        steps = (*item.steps, Step(target, what, cut=kind == "for"))
        picked = (*pick, *item.pick) if len(pick) + len(item.pick) <= MAX_PICK else ()
        self.todo.append(_Item(value, steps, item.context, element, picked, item.selects, item.key))

    def _parameter(self, item: _Item, param: cst.Param) -> None:
        function = self.view.functions.get(self._owner(param))  # type: ignore[arg-type]
        if function is None or function is self.free:
            self._source(
                "parameter", _Item(param, item.steps, (), item.element, selects=item.selects)
            )
            return
        context = item.context
        # the call the walk came through, else every call of the module
        sites: list[tuple[cst.Call, Context]] = []
        for index in range(len(context) - 1, -1, -1):
            call, callee = context[index]
            if callee is function:
                sites = [(call, context[:index])]
                break
        receiver = bool(sites) and function.self_name == param.name.value
        if not sites:
            sites = [(call, ()) for call in self.view.call_sites(function)]
        bound = False
        for call, outer in sites:
            argument = _argument(call, function, param)
            if receiver and argument is None and isinstance(call.func, cst.Attribute):
                argument = call.func.value  # `self` of `loader.load_data()`: `loader`
            if argument is not None:
                bound = True
                self._go(
                    _Item(
                        param, item.steps, outer, item.element, item.pick, item.selects, item.key
                    ),
                    argument,
                    f"{param.name.value} = {code(argument)}",
                )
        if param.default is not None:
            bound = True
            self._go(item, param.default, f"{param.name.value} = {code(param.default)}")
        if not bound:
            self._source(
                "parameter",
                _Item(
                    param,
                    (*item.steps, Step(param, param.name.value)),
                    (),
                    item.element,
                    selects=item.selects,
                ),
            )

    def _owner(self, param: cst.Param) -> cst.CSTNode | None:
        kinds = (cst.FunctionDef, cst.Lambda)
        return next((a for a in self.view.ancestors(param) if isinstance(a, kinds)), None)

    def _attribute(self, item: _Item, node: cst.Attribute) -> None:
        receiver = node.value
        if isinstance(receiver, cst.Name):
            owner = self._self_class(receiver)
            if owner is not None:
                found = self.view.attribute_definitions(owner, node.attr.value)
                if not found:
                    if self.view.method(owner, node.attr.value) is not None:
                        self._source("definition", item)
                    else:
                        self._source("attribute", item)
                for definition in found:
                    self._definition(item, definition)
                return
            if self.view.imported(receiver):  # `torch.float32`, `np.pi`: another module's
                self._source("import", item)
                return
        # `args.x = v` anywhere is a store into what `args` holds: the receiver's walk
        # finds it among `args`'s definitions
        self._go(item, receiver, code(receiver))

    def _self_class(self, name: cst.Name) -> cst.ClassDef | None:
        """The class whose instance `name` is when it is a method's `self`."""
        scope: Scope | None = self.view.scope_of(name)
        while scope is not None and not isinstance(scope, cst.Module):
            function = self.view.functions.get(scope)
            if function is not None and function.owner is not None:
                return function.owner if function.self_name == name.value else None
            scope = self.view.outer(scope)
        return None

    def _call(self, item: _Item, call: cst.Call) -> None:
        if self.stop is not None and self.stop(call):
            self._source("call", item)
            return
        func = call.func
        last = (
            func.attr.value
            if isinstance(func, cst.Attribute)
            else (func.value if isinstance(func, cst.Name) else "")
        )
        depth = len(item.context)
        # this module's class: an instance, or (asked for an element) what it iterates to
        owner = self.view.class_called(call)
        if owner is not None:
            self._instance(item, call, owner)
            return
        callees = self.view.callees(call)
        hidden = [d for c in callees for d in self._opaque_decorators(c)]
        if isinstance(func, cst.Name) and hidden:
            # `@background()` imported from another module of the program (a thread
            # filling a queue, kan-bayashi/PytorchWaveNetVocoder): what the call gives is
            # what the decorator's wrapper returns, not the function's own returns
            what = f"{code(call)} (decorated by @{code(hidden[0])}: not followed)"
            steps = (*item.steps, Step(call, what, cut=True))
            self._source("unknown", _Item(call, steps, (), False, selects=item.selects))
            return
        if isinstance(func, cst.Name) and callees and depth < MAX_CALLS:
            for callee in callees:
                self._enter(item, call, callee)
            return
        if isinstance(func, cst.Name) and last in ELEMENT and call.args:
            self._go(item, call.args[0].value, f"{last}()", element=True, cut=True)
            return
        if isinstance(func, cst.Name) and last in TRANSPARENT:
            positional = [a.value for a in call.args if a.keyword is None and not a.star]
            if item.element and item.pick and last in ("zip", "enumerate"):
                first, rest = item.pick[0], item.pick[1:]
                if last == "enumerate":
                    if first == 0:
                        self._source("constant", item)  # the counter
                        return
                    first = 0
                if first < len(positional):
                    self._go(item, positional[first], code(positional[first]), pick=rest)
                    return
            one, kept = len(call.args) == 1, kept_argument(call, last)
            for arg in call.args:
                what = code(arg.value)
                if arg.keyword is not None or (kept is not None and arg is not kept):
                    # dtype=, device=, a conversion's flag: shapes the value
                    self._go(item, arg.value, what, pick=(), shapes=True)
                else:
                    self._go(item, arg.value, what, pick=None if one or arg is kept else ())
            if not call.args:
                self._source("call", item)
            return
        if isinstance(func, cst.Attribute):
            library = self.view.imported_root(func.value)  # `torch.nn.functional.one_hot`
            if library and last not in TRANSPARENT:
                self._library(item, call)  # torch.zeros(...), np.random.permutation(n)
                return
            if library:
                kept = kept_argument(call, last)  # `torch.autograd.Variable(x, flag)`
                for arg in call.args:
                    shapes = arg.keyword is not None or (kept is not None and arg is not kept)
                    self._go(item, arg.value, code(arg.value), pick=(), shapes=shapes)
                return
            if last == "__next__":
                self._go(item, func.value, "__next__()", element=True, cut=True)
                return
            methods = [c for c in callees if self._method_of_receiver(c, func.value)]
            if methods and depth < MAX_CALLS:
                for callee in methods:
                    self._enter(item, call, callee)
                return
            if last in TAKEN and not any(a.keyword is None for a in call.args):
                # `self.queue.get()`, `pending.popleft()`: an element some other code put
                # into a store (a thread's queue); the store's construction says nothing of
                # what it holds, and the puts are not followed: say so, never assume
                filled = puts(self.view, func.value)
                if filled is None:
                    what = (
                        f"{code(call)} (what other code put into {code(func.value)}: not followed)"
                    )
                    steps = (*item.steps, Step(call, what, cut=True))
                    taken = _Item(call, steps, (), False, selects=item.selects)
                    self._source("unknown", taken)
                    return
                # every put of a store one producer fills is known (flow/stores.py): an
                # element is one of the values put, in the producer's order
                entered = _Item(
                    call, (*item.steps, Step(call, code(call))), (), False, item.pick, item.selects
                )
                for put in filled:
                    for arg in put.args:
                        self._go(
                            entered,
                            arg.value,
                            f"{code(put)} puts",
                            element=False,
                            context=(),
                            cut=True,
                        )
                return
            if last == "items" and item.element and item.pick:  # `for k, v in d.items()`
                what, key = f"{code(func.value)}.items()", item.pick[0] == 0
                self._go(item, func.value, what, pick=item.pick[1:], index=key, cut=True)
                return  # v: what d holds (its pick taken: a loop rebinding d ends)
            # a method of a value (`x.view(-1)`, `"{}".format(a)`): what it holds
            self._go(item, func.value, f"{code(func.value)}.{last}()")
            for arg in call.args:  # a method's arguments shape the value (a dtype, a dim)
                self._go(item, arg.value, code(arg.value), element=False, pick=(), shapes=True)
            return
        self._library(item, call)

    def _library(self, item: _Item, call: cst.Call) -> None:
        """A call the walk does not enter (a library's, a builtin): a source of its own, and
        its positional arguments are what it may compute from (`F.one_hot(data, n)`,
        `np.load(path)`, `os.path.join(a, b)`), its keywords what shapes it."""
        self._source("call", item)
        entered = _Item(
            call,
            (*item.steps, Step(call, code(call))),
            item.context,
            False,
            selects=item.selects,
        )
        if code(call.func).rpartition(".")[2] in ALLOCATIONS:
            return  # its arguments are sizes: nothing of theirs is in it
        for arg in call.args:
            shapes = arg.keyword is not None
            self._go(entered, arg.value, code(arg.value), pick=(), shapes=shapes)

    def _opaque_decorators(self, callee: Function) -> list[cst.BaseExpression]:
        """The decorators of `callee` imported from elsewhere that may replace what it
        returns (not `torch.no_grad()`, `functools.wraps`, `staticmethod`...)."""
        node = callee.node
        if not isinstance(node, cst.FunctionDef):
            return []
        found = []
        for decorator in node.decorators:
            value = decorator.decorator
            called = value.func if isinstance(value, cst.Call) else value
            last = called.attr.value if isinstance(called, cst.Attribute) else code(called)
            if self.view.imported_root(called) and last not in _KEEP_RETURNS:
                found.append(called)
        return found

    def _method_of_receiver(self, callee: Function, receiver: cst.BaseExpression) -> bool:
        """`receiver.m(...)` runs `callee` (a method named m): the receiver is `self` of
        its class, or an instance of it built in this module; any receiver where the
        module's method name is unique to one class."""
        if isinstance(receiver, cst.Name):
            owner = self._self_class(receiver)
            if owner is not None:
                return callee.owner is owner or self.view.method(owner, callee.name) is callee
        return True

    def _enter(self, item: _Item, call: cst.Call, callee: Function) -> None:
        context = (*item.context, (call, callee))
        values = callee.yields if (item.element and callee.yields) else callee.returns
        if item.element and callee.yields:
            element = False
        else:
            element = item.element
        what = f"{callee.name}() returns" if not callee.yields else f"{callee.name}() yields"
        if not values:
            self._source("call", item)
            return
        steps = (*item.steps, Step(call, code(call), call=True))
        entered = _Item(call, steps, item.context, False, selects=item.selects)
        for value in values:
            self._go(entered, value, f"{what} {code(value)}", element=element, context=context)
            self.todo[-1] = _Item(
                value, self.todo[-1].steps, context, element, item.pick, item.selects, item.key
            )

    def _instance(self, item: _Item, call: cst.Call, owner: cst.ClassDef) -> None:
        if not item.element:
            self._source("instance", item)
            return
        context = item.context
        init = self.view.method(owner, "__init__")
        if init is not None:
            context = (*context, (call, init))
        for name in ("__next__", "__iter__", "__getitem__"):
            method = self.view.method(owner, name)
            if method is None:
                continue
            if name == "__iter__" and not method.yields:
                continue  # `return self`: its __next__ answers
            values = method.yields if method.yields else method.returns
            for value in values:
                self._go(
                    item,
                    value,
                    f"{owner.name.value}.{name}() gives {code(value)}",
                    element=False,
                    context=context,
                )
            return
        self._source("instance", item)


def _argument(call: cst.Call, function: Function, param: cst.Param) -> cst.BaseExpression | None:
    """What `call` passes for `param` (keyword, position, or a star argument's whole
    value); None where it passes nothing."""
    name = param.name.value
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == name:
            return arg.value
    params = function.params
    skip = (
        1
        if function.self_name is not None and isinstance(call.func, (cst.Attribute, cst.Name))
        else 0
    )
    if skip and isinstance(call.func, cst.Name) and function.name != "__init__":
        skip = 0  # a plain function call of a name bound to a method: unusual, read as written
    try:
        index = params.index(param) - skip
    except ValueError:
        return None
    positional = [a for a in call.args if a.keyword is None]
    for position, arg in enumerate(positional):
        if arg.star:
            return arg.value
        if position == index:
            return arg.value
    return None


def argument_for(call: cst.Call, function: Function, param: cst.Param) -> cst.BaseExpression | None:
    """What `call` passes for `param` of `function` (None: nothing), for other walks."""
    return _argument(call, function, param)
