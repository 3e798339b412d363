"""Loops that take a sharded loader's batches through a method of a class holding the loader's
iterators (class v1-A of stop 53): clovaai's `Batch_Balanced_Dataset` keeps `iter()` of each
of its DataLoaders in `self.dataloader_iter_list`, and `get_batch()` draws one batch from each
with `next()`; train.py's `while True:` (or `for i in range(n):`) loop calls
`train_dataset.get_batch()` and feeds an `Averager` with the loss. Such a loop consumes the
loaders' batches as a loop with `next(it)` of `iter(loader)` does (loop_takers.next_loaders),
so its running figures are this rank's share: summed where proved, else DP030, as there.
Before, the figure was rank 0's share without a word (ku21fan/STR-Fewer-Labels@0d9ef6a
train.py:283-348, roatienza/deep-text-recognition-benchmark@fb06d18 train.py:164-203).

A method *takes* the batches of its class's loaders where it calls `next(e)` (or `e.next()`,
`e.__next__()`), `e` an iterator of them: `self.a`, `self.a[i]`, or a name a `for` binds over
`self.a` (also through `enumerate`), where every value the class stores in `self.a` (`=`,
`.append(...)`, `[i] =`) is `iter(x)` of a loader or an empty list, and a loader is a
DataLoader this module shards, bound by name or stored the same way in an attribute. The
class in this module: its loops are the loaders' `next_loops`. In another module (program
mode): the module sharding the loaders exports the class and method (LoaderExport.taker),
and the importer's loops calling it on an instance of that class hold this rank's share.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import TYPE_CHECKING

import libcst as cst

from dp2ddp.result import LoaderExport
from dp2ddp.transforms._support.nodes import assigned_value, name_of, nodes_of, walk
from dp2ddp.transforms.data.batch_yielders import (
    next_of,
    written_shard,
    yielded_loops,
    yielding_exports,
)
from dp2ddp.transforms.data.plan import Loader

if TYPE_CHECKING:
    from dp2ddp.transforms.data import ShardDataLoaders


def _stores(owner: cst.ClassDef) -> dict[str, list[cst.BaseExpression]]:
    """Every value a method of `owner` stores in an attribute of its instance: `self.a = v`,
    `self.a.append(v)`, `self.a[i] = v` (`self` the method's first parameter)."""
    found: dict[str, list[cst.BaseExpression]] = {}
    for method in owner.body.body:
        if not isinstance(method, cst.FunctionDef) or not method.params.params:
            continue
        me = method.params.params[0].name.value
        for node in walk(method.body):
            if isinstance(node, cst.Assign):
                for target in node.targets:
                    held: cst.BaseExpression = target.target
                    if isinstance(held, cst.Subscript):
                        held = held.value
                    attribute = own_attribute(held, me)
                    if attribute is not None:
                        found.setdefault(attribute, []).append(node.value)
            elif (
                isinstance(node, cst.Call)
                and isinstance(node.func, cst.Attribute)
                and node.func.attr.value == "append"
                and len(node.args) == 1
            ):
                attribute = own_attribute(node.func.value, me)
                if attribute is not None:
                    found.setdefault(attribute, []).append(node.args[0].value)
    return found


def own_attribute(node: cst.BaseExpression, me: str) -> str | None:
    """`a` of `me.a`; else None."""
    if (
        isinstance(node, cst.Attribute)
        and isinstance(node.value, cst.Name)
        and node.value.value == me
    ):
        return node.attr.value
    return None


def _empty(value: cst.BaseExpression) -> bool:
    return isinstance(value, cst.List) and not value.elements


def taking_methods(
    t: ShardDataLoaders, owner: cst.ClassDef, loaders: Collection[cst.Call]
) -> dict[str, set[cst.Call]]:
    """The methods of `owner` that take batches of its sharded loaders with `next()`, each
    with those loaders (module docstring)."""
    stores = _stores(owner)

    def loaders_of(value: cst.BaseExpression, me: str) -> set[cst.Call] | None:
        """The loaders `value` is (a loader call, a name bound to one, `self.b`/`self.b[i]`
        of an attribute holding only them); None: not only loaders."""
        if isinstance(value, cst.Call):
            return {value} if value in loaders else None
        if isinstance(value, cst.Subscript):
            value = value.value
        attribute = own_attribute(value, me)
        if attribute is not None:
            held = [v for v in stores.get(attribute, []) if not _empty(v)]
            found: set[cst.Call] = set()
            for v in held:
                if isinstance(v, (cst.Attribute, cst.Subscript)):
                    return None  # one level: an attribute of loaders, not of attributes
                one = loaders_of(v, me)
                if one is None:
                    return None
                found |= one
            return found or None
        if isinstance(value, cst.Name):
            bound = [assigned_value(r.node, t) for r in t.referents(value)]
            if bound and all(isinstance(b, cst.Call) and b in loaders for b in bound):
                return {b for b in bound if isinstance(b, cst.Call)}
        return None

    def iterators(attribute: str, me: str) -> set[cst.Call] | None:
        """The loaders whose iterators `self.<attribute>` holds, every store `iter(loader)`
        or an empty list; None: not only those."""
        held = [v for v in stores.get(attribute, []) if not _empty(v)]
        found: set[cst.Call] = set()
        for value in held:
            if not (isinstance(value, cst.Call) and name_of(value.func) == "iter"):
                return None
            if len(value.args) != 1:
                return None
            one = loaders_of(value.args[0].value, me)
            if one is None:
                return None
            found |= one
        return found or None

    found: dict[str, set[cst.Call]] = {}
    for method in owner.body.body:
        if not isinstance(method, cst.FunctionDef) or not method.params.params:
            continue
        me = method.params.params[0].name.value
        taken: set[cst.Call] = set()
        for node in walk(method.body, skip_scopes=True):
            it = next_of(node)
            if it is None:
                continue
            attribute = _iterator_attribute(t, it, me)
            one = iterators(attribute, me) if attribute is not None else None
            if one is None:
                taken = set()
                break  # some next() of what is not proved theirs: not said
            taken |= one
        if taken:
            found[method.name.value] = taken
    return found


def _iterator_attribute(t: ShardDataLoaders, it: cst.BaseExpression, me: str) -> str | None:
    """`a` where `it` is `self.a`, `self.a[i]`, or a name every binding of which is a `for`
    target over `self.a` or `enumerate(self.a)`."""
    if isinstance(it, cst.Subscript):
        it = it.value
    attribute = own_attribute(it, me)
    if attribute is not None or not isinstance(it, cst.Name):
        return attribute
    found: set[str] = set()
    for referent in t.referents(it):
        loop = t.parent(referent.node)
        while loop is not None and not isinstance(loop, (cst.For, cst.FunctionDef)):
            loop = t.parent(loop)
        if not isinstance(loop, cst.For) or not any(n is referent.node for n in walk(loop.target)):
            return None
        source = loop.iter
        if isinstance(source, cst.Call) and name_of(source.func) == "enumerate" and source.args:
            source = source.args[0].value
        one = own_attribute(source, me)
        if one is None:
            return None
        found.add(one)
    return found.pop() if len(found) == 1 else None


def _called_methods(loop: cst.For | cst.While) -> list[cst.Call]:
    """The calls `obj.m(...)` of the loop's body (its own scope)."""
    return [
        node
        for node in walk(loop.body, skip_scopes=True)
        if isinstance(node, cst.Call)
        and isinstance(node.func, cst.Attribute)
        and isinstance(node.func.value, cst.Name)
    ]


def taker_loops(t: ShardDataLoaders, module: cst.Module, loaders: dict[cst.Call, Loader]) -> None:
    """The loops of this module calling a taking method of a class of this module on an
    instance of it: each is one of those loaders' `next_loops`, the call one of
    `t._taker_calls` (what it binds is the loop's batch: loop_takers.helper_batch_names)."""
    if not loaders:
        return
    classes = {c.name.value: c for c in module.body if isinstance(c, cst.ClassDef)}
    takers = {
        name: methods
        for name, owner in classes.items()
        if (methods := taking_methods(t, owner, loaders))
    }
    if not takers:
        return
    for loop in nodes_of(module, (cst.For, cst.While)):
        for call in _called_methods(loop):
            assert isinstance(call.func, cst.Attribute)
            for origin in t._origins(call.func.value, (), 0):
                owner = name_of(origin.call.func) if origin.call is not None else ""
                for built in takers.get(owner, {}).get(call.func.attr.value, set()):
                    t._taker_calls |= {call}
                    if not any(seen is loop for seen in loaders[built].next_loops):
                        loaders[built].next_loops.append(loop)


def export_takers(t: ShardDataLoaders, module: cst.Module, sharded: Collection[cst.Call]) -> None:
    """Tell importers (program mode) which methods of this module's top-level classes take
    batches of loaders sharded here: LoaderExport(class, taker=method); and which top-level
    functions yield or return only their batches (data/batch_yielders.py)."""
    if t.state.program is None:
        return
    # a second run's loaders, sharded by the first: the same exports (a fixed point)
    held = {*sharded, *(c for c in t._all_loaders if written_shard(t, c))}
    for owner in module.body if held else ():
        if isinstance(owner, cst.ClassDef):
            for method in taking_methods(t, owner, held):
                export = LoaderExport(owner.name.value, True, taker=method)
                if export not in t.state.exports:
                    t.state.exports.append(export)
    for export in yielding_exports(t, module, held):  # `lib.get_iter(n)`
        if export not in t.state.exports:
            t.state.exports.append(export)


def imported_takers(t: ShardDataLoaders, module: cst.Module) -> list[Loader]:
    """A stand-in loader (plan.Loader.stand_in) for the loops of this module calling an
    exported taking method on an instance of its class (built by a call matched by
    qualified name, data/imported._is_exported), or taking the batches of an exported
    function yielding or returning its sharded loaders' (batch_yielders.yielded_loops):
    their figures are this rank's share."""
    takers = tuple(e for e in t.state.loaders.exported if e.taker)
    found = yielded_loops(t, module)
    if not takers:
        return [Loader.stand_in(found)] if found else []
    for loop in nodes_of(module, (cst.For, cst.While)):
        for call in _called_methods(loop):
            assert isinstance(call.func, cst.Attribute)
            method = call.func.attr.value
            alike = tuple(e for e in takers if e.taker == method)
            if alike and any(
                origin.call is not None and t._is_exported(origin, alike, takers=True)
                for origin in t._origins(call.func.value, (), 0)
            ):
                t._taker_calls |= {call}
                if not any(seen is loop for seen in found):
                    found.append(loop)
    return [Loader.stand_in(found)] if found else []
