"""TensorBoard's SummaryWriter on rank 0 only.

`SummaryWriter(...)` becomes `(SummaryWriter if ddp_is_main() else DdpNullWriter)(...)`
(one call: its arguments evaluated at one place on every rank; anywhere: assigned, `with
... as w`, passed, returned). Not None: the writer goes where no pass can follow it (an
attribute made in a base class and used by a subclass in another module, a helper's
argument), and None there crashes rank 1. The null
writer (templates/helpers/null_writer.py.j2) is truthy, so `if writer:` and `if writer is
not None:` take the original branch on every rank (code under them, collectives included,
stays reached by every rank); every method call is a no-op returning None; `log_dir`,
`logdir`, `get_logdir()`, `file_writer.get_logdir()`, `with` and `close()` work; and the
log_dir it is given is created (exist_ok), as SummaryWriter creates it, because code after
it (a log file, a copied config) often writes there. Statement calls on a writer the module
made are still guarded (guard_statements.py: their arguments are not even built off rank
0), unless those arguments do work every rank needs: then they stay on every rank and do
nothing off rank 0. A log directory built from the clock or a random draw (a run id) is
rank 0's on every rank: the agreement proof (run_dir.py) takes it as a directory made.
"""

from __future__ import annotations

import libcst as cst

from dp2ddp.transforms.analysis.guards import main_call, mentions_rank
from dp2ddp.transforms.rank_zero.edits import parenthesize
from dp2ddp.transforms.rank_zero.rule import CallRule
from dp2ddp.transforms.rank_zero.side_effects import (
    PLOT_CLIENTS,
    SUMMARY_WRITER,
    TF_FILE_WRITERS,
    WRITER_CONFIGURE,
)

#: What a SummaryWriter is off rank 0 (templates/helpers/null_writer.py.j2).
_NULL_WRITER = "DdpNullWriter"
_NULL_WRITER_HELPER = "null_writer"
#: What a plotting server's client is off rank 0 (templates/helpers/null_client.py.j2).
_NULL_CLIENT = "DdpNullClient"
_NULL_CLIENT_HELPER = "null_client"
#: Where tensorboard_logger is configured off rank 0 (templates/helpers/discard_dir.py.j2).
_DISCARD_DIR = "ddp_discard_dir"
_DISCARD_DIR_HELPER = "discard_dir"


