"""Which process-wide random streams every rank provably seeds alike (DP067's proof).

A per-sample draw in a Dataset (`np.random.uniform()` in `__getitem__`) gives every rank the
same numbers only where the stream it reads starts alike in every process:

* torch's global generator: where the program seeds it with a value (`torch.manual_seed(s)`,
  `torch.random.manual_seed(s)`, `torch.set_rng_state(...)`) at module level or in a
  function the program calls by name. Unseeded it starts from a seed of its own in each
  process (`torch.initial_seed()` differs between two runs on torch 2.13 and 2.14: stop 51,
  davyneven/SpatialEmbeddings@39ea249, where DP067 said "seeded alike" of a program that
  seeds nothing). A loader's workers seed their torch generator from the base seed the
  loader drew from it (torch/utils/data/_utils/worker.py: `torch.manual_seed(base_seed +
  worker_id)`): alike where torch's is.
* Python's `random` and numpy's global stream: seeded from OS entropy in each process, so
  the ranks draw differently, unless (a) the program seeds that stream with a value
  (`random.seed(s)`, `np.random.seed(s)`, `np.random.set_state(...)`) at module level or in
  a function the program calls by name, or (b) some DataLoader of the program may start
  workers (`num_workers` other than a literal 0) and the base seed it draws is alike on
  every rank (torch's generator seeded alike, or the loader's own `generator=`): each
  worker seeds `random` with `base_seed + worker_id` and numpy with a state derived from
  the same two (worker.py's `_generate_state`, torch >= 1.9). Alike through (b) only, the
  set holds `"<stream>:workers"` beside the stream (`seeding` says which, for a warning).

`module_streams` reads one module (each module once; the program combines them:
`seeded_streams`). What is not proved different is counted as alike: a seed with a per-rank
value (`np.random.seed(seed + rank)`) still counts as seeding, a `worker_init_fn` that
reseeds from entropy is not read; both give a DP067 that `# noqa: DP067` can mark. A seed
that is itself a draw (`seed = np.random.randint(9999); torch.manual_seed(seed)`, through
the module's names, attributes and string keys: Debatrix/AquulaCam@28b2f97, stop 57 v1-D)
seeds alike only where the stream it is drawn from is seeded alike; one read from the clock,
a process id or the OS's entropy never does (each rank seeds its own stream).
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from dp2ddp.transforms._support import ast_nodes
from dp2ddp.transforms.analysis.random_draws import RANDOM_DRAWS

#: The streams a draw's qualified name reads, by prefix.
STREAMS = (
    ("torch.", "torch"),
    ("numpy.random.", "numpy"),
    ("random.", "random"),
    ("sklearn.", "numpy"),  # hazards/draws.py LIBRARY_DRAWS: numpy's global RandomState
)

#: Calls that seed a stream alike wherever their argument is alike.
_SEEDS = {
    "numpy.random.seed": "numpy",
    "numpy.random.set_state": "numpy",
    "random.seed": "random",
    "random.setstate": "random",
    "torch.manual_seed": "torch",
    "torch.random.manual_seed": "torch",
    "torch.set_rng_state": "torch",
    "torch.random.set_rng_state": "torch",
}

#: DataLoader's `num_workers` position (dataset, batch_size, shuffle, sampler,
#: batch_sampler, num_workers).
_WORKERS_POSITION = 5


def stream_of(qualified: Iterable[str]) -> str | None:
    """The stream ("torch", "numpy", "random") a draw of these qualified names reads."""
    for name in qualified:
        for prefix, stream in STREAMS:
            if name.startswith(prefix):
                return stream
    return None


@dataclass(frozen=True)
class ModuleStreams:
    """What one module tells about the process-wide streams.

    seeds: (function, stream, drawn) per call that seeds `stream` with a value; function ""
        at module level (or in a class body), else the bare name of the enclosing function;
        drawn: the streams the value is drawn from ("process" for a clock, a process id,
        the OS's entropy), empty for a value no rank draws.
    called: the bare names of every function or method the module calls.
    workers: some DataLoader of the module may start worker processes.
    generated: some DataLoader that may start workers is given its own `generator=`.
    key_draws: the attributes and string keys (`.seed`) it binds to a drawn value, with
        the streams drawn from (for a seed another module reads by that key).
    """

    seeds: tuple[tuple[str, str, tuple[str, ...]], ...] = ()
    called: frozenset[str] = frozenset()
    workers: bool = False
    generated: bool = False
    key_draws: tuple[tuple[str, tuple[str, ...]], ...] = ()


def _imports(module: ast.Module) -> dict[str, str]:
    """Local name -> the module or object an import binds it to, anywhere in the module."""
    bound: dict[str, str] = {}
    for node in ast_nodes.listed(module):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname is not None:
                    bound[alias.asname] = alias.name
                else:
                    top = alias.name.split(".")[0]
                    bound[top] = top
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                if alias.name != "*":
                    bound[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    return bound


def _dotted(func: ast.expr) -> str:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        inner = _dotted(func.value)
        return f"{inner}.{func.attr}" if inner else ""
    return ""


def _qualified(func: ast.expr, bound: dict[str, str]) -> str:
    head, _, rest = _dotted(func).partition(".")
    if head not in bound:
        return ""
    return f"{bound[head]}.{rest}" if rest else bound[head]


def _may_start_workers(call: ast.Call) -> bool:
    if any(isinstance(a, ast.Starred) for a in call.args) or any(
        k.arg is None for k in call.keywords
    ):
        return True
    value: ast.expr | None = None
    if len(call.args) > _WORKERS_POSITION:
        value = call.args[_WORKERS_POSITION]
    else:
        value = next((k.value for k in call.keywords if k.arg == "num_workers"), None)
    return value is not None and not (isinstance(value, ast.Constant) and value.value == 0)


def module_streams(module: ast.Module) -> ModuleStreams:
    """One module's seeds of the `random` and numpy streams, the names it calls, and
    whether a DataLoader of it may start workers (one walk of its ast)."""
    bound = _imports(module)
    values = _bound_values(module)
    seeds: set[tuple[str, str, tuple[str, ...]]] = set()
    called: set[str] = set()
    workers = generated = False
    stack: list[tuple[ast.AST, str, tuple[str, ...]]] = [(module, "", ())]
    while stack:
        node, function, params = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            function = node.name
            params = tuple(a.arg for a in (*node.args.posonlyargs, *node.args.args))
        elif isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Name):
                called.add(func.id)
            elif isinstance(func, ast.Attribute):
                called.add(func.attr)
            qualified = _qualified(func, bound)
            stream = _SEEDS.get(qualified)
            if stream is not None and (node.args or node.keywords):
                value = node.args[0] if node.args else node.keywords[0].value
                if isinstance(value, ast.Name) and value.id in params:
                    # its callers' arguments decide (handed_seeds; stop 59 s2)
                    seeds.add((function, stream, (_parameter(params, value.id),)))
                else:
                    seeds.add((function, stream, _drawn_from(value, values, bound)))
            last = qualified.rpartition(".")[2] or _dotted(func).rpartition(".")[2]
            if last.endswith("DataLoader") and _may_start_workers(node):
                workers = True
                generated = generated or any(k.arg == "generator" for k in node.keywords)
        stack.extend((child, function, params) for child in ast.iter_child_nodes(node))
    return ModuleStreams(
        tuple(sorted(seeds)), frozenset(called), workers, generated, _key_draws(values, bound)
    )


#: A seed's value that is a parameter of its function: `param:<position>:<name>`, the
#: position among the arguments a call passes (a method's `self` left out).
_PARAMETER = "param:"


def _parameter(params: tuple[str, ...], name: str) -> str:
    position = params.index(name) - (1 if params[0] in ("self", "cls") else 0)
    return f"{_PARAMETER}{position}:{name}"


def _key_draws(
    values: dict[str, list[ast.expr]], bound: dict[str, str]
) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """The attributes and string keys (`.seed`) the module binds to a drawn value, with
    the streams drawn from: another module may read them (`config["seed"]`)."""
    found = []
    for key, bound_values in values.items():
        if key.startswith(".") and any(
            isinstance(n, ast.Call) for v in bound_values for n in ast.walk(v)
        ):
            drawn = _drawn_from(ast.Tuple(elts=list(bound_values)), values, bound)
            if drawn:
                found.append((key, drawn))
    return tuple(sorted(found))


def parameter_seeders(modules: Iterable[ModuleStreams]) -> frozenset[str]:
    """The functions (bare names) that seed a stream with one of their parameters."""
    return frozenset(
        function
        for m in modules
        for function, _, drawn in m.seeds
        if function and any(d.startswith(_PARAMETER) for d in drawn)
    )


def handed_seeds(module: ast.Module, callees: frozenset[str]) -> tuple[Handed, ...]:
    """Each argument this module hands a function of `callees` (by its last name), as
    (callee, position, keyword, drawn, keys): the streams its value is drawn from through
    this module's bindings, and the attributes or string keys it reads that this module
    does not bind (another module's `self.seed = ...`, read as `config["seed"]`)."""
    if not callees:
        return ()
    bound = _imports(module)
    values = _bound_values(module)
    found: list[Handed] = []
    for node in ast_nodes.listed(module):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        callee = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
        if callee not in callees:
            continue
        slots = [(i, "", a) for i, a in enumerate(node.args) if not isinstance(a, ast.Starred)]
        slots += [(-1, k.arg, k.value) for k in node.keywords if k.arg is not None]
        for position, keyword, value in slots:
            keys = tuple(
                sorted(
                    key
                    for n in ast.walk(value)
                    if isinstance(n, ast.expr)
                    and (key := _bound_key(n)) is not None
                    and key.startswith(".")
                    and key not in values
                )
            )
            found.append((callee, position, keyword, _drawn_from(value, values, bound), keys))
    return tuple(found)


#: (callee, position (-1 for a keyword), keyword, drawn, keys read from other modules)
Handed = tuple[str, int, str, tuple[str, ...], tuple[str, ...]]


def _bound_values(module: ast.Module) -> dict[str, list[ast.expr]]:
    """The values the module binds to each plain name (`seed`), and to each attribute or
    string key by its name (`.seed` for `self.seed = ...`, `cfg["seed"] = ...`): a config
    class's attribute is read by key through its `__getitem__`."""
    values: dict[str, list[ast.expr]] = {}
    for node in ast_nodes.listed(module):
        if not isinstance(node, (ast.Assign, ast.AnnAssign)) or node.value is None:
            continue
        for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
            key = _bound_key(target)
            if key is not None:
                values.setdefault(key, []).append(node.value)
    return values


def _bound_key(node: ast.expr) -> str | None:
    """`seed` for a plain name, `.seed` for an attribute or a string key of that name."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f".{node.attr}"
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
        return f".{node.slice.value}" if isinstance(node.slice.value, str) else None
    return None


#: Reads that differ in each process whatever the program seeds (a clock, a process id, the
#: OS's entropy): a seed made of one seeds each rank's stream apart.
_PROCESS_READS = ("time.", "datetime.", "os.getpid", "os.urandom", "uuid.", "secrets.")


#: torch's functions that draw from (or read the seed of) its global generator.
_TORCH_DRAWS = frozenset(
    f"torch.{n}"
    for n in ("rand", "randn", "randint", "randperm", "normal", "bernoulli", "multinomial")
    + ("initial_seed", "seed", "random.initial_seed", "random.seed")
)


def _drawn_from(
    value: ast.expr, values: dict[str, list[ast.expr]], bound: dict[str, str]
) -> tuple[str, ...]:
    """The streams (or "process") a seed's value is drawn from, through the module's
    bindings (`_bound_values`)."""
    drawn: set[str] = set()
    pending, seen = [value], set[str]()
    while pending:
        for node in ast_nodes.walk(pending.pop()):
            if isinstance(node, ast.Call):
                name = _qualified(node.func, bound)
                if name.startswith(_PROCESS_READS):
                    drawn.add("process")
                elif name.startswith(("numpy.random.", "random.")) or name in _TORCH_DRAWS:
                    drawn.add(stream_of([name]) or "process")
            if not isinstance(node, (ast.Name, ast.Attribute, ast.Subscript)):
                continue
            key = _bound_key(node)
            if key is not None and key in values and key not in seen:
                seen.add(key)
                pending.extend(values[key])
    return tuple(sorted(drawn))


def tree_streams(tree: Callable[[], ast.Module]) -> ModuleStreams:
    """`module_streams` of the tree `tree()` gives (the project model's, parsed once)."""
    return module_streams(tree())


def _through_callers(
    function: str,
    drawn: tuple[str, ...],
    handed: Iterable[Handed],
    keys: dict[str, tuple[str, ...]],
) -> tuple[str, ...]:
    """A seed's `drawn` with a parameter marker replaced by what the function's callers
    hand it there (handed_seeds), keys read from other modules resolved by `keys`. Where
    some caller hands a value no rank draws, or none is found, the marker draws nothing
    (the seed counts as alike, as a seed with a value does)."""
    if not any(d.startswith(_PARAMETER) for d in drawn):
        return drawn
    position, _, name = drawn[0][len(_PARAMETER) :].partition(":")
    streams: set[str] = set()
    for callee, at, keyword, values, read in handed:
        if callee != function or (at != int(position) and keyword != name):
            continue
        given = {*values, *(d for key in read for d in keys.get(key, ()))}
        if not given:
            return ()
        streams |= given
    return tuple(sorted(streams))


def seeded_streams(
    modules: Iterable[ModuleStreams], handed: Iterable[Handed] = ()
) -> frozenset[str]:
    """The streams every rank provably seeds alike in a program of these modules: each
    where seeded at module level or in a function some module calls by name; `random` and
    numpy also where a loader may start workers whose base seed is alike (torch's stream
    seeded, or the loader's own generator), marked `"<stream>:workers"` where that is
    their only reason (the module's docstring)."""
    every = list(modules)
    called = frozenset().union(*(m.called for m in every))
    alike: set[str] = set()
    seeds = [s for m in every for s in m.seeds if not s[0] or s[0] in called]
    keys = {key: drawn for m in every for key, drawn in m.key_draws}
    handed = list(handed)
    seeds = [(f, stream, _through_callers(f, drawn, handed, keys)) for f, stream, drawn in seeds]
    grown = True
    while grown:  # a seed drawn from a stream counts once that stream is seeded alike
        grown = False
        for _, stream, drawn in seeds:
            if stream not in alike and all(d in alike for d in drawn):
                alike.add(stream)
                grown = True
    if any(m.generated for m in every) or ("torch" in alike and any(m.workers for m in every)):
        alike |= {f"{s}:workers" for s in ("numpy", "random") if s not in alike}
        alike |= {"numpy", "random"}
    return frozenset(alike)


def seeding(stream: str, alike: frozenset[str]) -> str:
    """How `stream` (in `alike`) is seeded alike on every rank, for a warning's text."""
    if f"{stream}:workers" in alike:
        return (
            "each loader worker seeds it from the loader's base seed, drawn from a torch "
            "generator the program seeds"
        )
    spelled = {"torch": "torch's generator", "numpy": "numpy's", "random": "`random`"}
    return f"the program seeds {spelled.get(stream, stream)} with a value"


def alike_streams(told: frozenset[str] | None, code: Callable[[], str]) -> frozenset[str]:
    """The streams every rank seeds alike for a pass: the program's (`told`, ProgramFacts.
    seeded_streams), or for a single file those its own code (`code()`) proves."""
    if told is not None:
        return told
    try:
        tree = ast_nodes.parse_python(code())
        streams = module_streams(tree)
        return seeded_streams([streams], handed_seeds(tree, parameter_seeders([streams])))
    except (SyntaxError, RecursionError):  # pragma: no cover - libcst parsed it
        return frozenset({"torch", "numpy", "random"})


def per_rank_classes(tree: ast.Module) -> frozenset[str]:
    """`Class:stream` for the module's top-level classes whose methods keep a draw from
    Python's or numpy's global stream (`stream`) in an attribute of the object
    (`self.vx = vx[np.random.permutation(n)]`, through local names): whatever a method of
    such an object returns may carry the draw, and where the program does not seed that
    stream (seeded_streams) each process draws its own (T3, stop 31: a reader
    that shuffles its set in each process, as graph-convnet-tsp's does)."""
    bound = _imports(tree)
    found: set[str] = set()

    def draws(node: ast.AST, tainted: set[str]) -> str:
        for inner in ast_nodes.walk(node):
            if isinstance(inner, ast.Name) and inner.id in tainted:
                return tainted_by[inner.id]
            if isinstance(inner, ast.Call):
                stream = stream_of([_qualified(inner.func, bound)])
                if stream in ("numpy", "random"):
                    return stream
        return ""

    for owner in (s for s in tree.body if isinstance(s, ast.ClassDef)):
        for method in (s for s in owner.body if isinstance(s, ast.FunctionDef)):
            assigns = [n for n in ast_nodes.walk(method) if isinstance(n, ast.Assign)]
            tainted_by: dict[str, str] = {}
            for _ in range(len(assigns) + 1):  # each pass taints one more name, or stops
                more = {
                    t.id: stream
                    for a in assigns
                    if (stream := draws(a.value, set(tainted_by)))
                    for t in ast_nodes.walk(ast.Tuple(elts=a.targets))
                    if isinstance(t, ast.Name) and t.id not in tainted_by
                }
                if not more:
                    break
                tainted_by.update(more)
            found |= {
                f"{owner.name}:{stream}"
                for a in assigns
                if (stream := draws(a.value, set(tainted_by)))
                for target in ast_nodes.walk(ast.Tuple(elts=a.targets))
                if isinstance(target, ast.Attribute)
                and isinstance(target.value, ast.Name)
                and target.value.id == "self"
            }
    return frozenset(found)


def module_draws(tree: ast.Module) -> tuple[tuple[int, str, str], ...]:
    """(line, the call's qualified name, its stream) of each call of the module that draws
    from a process-wide stream (analysis/random_draws.RANDOM_DRAWS) naming no generator or
    `random_state` of its own, and whose stream the module does not seed itself: for a
    module no program reads (program/unreached.unread_draw_notes, stop 62)."""
    bound = _imports(tree)
    seeded = {stream for _, stream, _ in module_streams(tree).seeds}
    found: list[tuple[int, str, str]] = []
    for node in ast_nodes.listed(tree):
        if not isinstance(node, ast.Call):
            continue
        qualified = _qualified(node.func, bound)
        if qualified not in RANDOM_DRAWS or any(
            k.arg in ("generator", "random_state") for k in node.keywords
        ):
            continue
        stream = stream_of([qualified])
        if stream is not None and stream not in seeded:
            found.append((node.lineno, qualified, stream))
    return tuple(sorted(found))
