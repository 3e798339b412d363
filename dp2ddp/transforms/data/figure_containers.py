"""Averaging objects fed through a container of them, for DP030 (data/evaluation.py).

`meters = [AverageMeter() for _ in range(3)]` (or `[losses, top1]`, a tuple, a dict of
them) updated element by element in a training loop (`[m.update(v) for m, v in
zip(meters, values)]`, `for m in meters: m.update(loss.item())`) holds this rank's batches
as a meter updated by its own name does (class S2, fresh round 6). So does one updated
through an index (`losses[idx].update(loss[idx].item())` over a stage index,
mileyan/AnyNet@83badc7 finetune.py:169; stop 51 v2-B), and a container of lists appended to
through a key (`stats = {s: [] for s in ['tr_loss']}` ... `stats['tr_loss'].append(loss)`,
returned and logged as the epoch's tr_loss: ELEKTRONN/elektronn3@8111e5d
elektronn3/training/trainer.py:550-579; stop 54 s2). An update of any
element taints the container and the names it was built from; a read of the container
(`meters[0].avg`) or of an element variable of a loop over it is a read of the figures.
"""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from dp2ddp.transforms._support.nodes import name_of, variables_under, walk

#: What a name was bound to before a loop (counters.py: _bound_before).
InitialValue = Callable[[cst.For | cst.While, str], cst.BaseExpression | None]


def container_updates(
    loop: cst.For | cst.While, root: cst.CSTNode, batch: set[str], initial: InitialValue
) -> set[str]:
    """Containers of averaging objects `loop` feeds through their elements with figures of
    its batches (`batch`: the names it binds from them), with the names they hold and the
    names iterating over them anywhere in the function (`root`)."""
    found: set[str] = set()
    for node in walk(loop.body, skip_scopes=True):
        if isinstance(node, cst.For):
            scope: cst.CSTNode = node.body
        elif isinstance(node, (cst.ListComp, cst.SetComp, cst.GeneratorExp)):
            scope = node.elt
        else:
            continue
        loops = [node] if isinstance(node, cst.For) else _comp_fors(node)
        members: dict[str, tuple[str, set[str]]] = {}
        derived = set(batch)
        for each in loops:
            for target, source in _pairs(each.target, each.iter):
                container = _container(source)
                held = container_members(initial(loop, container)) if container else None
                if held is not None and isinstance(target, cst.Name):
                    members[target.value] = (str(container), held)
                elif any(n.value in derived for n in variables_under(source)):
                    derived |= {n.value for n in variables_under(target)}
        if not members:
            continue
        for call in walk(scope, skip_scopes=True):
            if not (
                isinstance(call, cst.Call)
                and isinstance(call.func, cst.Attribute)
                and isinstance(call.func.value, cst.Name)
                and call.func.value.value in members
            ):
                continue
            if any(n.value in derived for a in call.args for n in variables_under(a.value)):
                container, held = members[call.func.value.value]
                found |= {container, *held}
    return found | _indexed_updates(loop, batch, initial, root) | _element_names(root, found)


def _indexed_updates(
    loop: cst.For | cst.While, batch: set[str], initial: InitialValue, root: cst.CSTNode
) -> set[str]:
    """Containers of averaging objects `loop` feeds through an index with figures of its
    batches (`meters[k].update(loss[k].item())`, `meters["loss"].update(...)`), with the
    names they hold; containers of lists appended to through a key (`stats["tr_loss"]
    .append(loss)`), built of empty lists or given this key's empty list outside the loop
    (`history["tr_loss"] = []` before it, `history = {}` at module level:
    123sherlocklee/Generative-BiLSTM@4341d29's train.py, stop 61 v2-E, the epoch's mean of
    rank 0's losses printed with no DP030)."""
    found: set[str] = set()
    inside = {id(n) for n in walk(loop)}
    for call in walk(loop.body, skip_scopes=True):
        if not (
            isinstance(call, cst.Call)
            and isinstance(call.func, cst.Attribute)
            and isinstance(call.func.value, cst.Subscript)
            and isinstance(call.func.value.value, cst.Name)
        ):
            continue
        container = call.func.value.value.value
        value = initial(loop, container)
        held = container_members(value)
        if call.func.attr.value in ("append", "extend") and held is None:
            if _of_lists(value) or _keyed_list(root, call.func.value, inside):
                held = set()
        if held is not None and any(
            n.value in batch for a in call.args for n in variables_under(a.value)
        ):
            found |= {container, *held}
    return found


