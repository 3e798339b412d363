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

A file rank 0 writes is such a sink too, wherever its name is read afterwards: a
checkpoint named `f"ckpt_{datetime.now():%H%M%S%f}.pth"`, saved on rank 0 and loaded by
another module through `args.eval_from` (PatrickHua/SimSiam@75a7c51: rank 1 loaded its own
stamp, FileNotFoundError), or by another process. Only where every rank is proved to make
the read as often (uniformity.py); elsewhere rank 0 alone uses the name here.

The file system's state read in a condition that decides something the ranks share is the
same flow with another sink: `if os.path.isdir(args.logdir):` around `input("delete it?")`
and `shutil.rmtree(args.logdir)` (lshiwjx/2s-AGCN@953c14f, kenziyuliu/MS-G3D@2f927f4) was
true on the rank that came second, after rank 0 had made the directory, so that rank alone
waited for an answer rank 0 never read. The check becomes
`ddp_rank0_value(os.path.isdir, args.logdir)`: every rank takes rank 0's branch, and the
other ranks' reading waits for rank 0's, so it comes before rank 0 removes or makes the
directory. The sink is a read of stdin (each rank's n-th read takes rank 0's n-th answer,
so a rank that reads where rank 0 did not waits for nothing). A removal alone is no sink:
it goes to rank 0 (side_effects.py), so the other ranks' reading decides nothing there; an
exit alone after the check is exists_checks.py's shape. A removal the check decides is
followed by ddp_barrier() where every rank arrives (barriers.py, the uniformity proof), so
no rank writes into the directory before rank 0 has removed it.
"""

from __future__ import annotations

import libcst as cst

from dp2ddp.transforms._support.nodes import (
    enclosing_class,
    enclosing_function,
    inside,
    statement_header,
    walk,
)
from dp2ddp.transforms.analysis.guards import mentions_rank
from dp2ddp.transforms.analysis.per_process import (
    FILE_SYSTEM_STATE,
    per_process_sources,
    reads_per_process,
    reads_state,
)
from dp2ddp.transforms.rank_zero.barriers import read_path, written_path
from dp2ddp.transforms.rank_zero.edits import call_through
from dp2ddp.transforms.rank_zero.mkdir import made_directory
from dp2ddp.transforms.rank_zero.rule import CallRule
from dp2ddp.transforms.rank_zero.stdin import STDIN_READS

#: Removals of a path a decided check may guard: rank 0 removes, every rank waits for it.
_REMOVALS = frozenset({"shutil.rmtree", "os.remove", "os.unlink", "os.rmdir"})


class RunDirValues(CallRule):
    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        #: id of a per-rank read naming a directory (or deciding a shared step) -> why it
        #: is rank 0's value, for the report.
        self.sources: dict[int, str] = {}

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
        sources: dict[int, str] = {}
        warned: set[int] = set()
        for call in walk(module):
            if not isinstance(call, cst.Call) or any(arg.star for arg in call.args):
                continue
            names = self.t.qualified_names(call.func)
            path = made_directory(call, names)
            what = "the directory made"
            if path is None:
                path, what = read_path(call, names), "the file every rank reads"
            written = False
            if path is None:
                path, what = written_path(call, names), "the file rank 0 writes"
                written = path is not None
            if path is None or self.facts.under_guard(call) or self.facts.in_except(call):
                continue
            if self._in_inserted_helper(call):
                continue  # the inline setup block's own code (DdpNullWriter's default name)
            line = self.t.input_position(call)[0]
            elsewhere = self.t.state.hints.per_rank_returns
            for source, origin in per_process_sources(self.t, path, call, elsewhere):
                if id(source) in sources or id(source) in warned:
                    continue
                if written and not self._every_rank_names(source, call):
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
                sources[id(source)] = f"it names the path used at line {line}"
        self._decided(module, sources, warned)
        self.sources = sources

    def _decided(self, module: cst.Module, sources: dict[int, str], warned: set[int]) -> None:
        """The file system's state read in an `if` test that decides a read of stdin (in the
        test or either branch): rank 0's reading, or DP053 where
        the ranks' n-th readings may not be the same reading."""
        for statement in walk(module):
            if not isinstance(statement, cst.If) or self.facts.under_guard(statement):
                continue
            checks = [
                call
                for call in walk(statement.test)
                if isinstance(call, cst.Call)
                and not any(arg.star for arg in call.args)
                and reads_state(self.t, call)
            ]
            if not checks:
                continue
            sink = self._decided_sink(statement)
            if sink is None or self._in_inserted_helper(statement):
                continue
            line = self.t.input_position(sink)[0]
            for source in checks:
                if id(source) in sources or id(source) in warned:
                    continue
                unshared = self._not_every_rank(source)
                if unshared or self.facts.in_except(source):
                    warned.add(id(source))
                    self.t.warn(
                        source,
                        "DP053",
                        f"`{self.t.code(source)}` decides `{self.t.code(sink)}` at line "
                        f"{line}; {unshared or 'read in an except block'}; flow: "
                        f"{self.t.code(source)} at line {self.t.input_position(source)[0]} "
                        f"→ `{statement_header(statement)}` → {self.t.code(sink)} at line {line}",
                    )
                    continue
                sources[id(source)] = (
                    f"it decides `{self.t.code(sink)}` at line {line}, which the ranks share"
                )
            if all(id(source) in sources for source in checks):
                for source in checks:
                    self.facts.uniform.share(source)
                self._share_reads(statement)
                self._wait_for_removals(statement)

    def _wait_for_removals(self, statement: cst.If) -> None:
        """Every rank waits for the removals `statement` decides (a barrier, barriers.py);
        before the process group exists there is none to wait at: DP053 names the flow."""
        for call in walk(statement):
            if not (isinstance(call, cst.Call) and self.t.qualified_names(call.func) & _REMOVALS):
                continue
            if not self._before_process_group(statement):
                self.t.barriers.wait_for(call)
                continue
            self.t.warn(
                call,
                "DP053",
                f"`{self.t.code(call)}` runs on rank 0 before the process group exists: the "
                "other ranks may go on before it finished; flow: "
                f"`{statement_header(statement)}` at line "
                f"{self.t.input_position(statement)[0]} → {self.t.code(call)}",
            )

    def _before_process_group(self, statement: cst.CSTNode) -> bool:
        """At module level outside `if __name__ == "__main__":` (where ddp_setup() goes
        first): run at import, before the entry's ddp_setup(), so ddp_barrier() waits for
        nothing there."""
        if enclosing_function(statement, self.t) is not None:
            return self.facts.before_setup(statement)
        top, parent = statement, self.t.parent(statement)
        while parent is not None and not isinstance(parent, cst.Module):
            top, parent = parent, self.t.parent(parent)
        return not (isinstance(top, cst.If) and "__name__" in self.t.code(top.test))

    def _share_reads(self, statement: cst.If) -> None:
        """The reads of stdin `statement` decides become ddp_stdin(...) (stdin.py): the
        same answer on every rank, for the uniformity proof."""
        for call in walk(statement):
            if (
                isinstance(call, cst.Call)
                and self.t.qualified_names(call.func) & STDIN_READS
                and not self.facts.under_guard(call)
                and not any(arg.star for arg in call.args)
            ):
                self.facts.uniform.share(call)

    def _decided_sink(self, statement: cst.If) -> cst.Call | None:
        """The first read of stdin that `statement` decides."""
        for call in walk(statement):
            if isinstance(call, cst.Call) and self.t.qualified_names(call.func) & STDIN_READS:
                return call
        return None

    def _every_rank_names(self, source: cst.Call, write: cst.Call) -> bool:
        """A read naming a file rank 0 writes is rank 0's value only where every rank is
        proved to read it as often (uniformity.py): elsewhere only rank 0 uses the name
        here (a read of it by every rank is a sink of its own, warned there), and
        ddp_rank0_value would pair a rank's n-th read with another n-th. A read inside
        the guarded write itself no other rank makes."""
        if inside(source, write, self.t):
            return False
        uniform = self.facts.uniform
        if uniform.rank_dependent_around(source) is not None:
            return False
        function = enclosing_function(source, self.t)
        return function is None or (
            uniform.unreached_call(function) is None
            and uniform.unreached_elsewhere(function) is None
        )

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
        self.t.state.helpers.add("rank0_value")
        self.t.record(original, f"rank 0's value on every rank: {self.sources[id(original)]}")
        return call_through("ddp_rank0_value", updated)
