"""Which loops take a loader's batches and what they run, beyond `for x in loader`
(data pass): a `while` loop that takes them with `next(it)` of `iter(loader)` (class H2
of stop 32), and the calls a loop proved never to train may make (class H1)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from dp2ddp.flow import origins, view
from dp2ddp.flow.passes import iterator_of, taken_iterator
from dp2ddp.transforms._support.names import DATALOADER
from dp2ddp.transforms._support.nodes import (
    ModuleNodes,
    assigned_value,
    derived_names,
    enclosing_function,
    iterated,
    module_of,
    name_of,
    nodes_of,
    variables_under,
    walk,
)
from dp2ddp.transforms.analysis.device_moves import kept_rows
from dp2ddp.transforms.analysis.fixed_fetch import iterates_built_loader
from dp2ddp.transforms.analysis.generator_batches import generator_takers
from dp2ddp.transforms.data.decisions import LIBRARY_ROOTS
from dp2ddp.transforms.data.unlooped_shards import runs_in_program

if TYPE_CHECKING:
    from dp2ddp.transforms.data import ShardDataLoaders
    from dp2ddp.transforms.data.plan import Loader


def register_next_loops(
    t: ShardDataLoaders, nodes: ModuleNodes, loaders: dict[cst.Call, Loader]
) -> None:
    """Each loader's `next_loops`: the `while` loops, and the `for` loops not over a loader,
    that take its batches with `next(it)` (next_loaders)."""
    over_loaders = {id(loop) for found in loaders.values() for loop, _, _ in found.loops}
    for taker in nodes.of((cst.For, cst.While)):
        if isinstance(taker, cst.For) and id(taker) in over_loaders:
            continue
        if not runs_in_program(t, taker):  # an imported module's `__main__` block
            continue
        for call in next_loaders(t, taker, loaders):
            if not any(seen is taker for seen in loaders[call].next_loops):
                loaders[call].next_loops.append(taker)


def register_generator_loops(t: ShardDataLoaders, loaders: dict[cst.Call, Loader]) -> None:
    """The loops that take a loader's batches from a generator of this module yielding
    them (analysis/generator_batches.generator_takers: `for i, batch in
    enumerate(tqdm(self.sup_iter))` after `self.sup_iter = self.repeat(loader)`, or
    `batch = next(it)` in a loop after `it = repeat(loader)`): a `for` taker is one of
    the loader's `read_loops`, the loop around a `next()` taker one of its `next_loops`.
    Their running figures are this rank's share as a loop's over the loader (DP030;
    class v1-E of stop 39, SanghunYun/UDA_pytorch@0ba5cf8's "Average Loss", before: no
    word)."""
    for loader in loaders.values():
        module = module_of(loader.call, t)
        if not isinstance(module, cst.Module):
            continue
        for loop, _, _ in list(loader.loops):
            for taker in generator_takers(view(module), loop):
                if isinstance(taker, cst.For):
                    if not any(taker is seen for seen in loader.read_loops):
                        loader.read_loops.append(taker)
                    continue
                around = _loop_around(t, taker)
                if around is not None and not any(around is s for s in loader.next_loops):
                    loader.next_loops.append(around)
    _register_wrapper_loops(t, loaders)


def _register_wrapper_loops(t: ShardDataLoaders, loaders: dict[cst.Call, Loader]) -> None:
    """The `for` loops over an object of a class of this module whose `__iter__` yields the
    batches of loaders the class builds (analysis/fixed_fetch.iterates_built_loader:
    P2333/Bag-of-Tricks-for-AT@ebf1e9b's `Batches`, a dict per batch of `self.dataloader`,
    class v1-A of stop 43): each is one of those loaders' `read_loops`. Their running
    figures are this rank's share (DP030: the test loop's robust accuracy was rank 0's half,
    in silence, once the batches proof left the batches unsplit); set_epoch and evaluation
    sums are not planned there (they need the loader's own spelling)."""
    modules = {id(m): m for c in loaders if isinstance(m := module_of(c, t), cst.Module)}
    for module in modules.values():
        classes = {c.name.value: c for c in module.body if isinstance(c, cst.ClassDef)}
        flow = view(module)
        for loop in nodes_of(module, cst.For):
            for expr in iterated(loop.iter):
                made = [o.call for o in t._origins(expr, (), 0)]
                made += [  # through a factory and a method returning self (round 35, Shift-Net)
                    o.node
                    for o in origins(flow, expr)
                    if o.kind == "instance" and isinstance(o.node, cst.Call)
                ]
                for call in made:
                    owner = classes.get(name_of(call.func)) if call is not None else None
                    if owner is None or not iterates_built_loader(
                        owner, lambda c: t.matches(c.func, DATALOADER)
                    ):
                        continue
                    for built in nodes_of(owner, cst.Call):
                        if built in loaders and loop not in loaders[built].read_loops:
                            loaders[built].read_loops.append(loop)


def _loop_around(t: ShardDataLoaders, node: cst.CSTNode) -> cst.For | cst.While | None:
    """The innermost loop around `node` in its own function (None: none there)."""
    child, current = node, t.parent(node)
    while current is not None and not isinstance(
        current, (cst.FunctionDef, cst.Lambda, cst.ClassDef, cst.Module)
    ):
        if isinstance(current, (cst.For, cst.While)) and child is current.body:
            return current
        child, current = current, t.parent(current)
    return None


def next_loaders(
    t: ShardDataLoaders, loop: cst.While | cst.For, loaders: dict[cst.Call, Loader]
) -> set[cst.Call]:
    """The loaders whose batches `loop` takes with `next(it)`, `it` bound only to
    `iter(loader)` (`while True: try: x, y = next(it) except StopIteration: it =
    iter(dl)`): the loop consumes their batches as a `for` over them does (class H2). Also
    a `for` loop over something else, `for i in range(n):` (class D1, stop 33:
    deeplab-pytorch's iterations, each taking ITER_SIZE batches so). The `next(it)` may
    also be in a function of this module the loop calls, `it` then a module-level name
    (class F1, stop 34: meijieru/crnn.pytorch's `cost = trainBatch(...)`, whose first line
    is `data = train_iter.next()`): the loop takes a batch each time it calls it."""
    found: set[cst.Call] = set()
    for node in (n for body in _step_bodies(t, loop) for n in walk(body, skip_scopes=True)):
        it = taken_iterator(node)
        if not isinstance(it, cst.Name):
            continue
        bound = [assigned_value(r.node, t) for r in t.referents(it)]
        walked = [iterator_of(b) for b in bound]
        if not walked or any(w is None for w in walked):
            continue
        for w in walked:
            assert w is not None
            found.update(call for call, _ in t._resolve(w, loaders, 0))
    return found


def _step_bodies(t: ShardDataLoaders, loop: cst.While | cst.For) -> list[cst.CSTNode]:
    """The loop's body and the bodies of this module's functions it calls by name or on
    `self` (one level: a step helper), those holding the loop left out."""
    bodies: list[cst.CSTNode] = [loop.body]
    for node in walk(loop.body, skip_scopes=True):
        if isinstance(node, cst.Call):
            for function in t._called_functions(node):
                if not any(n is loop for n in walk(function.body)):
                    bodies.append(function.body)
    return bodies


def package_call(t: ShardDataLoaders, call: cst.Call) -> bool:
    """A package's function: `np.save`, `os.path.join`, `len`."""
    return any(q.split(".")[0] in LIBRARY_ROOTS for q in t.qualified_names(call.func))


def runs_module(t: ShardDataLoaders, call: cst.Call) -> bool:
    """A call of a name bound only to a torch object (`model = nn.DataParallel(Net())`):
    its forward."""
    if not isinstance(call.func, cst.Name):
        return False
    referents = t.referents(call.func)
    return bool(referents) and all(
        isinstance(r.node, cst.Name)
        and isinstance(bound := assigned_value(r.node, t), cst.Call)
        and any(q.split(".")[0] == "torch" for q in t.qualified_names(bound.func))
        for r in referents
    )


def batch_names(loop: cst.For | cst.While) -> set[str]:
    """A `for` loop's target; what the loop binds from `next(it)` (a `while` loop's
    batches, or a `for` loop's over `range` that takes them so)."""
    target = variables_under(loop.target) if isinstance(loop, cst.For) else []
    return {n.value for n in target} | next_bound(loop.body)


def next_bound(body: cst.CSTNode) -> set[str]:
    """The names `body` (not the scopes defined in it) binds from `next(it)` (or
    `it.next()`, `it.__next__()`: flow/passes.taken_iterator), moved or cast
    as a whole too (`x = next(it).to(device)`: device_moves.kept_rows; round 22 (gen),
    pkuanjie/ArtFlow@bbc33ec: its running losses, rank 0's share, were printed with no
    DP030 where `x = next(it)` had it)."""
    return {
        n.value
        for node in walk(body, skip_scopes=True)
        if isinstance(node, cst.Assign) and taken_iterator(kept_rows(node.value)) is not None
        for t in node.targets
        for n in variables_under(t.target)
    }


def batch_derived(loop: cst.For | cst.While, taken: frozenset[str] = frozenset()) -> set[str]:
    """Names the loop binds from its batches: its target, and what the body computes
    from them (`output = model(input)`, `loss = criterion(output, target)`); `taken`: more
    names bound from them (helper_batch_names)."""
    return derived_names(loop.body, batch_names(loop) | taken)


def fed_receivers(
    t: ShardDataLoaders, body: cst.CSTNode, derived: set[str], keepers: frozenset[str]
) -> set[str]:
    """Names whose method a statement of `body` hands a value read from `derived` where that
    method stores what it computes from it on its instance (`metric.calculate(out, y)`, then
    `score.update(metric.get_metric("rmse"), metric.num)`: round 33,
    wvangansbeke/Sparse-Depth-Completion@a01ac3c's training RMSE, rank 0's half, no DP030);
    a method of this module read here, or one of `keepers` ("Class.method" that store what
    they are given: ProgramHints.keepers) of the class every binding of the name builds.
    Not a step method that stores nothing (`trainer.train_step(x, y)`)."""
    found: set[str] = set()
    for node in walk(body, skip_scopes=True):
        call = node.value if isinstance(node, cst.Expr) else None
        if not (
            isinstance(call, cst.Call)
            and isinstance(call.func, cst.Attribute)
            and isinstance(receiver := call.func.value, cst.Name)
            and any(n.value in derived for a in call.args for n in variables_under(a.value))
        ):
            continue
        method = call.func.attr.value
        if any(_stores_from_arguments(m, call, derived) for m in t._called_functions(call)):
            found.add(receiver.value)
        elif keepers:
            built = [d.value for d in view(t._module_node).reaching(receiver)]
            classes = [name_of(v.func).rpartition(".")[2] for v in built if isinstance(v, cst.Call)]
            if built and len(classes) == len(built):
                if all(f"{c}.{method}" in keepers for c in classes):
                    found.add(receiver.value)
    return found


def helper_batch_names(t: ShardDataLoaders, loop: cst.For | cst.While) -> frozenset[str]:
    """Names the loop binds from a call of a step helper of this module that takes a
    batch with `next(it)` and returns something computed from it (class F1, stop 34:
    `cost = trainBatch(crnn, criterion, optimizer)`, the batch read inside), or from a call
    of a method taking batches of a class's sharded loaders (data/batch_takers.py:
    `image, labels = train_dataset.get_batch()`)."""
    found: set[str] = set()
    for node in walk(loop.body, skip_scopes=True):
        if isinstance(node, cst.Assign) and isinstance(node.value, cst.Call):
            if node.value in t._taker_calls or any(
                _returns_batch_figure(f) for f in t._called_functions(node.value)
            ):
                found |= {n.value for tg in node.targets for n in variables_under(tg.target)}
    return frozenset(found | _stored_by_step_methods(t, loop, found))


def _stored_by_step_methods(
    t: ShardDataLoaders, loop: cst.For | cst.While, taken: set[str]
) -> set[str]:
    """The loop's own instance (`self`) where the loop, in a method, hands its batch to a
    method of its class that stores what it computes from it in an attribute: a trainer's
    `self._parse_data(inputs)` setting `self.data = imgs.cuda()`, its `self._forward()` then
    `self.loss = self.criterion(self.model(self.data), ...)`, and the loop feeding
    `losses.update(self.loss.item())` (daizuozhuo/batch-dropblock-network@21c99ab
    trainers/trainer.py, class v2-A of stop 60: the epoch's running loss, rank 0's share,
    was printed with no DP030). An attribute stored in the loop itself already makes `self`
    one of the names bound from the batches (derived_names reads `self.loss = ...` as a
    store to `self`); a store in a called method is read as the same store."""
    function = enclosing_function(loop, t)
    if function is None or not function.params.params:
        return set()
    me = function.params.params[0].name.value
    derived = batch_derived(loop, frozenset(taken))
    if me in derived:
        return set()
    return {me} & fed_receivers(t, loop.body, derived, frozenset())


def _stores_from_arguments(method: cst.FunctionDef, call: cst.Call, derived: set[str]) -> bool:
    """`method`, called as `call` with arguments read from `derived`, assigns an attribute
    of its instance (`self.data = x.cuda()`) a value computed from those parameters."""
    params = [p.name.value for p in method.params.params]
    if len(params) < 2:
        return False
    own, rest = params[0], params[1:]
    seed: set[str] = set()
    for index, arg in enumerate(call.args):
        if not any(n.value in derived for n in variables_under(arg.value)) or arg.star:
            continue
        if arg.keyword is not None:
            seed.add(arg.keyword.value)
        elif index < len(rest):
            seed.add(rest[index])
    inner = derived_names(method.body, seed) if seed else set()
    return any(
        isinstance(node, cst.Assign)
        and any(
            isinstance(tg.target, cst.Attribute)
            and isinstance(tg.target.value, cst.Name)
            and tg.target.value.value == own
            for tg in node.targets
        )
        and any(n.value in inner for n in variables_under(node.value))
        for node in walk(method.body, skip_scopes=True)
    )


def _returns_batch_figure(function: cst.FunctionDef) -> bool:
    """`function` binds a batch from `next(it)` and returns a value computed from it."""
    taken = next_bound(function.body)
    if not taken:
        return False
    derived = derived_names(function.body, taken)
    return any(
        isinstance(node, cst.Return)
        and node.value is not None
        and any(isinstance(n, cst.Name) and n.value in derived for n in walk(node.value))
        for node in walk(function.body, skip_scopes=True)
    )


def next_taken(
    t: ShardDataLoaders, nodes: ModuleNodes
) -> list[tuple[cst.For | cst.While, cst.BaseExpression]]:
    """(a loop of the module, what it takes batches of) for each loop taking them with
    `next(it)` where every binding of `it` is an `iter()` of one expression (`it =
    iter(data_loader)`, made again on StopIteration): the loop goes through that
    loader's batches as a `for` over it does. Another module's sharded loader so taken
    (data/imported.py) holds this rank's share (round 33, kampta/PatchVAE@816f4b4 run.py
    train(): `for batch_idx in range(num_batches): x, _ = next(data_iterator)` over the
    loader utils/commons.py builds, the epoch's losses rank 0's half, no DP030)."""
    found: list[tuple[cst.For | cst.While, cst.BaseExpression]] = []
    for loop in nodes.of((cst.For, cst.While)):
        if not runs_in_program(t, loop):
            continue
        for node in walk(loop.body, skip_scopes=True):
            it = taken_iterator(node)
            if not isinstance(it, cst.Name):
                continue
            walked = [iterator_of(assigned_value(r.node, t)) for r in t.referents(it)]
            kept = [w for w in walked if w is not None]
            if kept and len(kept) == len(walked) and len({t.code(w) for w in kept}) == 1:
                found.append((loop, kept[0]))
                break
    return found
