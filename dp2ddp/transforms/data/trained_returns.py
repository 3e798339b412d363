"""A loader returned by a function or method of its module that another module trains on.

A data module often builds its loaders in functions or methods and returns them (`def
get_train_loader(self, batch_size): return DataLoader(...)`), and the entry trains on what a
call returns: `train_loader = corpus.get_train_loader(8)`, handed to `train(model,
train_loader, opt)`, whose loop steps the optimizer (class x1 of stop 54,
xyz961014/longterm@c62d11e baseline/pytorch/lm.py:176-183 with CRTN/data/dataloader.py).
The data module's own loops cannot tell a training loader from an evaluation set: with none
the loader was left whole, DP015 saying "evaluation metrics not reduced" of training data
(false); with a self-test `main()` looping over it, it was sharded, but not exported, so the
entry's running figures over it were read as whole and printed as rank 0's share, silently.

The program proves the role across the module boundary: the entry's training loops are
followed back to calls of this module's functions and methods (analysis/
trained_factories.py, told as ProgramLoaders.trained). Such a loader is training data:
sharded here as any training loader, and exported (LoaderExport by the function's name,
`Class.method` for a method) so that the importer's data pass reads its loops as loops over
a sharded loader (set_epoch in its epoch loop; its figures reduced or said, DP030), the
call matched through the importer's def-use view (`corpus = data.Corpus()`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from dp2ddp.flow import DefUse, view
from dp2ddp.result import LoaderExport
from dp2ddp.transforms._support.nodes import enclosing_function, name_of, walk
from dp2ddp.transforms.data.comprehension_reads import unlooped_reason
from dp2ddp.transforms.data.plan import Loader

if TYPE_CHECKING:
    from dp2ddp.transforms.data import ShardDataLoaders


def said_unlooped_whole(t: ShardDataLoaders, loader: Loader, label: str) -> bool:
    """Of a loader no loop of this module iterates: DP015 (left whole) and True, unless
    another module's training loop is proved to take it (then False: it is sharded). The
    text says what a training consumer the proof does not reach gets (thunlp/FewRel@278a231,
    round 8 v1-C: `return iter(DataLoader(...))`, `next()` in another module's `range` loop
    that steps): each rank's whole batch, not DataParallel's share of one."""
    if trained_where(t, loader) is None:
        how, consumer = _how_iterated(t, loader, label)
        t.warn(
            loader.call,
            "DP015",
            f"{how}; left unsharded (every rank goes through all of it): where {consumer} "
            "trains on it in a loop the migration splits (ddp_shard_batch), each rank takes "
            "its part of each batch; elsewhere every rank trains on a whole batch per step, "
            "the same one (repeated work) where the ranks load alike, else WORLD_SIZE "
            "different ones (WORLD_SIZE times DataParallel's batch: a dataset that draws its "
            "items unseeded)",
        )
        return True
    return False


def _how_iterated(t: ShardDataLoaders, loader: Loader, label: str) -> tuple[str, str]:
    """How a loader no loop of this module takes is iterated, as DP015 says it, and who
    would train on it (stop 56, Rose-STL-Lab/Dynamic-Adaptation-Network@2afd6e0: "iterated
    by no loop of this module" was said of loaders a list comprehension builds, walked by
    this module's loops over the list's items, and of a loader a comprehension here
    reads): built in a comprehension, whose items are not followed to a loop; read by a
    comprehension of this module (comprehension_reads); else iterated by no loop here."""
    made_in = _comprehension_around(t, loader.call)
    if made_in is not None:
        comp, into = made_in
        return (
            f"{label} is built by a comprehension (`for {t.code(comp.target)} in "
            f"{t.code(comp.iter)}`{into}): dp2ddp does not follow the loops over its items "
            "to it, and its metrics are not summed over the ranks",
            "a loop over those items",
        )
    where, why = unlooped_reason(t, loader)
    if where is not loader.call:
        return why, "that comprehension"
    return (
        f"{label} is iterated by no loop of this module (another module's, or by hand "
        "with next()), where its metrics are not summed over the ranks",
        "another module",
    )


def _comprehension_around(t: ShardDataLoaders, call: cst.Call) -> tuple[cst.CompFor, str] | None:
    """The comprehension whose element builds `call` (its `for` clause), with ", into X"
    where the comprehension is the value `X = [...]` binds (a tuple element or a dict entry
    of it too); None where the call is built in none before its function."""
    node = t.parent(call)
    while node is not None and not isinstance(node, (cst.FunctionDef, cst.Lambda, cst.Module)):
        if isinstance(node, cst.BaseComp):
            statement = t.parent(node)
            into = ""
            if isinstance(statement, cst.Assign) and len(statement.targets) == 1:
                into = f", into {t.code(statement.targets[0].target)}"
            return node.for_in, into
        node = t.parent(node)
    return None


def export_trained(t: ShardDataLoaders, loader: Loader) -> str | None:
    """Export a sharded loader that a function or method of this module returns and that
    another module's training loop takes (module docstring), with a record; its name."""
    name = trained_where(t, loader)
    if name is None:
        return None
    export = LoaderExport(name, True, *_place(t, loader))
    if export not in t.state.exports:
        t.state.exports.append(export)
    t.record(
        loader.call,
        f"what `{name}` returns is training data (another module's training loop iterates "
        "it): exported, its importers read it as sharded",
    )
    return name


