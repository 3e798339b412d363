"""A tensor sized by a per-rank training batch meeting a whole batch of another loader (DP044).

astorfi/cor-gan@b6df51a (wgan.py): inside the loop over the training loader,
`valid = Variable(Tensor(samples.shape[0]).fill_(1.0))`; after the loop, the test pass
compares the discriminator's output on `next(iter(dataloader_test))` with `valid`. Under
DataParallel both loaders gave batches of `opt.batch_size` (16); migrated, the training
loader gives each rank its share (8) and the test loader, left whole (DP009), 16:
`RuntimeError: The size of tensor a (16) must match the size of tensor b (8)` on every
rank at the end of the first epoch. No rewrite is safe in general (what the tensor should
be sized by is the program's choice), so DP044 points at the use.

Found in one scope (a function, or the module's top level): a loop over a loader this pass
shards; the names assigned inside it from a size of its batch (`x.shape[0]`, `x.size(0)`,
`x.size()[0]`, `len(x)`, `x.shape`, `torch.ones_like(x)`), also through names assigned from
those (`bs = x.size(0)`; `ones = torch.ones(bs)`), and read after the loop, never
reassigned outside it; a statement there reading such a name together with a value that
comes from a whole loader's batch (a loop over it, `next(iter(loader))`, and the names
assigned from those). Not through reductions (`.item()`, `.mean()`, `torch.sum(...)`):
a scalar has no batch size, nor through sizes of other dimensions (`x.size(1)`).
With --per-process-batch the training batch keeps its size: nothing to warn.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

import libcst as cst

from dp2ddp.transforms._support.nodes import (
    ModuleNodes,
    enclosing_function,
    iterated,
    name_of,
    target_names,
    variables_under,
    walk,
)
from dp2ddp.transforms.data.plan import Loader

if TYPE_CHECKING:
    from dp2ddp.transforms.data import ShardDataLoaders

#: Calls after which a value has no batch dimension left.
_REDUCTIONS = frozenset(
    {"item", "tolist", "mean", "sum", "max", "min", "norm", "std", "var", "all", "any",
     "backward", "numel", "argmax", "argmin", "prod", "dim", "float_power"}
)  # fmt: skip
_LIKE = frozenset({"ones_like", "zeros_like", "full_like", "empty_like", "rand_like", "randn_like"})
_NOT_SIZED = frozenset({"dtype", "device", "ndim", "is_cuda", "requires_grad"})


@dataclass(frozen=True)
class _Origin:
    """Where a name got its size: the expression and the loader. (No line: the pass's
    positions are those of its input, which earlier passes rewrote; only the warning's
    own position is mapped back to the user's file.)"""

    expression: str
    loader: str


def batch_sized_meetings(
    data: ShardDataLoaders,
    nodes: ModuleNodes,
    sharded: set[cst.Call],
    iterated_through: Callable[[cst.BaseExpression], list[cst.BaseExpression]],
) -> Iterator[tuple[cst.Name, str]]:
    """(the name read, the warning's detail) for each meeting of a per-rank-sized tensor
    with a whole loader's batch."""
    loaders = {c: Loader(c, {}, data._binding(c)[0], None, None) for c in data._all_loaders}
    whole = set(loaders) - sharded
    if not whole or not sharded:
        return

    def resolved(expr: cst.BaseExpression) -> list[cst.Call]:
        return [call for call, _ in data._resolve(expr, loaders, 0)]

    def label(call: cst.Call) -> str:
        binding = loaders[call].binding
        return data.code(binding) if binding is not None else "a DataLoader"

    sharded_loops: list[tuple[cst.For, cst.Call]] = []
    whole_sources: list[tuple[cst.CSTNode, set[str], _Origin]] = []  # (node, names, origin)
    for node in nodes.of((cst.For, cst.Call)):
        if isinstance(node, cst.For):
            calls = [c for e in iterated_through(node.iter) for c in resolved(e)]
            if any(c in sharded for c in calls):
                sharded_loops.append((node, next(c for c in calls if c in sharded)))
            elif calls and all(c in whole for c in calls):
                origin = _Origin(data.code(node.iter), label(calls[0]))
                whole_sources.append((node, _target_names(node.target), origin))
        elif isinstance(node, cst.Call) and name_of(node.func) == "next" and node.args:
            calls = [c for e in iterated(node.args[0].value) for c in resolved(e)]
            if calls and all(c in whole for c in calls):
                origin = _Origin(data.code(node), label(calls[0]))
                whole_sources.append((node, set(), origin))
    if not whole_sources:
        return
    for loop, loader in sharded_loops:
        scope = _scope(loop, data)
        sized = _sized_names(loop, data, label(loader))
        if not sized:
            continue
        inside = {id(n) for n in walk(loop.body, skip_scopes=True)}
        outside = [n for n in walk(scope, skip_scopes=True) if id(n) not in inside]
        reassigned = {
            name for stmt in outside if isinstance(stmt, cst.Assign) for name in _assigned(stmt)
        }
        sized = {k: v for k, v in sized.items() if k not in reassigned}
        batches = _whole_names(outside, whole_sources, data)
        seen: set[tuple[str, int]] = set()
        for stmt in outside:
            if not isinstance(stmt, cst.BaseSmallStatement):
                continue
            names = variables_under(stmt)
            meets = [
                (n, batches[n.value])
                for n in names
                if n.value in batches and _counted(n, stmt, data) and not _target(n, data)
            ] + [(n, o) for n in walk(stmt) for o in _sources_in(n, whole_sources)]
            if not meets:
                continue
            for name in names:
                size = sized.get(name.value)
                if size is None or _target(name, data) or not _counted(name, stmt, data):
                    continue
                key = (name.value, data._position(stmt)[0])
                if key in seen:
                    continue
                seen.add(key)
                other = meets[0][1]
                yield (
                    name,
                    f"{name.value} is sized by each rank's share of a {size.loader} batch "
                    f"({size.expression}) and meets a whole batch of {other.loader} "
                    f"({other.expression})",
                )


def _scope(loop: cst.For, data: ShardDataLoaders) -> cst.CSTNode:
    function = enclosing_function(loop, data)
    if function is not None:
        return function.body
    node: cst.CSTNode = loop
    while (parent := data.parent(node)) is not None:
        node = parent
    return node


def _target_names(target: cst.BaseExpression) -> set[str]:
    return target_names(target)


def _assigned(stmt: cst.Assign) -> set[str]:
    return {name for t in stmt.targets for name in _target_names(t.target)}


def _target(name: cst.Name, data: ShardDataLoaders) -> bool:
    """`name` is (part of) what an assignment or a loop binds."""
    node: cst.CSTNode = name
    while (parent := data.parent(node)) is not None:
        if isinstance(parent, cst.AssignTarget) or (
            isinstance(parent, cst.For) and parent.target is node
        ):
            return True
        if not isinstance(parent, (cst.Tuple, cst.List, cst.Element, cst.StarredElement)):
            return False
        node = parent
    return False


def _reduced(name: cst.Name, root: cst.CSTNode, data: ShardDataLoaders) -> bool:
    """Under a reduction (`x.mean()`, `torch.sum(x)`, `x.item()`) before `root`."""
    node: cst.CSTNode = name
    while node is not root and (parent := data.parent(node)) is not None:
        if isinstance(parent, cst.Call) and name_of(parent.func) in _REDUCTIONS:
            return True
        node = parent
    return False


def _other_dimension(name: cst.Name, data: ShardDataLoaders) -> bool:
    """`x.size(1)`, `x.shape[2]`, `x.size()[1]`, `x.dtype`: not the batch dimension."""
    parent = data.parent(name)
    if not (isinstance(parent, cst.Attribute) and parent.value is name):
        return False
    if parent.attr.value in _NOT_SIZED:
        return True
    above = data.parent(parent)
    if parent.attr.value == "shape" and isinstance(above, cst.Subscript):
        return _index_not_zero(above)
    if parent.attr.value == "size" and isinstance(above, cst.Call):
        if above.args:
            value = above.args[0].value
            return isinstance(value, cst.Integer) and value.value != "0"
        subscript = data.parent(above)
        return isinstance(subscript, cst.Subscript) and _index_not_zero(subscript)
    return False


def _index_not_zero(subscript: cst.Subscript) -> bool:
    if len(subscript.slice) != 1 or not isinstance(subscript.slice[0].slice, cst.Index):
        return False
    value = subscript.slice[0].slice.value
    return isinstance(value, cst.Integer) and value.value != "0"


def _counted(name: cst.Name, root: cst.CSTNode, data: ShardDataLoaders) -> bool:
    """The occurrence carries the batch dimension."""
    return not _reduced(name, root, data) and not _other_dimension(name, data)


def _size_of(name: cst.Name, data: ShardDataLoaders) -> bool:
    """`x.shape`, `x.size(...)`, `len(x)`, `torch.ones_like(x)`: a size of `x`'s batch."""
    parent = data.parent(name)
    if isinstance(parent, cst.Attribute) and parent.value is name:
        return parent.attr.value in ("shape", "size") and not _other_dimension(name, data)
    if isinstance(parent, cst.Arg):
        call = data.parent(parent)
        return (
            isinstance(call, cst.Call)
            and call.args[0] is parent
            and name_of(call.func) in (_LIKE | {"len"})
        )
    return False


def _sized_names(loop: cst.For, data: ShardDataLoaders, loader: str) -> dict[str, _Origin]:
    """Names the loop's body assigns from a size of its batch, or from such names."""
    batch = _target_names(loop.target)
    assignments = [n for n in walk(loop.body, skip_scopes=True) if isinstance(n, cst.Assign)]
    for stmt in assignments:  # names holding the batch: `real = Variable(x.type(Tensor))`
        if any(n.value in batch for n in variables_under(stmt.value)):
            if not any(isinstance(n, cst.Call) and _reduces(n) for n in walk(stmt.value)):
                batch |= _assigned(stmt)
    sized: dict[str, _Origin] = {}
    changed = True
    while changed:
        changed = False
        for stmt in assignments:
            targets = _assigned(stmt) - set(sized)
            if not targets:
                continue
            for name in variables_under(stmt.value):
                if _reduced(name, stmt.value, data):
                    continue
                if name.value in sized:
                    origin = sized[name.value]
                elif name.value in batch and _size_of(name, data):
                    origin = _Origin(_size_expression(name, data), loader)
                else:
                    continue
                sized.update(dict.fromkeys(targets, origin))
                changed = True
                break
    return sized


def _reduces(call: cst.Call) -> bool:
    return name_of(call.func) in _REDUCTIONS


def _size_expression(name: cst.Name, data: ShardDataLoaders) -> str:
    """The code of `x.shape[0]` / `x.size(0)` / `len(x)` around `name`."""
    parent = data.parent(name)
    if isinstance(parent, cst.Arg):  # len(x), torch.ones_like(x)
        return data.code(data.parent(parent) or parent)
    node: cst.CSTNode = parent or name
    above = data.parent(node)
    if isinstance(above, cst.Call) and above.func is node:
        node, above = above, data.parent(above)
    if isinstance(above, cst.Subscript) and above.value is node:
        node = above
    return data.code(node)


def _whole_names(
    outside: list[cst.CSTNode],
    sources: list[tuple[cst.CSTNode, set[str], _Origin]],
    data: ShardDataLoaders,
) -> dict[str, _Origin]:
    """Names holding (something computed from) a whole loader's batch, in the scope."""
    names: dict[str, _Origin] = {}
    for _, bound, origin in sources:
        names.update(dict.fromkeys(bound, origin))
    assignments = [n for n in outside if isinstance(n, cst.Assign)]
    changed = True
    while changed:
        changed = False
        for stmt in assignments:
            targets = _assigned(stmt) - set(names)
            if not targets:
                continue
            variables = {id(n) for n in variables_under(stmt.value)}
            for node in walk(stmt.value):
                found = next(iter(_sources_in(node, sources)), None)
                if found is None and isinstance(node, cst.Name) and id(node) in variables:
                    if node.value in names and _counted(node, stmt.value, data):
                        found = names[node.value]
                if found is not None:
                    names.update(dict.fromkeys(targets, found))
                    changed = True
                    break
    return names


def _sources_in(
    node: cst.CSTNode, sources: list[tuple[cst.CSTNode, set[str], _Origin]]
) -> list[_Origin]:
    """`node` is one of the `next(iter(loader))` calls of a whole loader."""
    return [origin for where, bound, origin in sources if where is node and not bound]
