"""One epoch function for both passes: whether a call switches its training steps on or off.

A program often writes one function for its training and its evaluation pass (class E1,
Cyanogenoid/pytorch-vqa@8ff1afa's `run(net, loader, optimizer, train=False)`): the loop
runs `.backward()` only under a test of a parameter, and each call says which pass it is.
The loop trains, yet the loader a call switching its steps off hands in is evaluated: its
figures must be the whole set's (data pass: DP015, whole; trained_factories: not a
training loader of another module). This module is the one reader of that shape, on the
module's def-use view (flow/defuse.py):

* `step_guard(flow, loop)`: the test under which every backward of `loop` runs, and the
  value it must have: `if train:` (True), `if not evaluate:` (False), `if phase ==
  "train":` / `'train' == mode` / `mode in ("train", "trainval")`, `if optimizer is not
  None:`, or a local flag bound once from one of them (`is_train = optimizer is not None`,
  round 22, liucong3/audio_classification@08575b2);
* `steps_on(flow, loop, call)`: given that call's arguments (by keyword, by position,
  else the parameter's default; a name bound once to a constant is read as it), are the
  steps on (True), off (False), or not told (None: a star argument, a value not constant);
* `runs_only_off(flow, node, loop, guard)`: `node` runs only where the steps are off (the
  `else` of `if train:`, under `if not train:`): what only the evaluation branch feeds;
* `reached_at(flow, node, call)`: whether `call`'s arguments let `node` of the function it
  runs execute at all (`if sample: return DataLoader(ds, batch_sampler=...)`, then `return
  DataLoader(ds, batch_size=...)`: `get_loader(sample=True)` returns only the first).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from weakref import WeakKeyDictionary

import libcst as cst

from dp2ddp.flow.defuse import DefUse, Function
from dp2ddp.flow.origins import argument_for
from dp2ddp.transforms._support.nodes import name_of, walk

#: The literal of a test `param is not None` (true where any value but None is passed).
NOT_NONE = "<not None>"
#: The definitions that bind a name to one value (`x = v`, `x: T = v`).
_BINDS = ("assign", "annassign")
_CACHE: WeakKeyDictionary[DefUse, dict[cst.For | cst.While, Guard | None]] = WeakKeyDictionary()


@dataclass(frozen=True)
class Test:
    """A test of one parameter: its truth (`literal` None), `is not None` (NOT_NONE), or
    membership among constant strings (`phase == "train"`: the strings it is true for)."""

    param: str
    literal: str | tuple[str, ...] | None = None

    def value(self, given: cst.BaseExpression) -> bool | None:
        """The test's value where the parameter is `given` (None: not told)."""
        if self.literal == NOT_NONE:  # any value passed but None turns it on
            return name_of(given) != "None"
        if isinstance(self.literal, tuple):
            if isinstance(given, cst.SimpleString):
                return given.evaluated_value in self.literal
            return None
        if isinstance(given, cst.Name) and given.value in ("True", "False", "None"):
            return given.value == "True"
        if isinstance(given, cst.Integer):
            return given.evaluated_value != 0
        if isinstance(given, cst.SimpleString):
            return bool(given.evaluated_value)
        return None


@dataclass(frozen=True)
class Guard:
    """The steps of a loop run where `test` is `on`."""

    test: Test
    on: bool = True


def step_guard(flow: DefUse, loop: cst.For | cst.While) -> Guard | None:
    """The test of a parameter of the loop's function under which every `.backward()` of
    `loop` runs, and its value there; None when one runs unguarded. Once per loop."""
    cache = _CACHE.setdefault(flow, {})
    if loop not in cache:
        cache[loop] = _find_step_guard(flow, loop)
    return cache[loop]


def _find_step_guard(flow: DefUse, loop: cst.For | cst.While) -> Guard | None:
    function = _function(flow, loop)
    if function is None:
        return None
    params = {p.name.value for p in function.params}
    common: set[Guard] | None = None
    for node in walk(loop.body):
        if (
            isinstance(node, cst.Call)
            and isinstance(node.func, cst.Attribute)
            and node.func.attr.value == "backward"
        ):
            found = set(guards_over(flow, node, loop, params))
            common = found if common is None else common & found
    if not common:
        return None
    return sorted(common, key=lambda g: (not g.on, g.test.param, str(g.test.literal)))[0]


