"""A table of the whole dataset filled by sample index in a pass over a sharded loader (DP105).

yukimasano/self-label@3891e37 (v1-D of stop 44): a pseudo-label pass `for x, idx in loader:
PS[idx] = F.softmax(model(x), 1)` over the training loader, then the table read whole
(normalised over all samples by Sinkhorn-Knopp, its argmax the labels). Under DataParallel
one process filled every row; sharded, each rank fills the rows of its own samples and the
others keep their zeros: the solver divided by them (NaN, a crash on every rank), and a table
with fewer rows read would have given each rank other labels, with no warning.

Which tables: the subscript that is written holds a value the loop takes from the loader's
batch (a `for` target, not an `enumerate` counter, or a name bound from one by indexing,
an attribute or a conversion: `idx = batch[2].cuda()`), the table is a name bound outside
the loop, and the function (or module) reads it after the loop; a table the program already
reduces or gathers after the loop (`dist.all_reduce(PS)`, dp2ddp's own `ddp_whole_table`) is
left alone.

Made whole where that is proved (stop 46): each write `table[i] = v` keeps its index
(`ddp_table_index.append(i)`, a list started before the loop) and after the loop
`ddp_whole_table(table, ddp_table_index)` (templates/helpers/whole_table.py.j2) gathers
every rank's indices and the rows at them and writes them in on every rank. An all_gather,
not an all_reduce-sum: DistributedSampler repeats samples to even the ranks out, so a sum of
a zero-initialised table would double those rows. Proved: every write of the table in the
loop is a plain `=` of one index (no slice, no tuple) that reads only names, attributes,
literal subscripts and keeping methods (evaluated again after the write, the same value),
on a line of its own in an indented block; the loop reads the table nowhere else (a read of
another rank's row during the pass would differ); every binding reaching the table is a torch
or numpy array constructor (a list or a dict keyed by file names is not gathered so); the
loop does not `return`/`yield` out of itself and no rank test (`if rank == 0`) guards it or
a call of its function in this module: the gather is a collective every rank must reach.
Otherwise DP105 says it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst
from libcst.metadata import PositionProvider

from dp2ddp.flow import view
from dp2ddp.flow.elements import literal_key
from dp2ddp.transforms._support.nodes import (
    bound_names,
    call_named,
    enclosing_function,
    name_of,
    variables_under,
    walk,
)
from dp2ddp.transforms.analysis.guards import mentions_rank
from dp2ddp.transforms.data.filled_tables import KEEPING, made_to_fill, read_after, read_in_pass
from dp2ddp.transforms.data.index_adds import index_added_tables

if TYPE_CHECKING:
    from dp2ddp.transforms.data import ShardDataLoaders


def said_index_tables(t: ShardDataLoaders, loop: cst.For | cst.While) -> set[str]:
    """For each table `loop` (over a sharded loader) fills by the batch's indices: made
    whole after the loop where proved (module docstring), else DP105; and the tables it
    adds into at the batch's indices in place (index_added_tables, DP142). The names of
    the tables DP142 said (DP030 leaves them to it)."""
    if not isinstance(loop, cst.For):
        return set()
    batch = _batch_elements(loop)
    if not batch:
        return set()
    bound_here = {
        n.value
        for node in walk(loop.body, skip_scopes=True)
        if isinstance(node, (cst.Assign, cst.For))
        for target in (
            [a.target for a in node.targets] if isinstance(node, cst.Assign) else [node.target]
        )
        for n in bound_names(target)
    } | {n.value for n in bound_names(loop.target)}  # the batch, bound again each step
    end = t.get_metadata(PositionProvider, loop).end.line
    scope: cst.CSTNode = enclosing_function(loop, t) or t._module_node
    added = index_added_tables(t, loop, batch, bound_here, end, scope)
    writes: dict[str, list[tuple[cst.Assign | cst.AugAssign, cst.Subscript]]] = {}
    in_pass: dict[str, list[tuple[cst.Assign | cst.AugAssign, cst.Subscript]]] = {}
    reads: dict[str, int] = {}
    for node in walk(loop.body, skip_scopes=True):
        if isinstance(node, cst.Assign):
            targets = [a.target for a in node.targets]
        elif isinstance(node, cst.AugAssign):
            targets = [node.target]
        else:
            continue
        for target in targets:
            if not isinstance(target, cst.Subscript) or (root := keyed_root(target.value)) is None:
                continue
            table = t.code(target.value)
            read = {n.value for e in target.slice for n in variables_under(e)}
            if root in bound_here or not read & batch:
                continue
            if table not in reads:
                sized = isinstance(target.value, cst.Name) and made_to_fill(t, target.value)
                after = read_after(t, scope, table, end, sized=sized)
                if after is None:
                    in_pass.setdefault(table, []).append((node, target))
                    continue
                reads[table] = after
            writes.setdefault(table, []).append((node, target))
    for table, written in in_pass.items():
        if table not in reads:
            _said_read_in_pass(t, loop, table, written)
    for table, written in writes.items():
        why = _make_whole(t, loop, table, written)
        if why is None:
            continue
        line = t.input_position(loop)[0]
        for node, target in written:
            t.warn(
                node,
                "DP105",
                f"`{t.code(target)}` fills {table} by the indices of this rank's samples "
                f"in the pass over a sharded loader (the loop at line {line}): the "
                f"rows of the other ranks' samples keep what they held, and {table} is read "
                f"whole after the loop (line {reads[table]}), different on each rank; not "
                f"made whole: {why}",
            )
    return added


def _said_read_in_pass(
    t: ShardDataLoaders,
    loop: cst.For,
    table: str,
    written: list[tuple[cst.Assign | cst.AugAssign, cst.Subscript]],
) -> None:
    """DP028 at each write of `table` (read nowhere after `loop`) where the pass itself
    reads it back (filled_tables.read_in_pass): every later step trains on rows only this
    rank's samples changed. Not made whole: the gather would be a collective per step,
    before the read, which is the program's to place."""
    targets = [target for _, target in written]
    held = targets[0].value
    sized = isinstance(held, cst.Name) and made_to_fill(t, held)
    line = read_in_pass(t, loop, table, targets, sized=sized)
    if line is None:
        return
    start = t.input_position(loop)[0]
    for node, target in written:
        t.warn(
            node,
            "DP028",
            f"`{t.code(node).strip()[:70]}` changes {table} at the rows this rank's batch "
            f"names (`{t.code(target.slice[0].slice) if len(target.slice) == 1 else '...'}`) "
            f"in the pass over a sharded loader (the loop at line {start}), and the pass reads "
            f"{table} back (line {line}): each later step trains on rows only this rank's "
            f"samples changed, where DataParallel's one process changed them with the whole "
            f"batch; {table} differs between the ranks and from the original",
        )


