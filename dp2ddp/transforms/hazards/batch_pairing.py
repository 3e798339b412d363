"""The batch's rows paired with each other before the wrapped model (DP124).

DataParallel scattered the batch after the training loop had built the model's input from
it: an operation of that loop over the whole batch saw every row. Under DDP each rank's loop
sees only its share, so an operation that pairs the batch's rows with each other (an
optimal-transport plan between noise and data, `torch.cdist(x0, x1)` then `argmin` over the
batch: atong01/conditional-flow-matching@cacd4dc train_cifar10.py:144,
`FM.sample_location_and_conditional_flow(x0, x1)`, stop 50 v1-B) pairs only the rank's own
rows, and the model's input is not this rank's share of what DataParallel fed it.

What counts as pairing rows is what DP040 decides for a loss (hazards/pairs.py,
`compares_samples`: cdist / pdist, a product of a batch with a transposed one, an n x n
`expand`, `x.unsqueeze(1) - x.unsqueeze(0)`); here it is found on the way from the loader's
batch to an argument of a wrapped model's call, through the shared def-use view's backward
walk (flow/origins.py: names, unpackings, this module's functions entered, an index's
sources: `x0[order]` with `order` from `cost.argmin(0)`). The source must reach the pairing
as a part cut from data (an element of the loader's iteration, a slice): a comparison of
constants, of a weight with itself, or along another dimension of one row is not on such a
path. A pairing inside the model's forward() ran per GPU under DataParallel too and is not
on the path (the model's call stops the walk).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator

import libcst as cst

from dp2ddp.facts import HelperDraw
from dp2ddp.flow import DefUse, Origin, Step, origins, view
from dp2ddp.transforms._support.grad_mode import module_mode
from dp2ddp.transforms._support.names import DATALOADER
from dp2ddp.transforms._support.nodes import name_of, walk
from dp2ddp.transforms.hazards.pairs import MAY_COMPARE, compares_samples
from dp2ddp.transforms.hazards.permuted_rows import (
    helper_mixes,
    mixing_calls,
    permuted_rows,
    shifted_rows,
)

#: Packages whose calls dp2ddp reads as per row or as told elsewhere (a call of theirs
#: handed two batches is not DP125's): torch's own, numpy, and the standard library.
_READ = frozenset({"torch", "torchvision", "numpy", "einops", "timm", "dp2ddp"})


def batch_pairings(
    module: cst.Module,
    wrapped: set[str],
    text: str,
    code: Callable[[cst.CSTNode], str],
    position: Callable[[cst.CSTNode], tuple[int, int]],
    qualified_names: Callable[[cst.CSTNode], set[str]],
    own: frozenset[str] = frozenset(),
    mixer: Callable[[cst.Call], HelperDraw | None] | None = None,
) -> Iterator[tuple[cst.CSTNode, str, str]]:
    """Each operation pairing the loader's batch's rows with each other whose result a
    wrapped model's call (as spelled in `wrapped`) reads, once, with its code and detail:
    DP124 where the pairing is read (`compares_samples`), DP125 where it is a call into a
    library dp2ddp does not read handed two or more tensors cut from the batch; DP147 at a
    call of a helper (`mixer`: HelperDraws.of_call) that mixes the batch's rows in a drawn
    order, where no such subscript is on the argument's own path."""
    if not wrapped:
        return
    defs = view(module)
    calls = [c for c in defs.calls if code(c.func) in wrapped]
    told: set[cst.CSTNode] = set()
    compares = bool(MAY_COMPARE.search(text))
    mixing = mixing_calls(defs, mixer) if mixer is not None else []
    evaluated = evaluations(module, calls, code)
    for call in calls:

        def stop(c: cst.Call) -> bool:
            return code(c.func) in wrapped

        line = position(call)[0]
        model = code(call).splitlines()[0][:60]
        for arg in call.args:
            sources = origins(defs, arg.value, stop=stop)
            permuted = permuted_rows(defs, sources, qualified_names, _batch_cut, from_data)
            # one per call, the first in the text: the walk may join a tuple's elements
            # (`x, y_b = map(Variable, (x, y_b))`), so a target's `y[perm]` is not said to
            # reach the model
            for subscript, drawn in sorted(permuted, key=lambda p: position(p[0]))[:1]:
                if subscript not in told and id(call) not in evaluated:
                    told.add(subscript)
                    yield (
                        subscript,
                        "DP147",
                        f"`{code(subscript)}` takes the batch's rows in the order "
                        f"`{code(drawn)}` draws (line {position(drawn)[0]}), and the wrapped "
                        f"model's call at line {line} reads what it gives ({model}): each "
                        "rank permutes only its own share, DataParallel the whole batch",
                    )
            for place in [] if permuted else shifted_rows(defs, sources, _batch_cut, from_data):
                if place not in told:
                    told.add(place)
                    yield (
                        place,
                        "DP139",
                        f"`{code(place).splitlines()[0][:60]}` pairs each of the batch's rows "
                        f"with another of the same batch at a fixed offset, and the wrapped "
                        f"model's call at line {line} reads what it gives ({model}): under "
                        "DataParallel a row's partner came from the whole batch, under DDP "
                        "from this rank's share only",
                    )
            helpers = (
                [] if permuted else helper_mixes(defs, call, sources, mixing, from_data, position)
            )
            for helper, draw in helpers:
                if helper in told:
                    continue
                told.add(helper)
                _, name, where, in_place = draw.mixes or (0, "", 0, False)
                shown = f"{draw.path}:{where}" if draw.path else f"line {where}"
                split = None if in_place else _other_element(defs, helper, sources, qualified_names)
                reads = (
                    f"the wrapped model's call at line {line} reads them ({model})"
                    if split is None
                    else f"the caller binds them to `{split[1]}`, which the wrapped model's call "
                    f"at line {line} does not read ({model} reads `{split[0]}`, not mixed)"
                )
                order = "at fixed offsets" if draw.pairs_fixed else "in a drawn order"
                yield (
                    helper,
                    "DP139" if draw.pairs_fixed else "DP147",
                    f"`{code(helper).splitlines()[0][:60]}` hands the batch to a helper "
                    f"that takes the rows of its `{name}` {order} and mixes them "
                    f"({'in place' if in_place else 'into what it returns'}, {shown}), and "
                    f"{reads}: each rank "
                    f"{'pairs' if draw.pairs_fixed else 'permutes'} only its own share, "
                    "DataParallel the whole batch",
                )
            for origin in sources:
                found = _pairing(defs, origin.path) if compares else None
                if found is not None and found not in told:
                    told.add(found)
                    seen = code(found).splitlines()[0][:60]
                    yield (
                        found,
                        "DP124",
                        f"`{seen}` pairs the rows of the loader's batch with each other, "
                        f"and the wrapped model's call at line {line} reads what it gives "
                        f"({model}): each rank pairs only its own share of each batch, "
                        "DataParallel paired the whole batch before scattering it",
                    )
                library = _library_call(defs, origin.path, qualified_names, told, own)
                if library is not None:
                    node, name, count = library
                    told.add(node)
                    seen = code(node).splitlines()[0][:60]
                    yield (
                        node,
                        "DP125",
                        f"`{seen}` ({name}) is handed {count} tensors built from the "
                        f"loader's batch, and the wrapped model's call at line {line} reads "
                        f"what it gives ({model}): dp2ddp does not read it; if it pairs "
                        "their rows with each other, each rank pairs only its own share of "
                        "each batch, DataParallel paired the whole batch",
                    )


