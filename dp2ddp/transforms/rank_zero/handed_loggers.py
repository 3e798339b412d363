"""A logger handed to a function as a parameter: its calls there are the logger's calls.

A module binds loguru's logger (`from loguru import logger`) and hands it to its training
function (`train(model, loader, opt, logger)`); there the calls read a parameter, which no
qualified name or tracked binding names, and each rank wrote every line (round 33,
yangjianxin1/CPM@2e11cc9: `train_epoch(..., logger, ...)`, a loguru file sink, each
epoch's lines twice in one file). The def-use view says what the read holds: every binding
reaching it is the parameter, and every call of the function in the module hands it
loguru's logger. Then the call goes to rank 0 like the logger's own. (A standard-library
logger is quieted off rank 0 wherever it is called: quiet_logging.py.)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

import libcst as cst

from dp2ddp.flow import view
from dp2ddp.transforms._support.nodes import enclosing_function

if TYPE_CHECKING:
    from dp2ddp.transforms.rank_zero.facts import RankZeroFacts

#: loguru's logger object, as `from loguru import logger` binds it.
_LOGURU: Final = frozenset({"loguru.logger"})


def handed_logger(
    facts: RankZeroFacts, receiver: cst.BaseExpression, seen: set[int] | None = None
) -> bool:
    """`receiver` (of `receiver.info(...)`) is a parameter every caller in the module
    hands a logger (loguru's, or a parameter so handed one: `train()` handing its `logger`
    on to `train_epoch()`), and only that parameter reaches the read."""
    seen = set() if seen is None else seen
    if not isinstance(receiver, cst.Name) or id(receiver) in seen:
        return False
    seen.add(id(receiver))
    function = enclosing_function(receiver, facts.t)
    if function is None:
        return False
    found = view(facts.module).reaching(receiver)
    if not found or any(d.kind != "param" for d in found):
        return False
    handed = facts.uniform.index.handed(function, receiver.value)
    return bool(handed) and all(
        given is not None and (_logger(facts, given) or handed_logger(facts, given, seen))
        for _, given in handed
    )


def _logger(facts: RankZeroFacts, value: cst.BaseExpression) -> bool:
    """`value` is loguru's logger. A standard-library logger handed in needs nothing: the
    setup block quiets logging off rank 0 (quiet_logging.py), whoever holds the logger."""
    return bool(facts.t.qualified_names(value) & _LOGURU)