def steps_on(flow: DefUse, loop: cst.For | cst.While, calls: Iterable[cst.Call]) -> bool | None:
    """Whether the first of `calls` that runs the loop's function (the calls a value came
    in through, innermost first) runs `loop`'s steps: True, False, or None (no guard, no
    such call, or what it passes is not told)."""
    guard = step_guard(flow, loop)
    function = _function(flow, loop)
    if guard is None or function is None:
        return None
    call = next((c for c in calls if function in flow.callees(c)), None)
    value = _test_value(flow, function, guard.test, call) if call is not None else None
    return None if value is None else value == guard.on


def runs_only_off(flow: DefUse, node: cst.CSTNode, loop: cst.For | cst.While, guard: Guard) -> bool:
    """`node` (inside the loop's function) runs only where `guard`'s steps are off."""
    function = _function(flow, loop)
    if function is None:
        return False
    off = Guard(guard.test, not guard.on)
    return off in guards_over(flow, node, function.node, {guard.test.param})


def reached_at(flow: DefUse, node: cst.CSTNode, call: cst.Call) -> bool:
    """False where `call`'s arguments (or the defaults) decide a parameter test guarding
    `node` against it: an `if` around it, or an earlier `if` of an enclosing block whose
    body always returns (`if sample: return A` before `return B`). True otherwise, also
    where nothing is told (a value not constant, a star argument).

    A loader factory returning one loader per branch (imtiazziko/LaplacianShot@5de2612's
    `get_dataloader(split, aug, sample=None)`: the episodic batch-sampler loader when
    `sample` is given, else a plain one) was read as returning both at every call: each
    loop over either was taken for a loop over both (round 23)."""
    function = flow.function_around(node)
    if function is None or not isinstance(function.node, cst.FunctionDef):
        return True
    if function not in flow.callees(call):
        return True
    params = {p.name.value for p in function.params}
    for guard in guards_over(flow, node, function.node, params) + _passed_guards(
        flow, node, function.node, params
    ):
        value = _test_value(flow, function, guard.test, call)
        if value is not None and value != guard.on:
            return False
    return True


def _passed_guards(
    flow: DefUse, node: cst.CSTNode, top: cst.CSTNode, params: set[str]
) -> list[Guard]:
    """The tests `node` runs past: an `if` (no `else`) before it in an enclosing block whose
    body ends in `return` or `raise` tested false, or `node` would not run."""
    found: list[Guard] = []
    child = node
    for parent in flow.ancestors(node):
        if parent is top:
            break
        body = parent.body if isinstance(parent, cst.IndentedBlock | cst.Module) else ()
        at = next((i for i, s in enumerate(body) if s is child), None)
        if at is not None:
            for statement in body[:at]:
                if not (isinstance(statement, cst.If) and statement.orelse is None):
                    continue
                last = statement.body.body[-1] if statement.body.body else None
                ends = isinstance(last, cst.SimpleStatementLine) and isinstance(
                    last.body[-1], cst.Return | cst.Raise
                )
                read = _read(flow, statement.test, params) if ends else None
                if read is not None:
                    found.append(Guard(read[0], not read[1]))
        child = parent
    return found


def guards_over(flow: DefUse, node: cst.CSTNode, top: cst.CSTNode, params: set[str]) -> list[Guard]:
    """The `if`s between `node` and `top` that test a parameter of `params`: each as the
    guard under which `node` runs (its body: the test true; its `else`: false)."""
    found: list[Guard] = []
    child = node
    for parent in flow.ancestors(node):
        if parent is top:
            break
        if isinstance(parent, cst.If) and child in (parent.body, parent.orelse):
            read = _read(flow, parent.test, params)
            if read is not None:
                test, sense = read
                found.append(Guard(test, sense if child is parent.body else not sense))
        child = parent
    return found