def _make_whole(
    t: ShardDataLoaders,
    loop: cst.For,
    table: str,
    written: list[tuple[cst.Assign | cst.AugAssign, cst.Subscript]],
) -> str | None:
    """Plan the gather of `table` after `loop` where it is proved (the module docstring):
    the index list before the loop, an append after each write, `ddp_whole_table` after.
    None when planned (also where another loader's listing of this loop planned it), else
    what was not proved."""
    for planned in t._after.get(loop, []):
        if (
            isinstance(planned, cst.SimpleStatementLine)
            and isinstance(call := getattr(planned.body[0], "value", None), cst.Call)
            and name_of(call.func) == "ddp_whole_table"
            and isinstance(call.args[0].value, cst.Name)
            and call.args[0].value.value == table
        ):
            return None  # a loop over zip(a, b) is listed for both loaders
    lines: list[tuple[cst.SimpleStatementLine, cst.BaseExpression]] = []
    for node, target in written:
        line = t.parent(node)
        if not (
            isinstance(node, cst.Assign)
            and len(node.targets) == 1
            and len(target.slice) == 1
            and isinstance(target.slice[0].slice, cst.Index)
            and target.slice[0].slice.star is None
            and _pure(target.slice[0].slice.value)
            and isinstance(line, cst.SimpleStatementLine)
            and len(line.body) == 1
            and isinstance(t.parent(line), cst.IndentedBlock)
        ):
            return (
                f"`{t.code(node)}` is not a plain `=` at one index of names and attributes "
                "on a line of its own"
            )
        lines.append((line, target.slice[0].slice.value))
    targets = {id(target.value) for _, target in written}
    if any(
        isinstance(n, cst.Name) and n.value == table and id(n) not in targets
        for n in walk(loop.body)
    ):
        return f"the pass reads {table} too (other ranks' rows differ while it runs)"
    name = written[0][1].value
    if not isinstance(name, cst.Name) or not made_to_fill(t, name):
        return f"{table} is not proved a torch tensor or a numpy array (no rows to gather)"
    if not every_rank_runs(t, loop):
        return (
            "a `return`/`yield` leaves the loop or a rank test guards it: the gather is a "
            "collective every rank must reach"
        )
    index = _fresh(t, f"ddp_{table}_index")
    for line, key in lines:
        append = cst.Attribute(cst.Name(index), cst.Name("append"))
        keep = cst.Expr(cst.Call(func=append, args=[cst.Arg(key)]))
        t._after.setdefault(line, []).append(cst.SimpleStatementLine(body=[keep]))
    start = cst.Assign(targets=[cst.AssignTarget(cst.Name(index))], value=cst.List([]))
    t._before.setdefault(loop, []).append(cst.SimpleStatementLine(body=[start]))
    whole = call_named("ddp_whole_table", cst.Arg(cst.Name(table)), cst.Arg(cst.Name(index)))
    t._after.setdefault(loop, []).append(cst.SimpleStatementLine(body=[cst.Expr(whole)]))
    t.state.helpers.add("whole_table")
    t.record(
        loop,
        f"{table}, filled by sample index in this pass over a sharded loader, made whole "
        "on every rank after it (ddp_whole_table: every rank's indices and rows gathered)",
    )
    return None