def evaluations(
    module: cst.Module, calls: list[cst.Call], code: Callable[[cst.CSTNode], str]
) -> frozenset[int]:
    """ids of the wrapped model's `calls` that evaluate: in their function, the latest of
    `<model>.eval()` / `<model>.train(...)` before them puts the model in eval mode
    (grad_mode.module_mode, the passes' one reading: `train(False)` is `eval()`; before
    stop 61 this loop read it as training, and DP147 named such an evaluation call), and
    no `.backward()` of the function reads a name their statement binds, or one bound from
    such a name after it. The whole test set fed to the model in eval mode in the epoch loop
    (eeyhsong/EEG-Conformer@9ae149b) is no batch whose rows a drawn order permutes: DP147
    named that call, through a tuple returned with the training arrays (stop 60)."""
    if not calls:
        return frozenset()
    wanted = {id(c): code(c.func) for c in calls}
    found: set[int] = set()
    # only the functions holding a wanted call can find one (each reads its own scope)
    flow = view(module)
    holders = {id(a): a for c in calls for a in flow.ancestors(c) if isinstance(a, cst.FunctionDef)}
    for scope in [module, *holders.values()]:
        body = scope.body if isinstance(scope, cst.FunctionDef) else scope
        mode: dict[str, str | None] = {}
        carried: set[str] = set()
        backward: list[cst.Call] = []
        for node in walk(body, skip_scopes=True):
            if not isinstance(node, cst.Call):
                continue
            func = node.func
            if isinstance(func, cst.Attribute) and func.attr.value in ("eval", "train"):
                mode[code(func.value)] = module_mode(node)  # train(False) is eval()
            elif isinstance(func, cst.Attribute) and func.attr.value == "backward":
                backward.append(node)
            elif id(node) in wanted and mode.get(wanted[id(node)]) == "eval":
                found.add(id(node))
        for statement in walk(body, skip_scopes=True):
            if not isinstance(statement, cst.Assign):
                continue
            reads = {n.value for n in walk(statement.value) if isinstance(n, cst.Name)}
            if any(id(n) in found for n in walk(statement.value)) or reads & carried:
                for target in statement.targets:
                    carried |= {n.value for n in walk(target.target) if isinstance(n, cst.Name)}
        for call in backward:
            if {n.value for n in walk(call) if isinstance(n, cst.Name)} & carried:
                inside = {id(n) for n in walk(body, skip_scopes=True)}
                found -= {i for i in found if i in inside}
                break
    return frozenset(found)


