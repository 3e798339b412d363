"""Directory paths computed from a value each process reads on its own.

Under torchrun every process runs the code that names a run directory. A name taken from
the clock (`datetime.now().strftime("%m%d_%H%M%S")`), a random draw or the process id is
read by each process separately: two ranks that straddle a second, or draw different ids,
make two run directories, rank 0 writes into one, and a rank waiting for rank 0's
directory (templates/helpers/mkdir.py.j2) waits for a path rank 0 never makes. The rank_zero
pass makes that read `ddp_rank0_value(...)` (templates/helpers/rank0_value.py.j2): no
collective, so it is safe in a config parser that runs before ddp_setup().

The path is followed back on the shared def-use view (dp2ddp/flow/, `origins`), so every
spelling it reads counts the same: a plain name, an attribute (`args.save = "{}-{}".format(
args.save, time.strftime(...))`), a dict item, a format call or f-string, os.path.join and
pathlib, a helper's return (issue 29).
"""

from __future__ import annotations

from typing import Final

import libcst as cst
import libcst.matchers as m

from dp2ddp.flow import DefUse, Origin, origins, view
from dp2ddp.transforms._support.nodes import NodeView, module_of, walk

#: Calls whose value each process reads on its own: clocks, process ids, unseeded ids, a
#: new temporary directory (each process makes its own, randomly named: rank 0 wrote a cache
#: into its `tempfile.mkdtemp()` and rank 1 read its own, empty one), the host's name (one per
#: node: two nodes name two run directories).
PER_PROCESS_CALLS: Final = frozenset(
    {
        "tempfile.mkdtemp",
        "socket.gethostname",
        "platform.node",
        "datetime.datetime.now",
        "datetime.datetime.utcnow",
        "datetime.datetime.today",
        "datetime.date.today",
        "uuid.uuid1",
        "uuid.uuid4",
        "os.getpid",
        "os.urandom",
    }
)
#: Modules whose functions read the clock (`time.strftime`) or draw a random value
#: (`random.randint`, `secrets.token_hex`).
PER_PROCESS_MODULES: Final = ("time.", "random.", "secrets.", "numpy.random.")


def reads_per_process(name: str) -> bool:
    """`name` (qualified) is a call whose value each process reads on its own."""
    return name in PER_PROCESS_CALLS or name.startswith(PER_PROCESS_MODULES)


#: The file system's state as each process finds it: a test or listing that a rank running
#: a moment after another answers differently (the other rank made the directory meanwhile).
#: A source where the path is computed from it (`f"run{len(os.listdir('runs'))}"`), or where
#: a `while` loop testing it counts the index a path is named by (a first-free-index loop).
FILE_SYSTEM_STATE: Final = frozenset(
    {
        "os.path.exists",
        "os.path.isdir",
        "os.path.isfile",
        "os.path.lexists",
        "os.listdir",
        "os.scandir",
        # a listing of the folder and those below it: `len(next(os.walk(d))[1])` counts
        # the earlier runs' folders (inspire-group/SSD@cf2e162, stop 45 v1-A)
        "os.walk",
        "glob.glob",
        "glob.iglob",
    }
)
#: Methods of a pathlib path that read the file system's state.
#: (`glob`/`rglob` with their one pattern, the others with none).
_PATH_STATE_METHODS: Final = frozenset(
    {"exists", "is_dir", "is_file", "iterdir", "glob", "rglob", "walk"}
)
_PATTERN_METHODS: Final = frozenset({"glob", "rglob"})
#: The readings among them that return an iterator, which pickle cannot send through
#: ddp_rank0_value: rank 0's reading is shared as its items (`iter(ddp_rank0_value(list,
#: os.walk(d)))`, rank_zero/run_dir.py). (`os.scandir`'s entries cannot be sent at all.)
_LAZY_STATE: Final = frozenset({"os.walk", "glob.iglob"})
_LAZY_PATH_METHODS: Final = frozenset({"iterdir", "glob", "rglob", "walk"})


#: Attributes of a wandb run that name it, or its folder: rank 0's run is real, the other
#: ranks' is disabled (rank_zero/wandb_runs.py) and names itself otherwise.
_RUN_ATTRIBUTES: Final = frozenset({"name", "id", "dir", "path"})


