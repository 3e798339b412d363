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


def per_process_source(
    transform: NodeView, path: cst.BaseExpression, site: cst.CSTNode
) -> cst.Call | None:
    """The call reading a per-process value that `path` (of a mkdir at `site`) comes from."""
    function = enclosing_function(site, transform)
    scope: cst.CSTNode = function if function is not None else module_of(site, transform)
    assignments = list(_assignments(scope))
    owner = method_class(function, transform) if function is not None else None
    if owner is not None:
        assignments += [(k, v) for k, v in _assignments(owner) if k.startswith("self.")]
    tainted: dict[str, cst.Call] = {}
    changed = True
    while changed:  # names computed from names computed from a source, to a fixed point
        changed = False
        for key, value in assignments:
            if key in tainted:
                continue
            source = _source_in(transform, value, tainted)
            if source is not None:
                tainted[key] = source
                changed = True
    return _source_in(transform, path, tainted)


def _source_in(
    transform: NodeView, expr: cst.CSTNode, tainted: dict[str, cst.Call]
) -> cst.Call | None:
    skipped: set[int] = set()  # attribute and keyword names: `args.run_id` is not `run_id`
    for node in walk(expr, skip_scopes=True):
        if id(node) in skipped:
            continue
        if isinstance(node, cst.Attribute):
            skipped.add(id(node.attr))
        elif isinstance(node, cst.Arg) and node.keyword is not None:
            skipped.add(id(node.keyword))
        if isinstance(node, cst.Call) and _reads_per_process(transform, node):
            return node
        key = _key(node)
        if key is not None and key in tainted:
            return tainted[key]
    return None


def _reads_per_process(transform: NodeView, call: cst.Call) -> bool:
    return any(reads_per_process(name) for name in transform.qualified_names(call.func))


def _key(node: cst.CSTNode) -> str | None:
    """`run_id` for a name, `self.save_dir` for `self._save_dir` or `self.save_dir`."""
    if isinstance(node, cst.Name):
        return node.value
    if (
        isinstance(node, cst.Attribute)
        and isinstance(node.value, cst.Name)
        and node.value.value == "self"
    ):
        return "self." + node.attr.value.lstrip("_")
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
