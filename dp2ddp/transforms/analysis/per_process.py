"""Directory paths computed from a value each process reads on its own.

Under torchrun every process runs the code that names a run directory. A name taken from
the clock (`datetime.now().strftime("%m%d_%H%M%S")`), a random draw or the process id is
read by each process separately: two ranks that straddle a second, or draw different ids,
make two run directories, rank 0 writes into one, and a rank waiting for rank 0's
directory (templates/helpers/mkdir.py.j2) waits for a path rank 0 never makes. The rank_zero
pass makes that read `ddp_rank0_value(...)` (templates/helpers/rank0_value.py.j2): no
collective, so it is safe in a config parser that runs before ddp_setup().

The search is deliberately local and syntactic: the assignments of the function around
the `mkdir` (its scope's names, and `self.` attributes of every method of its class) are
followed back from the path to a source call. `self._save_dir` and `self.save_dir` count as
one attribute: a read-only property returning the underscored field is the usual way
(victoresque/pytorch-template@41dc06f, parse_config.py).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Final

import libcst as cst

from dp2ddp.transforms._support.nodes import (
    NodeView,
    enclosing_function,
    method_class,
    module_of,
    walk,
)

#: Calls whose value each process reads on its own: clocks, process ids, unseeded ids.
#: The one list of them: also what DP033 names in a writer's log dir (per_rank.py).
PER_PROCESS_CALLS: Final = frozenset(
    {
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


#: Both, as prefixes: also a call made on such a value (`datetime.now().strftime(...)`).
PER_PROCESS_PREFIXES: Final = (*PER_PROCESS_MODULES, *sorted(PER_PROCESS_CALLS))


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
        "glob.glob",
        "glob.iglob",
    }
)
#: Methods of a pathlib path that read the file system's state.
#: (`glob` with its one pattern, the others with none).
_PATH_STATE_METHODS: Final = frozenset({"exists", "is_dir", "is_file", "iterdir", "glob"})


def per_process_source(
    transform: NodeView, path: cst.BaseExpression, site: cst.CSTNode
) -> cst.Call | None:
    """The call reading a per-process value that `path` (of a mkdir at `site`) comes from.

    Followed back through the assignments of the function around `site` to names, dotted
    attributes (`args.save`, `self._save_dir`) and items with a constant key
    (`cfg["log_dir"]`), and into the returns of a function of the same module it calls
    (`Path("best") / stamp()`). A name a `while` loop rebinds while it tests the file
    system (`while os.path.exists(f"exp_{i}"): i += 1`) comes from that test: each rank
    would count on from what it finds, so the test is the read to share from rank 0.
    """
    return _Search(transform, module_of(site, transform)).source(path, site)


class _Search:
    """One search over one module: the tainted keys of each scope are computed once."""

    def __init__(self, transform: NodeView, module: cst.CSTNode) -> None:
        self.t = transform
        self.module = module
        #: Module-level functions by name (their returns are followed).
        self.functions = {
            s.name.value: s for s in getattr(module, "body", ()) if isinstance(s, cst.FunctionDef)
        }
        self._tainted: dict[int, dict[str, cst.Call]] = {}
        self._returns: dict[str, cst.Call | None] = {}

    def source(self, expr: cst.BaseExpression, site: cst.CSTNode) -> cst.Call | None:
        function = enclosing_function(site, self.t)
        return self._source_in(expr, self._scope_taint(function))

    def _scope_taint(self, function: cst.FunctionDef | None) -> dict[str, cst.Call]:
        key = id(function) if function is not None else 0
        if key in self._tainted:
            return self._tainted[key]
        tainted: dict[str, cst.Call] = {}
        self._tainted[key] = tainted
        scope: cst.CSTNode = function if function is not None else self.module
        assignments = list(_assignments(scope))
        owner = method_class(function, self.t) if function is not None else None
        if owner is not None:
            assignments += [(k, v) for k, v in _assignments(owner) if k.startswith("self.")]
        for loop in walk(scope, skip_scopes=True):
            if isinstance(loop, cst.While):
                test = next(
                    (c for c in walk(loop.test) if isinstance(c, cst.Call) and self._state(c)),
                    None,
                )
                if test is not None:
                    for key_, _ in _assignments(loop.body):
                        tainted.setdefault(key_, test)
        changed = True
        while changed:  # names computed from names computed from a source, to a fixed point
            changed = False
            for key_, value in assignments:
                if key_ in tainted:
                    continue
                source = self._source_in(value, tainted)
                if source is not None:
                    tainted[key_] = source
                    changed = True
        return tainted

    def _source_in(self, expr: cst.CSTNode, tainted: dict[str, cst.Call]) -> cst.Call | None:
        skipped: set[int] = set()  # attribute and keyword names: `args.run_id` is not `run_id`
        for node in walk(expr, skip_scopes=True):
            if id(node) in skipped:
                continue
            key = _key(node)
            if key is not None and key in tainted:
                return tainted[key]
            if isinstance(node, cst.Attribute):
                skipped.add(id(node.attr))
            elif isinstance(node, cst.Arg) and node.keyword is not None:
                skipped.add(id(node.keyword))
            if isinstance(node, cst.Call):
                if _reads_per_process(self.t, node) or self._state(node):
                    return node
                if isinstance(node.func, cst.Name):
                    returned = self._returned(node.func.value)
                    if returned is not None:
                        return returned
        return None

    def _returned(self, name: str) -> cst.Call | None:
        """The per-process read a module-level function `name` returns a value of."""
        if name in self._returns:
            return self._returns[name]
        self._returns[name] = None  # recursion
        function = self.functions.get(name)
        if function is None:
            return None
        tainted = self._scope_taint(function)
        found = None
        for node in walk(function, skip_scopes=True):
            if isinstance(node, cst.Return) and node.value is not None:
                found = self._source_in(node.value, tainted)
                if found is not None:
                    break
        self._returns[name] = found
        return found

    def _state(self, call: cst.Call) -> bool:
        """`call` reads the file system's state (FILE_SYSTEM_STATE, `path.exists()`)."""
        if self.t.qualified_names(call.func) & FILE_SYSTEM_STATE:
            return True
        func = call.func
        if not isinstance(func, cst.Attribute) or func.attr.value not in _PATH_STATE_METHODS:
            return False
        return len(call.args) == (1 if func.attr.value == "glob" else 0)