class Writers(CallRule):
    def leave_call(
        self, original: cst.Call, updated: cst.Call, names: set[str]
    ) -> cst.BaseExpression | None:
        if names & SUMMARY_WRITER:
            return self._writer(original, updated)
        if names & PLOT_CLIENTS:
            return self._writer(original, updated, _NULL_CLIENT, _NULL_CLIENT_HELPER)
        if names & WRITER_CONFIGURE:
            return self._configure(original, updated, bool(names & TF_FILE_WRITERS))
        return None

    def _configure(
        self, original: cst.Call, updated: cst.Call, tensorflow: bool = False
    ) -> cst.BaseExpression:
        """tensorboard_logger's `configure(logdir, ...)` stays on every rank, off rank 0 on
        a scratch folder of its own: `configure(logdir if ddp_is_main() else
        ddp_discard_dir(), ...)`.

        Its default Logger is what `log_value(...)` writes through, from anywhere: a method
        of another module handed the package (`logger.tb_log(tb_logger, step)`,
        fartashf/vsepp@abe382f), a callback. Configured on rank 0 only, rank 1 raised
        "default logger is not configured" at the first such call (stop 41's v3-G); no
        pass can follow every way the package is handed on. Configured on every rank,
        every call works; the calls this module makes are still rank 0's
        (guard_statements.py), and what rank 1 writes elsewhere goes to its own folder,
        never into rank 0's events file (one name per host and second).

        TensorFlow 2's `tf.summary.create_file_writer(logdir, ...)` (`tensorflow`) the same
        way: its writer's `as_default()`, `flush()` and `close()` work on every rank, and
        what `tf.summary.scalar(...)` writes off rank 0 goes to that rank's scratch folder
        (side_effects.TF_FILE_WRITERS)."""
        if self.facts.under_guard(original) or self.facts.before_setup(original):
            return updated
        args = list(updated.args)
        at = next(
            (
                i
                for i, a in enumerate(args)
                if (a.keyword is None and not a.star and i == 0)
                or (a.keyword is not None and a.keyword.value == "logdir")
            ),
            None,
        )
        if at is None or mentions_rank(args[at].value):
            return updated
        self.t.state.helpers.add(_DISCARD_DIR_HELPER)
        args[at] = args[at].with_changes(
            value=cst.IfExp(
                test=main_call(),
                body=parenthesize(args[at].value),
                orelse=cst.Call(func=cst.Name(_DISCARD_DIR)),
            )
        )
        self.t.record(
            original,
            "TensorFlow summary writer made on every rank (off rank 0 on a scratch folder): "
            "its summaries may be written anywhere"
            if tensorflow
            else "tensorboard_logger configured on every rank (off rank 0 on a scratch folder): "
            "its log_value calls may run anywhere",
        )
        return updated.with_changes(args=args)

    def _writer(
        self,
        original: cst.Call,
        updated: cst.Call,
        null: str = _NULL_WRITER,
        helper: str = _NULL_WRITER_HELPER,
    ) -> cst.BaseExpression:
        """`SummaryWriter(...)` becomes `(SummaryWriter if ddp_is_main() else
        DdpNullWriter)(...)`: one call, its arguments evaluated where the original did.

        Not None off rank 0: the writer travels where no pass can follow it (an attribute
        set in a base class and used in a subclass in another module, an argument of a
        helper), and every use there would raise on None. DdpNullWriter
        (templates/helpers/null_writer.py.j2) takes every call, attribute read
        (`log_dir`), `with` and `close()`, and creates an explicit log directory as
        SummaryWriter does, since code after it often writes into it. Any position works
        (assigned, `with ... as w`, passed as an argument, returned). A plotting
        server's client (`visdom.Visdom(...)`, side_effects.PLOT_CLIENTS) the same way,
        `null` a DdpNullClient (templates/helpers/null_client.py.j2): it names no folder
        and answers `check_connection()` truthily.
        """
        if self.facts.under_guard(original):
            return updated
        if self.facts.before_setup(original):
            self.t.warn(original, "DP021", "SummaryWriter created before the DDP setup block")
            return updated
        self.t.state.helpers.add(helper)
        # One call, the class chosen: the arguments are written once and evaluated at one
        # place on every rank. Repeated in both arms of `SummaryWriter(...) if ... else
        # DdpNullWriter(...)`, a keyed read in them (`ddp_rank0_value(time.strftime, ...)`,
        # keyed by its line) sat on another line on rank 1 than on rank 0: rank 1 waited
        # 60 s per read for a key rank 0 never set (stop 41's v2-D).
        choice = cst.IfExp(
            test=main_call(),
            body=updated.func,
            orelse=cst.Name(null),
            lpar=[cst.LeftParen()],
            rpar=[cst.RightParen()],
        )
        what = "SummaryWriter" if null == _NULL_WRITER else "plotting client"
        self.t.record(
            original, f"{what} created on rank 0 only ({null} elsewhere: calls do nothing)"
        )
        return updated.with_changes(func=choice)


def writer_log_dir(writer: cst.Call) -> cst.BaseExpression | None:
    """The log directory a `SummaryWriter(...)` call names (first positional, `log_dir=`,
    tensorboardX's `logdir=`); None when it names none (the default, time and host)."""
    return next(
        (
            arg.value
            for index, arg in enumerate(writer.args)
            if (arg.keyword is None and not arg.star and index == 0)
            or (arg.keyword is not None and arg.keyword.value in ("log_dir", "logdir"))
        ),
        None,
    )
