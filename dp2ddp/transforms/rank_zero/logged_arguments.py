"""A loguru call whose arguments may do work every rank needs: the arguments bound on every
rank, the call on rank 0.

The standard library's records are dropped off rank 0 by the setup block (quiet_logging.py),
so a `logging` call left on every rank for its arguments' sake still writes once. loguru's
are not: a call whose arguments may do work (`logger.info("model config:\\n{}".format(
model.config.to_json_string()))`, a library method dp2ddp cannot see into) was left on
every rank, and its line was logged once per rank, with no warning (round 33,
yangjianxin1/CPM@2e11cc9 main(): the model's configuration twice in one log file). As
ddp_print does for print, the arguments are evaluated on every rank, as the original did,
and only the logging is rank 0's: each working argument is bound to a name first, then the
call goes under `if ddp_is_main():`. The call stays where it was written, so the line and
function loguru records are the caller's (a helper taking the call would log its own).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

import libcst as cst

from dp2ddp.transforms.analysis.guards import main_call
from dp2ddp.transforms.rank_zero.handed_loggers import handed_logger
from dp2ddp.transforms.rank_zero.side_effects import LOGURU_METHODS

if TYPE_CHECKING:
    from dp2ddp.transforms.rank_zero import RankZeroOnly
    from dp2ddp.transforms.rank_zero.facts import RankZeroFacts


#: The name each working argument is bound to (a second one `ddp_logged_2`, ...).
_BOUND: Final = "ddp_logged"


def unquieted_log(t: RankZeroOnly, facts: RankZeroFacts, call: cst.Call) -> bool:
    """`call` logs through loguru's logger (its own name, or a parameter every caller hands
    it: handed_loggers.py), which no setup quiets off rank 0."""
    if t.qualified_names(call.func) & LOGURU_METHODS:
        return True
    func = call.func
    return isinstance(func, cst.Attribute) and handed_logger(facts, func.value)


def log_every_rank(
    t: RankZeroOnly,
    facts: RankZeroFacts,
    original: cst.CSTNode,
    line: cst.SimpleStatementLine,
) -> list[cst.BaseStatement]:
    """`logger.info(f(x))` as `ddp_logged = f(x)` and `if ddp_is_main(): logger.info(
    ddp_logged)` (see the module's docstring); `original` is the call's original statement,
    `line` the updated one."""
    small = line.body[0]
    assert isinstance(original, cst.Expr) and isinstance(original.value, cst.Call)
    assert isinstance(small, cst.Expr) and isinstance(small.value, cst.Call)
    bindings: list[cst.BaseStatement] = []
    names: list[str] = []
    args: list[cst.Arg] = []
    for before, arg in zip(original.value.args, small.value.args, strict=True):
        if not facts.does_work(before.value):
            args.append(arg)
            continue
        name = _BOUND if not names else f"{_BOUND}_{len(names) + 1}"
        names.append(name)
        bindings.append(
            cst.SimpleStatementLine(
                body=[cst.Assign(targets=[cst.AssignTarget(cst.Name(name))], value=arg.value)]
            )
        )
        args.append(arg.with_changes(value=cst.Name(name)))
    call = small.value.with_changes(args=args)
    guarded = cst.If(
        test=main_call(),
        body=cst.IndentedBlock(
            body=[line.with_changes(body=[small.with_changes(value=call)], leading_lines=())]
        ),
    )
    t.record(
        original,
        "loguru call on rank 0 only, its arguments evaluated on every rank first "
        f"({', '.join(names)})",
    )
    statements = [*bindings, guarded]
    statements[0] = statements[0].with_changes(leading_lines=line.leading_lines)
    return statements
