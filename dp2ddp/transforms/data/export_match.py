"""Which of another module's loader exports a value iterated here is (imported.py's
importer side), and the values that carry one: an alias unpacked later, a prefix slice.

Round 30 (ioangatop/DeepLearning@91e59a7, a3_vae_template.py): `data = bmnist()[:2]`, then
`traindata, valdata = data` and `epoch_iter(model, traindata, optimizer)`. The loader the
helper module sharded (its `bmnist()` exported as trained) was not followed through the
alias and the slice to the loop over the parameter, so the batch proof split each of its
batches again (`ddp_shard_batch`): each rank trained on a quarter of the global batch,
unsaid. An unpacking of a name bound to a call (or to a prefix slice of one, `[:2]`,
`[0:2]`: the items keep their positions) is that call's item at its position.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

import libcst as cst

from dp2ddp.flow import view
from dp2ddp.result import LoaderExport
from dp2ddp.transforms._support.nodes import name_of
from dp2ddp.transforms.analysis.trained_factories import imported_name
from dp2ddp.transforms.data.flow import Path

if TYPE_CHECKING:
    from dp2ddp.transforms.data.imported import LoaderImports, Origin


def exported_as(
    t: LoaderImports, origin: Origin, exported: tuple[LoaderExport, ...], takers: bool = False
) -> LoaderExport | None:
    """The export `origin` is (LoaderImports._is_exported); None where it is none."""
    node = origin.call.func if origin.call is not None else origin.binding
    names = set()
    if isinstance(node, cst.Name) and not t.referents(node):
        names.add(node.value)  # bound by a star import (`from common import *`)
    for name in t.qualified_names(node):
        if name.startswith("."):  # `from .data import build`: the package is not told
            names.add(name.lstrip("."))
        else:
            names.add("/" + name)  # matched whole only
    last = name_of(origin.call.func) if origin.call is not None else ""
    if origin.call is not None and any(e.name.rpartition(".")[2] == last for e in exported):
        # `corpus.get_loader()` where `corpus = data.Corpus()` (or a module's alias)
        found = imported_name(view(t._module_node), origin.call.func)
        names.update(("/" + found,) if found is not None else ())
    for export in exported:
        if bool(export.taker) != takers or export.yields:
            continue
        if export.function != (origin.call is not None):
            continue
        if export.attribute != origin.attribute:
            continue
        # an unpacked prefix (`a, b = make()[:2]`) holds its items at any arity
        arity = export.arity if origin.arity is None else origin.arity
        if export.function and (export.position, export.arity) != (origin.position, arity):
            continue
        if any(n == "/" + f or f.endswith("." + n) for f in export.full_names for n in names):
            return export
    return None


def prefix_slice(node: cst.Subscript) -> bool:
    """`x[:k]` or `x[0:k]` (no step): the first k items, each at its own position."""
    if len(node.slice) != 1 or not isinstance(node.slice[0].slice, cst.Slice):
        return False
    cut = node.slice[0].slice
    lower = cut.lower
    start = lower is None or isinstance(lower, cst.Integer) and lower.value == "0"
    return start and cut.step is None


def unpacked_alias(
    t: LoaderImports,
    alias: cst.Name,
    expr: cst.BaseExpression,
    position: int,
    arity: int | None,
    path: Path,
    depth: int,
) -> list[Origin]:
    """`a, b = alias` where `alias` holds what a call returns whole: that call, its item at
    `position` of `arity` (the origins of `alias` that are whole results; of a prefix of
    one, `[:2]`, at `position` of as many as the call returns: arity None)."""
    return [
        replace(
            origin,
            binding=expr,
            position=position,
            arity=None if origin.prefix else arity,
            path=path,
            prefix=False,
        )
        for origin in t._origins(alias, path, depth + 1)
        if origin.call is not None and origin.position is None and not origin.attribute
    ]