def _pure(key: cst.BaseExpression) -> bool:
    """The index reads only names, attributes, literal subscripts and keeping methods, so
    evaluating it again right after the write gives the same indices."""
    for node in walk(key):
        if isinstance(node, cst.Call):
            if not (isinstance(node.func, cst.Attribute) and node.func.attr.value in KEEPING):
                return False  # its arguments are walked too: `idx.view(-1)`, `.to(device)`
        elif isinstance(node, (cst.Await, cst.Yield, cst.NamedExpr, cst.Lambda)):
            return False
    return True


def every_rank_runs(t: ShardDataLoaders, loop: cst.For) -> bool:
    """No `return`/`yield` leaves the loop early, and no rank test guards the loop or a
    call of its function in this module: the gather after it is reached by every rank."""
    if any(isinstance(n, (cst.Return, cst.Yield)) for n in walk(loop.body, skip_scopes=True)):
        return False
    flow = view(t._module_node)
    nodes: list[cst.CSTNode] = [loop]
    function = flow.function_around(loop)
    if function is not None:
        nodes += flow.call_sites(function)
    return not any(
        isinstance(a, cst.If) and mentions_rank(a.test) for n in nodes for a in flow.ancestors(n)
    )


def _fresh(t: ShardDataLoaders, name: str) -> str:
    """`name`, or `name_2`, ... where the module already uses it."""
    used = {n.value for n in walk(t._module_node) if isinstance(n, cst.Name)}
    fresh, count = name, 1
    while fresh in used:
        count += 1
        fresh = f"{name}_{count}"
    return fresh


def keyed_root(value: cst.BaseExpression) -> str | None:
    """The name a table is (`table`) or is held under by a literal key (`state["center"]`)."""
    if isinstance(value, cst.Subscript) and literal_key(value) is not None:
        value = value.value
    return value.value if isinstance(value, cst.Name) else None


def _batch_elements(loop: cst.For) -> set[str]:
    """The names holding parts of the loader's batch in `loop`: its target (past an
    `enumerate` counter), and names bound in the body from one by indexing, an attribute or
    a keeping method (`idx = batch[2].cuda()`). None of a counter's loop (`for c in
    range(CHUNKS)` inside the pass: a chunk's number names no sample, stop 58's merge of v1's
    DP028 with v2's appended hidden states)."""
    target = loop.target
    if isinstance(loop.iter, cst.Call) and name_of(loop.iter.func) == "range":
        return set()
    if name_of(loop.iter.func if isinstance(loop.iter, cst.Call) else loop.iter) == "enumerate":
        if not isinstance(target, cst.Tuple) or len(target.elements) < 2:
            return set()
        target = cst.Tuple(target.elements[1:])
    found = {n.value for n in bound_names(target)}
    assigns = [
        (node.targets[0].target, node.value)
        for node in walk(loop.body, skip_scopes=True)
        if isinstance(node, cst.Assign) and len(node.targets) == 1
    ]
    grown = True
    while grown:
        grown = False
        for bound, value in assigns:
            names = {n.value for n in bound_names(bound)}
            if names - found and _kept(value) in found:
                found |= names
                grown = True
    return found


def _kept(value: cst.BaseExpression) -> str | None:
    """The name whose values `value` keeps: `b` of `b[2]`, `b.idx`, `b.cuda()`, `b[0].long()`."""
    while True:
        if isinstance(value, cst.Name):
            return value.value
        if isinstance(value, (cst.Subscript, cst.Attribute)):
            value = value.value
        elif (
            isinstance(value, cst.Call)
            and isinstance(value.func, cst.Attribute)
            and value.func.attr.value in KEEPING
        ):
            value = value.func.value
        else:
            return None