def trained_where(t: ShardDataLoaders, loader: Loader) -> str | None:
    """The name (`Class.method` for a method) of the function of this module that returns
    `loader` where another module's training loop takes what it returns; else None."""
    told = t.state.loaders.trained
    around = enclosing_function(loader.call, t)
    if around is None or not any(n.rpartition(".")[2] == around.name.value for n in told):
        return None
    flow = view(t._module_node)
    function = flow.function_around(loader.call)
    if function is None or not isinstance(function.node, cst.FunctionDef):
        return None
    if not any(_holds(flow, value, loader.call) for value in function.returns):
        return None  # (an item of a returned tuple holds it too: `return loader, data`)
    built = [n for n in walk(function.node) if isinstance(n, cst.Call) and _loaderish(flow, n)]
    plain = any(
        _holds(flow, v, loader.call) for v in function.returns if not isinstance(v, cst.Tuple)
    )
    if len(built) > 1 and not plain:
        return None  # several loaders in tuples: which one is trained, the facts do not say
    name = function.node.name.value
    if function.owner is not None:
        if flow.parent(function.owner) is not flow.module:
            return None
        name = f"{function.owner.name.value}.{name}"
    elif flow.parent(function.node) is not flow.module:
        return None
    return name if name in told else None


def _place(t: ShardDataLoaders, loader: Loader) -> tuple[int | None, int | None]:
    """(position, arity) of the loader in the tuple its function returns, (None, None)
    where it returns the loader itself."""
    function = view(t._module_node).function_around(loader.call)
    for value in function.returns if function is not None else ():
        if isinstance(value, cst.Tuple):
            flow = view(t._module_node)
            items = [e.value for e in value.elements]
            held = [i for i, item in enumerate(items) if _holds(flow, item, loader.call)]
            if held:
                return held[0], len(items)
    return None, None


def _holds(flow: DefUse, value: cst.BaseExpression, call: cst.Call) -> bool:
    """`value` (a returned expression) is `call`, or a name bound only to it, or a tuple
    one item of which is (round 22: `return DataLoader(...), data`)."""
    if value is call:
        return True
    if isinstance(value, cst.Tuple):  # the one loader of the tuple (which is trained of
        items = [e.value for e in value.elements]  # several, the facts do not say)
        held = [i for i in items if _holds(flow, i, call)]
        return len(held) == 1 and not any(_loaderish(flow, i) for i in items if i not in held)
    if not isinstance(value, cst.Name):
        return False
    found = flow.definitions(value)
    return bool(found) and all(d.value is call and not d.element for d in found)


def _loaderish(flow: DefUse, value: cst.BaseExpression) -> bool:
    """A loader's construction, or a name bound to one (`...Loader(...)`)."""
    if isinstance(value, cst.Call):
        return "Loader" in name_of(value.func)
    if isinstance(value, cst.Name):
        return any(
            d.value is not None and _loaderish(flow, d.value) for d in flow.definitions(value)
        )
    return False
