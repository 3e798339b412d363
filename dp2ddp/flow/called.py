"""Which functions of a module a call through a name may run: the callee resolution of the
def-use view (`DefUse.callees`), for every pass that asks which function a call runs.

A name is followed to its bindings: a `def` (the function), a `class` (its `__init__`), a
lookup in a table of functions (`train = trainers[mode]`), and an alias of functions:
`train = train_nll`, both arms of an `if` (`if summed: train = train_sum else: train =
train_mean`), `train = train_sum if summed else train_mean`, a lookup in a literal table
(`train = {"sum": train_sum, "mean": train_mean}[mode]`), or the function a factory of
this module returns (`loss_fn = get_loss_fn(sigma)`, its `def loss_fn` a closure in it:
returned_functions). A configuration picks the binding,
so every function bound may run. An alias is followed only where every binding of the
called name is one the view can follow to functions of this module, or a lambda (which runs
its body: the calls written there are the view's own call sites, so a `fit = lambda *a:
None` in the other arm adds none): a name also bound to a parameter, an import or any other
value (a `functools.partial(f, ...)` may run `f`) gets what it got before aliases were
followed (its defs and classes), no partial answer a pass would take as the whole (round 25,
mattmacy/vnet.pytorch@a00c8ea train.py: `train = train_nll` ... `train(args, epoch, model,
trainLoader, ...)` linked no loader to train_nll, its running sample count printed as rank
0's share with no DP030).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

if TYPE_CHECKING:
    from dp2ddp.flow.defuse import Definition, DefUse, Function

#: How many aliases deep a name is followed (`f = g`, `g = h`, ...).
_DEPTH = 4


def name_callees(view: DefUse, name: cst.Name) -> list[Function]:
    """The functions of this module a call of `name` may run (module docstring)."""
    found: list[Function] = []
    aliases: list[Function] = []
    whole = True
    for definition in view.definitions(name):
        if definition.kind == "def":
            function = view.functions.get(definition.statement)
            if function is not None:
                found.append(function)
        elif definition.kind == "class" and isinstance(definition.statement, cst.ClassDef):
            init = view.method(definition.statement, "__init__")
            if init is not None:
                found.append(init)
        elif _plain(definition) and isinstance(definition.value, cst.Subscript):
            table = looked_up(view, definition.value)
            found += table
            whole = whole and bool(table)
        elif _plain(definition) and isinstance(definition.value, cst.Lambda):
            aliases += _lambda(view, definition.value)  # its body's calls: the view's own
        elif _plain(definition) and isinstance(definition.value, (cst.Name, cst.IfExp, cst.Call)):
            picked = _aliased(view, definition.value, 0)
            aliases += picked or []
            whole = whole and picked is not None
        else:
            whole = False
    return found + [f for f in aliases if f not in found] if whole else found


def looked_up(view: DefUse, lookup: cst.Subscript) -> list[Function]:
    """The functions a lookup in a table of functions may give (`c_loss_dict[name]`,
    `losses[FLAGS.loss]`, `{"a": f, "b": g}[key]`): the union over the table's values where
    it is a dict, list or tuple literal, or a name bound only to one (never changed by a
    store), whose every value is a function of this module; else none (a table the view
    cannot read whole is not followed: a caller asking for every function it may run gets
    no partial answer). A configuration picks the key, so every value may run."""
    table: cst.BaseExpression | None = lookup.value
    if isinstance(table, cst.Name):
        bound = view.definitions(table)
        if len(bound) != 1 or not _plain(bound[0]):
            return []
        table = bound[0].value
    if isinstance(table, cst.Dict):
        values = [e.value for e in table.elements if isinstance(e, cst.DictElement)]
    elif isinstance(table, (cst.List, cst.Tuple)):
        values = [e.value for e in table.elements if isinstance(e, cst.Element)]
    else:
        return []
    if table is None or len(values) != len(table.elements):
        return []
    found: list[Function] = []
    for value in values:
        functions = _defined(view, value)
        if functions is None:
            return []
        found += [f for f in functions if f not in found]
    return found


def _aliased(view: DefUse, value: cst.BaseExpression, depth: int) -> list[Function] | None:
    """The functions `value` may be, where it is a name every binding of which is a `def` of
    this module or another such alias, an IfExp of two such, or a lookup in a literal table
    of functions; None where any part is something else (a lambda, a call, an import)."""
    if depth > _DEPTH:
        return None
    if isinstance(value, cst.IfExp):
        body = _aliased(view, value.body, depth + 1)
        orelse = _aliased(view, value.orelse, depth + 1)
        if body is None or orelse is None:
            return None
        return body + [f for f in orelse if f not in body]
    if isinstance(value, cst.Subscript):
        return looked_up(view, value) or None
    if isinstance(value, cst.Lambda):
        return _lambda(view, value)  # its body's calls are seen where they are written
    if isinstance(value, cst.Call):
        return returned_functions(view, value, depth + 1)
    if not isinstance(value, cst.Name):
        return None
    bound = view.definitions(value)
    if not bound:
        return None
    found: list[Function] = []
    for definition in bound:
        if definition.kind == "def":
            function = view.functions.get(definition.statement)
            picked = None if function is None else [function]
        elif _plain(definition) and definition.value is not None:
            picked = _aliased(view, definition.value, depth + 1)
        else:
            picked = None
        if picked is None:
            return None
        found += [f for f in picked if f not in found]
    return found


def returned_functions(view: DefUse, call: cst.Call, depth: int = 0) -> list[Function] | None:
    """The functions a call of a factory of this module returns (`loss_fn =
    get_sde_loss_fn(...)`, harryjo97/GDSS@24cc490 losses.py: a closure defined in the factory
    and returned): where `call` runs plain functions of this module only, and every value
    each returns is a name bound only to a `def` in it; None otherwise (a factory returning
    anything else, or a call the view cannot follow)."""
    factories = _aliased(view, call.func, depth + 1) if isinstance(call.func, cst.Name) else None
    if not factories or any(f.owner is not None or not f.returns for f in factories):
        return None
    found: list[Function] = []
    for factory in factories:
        functions = closures_of(view, factory)
        if functions is None:
            return None
        found += [f for f in functions if f not in found]
    return found


def closures_of(view: DefUse, factory: Function) -> list[Function] | None:
    """The functions `factory` defines and returns (every value it returns a name bound
    only to a `def` in its body); None where it returns anything else."""
    found: list[Function] = []
    for value in factory.returns:
        functions = _defined(view, value)
        if functions is None or any(view.function_around(f.node) is not factory for f in functions):
            return None  # a function defined elsewhere: its name may be bound again
        found += [f for f in functions if f not in found]
    return found or None


def _lambda(view: DefUse, node: cst.Lambda) -> list[Function]:
    function = view.functions.get(node)
    return [] if function is None else [function]


def _defined(view: DefUse, value: cst.BaseExpression) -> list[Function] | None:
    """The functions a table's value names: a name every binding of which is a `def`."""
    defs = view.definitions(value) if isinstance(value, cst.Name) else []
    functions = [view.functions.get(d.statement) for d in defs if d.kind == "def"]
    if not defs or len(functions) != len(defs):
        return None
    found = [f for f in functions if f is not None]
    return found if len(found) == len(functions) else None


def _plain(definition: Definition) -> bool:
    """A plain assignment of the whole value (`f = g`: no unpacking)."""
    return definition.kind == "assign" and not definition.element