def per_process_sources(
    transform: NodeView,
    path: cst.BaseExpression,
    site: cst.CSTNode,
    elsewhere: frozenset[str] = frozenset(),
    stop: frozenset[int] = frozenset(),
) -> list[tuple[cst.Call | cst.Attribute, Origin]]:
    """The calls reading a per-process value that `path` (of a mkdir or a read at `site`)
    comes from, each with the flow from it to `path` (for a warning's text), in the order
    of the module's text.

    Asked of the shared def-use view (dp2ddp/flow/): `origins(path)` follows names, dotted
    attributes (`args.save`), items (`cfg["log_dir"]`), format calls and f-strings,
    os.path.join and pathlib, and the returns of the module's functions (`Path("best") /
    stamp()`). A source call the walk does not enter (`datetime.now().strftime(...)`,
    `len(os.listdir(d))`) holds the per-process read it is computed from. One flow the
    view does not follow, control: a name a `while` loop rebinds while it tests the file
    system (`while os.path.exists(f"exp_{i}"): i += 1`) comes from that test, as each rank
    would count on from what it finds: the test is the read to share from rank 0.
    `elsewhere`: functions of the program's other modules that return a per-process value
    (ProgramHints.per_rank_returns): a call of one is such a read itself. A wandb run's
    name, id or folder (`wandb.run.name`, `run.dir` of `run = wandb.init(...)`) is a
    per-process read too, once the migration disables the run off rank 0: the attribute
    read is the source (an Attribute, not a Call). `stop`: ids of calls the walk does not
    go through (made rank 0's value already).
    """
    module = module_of(site, transform)
    if not isinstance(module, cst.Module):
        return []
    found: dict[int, tuple[cst.Call | cst.Attribute, Origin]] = {}
    halt = (lambda call: id(call) in stop) if stop else None
    for origin in _through_properties(view(module), origins(view(module), path, halt)):
        named = _run_attribute(transform, origin)
        if named is not None:
            found.setdefault(id(named), (named, origin))
            continue
        if origin.kind == "call" and isinstance(origin.node, cst.Call):
            read = _read_in(transform, origin.node) or _call_of(origin.node, elsewhere)
            if read is not None:
                found.setdefault(id(read), (read, origin))
                continue
        for step in origin.path:
            test = _counting_loop_test(transform, step.node)
            if test is not None:
                found.setdefault(id(test), (test, origin))
                break
    return sorted(found.values(), key=lambda pair: _place(transform, pair[0]))


def _run_attribute(transform: NodeView, origin: Origin) -> cst.Attribute | None:
    """`wandb.run.name` / `run.id` (of `run = wandb.init(...)`) on the way from a wandb
    run to the path; None when the origin is no wandb run or the walk reads no naming
    attribute of it."""
    node = origin.node
    if origin.kind == "import":
        names = transform.qualified_names(node)
    elif origin.kind == "call" and isinstance(node, cst.Call):
        names = transform.qualified_names(node.func)
    else:
        return None
    if not names & {"wandb.run", "wandb.init"}:
        return None
    for step in origin.path:
        if isinstance(step.node, cst.Attribute) and step.node.attr.value in _RUN_ATTRIBUTES:
            return step.node
    return None


def _through_properties(defuse: DefUse, found: list[Origin]) -> list[Origin]:
    """`found`, with a property read (`self.save_dir`, an origin of kind "definition": the
    method) followed into what the property returns (`return self._save_dir`): a
    read-only property over an underscored field is how configs expose their run
    directory (victoresque/pytorch-template@41dc06f, parse_config.py)."""
    out: list[Origin] = []
    todo = list(found)
    seen: set[int] = set()
    while todo:
        origin = todo.pop(0)
        node = _property(defuse, origin)
        if node is None:
            out.append(origin)
            continue
        if id(node) in seen:
            continue
        seen.add(id(node))
        for returned in walk(node.body, skip_scopes=True):
            if isinstance(returned, cst.Return) and returned.value is not None:
                todo += [
                    Origin(inner.kind, inner.node, (*inner.path, *origin.path))
                    for inner in origins(defuse, returned.value)
                ]
    return out


def _property(defuse: DefUse, origin: Origin) -> cst.FunctionDef | None:
    """The property method a `self.name` origin of kind "definition" reads, or None."""
    node = origin.node
    if origin.kind != "definition" or not isinstance(node, cst.Attribute):
        return None
    if not (isinstance(node.value, cst.Name) and node.value.value == "self"):
        return None
    owner = next((a for a in defuse.ancestors(node) if isinstance(a, cst.ClassDef)), None)
    method = defuse.method(owner, node.attr.value) if owner is not None else None
    function = method.node if method is not None else None
    if isinstance(function, cst.FunctionDef) and any(
        isinstance(d.decorator, cst.Name) and d.decorator.value == "property"
        for d in function.decorators
    ):
        return function
    return None


def _place(transform: NodeView, node: cst.CSTNode) -> tuple[int, int]:
    position = getattr(transform, "_position", None)
    return position(node) if callable(position) else (0, 0)


def _read_in(transform: NodeView, call: cst.Call) -> cst.Call | None:
    """The per-process read `call` is computed from: itself, or a call in its receiver or
    arguments (`datetime.now()` of `datetime.now().strftime(...)`); None if none."""
    for node in walk(call, skip_scopes=True):
        if isinstance(node, cst.Call) and (
            _reads_per_process(transform, node) or reads_state(transform, node)
        ):
            return node
    return None


def _call_of(call: cst.Call, functions: frozenset[str]) -> cst.Call | None:
    """`call` when it calls one of `functions` (by its last name: `utils.run_name(...)`)."""
    func = call.func
    name = func.attr.value if isinstance(func, cst.Attribute) else ""
    name = func.value if isinstance(func, cst.Name) else name
    return call if name and name in functions else None


