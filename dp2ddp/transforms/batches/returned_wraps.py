"""Wrapped models handed back by the module's own factories (stop 34, M1: MetaOptNet).

`get_model()` wraps the embedding net (`network = DataParallel(network)`) and returns it
beside an unwrapped head, `return (network, cls_head)`; the entry binds `(embedding_net,
cls_head) = get_model(opt)` and calls `embedding_net(...)` in its training loop. The model
pass knows the wrap by the name it is assigned to in the factory (`network`), so the batch
proof saw no call of a wrapped model in the loop and proved nothing: every rank trained on
every episode, without a word. Here the names a module binds from a call of one of its own
module-level functions whose `return` gives a wrapped name (the whole value, or an element
of a returned tuple or list, by position) are wrapped models too: `embedding_net` above.
"""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from dp2ddp.transforms._support.nodes import ModuleNodes, code_of, walk


def _returned_positions(function: cst.FunctionDef, wrapped: set[str]) -> set[int | None]:
    """Positions of the returned tuple that hold a wrapped name (None: the whole value)."""
    found: set[int | None] = set()
    for node in walk(function.body, skip_scopes=True):
        if not isinstance(node, cst.Return) or node.value is None:
            continue
        value = node.value
        if isinstance(value, (cst.Tuple, cst.List)):
            for index, element in enumerate(value.elements):
                if isinstance(element, cst.Element) and code_of(element.value) in wrapped:
                    found.add(index)
        elif code_of(value) in wrapped:
            found.add(None)
    return found


def returned_wraps(nodes: ModuleNodes, wrapped: list[str]) -> list[str]:
    """The names bound from calls of the module's functions that return a wrapped model,
    not already in `wrapped` (see the module docstring)."""
    known = set(wrapped)
    if not known:
        return []
    positions: dict[str, set[int | None]] = {}
    for function in nodes.of(cst.FunctionDef):
        found = _returned_positions(function, known)
        if found:
            positions[function.name.value] = found
    if not positions:
        return []
    names: list[str] = []
    for node in nodes.of(cst.Assign):
        if not (
            len(node.targets) == 1
            and isinstance(node.value, cst.Call)
            and isinstance(node.value.func, cst.Name)
            and node.value.func.value in positions
        ):
            continue
        target = node.targets[0].target
        for position in positions[node.value.func.value]:
            if position is None and isinstance(target, (cst.Name, cst.Attribute)):
                bound: cst.BaseExpression | None = target
            elif (
                position is not None
                and isinstance(target, (cst.Tuple, cst.List))
                and position < len(target.elements)
                and not any(isinstance(e, cst.StarredElement) for e in target.elements)
            ):
                bound = target.elements[position].value
            else:
                bound = None
            if isinstance(bound, (cst.Name, cst.Attribute)):
                name = code_of(bound)
                if name not in known and name not in names:
                    names.append(name)
    return names


def headed_outputs(body: cst.BaseSuite, outputs: set[str]) -> set[str]:
    """Names a loop body binds from a call handed a wrapped model's output, and so on from
    those (`vec = model_head(unnormed_vec)` after `unnormed_vec, normed_vec = model(data)`):
    a head applied to each row keeps the batch's rows, so an index into it by the global
    batch size cuts this rank's rows as one into the output does (stop 46 class v3-C,
    okankop/Driver-Anomaly-Detection@6f7f251: `n_vec = vec[0:args.n_train_batch_size]`)."""
    found: set[str] = set()
    grown = True
    while grown:
        grown = False
        for node in walk(body):
            if not (
                isinstance(node, cst.Assign)
                and len(node.targets) == 1
                and isinstance(node.targets[0].target, cst.Name)
                and isinstance(node.value, cst.Call)
            ):
                continue
            name = node.targets[0].target.value
            taken = {code_of(a.value) for a in node.value.args}
            if name not in outputs | found and taken & (outputs | found):
                found.add(name)
                grown = True
    return found


def stored_wraps(
    nodes: ModuleNodes, wrapped: list[str], is_wrap: Callable[[cst.CSTNode], bool]
) -> list[str]:
    """The attributes a function stores a wrapped name in after wrapping it there (`model =
    DataParallel(model, dim=1)`, then `self.model = model`): the wrap the class's other
    methods call as `self.model(src, trg)`, not in `wrapped` (stop 65, v1-B,
    zihaohe123/pytorch-seq2seq@6a06fcc: its loop over `self.train_iterator` was not read as
    feeding a wrapped model, so its batches stayed whole on every rank, unsaid, and a summed
    loss was still multiplied by WORLD_SIZE). `is_wrap`: the pass's test of a wrap call, by
    qualified name (an alias `DP(model)` is one; a name merely ending in DataParallel is not)."""
    known = set(wrapped)
    names: list[str] = []
    for function in nodes.of(cst.FunctionDef):
        wrapped_here: set[str] = set()
        for node in walk(function.body, skip_scopes=True):
            if not isinstance(node, cst.Assign) or len(node.targets) != 1:
                continue
            target, value = node.targets[0].target, node.value
            if isinstance(target, cst.Name) and target.value in known:
                if any(is_wrap(n) for n in walk(value)):
                    wrapped_here.add(target.value)
                else:
                    wrapped_here.discard(target.value)
            elif (
                isinstance(target, cst.Attribute)
                and isinstance(value, cst.Name)
                and value.value in wrapped_here
                and code_of(target) not in known | set(names)
            ):
                names.append(code_of(target))
    return names


def hinted_stored_wraps(module: cst.Module, told: frozenset[str]) -> list[str]:
    """The attributes (`self.model`) a top-level class's `__init__` stores a parameter in
    that another module's call may hand a DataParallel wrap (ProgramHints.wrap_reaches,
    `Trainer|model` or `Trainer|0`): the wrap its other methods call (round 25 ra,
    i-machine-think/machine@d78d70e's SupervisedTrainer, handed the wrap by the entry:
    its batches, walked over a torchtext iterator, were never read as feeding a wrapped
    model, so they stayed whole on every rank and nothing said so)."""
    names: list[str] = []
    for owner in module.body:
        if not isinstance(owner, cst.ClassDef) or not isinstance(owner.body, cst.IndentedBlock):
            continue
        init = next(
            (
                f
                for f in owner.body.body
                if isinstance(f, cst.FunctionDef) and f.name.value == "__init__"
            ),
            None,
        )
        if init is None:
            continue
        positional = [*init.params.posonly_params, *init.params.params][1:]
        handed = {
            p.name.value
            for i, p in enumerate(positional)
            if {f"{owner.name.value}|{p.name.value}", f"{owner.name.value}|{i}"} & told
        }
        for node in walk(init.body, skip_scopes=True):
            if isinstance(node, cst.Assign) and len(node.targets) == 1:
                pairs = _pairs(node.targets[0].target, node.value)
                for target, value in pairs:
                    if (
                        isinstance(target, cst.Attribute)
                        and isinstance(value, cst.Name)
                        and value.value in handed
                        and code_of(target) not in names
                    ):
                        names.append(code_of(target))
    return names


def _pairs(
    target: cst.BaseExpression, value: cst.BaseExpression
) -> list[tuple[cst.BaseExpression, cst.BaseExpression]]:
    """`a, b = x, y` as (a, x), (b, y); a plain assignment as one pair."""
    if isinstance(target, (cst.Tuple, cst.List)) and isinstance(value, (cst.Tuple, cst.List)):
        if len(target.elements) == len(value.elements):
            return [
                (t.value, v.value) for t, v in zip(target.elements, value.elements, strict=True)
            ]
        return []
    return [(target, value)]