def _keyed_list(root: cst.CSTNode, item: cst.Subscript, inside: set[int]) -> bool:
    """`item` (`history["tr_loss"]`) is bound to an empty list outside the loop (`inside`:
    its nodes' ids) in the function `root`."""
    for node in walk(root, skip_scopes=True):
        if (
            isinstance(node, cst.Assign)
            and id(node) not in inside
            and isinstance(node.value, cst.List)
            and not node.value.elements
            and any(t.target.deep_equals(item) for t in node.targets)
        ):
            return True
    return False


def _of_lists(value: cst.BaseExpression | None) -> bool:
    """A container built of empty lists: `{k: [] for k in keys}`, `{"a": [], "b": []}`,
    `[[] for _ in range(n)]`, `[[], []]`."""
    if isinstance(value, (cst.ListComp, cst.DictComp)):
        item = value.elt if isinstance(value, cst.ListComp) else value.value
        return isinstance(item, cst.List) and not item.elements
    if isinstance(value, cst.Dict):
        items: list[cst.BaseExpression] = [
            e.value for e in value.elements if isinstance(e, cst.DictElement)
        ]
    elif isinstance(value, cst.List):
        items = [e.value for e in value.elements]
    else:
        return False
    return bool(items) and all(isinstance(i, cst.List) and not i.elements for i in items)


def _comp_fors(node: cst.ListComp | cst.SetComp | cst.GeneratorExp) -> list[cst.CompFor]:
    found = []
    current: cst.CompFor | None = node.for_in
    while current is not None:
        found.append(current)
        current = current.inner_for_in
    return found


def _pairs(
    target: cst.BaseExpression, source: cst.BaseExpression
) -> list[tuple[cst.BaseExpression, cst.BaseExpression]]:
    """(target, what it takes its items from) through zip() and enumerate()."""
    if isinstance(source, cst.Call) and isinstance(target, (cst.Tuple, cst.List)):
        args = [a.value for a in source.args if a.keyword is None and not a.star]
        items = [e.value for e in target.elements]
        if name_of(source.func) == "zip" and len(args) == len(items):
            return list(zip(items, args, strict=True))
        if name_of(source.func) == "enumerate" and len(items) == 2 and args:
            return [(items[1], args[0])]
    return [(target, source)]


def _container(source: cst.BaseExpression) -> str | None:
    """`meters`, or `meters.values()` of a dict of them."""
    if (
        isinstance(source, cst.Call)
        and isinstance(source.func, cst.Attribute)
        and source.func.attr.value == "values"
        and not source.args
    ):
        source = source.func.value
    return source.value if isinstance(source, cst.Name) else None


def container_members(value: cst.BaseExpression | None) -> set[str] | None:
    """The names a container literal holds (empty: built by calls), None when `value`
    is no container of objects built before the loop."""
    if isinstance(value, (cst.ListComp, cst.GeneratorExp)):
        return set() if isinstance(value.elt, cst.Call) else None
    if isinstance(value, cst.DictComp):
        return set() if isinstance(value.value, cst.Call) else None
    if isinstance(value, cst.Dict):
        items = [e.value for e in value.elements if isinstance(e, cst.DictElement)]
        if len(items) != len(value.elements):
            return None
    elif isinstance(value, (cst.List, cst.Tuple)):
        items = [e.value for e in value.elements if not isinstance(e, cst.StarredElement)]
    else:
        return None
    if not items or not all(isinstance(i, (cst.Name, cst.Call)) for i in items):
        return None
    return {i.value for i in items if isinstance(i, cst.Name)}


def _element_names(root: cst.CSTNode, containers: set[str]) -> set[str]:
    """Names bound by the loops over a tainted container in the function (`for m in
    meters: print(m.avg)` after the training loop)."""
    found: set[str] = set()
    for node in walk(root, skip_scopes=True):
        if isinstance(node, (cst.For, cst.CompFor)):
            for target, source in _pairs(node.target, node.iter):
                if _container(source) in containers and isinstance(target, cst.Name):
                    found.add(target.value)
    return found