def _counting_loop_test(transform: NodeView, node: cst.CSTNode) -> cst.Call | None:
    """The file-system test of a `while` loop whose body holds `node` (a binding the value
    took): `while os.path.exists(f"exp_{i}"): i += 1`."""
    child, parent = node, transform.parent(node)
    while parent is not None and not isinstance(parent, (cst.FunctionDef, cst.Module)):
        if isinstance(parent, cst.While) and child is parent.body:
            for call in walk(parent.test):
                if isinstance(call, cst.Call) and reads_state(transform, call):
                    return call
        child, parent = parent, transform.parent(parent)
    return None


def reads_state(transform: NodeView, call: cst.Call) -> bool:
    """`call` reads the file system's state (FILE_SYSTEM_STATE, `path.exists()`), unless it
    is rank 0's reading already (`ddp_rank0_value(list, os.walk(d))`, a file migrated
    again)."""
    arg = transform.parent(call)
    outer = transform.parent(arg) if isinstance(arg, cst.Arg) else None
    if isinstance(outer, cst.Call) and m.matches(outer.func, m.Name("ddp_rank0_value")):
        return False
    if transform.qualified_names(call.func) & FILE_SYSTEM_STATE:
        return True
    func = call.func
    if not isinstance(func, cst.Attribute) or func.attr.value not in _PATH_STATE_METHODS:
        return False
    return len(call.args) == (1 if func.attr.value in _PATTERN_METHODS else 0)


def lazy_state(transform: NodeView, call: cst.Call) -> bool:
    """`call` reads the file system's state as an iterator (`os.walk(d)`, `p.glob("*")`)."""
    names = transform.qualified_names(call.func)
    if names & FILE_SYSTEM_STATE:
        return bool(names & _LAZY_STATE)  # glob.glob is a list, glob.iglob an iterator
    func = call.func
    return (
        isinstance(func, cst.Attribute)
        and func.attr.value in _LAZY_PATH_METHODS
        and reads_state(transform, call)
    )


def _reads_per_process(transform: NodeView, call: cst.Call) -> bool:
    return any(reads_per_process(name) for name in transform.qualified_names(call.func))


#: Methods of a process pool that run a function given as their first argument in its
#: worker processes (multiprocessing.Pool, concurrent.futures.ProcessPoolExecutor).
_POOL_RUNS: Final = frozenset(
    {"map", "imap", "imap_unordered", "starmap", "map_async", "starmap_async"}
    | {"apply", "apply_async", "submit"}
)


def worker_handoff(module: cst.Module, function: cst.FunctionDef) -> cst.Call | None:
    """The call that runs `function` in worker processes of a process pool the module
    makes (`with Pool(n) as pool: pool.map(partial(load_speaker, path=p), names)`), or
    that starts it as a `Process(target=...)`; None where the module does neither. A read
    there runs in a forked worker whose calls of dp2ddp's keyed helpers count apart from
    the rank's and its other workers' (vshmyhlo/listen-attend-and-speell-pytorch@864584e
    dataset.py:49: rank 1's worker got rank 0's chapters of another speaker; v2-C of stop
    62)."""
    name = function.name.value
    pools = {
        item.asname.name.value
        for node in walk(module)
        if isinstance(node, cst.With)
        for item in node.items
        if isinstance(item.item, cst.Call)
        and _process_pool(item.item)
        and item.asname is not None
        and isinstance(item.asname.name, cst.Name)
    } | {
        target.target.value
        for node in walk(module)
        if isinstance(node, cst.Assign) and isinstance(node.value, cst.Call)
        if _process_pool(node.value)
        for target in node.targets
        if isinstance(target.target, cst.Name)
    }
    for call in (n for n in walk(module) if isinstance(n, cst.Call)):
        func = call.func
        if m.matches(func, m.Name("Process") | m.Attribute(attr=m.Name("Process"))):
            if any(
                a.keyword and a.keyword.value == "target" and _names(a.value, name)
                for a in call.args
            ):
                return call
        elif (
            isinstance(func, cst.Attribute)
            and func.attr.value in _POOL_RUNS
            and isinstance(func.value, cst.Name)
            and func.value.value in pools
            and call.args
            and _names(call.args[0].value, name)
        ):
            return call
    return None


def _process_pool(call: cst.Call) -> bool:
    """`Pool(n)`, `multiprocessing.Pool(n)`, `ctx.Pool()`, `ProcessPoolExecutor(...)`."""
    func = call.func
    last = func.attr.value if isinstance(func, cst.Attribute) else getattr(func, "value", "")
    return last in ("Pool", "ProcessPoolExecutor")


def _names(value: cst.BaseExpression, name: str) -> bool:
    """`value` is the function `name`, or `partial(name, ...)` of it."""
    if isinstance(value, cst.Call) and m.matches(
        value.func, m.Name("partial") | m.Attribute(attr=m.Name("partial"))
    ):
        value = value.args[0].value if value.args else value
    return isinstance(value, cst.Name) and value.value == name
