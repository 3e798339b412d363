"""Log records of ranks other than 0, dropped where they are made, in every module.

Guarding `logger.info(...)` call sites (the rank-0 pass does) cannot follow a project
logger: it is configured in a helper module (handlers added in a `Logger` class,
BIGBALLON/CIFAR-ZOO@0275384) or from a JSON file with dictConfig and fetched by name
through `config.get_logger(name)` (victoresque/pytorch-template@41dc06f), and used in
modules that never mention `logging`. Both logged every line once per rank.

So the setup block calls ddp_quiet_logging() (templates/helpers/quiet_logging.py.j2)
at import, where it is defined (the generated module's import, or the inline block after
the script's imports), not in ddp_setup(): `logging.disable(logging.INFO)` off rank 0. It
reads only torchrun's RANK and needs no process group, and module-level code that runs
before ddp_setup() logs too: khanrc/pt.darts@48e7137 augment.py built its logger with a
FileHandler and ran `config.print_params(logger.info)` at import (a log method handed to
another module's method), while ddp_setup() ran first thing in main(), and the log file and
stdout held the 23-line parameters block twice (round 13 v4-A, stop 61). It acts in the
logging manager itself, so it holds for every logger, handler and module, whenever they
are configured (dictConfig and basicConfig, which reset handlers and levels, leave it).
Records at WARNING and above still come from every rank: a warning or an error is about
that rank's own data or failure (the rule that keeps prints in `except` handlers on every
rank), and hiding it would make a rank's crash unexplained. The generated helpers module
of a multi-module program always calls it; a single file does when it imports `logging`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from dp2ddp.transforms._support.nodes import nodes_of

if TYPE_CHECKING:
    from dp2ddp.transforms._support.base import MigrationTransform

HELPER = "quiet_logging"


def logging_import(module: cst.Module) -> cst.CSTNode | None:
    """The first statement importing the standard `logging` package (or a submodule)."""
    for node in nodes_of(module, (cst.Import, cst.ImportFrom)):
        if isinstance(node, cst.Import):
            names = [alias.evaluated_name for alias in node.names]
        elif isinstance(node, cst.ImportFrom) and node.module is not None and not node.relative:
            names = [cst.helpers.get_full_name_for_node_or_raise(node.module)]
        else:
            continue
        if any(name == "logging" or name.startswith("logging.") for name in names):
            return node
    return None


def quiet_logging(transform: MigrationTransform, module: cst.Module) -> None:
    """Log records below WARNING dropped off rank 0 when the module logs (see above)."""
    state = transform.state
    found = logging_import(module) if state.text_count("logging") != 0 else None
    if found is None and not (state.hints.logs and module.body):
        return
    state.helpers.add(HELPER)
    if state.program is None:  # a program's generated module says it once
        where = found if found is not None else module.body[0]
        transform.record(
            where,
            "the setup block drops log records below WARNING on ranks other than 0, at import",
        )