def _read(
    flow: DefUse, test: cst.BaseExpression, params: set[str], depth: int = 0
) -> tuple[Test, bool] | None:
    """The parameter test `test` is and whether it is true when that test is: `train`
    (True), `not train` (False), `phase == "train"`, `phase != "train"` (False), `phase in
    ("train", "finetune")`, `opt is not None`, a local flag bound once to one of these;
    a name bound once to a string stands for it (`mode == TRAIN`, `TRAIN = "train"`)."""
    if isinstance(test, cst.Name) and test.value in params:
        return Test(test.value), True
    if isinstance(test, cst.Name) and depth == 0:  # `is_train = optimizer is not None`
        found = flow.definitions(test)
        if len(found) == 1 and found[0].kind in _BINDS and not found[0].element:
            value = found[0].value
            return _read(flow, value, params, 1) if value is not None else None
        return None
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        inner = _read(flow, test.expression, params, depth)
        return None if inner is None else (inner[0], not inner[1])
    if not isinstance(test, cst.Comparison) or len(test.comparisons) != 1:
        return None
    operator = test.comparisons[0].operator
    # `mode == TRAIN` where `TRAIN = "train"`: the constant it is bound to
    left = _bound_constant(flow, test.left)
    right = _bound_constant(flow, test.comparisons[0].comparator)
    if isinstance(left, cst.SimpleString) and isinstance(operator, (cst.Equal, cst.NotEqual)):
        left, right = right, left  # `"train" == phase`
    if not isinstance(left, cst.Name) or left.value not in params:
        return None
    if isinstance(operator, (cst.Is, cst.IsNot)) and name_of(right) == "None":
        return Test(left.value, NOT_NONE), isinstance(operator, cst.IsNot)
    if isinstance(operator, (cst.Equal, cst.NotEqual)) and isinstance(right, cst.SimpleString):
        literal = right.evaluated_value
        if isinstance(literal, str):
            return Test(left.value, (literal,)), isinstance(operator, cst.Equal)
    if isinstance(operator, (cst.In, cst.NotIn)) and isinstance(
        right, (cst.Tuple, cst.List, cst.Set)
    ):
        items = [
            item
            for e in right.elements
            if isinstance(item := _bound_constant(flow, e.value), cst.SimpleString)
        ]
        if items and len(items) == len(right.elements):
            literals = tuple(str(i.evaluated_value) for i in items)
            return Test(left.value, literals), isinstance(operator, cst.In)
    return None


def _test_value(flow: DefUse, function: Function, test: Test, call: cst.Call) -> bool | None:
    """The value of `test` where `call` runs `function`: from what it passes for the
    parameter (a name bound once to a constant read as that constant), else the default."""
    param = next((p for p in function.params if p.name.value == test.param), None)
    stars = (function.node.params.star_arg, function.node.params.star_kwarg)
    if param is None or any(param is s for s in stars):
        return None
    given = argument_for(call, function, param)
    if given is None:
        if any(a.star for a in call.args):
            return None  # `run(*args)`, `run(**options)`: may pass it
        given = param.default
    if given is None:
        return None
    return test.value(_bound_constant(flow, given))


def _bound_constant(flow: DefUse, given: cst.BaseExpression) -> cst.BaseExpression:
    """A name bound once, to a constant, stands for that constant (`is_train = False`, then
    `run(loader, is_train)`; `TRAIN, EVAL = "train", "eval"`); anything else is itself."""
    if not isinstance(given, cst.Name) or given.value in ("True", "False", "None"):
        return given
    found = flow.definitions(given)
    if len(found) != 1 or found[0].kind not in _BINDS:
        return given
    value = found[0].value
    for index in found[0].element:  # an item of a literal tuple or list
        items = value.elements if isinstance(value, (cst.Tuple, cst.List)) else ()
        item = items[index] if index < len(items) else None
        value = item.value if isinstance(item, cst.Element) else None
    return value if value is not None and _constant(value) else given


def _constant(value: cst.BaseExpression) -> bool:
    """A literal whose value the test can read (a string, a number, True/False/None)."""
    if isinstance(value, cst.Name):
        return value.value in ("True", "False", "None")
    return isinstance(value, (cst.SimpleString, cst.Integer, cst.Float))


def _function(flow: DefUse, loop: cst.CSTNode) -> Function | None:
    found = flow.function_around(loop)
    return found if found is not None and isinstance(found.node, cst.FunctionDef) else None
