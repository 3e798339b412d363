"""A loop over a parameter of a function the module also hands on (DP037).

`def fit_epoch(epoch, net, batches, opt): for x, y in batches: ...`: where the view finds no
call of the function handing its parameter a value, the loop's source is unknown and its
batches are split at the top, as DataParallel scattered them (fed.py: a loader of another
module's sites is asked first). That default is right for a caller handing whole batches and
wrong for one handing the loader this module shards: each rank would train on a share of its
share. Where the function is also used as a value the view does not follow to its calls
(`fit = functools.partial(fit_epoch, ...)`, handed as an argument, stored in an object), some
caller is not seen, so neither choice is proved: the loop is left as written and DP037 names
the use (stop 72: round 25's aliases were followed by flow/called.py; a binding it cannot
follow kept the split, and a sharded loader's batches were split again, weights 1.0687
against the original's 0.9827, with DP030 alone said).
"""

from __future__ import annotations

import libcst as cst

from dp2ddp.flow import DefUse, view
from dp2ddp.transforms._support.nodes import code_of

#: How many plain aliases (`again = pick`) a called name is followed back through.
_DEPTH = 4


def handed_on(module: cst.Module, loop: cst.For, seen: list[cst.BaseExpression]) -> str | None:
    """DP037's reason where `loop` iterates a parameter of the function around it (`seen`:
    what the loop's source was followed to) and that function is used, in this module, as
    a value no followed call reaches; None otherwise."""
    flow = view(module)
    function = flow.function_around(loop)
    if function is None or function.owner is not None:
        return None
    node = function.node
    if not isinstance(node, cst.FunctionDef):
        return None
    params = {p.name.value for p in function.params}
    if not any(isinstance(s, cst.Name) and s.value in params for s in seen):
        return None
    sites = flow.call_sites(function)
    called = {id(s.func) for s in sites}
    aliases = {s.func.value for s in sites if isinstance(s.func, cst.Name)}
    for _ in range(_DEPTH):  # `again = pick`, `pick = fit_epoch`: `pick` is called too
        more = {
            definition.value.value
            for name in list(aliases)
            for definition in flow.definitions_in(flow.module, name)
            if isinstance(definition.value, cst.Name)
        }
        if more <= aliases:
            break
        aliases |= more
    scope = flow.scope_of(node)
    for use in flow.uses(scope, node.name.value):
        if _followed(flow, use, called, aliases):
            continue
        statement = flow.statement_of(use)
        line = code_of(statement).strip().splitlines()[0][:60]
        return (
            f"{node.name.value}() is also used as a value at `{line}`, whose calls are not "
            "followed: not proved whether it is handed a loader the migration shards "
            "(whose batches a split would cut again) or whole batches, so they are left as "
            "written"
        )
    return None


def _followed(flow: DefUse, use: cst.Name, called: set[int], aliases: set[str]) -> bool:
    """`use` is a followed call's callee (or inside one: `{"a": f}[key](...)`), or the
    value bound to a name such a call is made through (`train = f if c else g`)."""
    for ancestor in (use, *flow.ancestors(use)):
        if id(ancestor) in called:
            return True
        if isinstance(ancestor, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
            break
    statement = flow.statement_of(use)
    if isinstance(statement, cst.SimpleStatementLine):
        for small in statement.body:
            if isinstance(small, cst.Assign) and any(
                isinstance(t.target, cst.Name) and t.target.value in aliases for t in small.targets
            ):
                return True
    return False
