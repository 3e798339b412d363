"""A shared path named by a per-rank read: rank 0's reading on every rank (issue 29).

A clock, random, uuid, pid or file-system-state read that the path of a directory made on
every rank, or of a file every rank reads, is computed from (`args.save = "{}-{}".format(
args.save, time.strftime(...))`, a first-free-index `while` loop, another module's
`run_name()`; analysis/per_process.py on the flow view) becomes
`ddp_rank0_value(time.strftime, ...)`: rank 0's reading on every rank, passed through
torchrun's rendezvous store (no collective, so also before ddp_setup()), so ranks a second
apart still name one directory. Without that store a rank keeps its own reading, with a
run-time warning. The helper pairs each rank's n-th call with rank 0's n-th, so a read
under a condition that differs between ranks is DP053 instead, with the flow.
"""

from __future__ import annotations

import libcst as cst

from dp2ddp.transforms._support.nodes import (
    enclosing_class,
    enclosing_function,
    statement_header,
    walk,
)
from dp2ddp.transforms.analysis.guards import mentions_rank
from dp2ddp.transforms.analysis.per_process import (
    FILE_SYSTEM_STATE,
    per_process_sources,
    reads_per_process,
)
from dp2ddp.transforms.rank_zero.barriers import read_path
from dp2ddp.transforms.rank_zero.edits import call_through
from dp2ddp.transforms.rank_zero.mkdir import made_directory
from dp2ddp.transforms.rank_zero.rule import CallRule


class RunDirValues(CallRule):
    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        #: id of a clock/random call naming a directory -> that directory's line.
        self.sources: dict[int, int] = {}

    def leave_call(
        self, original: cst.Call, updated: cst.Call, names: set[str]
    ) -> cst.BaseExpression | None:
        if id(original) in self.sources:
            return self._rank0_value(original, updated)
        return None

    def plan(self, module: cst.Module) -> None:
        """The clock or random reads (`datetime.now()`) that the path of a directory made on
        every rank, or of a file every rank reads (a checkpoint rank 0 saved), is computed
        from, each with the line of that use: they become ddp_rank0_value(...) so every rank
        names the same path (analysis/per_process.py)."""
        sources: dict[int, int] = {}
        warned: set[int] = set()
        for call in walk(module):
            if not isinstance(call, cst.Call) or any(arg.star for arg in call.args):
                continue
            names = self.t.qualified_names(call.func)
            path = made_directory(call, names)
            what = "the directory made"
            if path is None:
                path, what = read_path(call, names), "the file every rank reads"
            if path is None or self.facts.under_guard(call) or self.facts.in_except(call):
                continue
            if self._in_inserted_helper(call):
                continue  # the inline setup block's own code (DdpNullWriter's default name)
            line = self.t.input_position(call)[0]
            elsewhere = self.t.state.hints.per_rank_returns
            for source, origin in per_process_sources(self.t, path, call, elsewhere):
                if id(source) in sources or id(source) in warned:
                    continue
                unshared = self._not_every_rank(source)
                if unshared:
                    warned.add(id(source))
                    self.t.warn(
                        source,
                        "DP053",
                        f"`{self.t.code(source)}` names {what} at line {line}; {unshared}; "
                        f"flow: {origin.flow(self.t.input_position)} → "
                        f"{self.t.code(call)} at line {line}",
                    )
                    continue
                sources[id(source)] = line
        self.sources = sources

    def _not_every_rank(self, source: cst.Call) -> str:
        """Why the ranks' n-th reads of `source` may not be the same read (ddp_rank0_value
        pairs them by count): it sits under a condition that tests the rank, an exception
        (raised on one rank), or a per-rank read of its own (the clock, the file system);
        "" otherwise. A condition the uniformity proof only cannot prove (`if run_id is
        None:` on a parameter) is taken as every rank's: that is how programs name runs."""
        for statement in self.facts.uniform.rank_dependent_statements(source):
            condition: cst.CSTNode | None = None
            if isinstance(statement, (cst.If, cst.While)):
                condition = statement.test
            elif isinstance(statement, cst.For):
                condition = statement.iter
            if condition is None or mentions_rank(condition) or self._reads_per_rank(condition):
                return f"read under `{statement_header(statement)}`, which differs between ranks"
        return ""

    def _reads_per_rank(self, condition: cst.CSTNode) -> bool:
        return any(
            isinstance(call, cst.Call)
            and any(
                reads_per_process(name) or name in FILE_SYSTEM_STATE
                for name in self.t.qualified_names(call.func)
            )
            for call in walk(condition)
        )

    def _in_inserted_helper(self, node: cst.CSTNode) -> bool:
        """Inside a function or class of dp2ddp's inserted setup block (a file migrated
        before, run through this pass again): those are dp2ddp's, never the program's."""
        from dp2ddp.transforms._support.runtime import exported_names  # imports the pipeline

        helpers = exported_names()
        function = enclosing_function(node, self.t)
        owner = enclosing_class(node, self.t)
        return (function is not None and function.name.value in helpers) or (
            owner is not None and owner.name.value in helpers
        )

    def _rank0_value(self, original: cst.Call, updated: cst.Call) -> cst.Call:
        """`datetime.now()` -> `ddp_rank0_value(datetime.now)`: read on every rank, rank 0's
        value used by all (templates/helpers/rank0_value.py.j2)."""
        line = self.sources[id(original)]
        self.t.state.helpers.add("rank0_value")
        self.t.record(
            original,
            f"rank 0's value on every rank: it names the path used at line {line}",
        )
        return call_through("ddp_rank0_value", updated)