def _other_element(
    defs: DefUse,
    helper: cst.Call,
    found: list[Origin],
    qualified_names: Callable[[cst.CSTNode], set[str]],
) -> tuple[str, str] | None:
    """(the name the model's argument takes, the names holding mixed rows) where `helper`
    is unpacked into names (`inputs, target = smooth(inputs, target)`), it is a function of
    this module every return of which is a tuple of as many elements, and the element the
    argument's path (sources `found`) takes holds no rows in a drawn order in any return
    while another does (permuted_rows: `lam * y + (1 - lam) * y[index]`). Stop 53 s4: a
    helper mixing only the targets was said to mix what the model reads."""
    statement = defs.parent(helper)
    if not isinstance(statement, cst.Assign) or len(statement.targets) != 1:
        return None
    target = statement.targets[0].target
    if not isinstance(target, (cst.Tuple, cst.List)):
        return None
    names = [e.value for e in target.elements]
    if not all(isinstance(n, cst.Name) for n in names):
        return None
    on_path = {id(s.node) for o in found for s in o.path}
    taken = [i for i, n in enumerate(names) if id(n) in on_path]
    functions = defs.callees(helper)
    if len(taken) != 1 or len(functions) != 1 or not functions[0].returns:
        return None
    returns = functions[0].returns
    if not all(isinstance(r, cst.Tuple) and len(r.elements) == len(names) for r in returns):
        return None

    def mixed(index: int) -> bool:
        return any(
            permuted_rows(
                defs,
                origins(defs, r.elements[index].value),  # type: ignore[attr-defined]
                qualified_names,
                _batch_cut,
                from_data,
            )
            for r in returns
        )

    others = [i for i in range(len(names)) if i != taken[0] and mixed(i)]
    if not others or mixed(taken[0]):
        return None
    shown = [n.value for i, n in enumerate(names) if i in others and isinstance(n, cst.Name)]
    first = names[taken[0]]
    return (first.value if isinstance(first, cst.Name) else ""), ", ".join(shown)


def _library_call(
    defs: DefUse,
    path: tuple[Step, ...],
    qualified_names: Callable[[cst.CSTNode], set[str]],
    told: set[cst.CSTNode],
    own: frozenset[str],
) -> tuple[cst.Call, str, int] | None:
    """The first call on `path`, after a cut, of a package dp2ddp does not read (`FM.
    sample_location_and_conditional_flow(x0, x1)`, FM built from torchcfm's class; a
    function imported from one), handed two or more positional tensors cut from data:
    the call, the qualified name it resolved to, the count of such arguments. `path` runs
    from the source to the model's argument: only what follows its last DataLoader
    construction can be handed the batch's rows; what builds the loader's dataset
    (`DatasetFolder(root, split, transform)`) runs before any batch exists (round 23:
    imtiazziko/LaplacianShot@5de2612 got DP125 there, the walk reaching it through a
    factory's loader and a cut of the command line's `args`)."""
    cut = False
    for step in path[_after_loader(defs, path, qualified_names) :]:
        cut = cut or _batch_cut(defs, step)
        node = _step_node(defs, step)
        if not cut or step.call or not isinstance(node, cst.Call) or node in told:
            continue
        values = [a.value for a in node.args if a.keyword is None and not a.star]
        if len(values) < 2:
            continue
        name = _foreign(defs, node, qualified_names, own)
        if not name:
            continue
        count = sum(1 for v in values if from_data(defs, v))
        if count >= 2:
            return node, name, count
    return None


