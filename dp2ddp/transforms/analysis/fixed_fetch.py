"""A sample batch fetched once through an iterator object of the program (class S7).

A trainer builds an iterator object over a loader it is handed (`fetcher_val =
Fetcher(loaders["val"])`, a class whose `__next__` pulls `next(iter(self.loader))`) and
takes one batch from it before its training loop (`inputs_val = next(fetcher_val)`),
kept fixed to save debug outputs from (`out = net(inputs_val["x"])` under `no_grad()`).
DataParallel saw the whole batch; migrated, the loader behind the object may be sharded
like the training loaders (one helper builds both), so the saved outputs held this
rank's share of the rows, silently (real-world: clovaai/stargan-v2@875b70a's
InputFetcher, class S7 of stop 32).

The fetch (`fixed_fetches`): in one function, the `next(x)` is a statement of the
function's own body (no loop or branch around it: fetched once), `x` is bound there to a
call of a class (not a library's), read nowhere else, the function trains (a
`.backward()` in it), and every read of the batch is under `no_grad()`/`inference_mode()`
(it feeds no backward: a sample batch).

The proof (`iterator_classes`, a fact of the class's module told to the program's other
modules as ProgramLoaders.fetchers): the class's `__next__` (and the methods of its own
it calls on `self`) takes batches only by `next()` of `iter()` of a constructor parameter
(`self.loader = loader` in `__init__`, `self.iter = iter(self.loader)`), so what the
object yields is drawn from the loaders handed to those parameters. Proved, the
shared-draws pass hands the constructor the unsharded loader
(`ddp_unsharded_loader(loaders["val"])`: the whole dataset in global batches, the loader
itself where it is not sharded) and fetches in `with ddp_same_random():` (rank 0's order,
the original's): the batch DataParallel had. Not proved (a class of no program module, a
`__next__` drawing from anything else): DP091 (hazards pass).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass

import libcst as cst

from dp2ddp.transforms._support.grad_mode import grad_off, qualified_matches
from dp2ddp.transforms._support.nodes import (
    code_of,
    item_pairs,
    iterated,
    name_of,
    nodes_of,
    self_attribute,
    walk,
)
from dp2ddp.transforms.analysis.training import function_trains

#: Import roots of libraries whose iterators a trainer may also draw once from.
_LIBRARIES = frozenset({"torch", "torchvision", "numpy", "tqdm", "itertools", "builtins"})

#: A class's constructor parameters its `__next__` draws batches from: (position after
#: `self`, or None for a keyword-only one; name).
Params = tuple[tuple[int | None, str], ...]


@dataclass(frozen=True)
class FixedFetch:
    """`statement` (`x = next(source)`) fetches a sample batch once from an object of the
    class `made`; `loaders`: the constructor call's arguments its `__next__` is proved
    to draw from (empty: not proved)."""

    call: cst.Call
    statement: cst.SimpleStatementLine
    source: str
    made: str
    loaders: tuple[cst.Arg, ...]


def iterator_classes(tree: cst.Module) -> dict[str, Params]:
    """The module's top-level classes whose `__next__` draws its batches only from loaders
    handed to its constructor (`iterator_classes` proof above), by name."""
    found: dict[str, Params] = {}
    for statement in tree.body:
        if isinstance(statement, cst.ClassDef):
            params = _drawn_params(statement)
            if params:
                found[statement.name.value] = params
    return found


def no_grad_functions(tree: cst.Module) -> set[str]:
    """The module's top-level functions decorated `@torch.no_grad()` (or
    `inference_mode()`): a batch handed to one is read without gradients, as under `with
    no_grad():` (stargan-v2's `utils.debug_image(nets_ema, args, inputs=inputs_val)`)."""
    return {
        s.name.value
        for s in tree.body
        if isinstance(s, cst.FunctionDef) and any(grad_off(d.decorator) for d in s.decorators)
    }


def fixed_fetches(
    module: cst.Module,
    qualified_names: Callable[[cst.CSTNode], set[str]],
    told: Mapping[str, Params] = {},  # noqa: B006 - read only
    sampling: Collection[str] = (),
) -> Iterator[FixedFetch]:
    """Each batch fetched once from an iterator object of the program and read only
    without gradients; `told`: other modules' iterator classes by qualified name
    (ProgramLoaders.fetchers); `sampling`: other modules' functions decorated with
    `no_grad()` by qualified name (ProgramLoaders.no_grad_functions)."""
    read: tuple[tuple[set[str], Collection[str]], set[str], dict[str, Params]] | None = None
    for function in nodes_of(module, cst.FunctionDef):
        if not isinstance(function.body, cst.IndentedBlock) or not function_trains(
            function, qualified_names
        ):
            continue
        if read is None:  # the module's classes, read once and only where a function trains
            own = {c.name.value for c in nodes_of(module, cst.ClassDef) if _defines_next(c)}
            read = ((no_grad_functions(module), sampling), own, iterator_classes(module))
        samplers, own, proved = read
        built: dict[str, tuple[str, cst.Call]] = {}
        for statement in function.body.body:
            assign = _single_assign(statement)
            if assign is None:
                continue
            target, value = assign
            if not isinstance(value, cst.Call):
                continue
            made = _program_class(value.func, own, qualified_names)
            if made is not None:
                built[target] = (made, value)
                continue
            source = _next_of(value, qualified_names)
            if source is None or source not in built:
                continue
            if _sample_only(function, target, qualified_names, samplers):
                made, construct = built[source]
                params = _class_params(construct.func, proved, told, qualified_names)
                loaders = _arguments(construct, params) if _read_once(function, source) else ()
                assert isinstance(statement, cst.SimpleStatementLine)
                yield FixedFetch(value, statement, source, made, loaders)


def _defines_next(c: cst.ClassDef) -> bool:
    return any(isinstance(s, cst.FunctionDef) and s.name.value == "__next__" for s in c.body.body)


# -- the class's proof ----------------------------------------------------------------------
def _drawn_params(c: cst.ClassDef) -> Params:
    """The constructor parameters every `next()` of the class's `__next__` (and its own
    methods it calls on `self`) draws from; () when one draws from anything else."""
    methods = {s.name.value: s for s in c.body.body if isinstance(s, cst.FunctionDef)}
    init, first = methods.get("__init__"), methods.get("__next__")
    if init is None or first is None:
        return ()
    positional = [*init.params.posonly_params, *init.params.params][1:]
    params: dict[str, int | None] = {p.name.value: i for i, p in enumerate(positional)}
    params.update({p.name.value: None for p in init.params.kwonly_params})
    # self.<attr> = <value> anywhere in the class, with the method binding it
    bindings: dict[str, list[tuple[cst.FunctionDef, cst.BaseExpression | None]]] = {}
    for method in methods.values():
        for node in walk(method.body):
            targets: list[cst.BaseExpression] = []
            value: cst.BaseExpression | None = None
            if isinstance(node, cst.Assign):
                targets, value = [t.target for t in node.targets], node.value
            elif isinstance(node, (cst.AugAssign, cst.AnnAssign)):
                targets = [node.target]
            for target in targets:
                for leaf in walk(target):
                    attr = self_attribute(leaf)
                    if attr is not None:
                        one = value if len(targets) == 1 and leaf is target else None
                        bindings.setdefault(attr, []).append((method, one))
    holds = {
        attr: value.value
        for attr, bound in bindings.items()
        if len(bound) == 1
        and bound[0][0] is init
        and isinstance(value := bound[0][1], cst.Name)
        and value.value in params
    }

    def loader_param(expr: cst.BaseExpression, method: cst.FunctionDef) -> str | None:
        if isinstance(expr, cst.Name) and method is init and expr.value in params:
            return expr.value
        attr = self_attribute(expr)
        return holds.get(attr) if attr is not None else None

    def iterated(expr: cst.BaseExpression | None, method: cst.FunctionDef) -> str | None:
        if (
            isinstance(expr, cst.Call)
            and isinstance(expr.func, cst.Name)
            and expr.func.value == "iter"
            and len(expr.args) == 1
        ):
            return loader_param(expr.args[0].value, method)
        return None

    iterators: dict[str, set[str]] = {}
    for attr, bound in bindings.items():
        drawn = [iterated(value, method) for method, value in bound]
        if all(drawn):
            iterators[attr] = {d for d in drawn if d is not None}
    based = any(name_of(b.value) != "object" for b in c.bases)
    reached = _reached(first, methods, based)
    if reached is None:
        return ()
    used: set[str] = set()
    for method in reached:
        for node in walk(method.body, skip_scopes=True):
            if not (
                isinstance(node, cst.Call)
                and isinstance(node.func, cst.Name)
                and node.func.value == "next"
            ):
                continue
            if not node.args:
                return ()
            arg = node.args[0].value
            attr = self_attribute(arg)
            if attr is not None and attr in iterators:
                used |= iterators[attr]
            elif (param := iterated(arg, method)) is not None:
                used.add(param)
            else:
                return ()
    return tuple(sorted(((params[p], p) for p in used), key=lambda each: each[1]))


def _reached(
    first: cst.FunctionDef, methods: Mapping[str, cst.FunctionDef], based: bool
) -> list[cst.FunctionDef] | None:
    """`first` and the class's methods it calls on `self`, transitively; None where the
    class has a base and a method called on `self` is not its own (a base's method may
    take batches from anything)."""
    reached = [first]
    for method in reached:
        for node in walk(method.body, skip_scopes=True):
            if isinstance(node, cst.Call) and (attr := self_attribute(node.func)) is not None:
                callee = methods.get(attr)
                if callee is None and based:
                    return None
                if callee is not None and callee not in reached:
                    reached.append(callee)
    return reached


# -- the fetch ------------------------------------------------------------------------------
def _class_params(
    func: cst.BaseExpression,
    own: Mapping[str, Params],
    told: Mapping[str, Params],
    qualified_names: Callable[[cst.CSTNode], set[str]],
) -> Params:
    if isinstance(func, cst.Name) and func.value in own:
        return own[func.value]
    for name in sorted(qualified_names(func)):
        if name in told:
            return told[name]
    return ()


def _arguments(construct: cst.Call, params: Params) -> tuple[cst.Arg, ...]:
    """The arguments of `construct` passed to `params` (but a literal None: no loader; a
    parameter not passed keeps its default); () where a star argument hides them."""
    if not params or any(a.star for a in construct.args):
        return ()
    found: list[cst.Arg] = []
    positional = [a for a in construct.args if a.keyword is None]
    for position, name in params:
        arg = next((a for a in construct.args if a.keyword and a.keyword.value == name), None)
        if arg is None and position is not None and position < len(positional):
            arg = positional[position]
        if arg is None:
            continue  # its default: no loader handed in here
        if not (isinstance(arg.value, cst.Name) and arg.value.value == "None"):
            found.append(arg)  # `InputFetcher(loaders.val, None, ...)`: no loader there
    return tuple(found)


def _read_once(function: cst.FunctionDef, name: str) -> bool:
    """`name` is read once in `function` besides its binding (the fetch): the object's
    loader serves that batch only."""
    return sum(1 for n in walk(function.body) if isinstance(n, cst.Name) and n.value == name) == 2


def _single_assign(statement: cst.BaseStatement) -> tuple[str, cst.BaseExpression] | None:
    if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
        return None
    small = statement.body[0]
    if (
        isinstance(small, cst.Assign)
        and len(small.targets) == 1
        and isinstance(small.targets[0].target, cst.Name)
    ):
        return small.targets[0].target.value, small.value
    return None


def _program_class(
    func: cst.BaseExpression,
    classes: set[str],
    qualified_names: Callable[[cst.CSTNode], set[str]],
) -> str | None:
    """The class `func` names when it is this module's iterator class or a capitalised
    name imported from a module of no known library (the program's own)."""
    if not isinstance(func, cst.Name):
        return None
    if func.value in classes:
        return func.value
    names = qualified_names(func)
    if not names or not func.value[:1].isupper():
        return None
    for name in names:
        root = name.split(".")[0]
        if name == func.value or root in _LIBRARIES or root in sys.stdlib_module_names:
            return None
    return func.value


def _next_of(call: cst.Call, qualified_names: Callable[[cst.CSTNode], set[str]]) -> str | None:
    if (
        isinstance(call.func, cst.Name)
        and call.func.value == "next"
        and qualified_names(call.func) <= {"builtins.next"}
        and len(call.args) == 1
        and isinstance(call.args[0].value, cst.Name)
    ):
        return call.args[0].value.value
    return None


def _sample_only(
    function: cst.FunctionDef,
    name: str,
    qualified_names: Callable[[cst.CSTNode], set[str]],
    samplers: tuple[set[str], Collection[str]] = (set(), ()),
) -> bool:
    """Every read of `name` in `function` after its binding is inside a `with no_grad():`
    or an argument of a call of a function decorated with `no_grad()` (this module's
    `samplers[0]` by name, another module's `samplers[1]` by qualified name), and there is
    one."""
    own, others = samplers
    guarded: set[int] = set()
    for node in walk(function.body, skip_scopes=True):
        if isinstance(node, cst.With) and any(
            grad_off(item.item, qualified_matches(qualified_names)) for item in node.items
        ):
            guarded.update(id(n) for n in walk(node.body))
        elif isinstance(node, cst.Call) and (
            isinstance(node.func, cst.Name)
            and node.func.value in own
            and qualified_names(node.func) <= {node.func.value}
            or any(q in others for q in qualified_names(node.func))
        ):
            guarded.update(id(n) for a in node.args for n in walk(a.value))
    reads = [
        n
        for n in walk(function.body, skip_scopes=True)
        if isinstance(n, cst.Name) and n.value == name
    ]
    reads = reads[1:]  # the first is the binding (a statement of the body)
    return bool(reads) and all(id(n) in guarded for n in reads)


def names_no_loader(definition: cst.ClassDef | cst.FunctionDef) -> bool:
    """A class (its bases and body) or a function (its parameters and body) whose code names
    no loader: what it yields or returns is batches of the program's own making (an
    iterator class, a generator cutting an index list), not a loader the data pass shards,
    whatever it is called (`IndexLoader(n, bs)` yielding `randperm(n).split(bs)`; a class
    `DataLoader` of the program whose `data_iterator()` cuts its own batches:
    lemonhu/NER-BERT-pytorch@5f7577b, class v2-A of stop 40). Its code says, not its name."""
    parts: list[cst.CSTNode] = [definition.body]
    if isinstance(definition, cst.ClassDef):
        parts += definition.bases
    else:
        parts.append(definition.params)
    empty = cst.Module([])
    return not any("loader" in empty.code_for_node(p).lower() for p in parts)


def own_batch_classes(tree: cst.Module) -> set[str]:
    """The module's top-level classes that name no loader (`names_no_loader`): told to the
    program's other modules as ProgramLoaders.batch_classes, where an object of one is
    built and its batches taken (the batches pass's `_own_batches`)."""
    return {s.name.value for s in tree.body if isinstance(s, cst.ClassDef) and names_no_loader(s)}


def iterates_built_loader(
    definition: cst.ClassDef, builds_loader: Callable[[cst.Call], bool]
) -> bool:
    """The class's `__iter__` iterates only attributes of its own that its methods bind to
    a loader they build and to nothing else (`self.dataloader = DataLoader(...)`;
    `return ({...} for x, y in self.dataloader)`, `for b in self.dataloader: yield b`,
    `yield from self.loader`, `return iter(self.loader)`): what its objects yield is, batch
    for batch, what that loader yields, whatever it makes of each (a dict, a move)."""
    methods = [m for m in definition.body.body if isinstance(m, cst.FunctionDef)]
    iter_method = next((m for m in methods if m.name.value == "__iter__"), None)
    if iter_method is None:
        return False
    built: set[str] = set()
    other: set[str] = set()
    for method in methods:
        for node in walk(method):
            if isinstance(node, (cst.Assign, cst.AnnAssign, cst.AugAssign)):
                targets = (
                    [t.target for t in node.targets]
                    if isinstance(node, cst.Assign)
                    else [node.target]
                )
                loader = (
                    isinstance(node, (cst.Assign, cst.AnnAssign))
                    and isinstance(node.value, cst.Call)
                    and builds_loader(node.value)
                )
                for target in targets:
                    attribute = self_attribute(target)
                    if attribute is not None:
                        (built if loader else other).add(attribute)
    loaders = built - other
    sources: list[cst.BaseExpression] = []
    for node in walk(iter_method.body):
        if isinstance(node, (cst.For, cst.CompFor)):
            sources += iterated(node.iter)
        elif isinstance(node, cst.From):
            sources.append(node.item)
        elif isinstance(node, cst.Return) and isinstance(node.value, cst.Call):
            if name_of(node.value.func) == "iter" and node.value.args:
                sources.append(node.value.args[0].value)
    return bool(sources) and all(self_attribute(s) in loaders for s in sources)


def kept_iterator_fetches(
    module: cst.Module, qualified_names: Callable[[cst.CSTNode], set[str]]
) -> Iterator[tuple[cst.Call, str, str]]:
    """Each batch taken once by `next(it)`, where `it = iter(<loader>)` (builtins' iter, of
    any object: a loader handed in, an attribute) is bound by a statement of the same body
    (a function's, or the module's) that trains, the fetch a statement of that body too
    (no loop or branch around it), and what it binds read in a loop of that body after it:
    a batch kept across the steps (sample grids, debug outputs; round 32,
    carpedm20/DiscoGAN-pytorch@ab3b7dc's `valid_x_A = ...(next(A_loader))` from
    `A_loader = iter(self.a_data_loader)`, the loop drawing on from the same iterator: its
    saved grids held half the images, unsaid). DataParallel saw the whole batch; from a
    sharded loader it is this rank's share. Not proved either way where the loader comes
    from (the hazards pass says it, DP091): (the call, `it`, the iterated expression)."""
    bodies: list[Sequence[cst.BaseStatement]] = [list(module.body)]
    bodies += [
        list(f.body.body)
        for f in nodes_of(module, cst.FunctionDef)
        if isinstance(f.body, cst.IndentedBlock)
    ]
    for body in bodies:
        found = list(_kept_fetches(body, qualified_names))
        if found and any(  # the body trains: asked only where a fetch is kept
            isinstance(n, cst.Call)
            and isinstance(n.func, cst.Attribute)
            and n.func.attr.value == "backward"
            for s in body
            for n in walk(s, skip_scopes=True)
        ):
            yield from found


def _kept_fetches(
    body: Sequence[cst.BaseStatement], qualified_names: Callable[[cst.CSTNode], set[str]]
) -> Iterator[tuple[cst.Call, str, str]]:
    """kept_iterator_fetches' fetches of one body, before asking whether it trains."""
    iterators: dict[str, str] = {}
    for index, statement in enumerate(body):
        if not isinstance(statement, cst.SimpleStatementLine):
            continue
        for small in statement.body:
            if not isinstance(small, cst.Assign) or len(small.targets) != 1:
                continue
            for target, value in item_pairs(small.targets[0].target, small.value):
                if (
                    isinstance(target, cst.Name)
                    and isinstance(value, cst.Call)
                    and isinstance(value.func, cst.Name)
                    and value.func.value == "iter"
                    and qualified_names(value.func) <= {"builtins.iter"}
                    and len(value.args) == 1
                ):
                    iterators[target.value] = code_of(value.args[0].value)
            if not iterators:
                continue
            bound = {n.value for n in walk(small.targets[0].target) if isinstance(n, cst.Name)}
            for call in nodes_of(small.value, cst.Call):
                source = _next_of(call, qualified_names)
                if source in iterators and _read_in_later_loop(body[index + 1 :], bound):
                    yield call, source, iterators[source]


def _read_in_later_loop(later: Sequence[cst.BaseStatement], names: set[str]) -> bool:
    """A `for`/`while` loop among `later` statements reads one of `names`."""
    return any(
        isinstance(loop, cst.For | cst.While)
        and any(isinstance(n, cst.Name) and n.value in names for n in walk(loop.body))
        for statement in later
        for loop in walk(statement, skip_scopes=True)
    )