def _reads_per_process(transform: NodeView, call: cst.Call) -> bool:
    return any(reads_per_process(name) for name in transform.qualified_names(call.func))


def _key(node: cst.CSTNode) -> str | None:
    """`run_id` for a name, `self.save_dir` for `self._save_dir` or `self.save_dir`,
    `args.save` for a dotted attribute, `cfg["log_dir"]` for an item with a constant key."""
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        if isinstance(node.value, cst.Name) and node.value.value == "self":
            return "self." + node.attr.value.lstrip("_")
        owner = _key(node.value)
        return None if owner is None else f"{owner}.{node.attr.value}"
    if isinstance(node, cst.Subscript) and len(node.slice) == 1:
        index = node.slice[0].slice
        owner = _key(node.value)
        if (
            owner is not None
            and isinstance(index, cst.Index)
            and isinstance(index.value, cst.SimpleString | cst.Integer)
        ):
            return f"{owner}[{index.value.value}]"
    return None


def _assignments(scope: cst.CSTNode) -> Iterator[tuple[str, cst.BaseExpression]]:
    """(target key, value) of each assignment in `scope`; methods of a class included, a
    function's nested functions not (their names are theirs)."""
    nodes = walk(scope) if isinstance(scope, cst.ClassDef) else walk(scope, skip_scopes=True)
    for node in nodes:
        targets: list[cst.BaseExpression] = []
        value: cst.BaseExpression | None = None
        if isinstance(node, cst.Assign):
            targets, value = [t.target for t in node.targets], node.value
        elif isinstance(node, (cst.AnnAssign, cst.AugAssign, cst.NamedExpr)):
            targets, value = [node.target], node.value
        if value is None:
            continue
        while targets:
            target = targets.pop()
            if isinstance(target, (cst.Tuple, cst.List)):
                targets += [element.value for element in target.elements]
            elif (key := _key(target)) is not None:
                yield key, value