def _after_loader(
    defs: DefUse, path: tuple[Step, ...], qualified_names: Callable[[cst.CSTNode], set[str]]
) -> int:
    """The index on `path` just past its last DataLoader construction (0: none)."""
    for index in range(len(path) - 1, -1, -1):
        node = _step_node(defs, path[index])
        if isinstance(node, cst.Call) and qualified_names(node.func) & DATALOADER:
            return index + 1
    return 0


def _step_node(defs: DefUse, step: Step) -> cst.CSTNode:
    """The node a step of the walk stands at: the call, where the walk went from an
    argument to the call's value."""
    parent = defs.parent(step.node)
    if isinstance(parent, cst.Arg):
        return defs.parent(parent) or step.node
    return step.node


def _foreign(
    defs: DefUse,
    call: cst.Call,
    qualified_names: Callable[[cst.CSTNode], set[str]],
    own: frozenset[str],
) -> str:
    """The qualified name of `call`'s callee where it comes from a package outside _READ
    and the standard library: the function imported, or the method of an object built by
    a class imported (through the view: `FM = Matcher(...)`, then `FM.method(...)`)."""
    func = call.func
    names: set[str] = set()
    if defs.imported_root(func):
        names = set(qualified_names(func))  # `ot.emd(a, b)`, `from lib import pair`
    elif isinstance(func, cst.Attribute):  # a method of an object a library's class built
        for origin in origins(defs, func.value):
            made = origin.node
            if origin.kind == "call" and isinstance(made, cst.Call) and not origin.cut:
                if defs.imported_root(made.func):
                    names |= {f"{n}.{func.attr.value}" for n in qualified_names(made.func)}
    outside = sorted(
        n
        for n in names
        if not n.startswith(".")
        and n.split(".")[0] not in _READ | own | sys.stdlib_module_names | {"builtins"}
    )
    return " or ".join(outside[:3]) + (" or another" if len(outside) > 3 else "")


def _pairing(defs: DefUse, path: tuple[Step, ...]) -> cst.CSTNode | None:
    """The first node on `path` (source first) that compares rows, after a step that cut
    the value from data (an element of an iteration, a slice), whose operands are all cut
    from data (`torch.cdist(x, self.centres)` compares rows with a table, not with each
    other) and that transposes no dimension but the batch's (`torch.bmm(x, x.transpose(1,
    2))`, `q @ k.transpose(-2, -1)`: each sample's own rows, per row of the batch)."""
    cut = False
    for step in path:
        cut = cut or _batch_cut(defs, step)
        node = step.node
        if cut and compares_samples(node) and _across_batch(node):
            operands = _operands(node)
            if operands and all(from_data(defs, o) for o in operands):
                return node
    return None


def _across_batch(node: cst.CSTNode) -> bool:
    if isinstance(node, cst.Call) and name_of(node.func) == "bmm":
        return False
    for inner in walk(node):
        if (
            isinstance(inner, cst.Call)
            and isinstance(inner.func, cst.Attribute)
            and inner.func.attr.value == "transpose"
        ):
            dims = [a.value for a in inner.args]
            if not any(isinstance(d, cst.Integer) and d.value == "0" for d in dims):
                return False
    return True


def _operands(node: cst.CSTNode) -> list[cst.BaseExpression]:
    """The values whose rows `node` compares: a call's positional arguments and its
    receiver (not `torch`), an operation's two sides; `labels` of `labels.expand(n, n)`."""
    if isinstance(node, cst.BinaryOperation):
        return [node.left, node.right]
    if not isinstance(node, cst.Call):
        return []
    func = node.func
    receiver = (
        [func.value]
        if isinstance(func, cst.Attribute) and name_of(func.value) not in {"torch", "F"}
        else []
    )
    if name_of(func) == "expand":
        return receiver
    values = [a.value for a in node.args if a.keyword is None and not a.star]
    if name_of(func) in {"addmm", "addmm_"}:
        values = values[-2:]
    return [*receiver, *values]


def from_data(defs: DefUse, expr: cst.BaseExpression) -> bool:
    """Some source of `expr` reaches it as data cut from data (the loader's batch)."""
    return any(
        not o.selects and any(_batch_cut(defs, s) for s in o.path) for o in origins(defs, expr)
    )


def _batch_cut(defs: DefUse, step: Step) -> bool:
    """`step` takes a batch out of data: an element of an iteration (a `for` over a loader,
    `next(it)`) or a slice, not an entry of a container (`loaders["src"]`: a loader, not
    a batch)."""
    if not step.cut:
        return False
    parent = defs.parent(step.node)
    if isinstance(parent, cst.Subscript) and parent.value is step.node:
        return any(isinstance(s.slice, cst.Slice) for s in parent.slice)
    return True
