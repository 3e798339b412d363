"""A shared path named by a per-rank read: rank 0's reading on every rank (issue 29).

A clock, random, uuid, pid or file-system-state read that the path of a directory made on
every rank (a SummaryWriter's log directory too: DdpNullWriter makes it off rank 0), or of
a file every rank reads, is computed from (`args.save = "{}-{}".format(args.save,
time.strftime(...))`, a first-free-index loop, another module's `run_name()`;
analysis/per_process.py) becomes `ddp_rank0_value(time.strftime, ...)`: rank 0's reading
on every rank, through torchrun's rendezvous store (no collective), so ranks a second apart
name one directory; without that store a rank keeps its own, with a run-time warning. The
helper pairs each rank's n-th call with rank 0's n-th, so a read under a condition that
differs between ranks is DP053 instead. A file only read per sample (analysis/sample_code.py)
is this rank's data, not a shared name: its path stays this rank's own; and no read in
per-sample code is made rank 0's (issue 28: a loader's workers cannot wait for rank 0's).

A file rank 0 writes is such a sink too, wherever its name is read afterwards: a checkpoint
`f"ckpt_{datetime.now():%H%M%S%f}.pth"` saved on rank 0, loaded through `args.eval_from`
(PatrickHua/SimSiam@75a7c51: rank 1 loaded its own stamp). Only where every rank is proved
to make the read as often (uniformity.py); elsewhere rank 0 alone uses the name here.

The file system's state read in a condition that decides something the ranks share is the
same flow with another sink: `if os.path.isdir(args.logdir):` around `input("delete it?")`
and `shutil.rmtree(args.logdir)` (lshiwjx/2s-AGCN@953c14f, kenziyuliu/MS-G3D@2f927f4) was
true on the rank that came second, after rank 0 had made the directory, so that rank alone
waited for an answer rank 0 never read. The check becomes `ddp_rank0_value(os.path.isdir,
args.logdir)`: every rank takes rank 0's branch, the other ranks' reading waiting for rank
0's, before rank 0 removes or makes the directory. The sink is a read of stdin (each rank's
n-th read takes rank 0's n-th answer, so a rank that reads where rank 0 did not waits for
nothing), or an exit before the program makes the directory it checked (`if
os.path.exists(d): raise ...; os.makedirs(d)`: rank 1 found rank 0's new folder and
raised): every rank stops, or none does. A removal alone is no sink: it goes to rank 0
(side_effects.py), but it is waited for all the same: a removal the check decides is
followed by ddp_barrier() where every rank arrives (barriers.py, the uniformity proof).

One rule, one loop (`_share_flows` over `Sink`s): every sink (a path made, opened, read or
written; an attribute another module makes a path of, or an argument handed to another
module's function that makes a path of it, handed_sinks.py; a training loop's end,
loop_decisions.py) has its per-process reads found by per_process_sources and each made
rank 0's or DP053. Two sinks keep their own walk because what they share is decided, not
computed: an `if` on the file system's state deciding a branch (decided_paths.py), and a
learning rate decided by a figure (decisions.py; or handed to the method deciding it:
per_rank.handed_own_figure), shared at the call nearest the decision.
"""

from __future__ import annotations

import libcst as cst

from dp2ddp.flow import Origin
from dp2ddp.transforms._support.nodes import (
    enclosing_class,
    enclosing_function,
    inside,
    nodes_of,
    statement_header,
    walk,
)
from dp2ddp.transforms.analysis.guards import mentions_rank
from dp2ddp.transforms.analysis.per_process import (
    FILE_SYSTEM_STATE,
    lazy_state,
    per_process_sources,
    reads_per_process,
    reads_state,
    worker_handoff,
)
from dp2ddp.transforms.analysis.per_rank import from_own_batches, handed_own_figure, returned_figure
from dp2ddp.transforms.analysis.plateau_steps import plateau_steps
from dp2ddp.transforms.analysis.sample_code import per_sample_functions
from dp2ddp.transforms.analysis.seeded_streams import alike_streams, stream_of
from dp2ddp.transforms.analysis.training import loop_trains
from dp2ddp.transforms.rank_zero.decided_paths import (
    made_in,
    written_after,
    written_in,
)
from dp2ddp.transforms.rank_zero.decisions import deciding_tests, rate_sets
from dp2ddp.transforms.rank_zero.edits import call_through, items_through
from dp2ddp.transforms.rank_zero.figure_names import named_by_own_figure
from dp2ddp.transforms.rank_zero.file_paths import log_file_path, whole_file_path
from dp2ddp.transforms.rank_zero.handed_sinks import Sink, argument_sinks, attribute_sinks
from dp2ddp.transforms.rank_zero.loop_decisions import exit_tests
from dp2ddp.transforms.rank_zero.mkdir import made_directory
from dp2ddp.transforms.rank_zero.rule import CallRule
from dp2ddp.transforms.rank_zero.side_effects import REMOVALS, SUMMARY_WRITER
from dp2ddp.transforms.rank_zero.stdin import STDIN_READS
from dp2ddp.transforms.rank_zero.writers import writer_log_dir

#: Removals of a path a decided check may guard: rank 0 removes, every rank waits for it.
#: Calls that end the program, as a `raise` does.
_EXITS = frozenset({"sys.exit", "builtins.exit", "builtins.quit", "os._exit"})


class RunDirValues(CallRule):
    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        #: id of a per-rank read naming a directory (or deciding a shared step) -> why it
        #: is rank 0's value, for the report.
        self.sources: dict[int, str] = {}
        #: ids of the `if` statements _shared_test is deciding (its checks' own question).
        self._asking: set[int] = set()
        #: ids of the module's per-sample functions (analysis/sample_code.py), per plan.
        self.per_sample: frozenset[int] = frozenset()

    def leave_call(
        self, original: cst.Call, updated: cst.Call, names: set[str]
    ) -> cst.BaseExpression | None:
        if id(original) in self.sources:
            return self._rank0_value(original, updated)
        return None

    def plan(self, module: cst.Module) -> None:
        """One rule over the sinks (see the module's docstring): a path made, opened, read or
        written; an attribute naming one elsewhere; a shared step, a learning rate or a
        training loop's end decided."""
        sources: dict[int, str] = {}
        warned: set[int] = set()
        found = (sources, warned)
        self.per_sample = per_sample_functions(module, self.t, self.t.state.hints.per_sample)
        sinks = [*self._path_sinks(module), *attribute_sinks(self), *argument_sinks(self)]
        self._share_flows(sinks, found)
        named_by_own_figure(self, sinks)
        self._decided(module, sources, warned)
        self._rate_decisions(module, sources, warned)
        self._share_flows(self._exit_sinks(module), found)
        self.sources = sources

    def _path_sinks(self, module: cst.Module) -> list[Sink]:
        """The path of a directory made on every rank (a SummaryWriter's log directory), of
        a file every rank reads or opens as its log, or of a file rank 0 writes."""
        sinks: list[Sink] = []
        per_sample = self.per_sample
        for call in nodes_of(module, cst.Call):
            if any(arg.star for arg in call.args):
                continue
            names = self.t.qualified_names(call.func)
            path = made_directory(call, names)
            what = "the directory made"
            if path is None and names & SUMMARY_WRITER:
                path, what = writer_log_dir(call), "the writer's log directory"
            if path is None:
                path, what = whole_file_path(call, names, write=False), "the file every rank reads"
                if path is not None and id(enclosing_function(call, self.t)) in per_sample:
                    continue  # one sample's input, this rank's data (analysis/sample_code.py)
            if path is None:
                path, what = log_file_path(call, names), "the log file every rank opens"
            written = False
            if path is None:
                path, what = whole_file_path(call, names, write=True), "the file rank 0 writes"
                written = path is not None
            if path is None or self.facts.under_guard(call) or self.facts.in_except(call):
                continue
            if self._in_inserted_helper(call):
                continue  # the inline setup block's own code (DdpNullWriter's default name)
            line = self.t.input_position(call)[0]
            named = (f"{what} at line {line}", f"{self.t.code(call)} at line {line}")
            reason = f"it names the path used at line {line}"
            sinks.append(Sink(path, call, named, reason, written=written))
        return sinks

    def _exit_sinks(self, module: cst.Module) -> list[Sink]:
        """A training loop's end (loop_decisions.py: `if time.time() - t0 > limit: break`);
        a test on this rank's own batches is DP032's (loop_exits.py)."""
        sinks: list[Sink] = []
        for test, site, _ in exit_tests(
            self.t, self.facts.uniform.index, module, self.t.qualified_names
        ):
            if self.facts.under_guard(site) or self._in_inserted_helper(site):
                continue
            line = self.t.input_position(site)[0]
            named = (f"the end of the training loop at line {line}", statement_header(site))
            reason = f"it decides at line {line} when the training loop ends, on every rank"
            sinks.append(Sink(test, site, named, reason, decides=True))
        return sinks

    def _share_flows(self, sinks: list[Sink], found: tuple[dict[int, str], set[int]]) -> None:
        """Each per-process read a sink's value comes from, rank 0's (_share_or_warn), and
        then every rank's for the uniformity proof (one value on every rank: a condition
        made of it is every rank's; stop 52 s3: `found = glob.glob("corpus_*.pt")` made rank
        0's for the load of `found[0]`, then `if found: ... else: build_and_save()`, was
        still "where not every rank may arrive", DP031); one deciding a step only unless
        drawn alike (a seeded stream)."""
        sources, warned = found
        elsewhere = self.t.state.hints.per_rank_returns
        alike = self._alike_streams() if any(sink.decides for sink in sinks) else frozenset()
        for sink in sinks:
            for source, origin in per_process_sources(self.t, sink.expr, sink.site, elsewhere):
                if sink.decides and isinstance(source, cst.Call):
                    if not self._drawn_apart(source, alike):
                        continue
                if id(source) in sources or id(source) in warned:
                    continue
                if sink.written and not self._every_rank_names(source, sink.site):
                    continue
                self._share_or_warn(source, origin, sink.named, sink.reason, found)
                if id(source) in sources and isinstance(source, cst.Call):
                    self.facts.uniform.share(source)

    def _rate_decisions(
        self, module: cst.Module, sources: dict[int, str], warned: set[int]
    ) -> None:
        """A learning rate decided or computed from a per-process read (decisions.py): an
        unseeded draw, or a figure computed from one (an evaluation in an order each
        process drew, through another module's object: ProgramHints.per_rank_classes).
        The call nearest the decision in its function that gives the figure (`val_loss =
        evaluate(...)`) becomes rank 0's value, still made on every rank (a collective in
        it is still every rank's); DP053 with the flow where the ranks' n-th calls may not
        be the same call."""
        sets = rate_sets(self.t, module)
        plateaus = plateau_steps(module, self.t.qualified_names)
        if not sets and not plateaus:
            return
        alike = self._alike_streams()
        classes = {
            name: stream
            for name, _, stream in (c.partition(":") for c in self.t.state.hints.per_rank_classes)
            if stream not in alike
        }
        elsewhere = self.t.state.hints.per_rank_returns | frozenset(classes)
        sinks: list[tuple[cst.BaseExpression, cst.CSTNode, cst.CSTNode]] = [
            (statement.test, statement, write)
            for statement, write in deciding_tests(self.t, module, sets)
        ]
        sinks += [(write.value, write, write) for write in sets]
        sinks += [(figure, call, call) for call, figure in plateaus]
        said: set[int] = set()  # the lines of the rates DP090 was given for
        for expr, site, write in sinks:
            if self.facts.under_guard(site) or self._in_inserted_helper(site):
                continue
            line = self.t.input_position(write)[0]
            handed = handed_own_figure(self.facts.uniform, expr, site, self.t.qualified_names)
            if handed is not None:
                site, expr = handed  # the call handing its function this rank's figure
            if (
                line in said
                or self._from_own_batches(expr, site)
                or returned_figure(self.facts.module, expr, self.t.state.per_rank_figures)
            ):
                if line not in said:
                    said.add(line)
                    self.t.warn(
                        site,
                        "DP090",
                        f"`{self.t.code(expr)}` decides the learning rate set at line {line} "
                        "from this rank's own batches in its training loop: the ranks may set "
                        "different rates; all-reduce the figure first",
                    )
                continue
            named = (f"the learning rate set at line {line}", self.t.code(write))
            reason = f"it decides the learning rate set at line {line}, which the ranks share"
            cut: set[int] = set()  # the figures made rank 0's: the walk stops there
            while True:  # one more figure each round, until no per-process read is left
                found = self._first_figure(expr, site, elsewhere, alike, frozenset(cut))
                if found is None:
                    break
                figure, origin = found
                cut.add(id(figure))
                if id(figure) in sources or id(figure) in warned:
                    continue
                self._share_or_warn(figure, origin, named, reason, (sources, warned))
                if id(figure) in sources and isinstance(figure, cst.Call):
                    self.facts.uniform.share(figure)

    def _from_own_batches(self, expr: cst.BaseExpression, site: cst.CSTNode) -> bool:
        """`expr` reads a figure a loop around `site` that trains (analysis/training.py)
        computes from this rank's batches (per_rank.py): a sum of its losses. Rank 0's value
        would replace the other ranks' data, so the decision is said (DP090), not shared."""
        function = enclosing_function(site, self.t)
        node = self.t.parent(site)
        while node is not None and node is not function:
            if (
                isinstance(node, (cst.For, cst.While))
                and loop_trains(node, self.t.qualified_names)
                and from_own_batches(self.facts.uniform, expr, node, site)
            ):
                return True
            node = self.t.parent(node)
        return False

    def _first_figure(
        self,
        expr: cst.BaseExpression,
        site: cst.CSTNode,
        elsewhere: frozenset[str],
        alike: frozenset[str],
        cut: frozenset[int],
    ) -> tuple[cst.Call | cst.Attribute, Origin] | None:
        """The first per-process read `expr` comes from, past the calls in `cut`, as the
        figure to share: the first call on its flow in `site`'s function (every other way
        from the read to `site` goes through it, or is found in a next round)."""
        for source, origin in per_process_sources(self.t, expr, site, elsewhere, cut):
            if isinstance(source, cst.Call) and not self._drawn_apart(source, alike):
                continue
            nearest = self._nearest_figure(origin, site)
            figure = source if nearest is None or id(nearest) in cut else nearest
            if id(figure) not in cut:
                return figure, origin
        return None

    def _alike_streams(self) -> frozenset[str]:
        """The random streams every rank seeds alike (analysis/seeded_streams.py)."""
        return alike_streams(self.t.state.facts.seeded_streams, lambda: self.facts.module.code)

    def _drawn_apart(self, source: cst.Call, alike: frozenset[str]) -> bool:
        """A source call read apart on each rank: not a draw from a stream every rank
        seeds alike (`np.random.rand()` after `np.random.seed(0)` draws alike)."""
        stream = stream_of(self.t.qualified_names(source.func))
        return stream is None or stream not in alike

    def _nearest_figure(self, origin: Origin, site: cst.CSTNode) -> cst.Call | None:
        """The first call on the flow from the read that is in the decision's own function:
        `evaluate(net, vx, vy)` of `val_loss = evaluate(...)` (not `min(best, val_loss)`
        after it: `val_loss` is read too); None when there is none, or when its value is
        also differentiated (a loss: rank 0's copy has no graph)."""
        function = enclosing_function(site, self.t)
        for step in origin.path:
            node = step.node
            if isinstance(node, cst.Call) and enclosing_function(node, self.t) is function:
                assign = self.t.parent(node)
                if isinstance(assign, cst.Assign) and function is not None:
                    targets = {self.t.code(t.target) for t in assign.targets}
                    if any(
                        isinstance(n, cst.Attribute)
                        and n.attr.value == "backward"
                        and self.t.code(n.value) in targets
                        for n in walk(function)
                    ):
                        return None
                return node
        return None

    def _share_or_warn(
        self,
        source: cst.CSTNode,
        origin: Origin,
        named: tuple[str, str],
        reason: str,
        found: tuple[dict[int, str], set[int]],
    ) -> None:
        """A per-process read that names a shared path (`named`: what it names, and the
        sink the flow ends at): rank 0's value on every rank (`reason` kept in `sources`),
        or DP053 with the flow where the ranks' n-th reads may not be the same read."""
        sources, warned = found
        if id(enclosing_function(source, self.t)) in self.per_sample:
            return  # one sample's value, in a loader's worker: never rank 0's (issue 28)
        unshared = self._not_every_rank(source)
        if not unshared:
            sources[id(source)] = reason
            return
        warned.add(id(source))
        self.t.warn(
            source,
            "DP053",
            f"`{self.t.code(source)}` names {named[0]}; {unshared}; flow: "
            f"{origin.flow(self.t.input_position)} → {named[1]}",
        )

    def _decided(self, module: cst.Module, sources: dict[int, str], warned: set[int]) -> None:
        """The file system's state read in an `if` test that decides a read of stdin (in the
        test or either branch): rank 0's reading, or DP053 where
        the ranks' n-th readings may not be the same reading."""
        for statement in nodes_of(module, cst.If):
            if self.facts.under_guard(statement):
                continue
            if id(enclosing_function(statement, self.t)) in self.per_sample:
                continue  # per-sample code: no rank 0's value, no barrier (issue 28)
            checks = [
                call
                for call in nodes_of(statement.test, cst.Call)
                if not any(arg.star for arg in call.args) and reads_state(self.t, call)
            ]
            if not checks:
                continue
            if self._in_inserted_helper(statement):
                continue
            sink = self._decided_sink(statement)
            nearest = sink is None and self._removes_then_uses(statement)
            if nearest:
                # a removal whose path is used again inside the `if`: every rank
                # takes rank 0's branch, so the barrier after the removal can come before
                # that use (ermongroup/ddim@e8df66c: rank 1 made the folder, or opened a
                # log in it, while rank 0 was removing it)
                sink = next(c for c in walk(statement) if self._is_removal(c))
            if sink is None:
                # A removal alone: rank 0 removes (side_effects.py) and every rank waits
                # for it, so none makes or writes into the path before it is gone
                # (ermongroup/ncsn@7f27f4a: `if os.path.exists(args.log):
                # shutil.rmtree(args.log)`, then `os.makedirs(args.log)` on every rank).
                self._wait_for_removals(statement, used_after=True)
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
                self._wait_for_removals(statement, nearest=nearest)

    def _is_removal(self, node: cst.CSTNode) -> bool:
        return isinstance(node, cst.Call) and bool(self.t.qualified_names(node.func) & REMOVALS)

    def _removes_then_uses(self, statement: cst.If) -> bool:
        """`statement` removes a path in a branch that names it again after the removal,
        inside `statement` (`shutil.rmtree(d)` then `os.makedirs(d)`): a barrier after the
        whole `if` would come after that use."""
        for removal in (c for c in walk(statement) if self._is_removal(c)):
            assert isinstance(removal, cst.Call)
            line = self.t.parent(removal)
            while line is not None and not isinstance(line, cst.SimpleStatementLine):
                line = self.t.parent(line)
            if line is not None and self._named_after(line, removal, within=statement):
                return True
        return False

    def _wait_for_removals(
        self, statement: cst.If, *, used_after: bool = False, nearest: bool = False
    ) -> None:
        """Every rank waits for the removals `statement` decides (a barrier, barriers.py);
        before the process group exists there is none to wait at: DP053 names the flow.
        With `used_after`, only for a removed path named again after `statement` (made,
        written, read): a previous epoch's checkpoint removed and never named again needs
        no wait. With `nearest`, the barrier goes right after each removal's guard."""
        for call in walk(statement):
            if not (isinstance(call, cst.Call) and self.t.qualified_names(call.func) & REMOVALS):
                continue
            if used_after and not self._named_after(statement, call):
                continue
            if not self._before_process_group(statement):
                self.t.barriers.wait_for(call, nearest=nearest)
                continue
            self.t.warn(
                call,
                "DP053",
                f"`{self.t.code(call)}` runs on rank 0 before the process group exists: the "
                "other ranks may go on before it finished; flow: "
                f"`{statement_header(statement)}` at line "
                f"{self.t.input_position(statement)[0]} → {self.t.code(call)}",
            )

    def _named_after(
        self, statement: cst.CSTNode, removal: cst.Call, within: cst.CSTNode | None = None
    ) -> bool:
        """The path `removal` removes is named (not assigned) in a statement after
        `statement`, in its block or a block around it in its function (by text), or
        only inside `within`."""
        if not removal.args or removal.args[0].keyword is not None:
            return False
        path = removal.args[0].value
        text, kind = self.t.code(path), type(path)
        child, parent = statement, self.t.parent(statement)
        while parent is not None and not isinstance(parent, (cst.FunctionDef, cst.ClassDef)):
            if child is within:
                break
            if isinstance(parent, (cst.IndentedBlock, cst.Module)):
                body = list(parent.body)
                for later in body[next(i for i, s in enumerate(body) if s is child) + 1 :]:
                    for node in walk(later):
                        if (
                            type(node) is kind
                            and not isinstance(self.t.parent(node), cst.AssignTarget)
                            and self.t.code(node) == text
                        ):
                            return True
            child, parent = parent, self.t.parent(parent)
        return False

    def _before_process_group(self, statement: cst.CSTNode) -> bool:
        """At module level outside `if __name__ == "__main__":` (where ddp_setup() goes
        first): run at import, before the entry's ddp_setup(), so ddp_barrier() waits for
        nothing there. Not so in an entry with no main() (or wrapping at module level):
        its ddp_setup() runs right after its imports (process_group.py), so only what
        sits above it comes first."""
        if enclosing_function(statement, self.t) is not None:
            return self.facts.before_setup(statement)
        top, parent = statement, self.t.parent(statement)
        while parent is not None and not isinstance(parent, cst.Module):
            top, parent = parent, self.t.parent(parent)
        if isinstance(top, cst.If) and "__name__" in self.t.code(top.test):
            return False
        program = self.t.state.program
        entry = program is None or program.role == "entry"
        no_main = not any(
            isinstance(s, cst.FunctionDef) and s.name.value == "main"
            for s in self.facts.module.body
        )
        if entry and (no_main or self.t.state.module_level_wrap):
            return self.facts.before_setup(top)
        return True

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

    def _decided_sink(self, statement: cst.If) -> cst.CSTNode | None:
        """What `statement` decides that the ranks share: its first read of stdin, or an
        exit (`raise`, `sys.exit()`) in its body when the path it checks is a directory
        the program makes after it, in the same block (`if os.path.exists(d): raise ...` then
        `os.makedirs(d)`, wujiyang/Face_Pytorch@3afd941: rank 1 found the folder rank 0
        had just made, and raised). Such a check reads state the program itself changes:
        rank 0's reading, taken before it makes the directory, stops or runs every rank."""
        for call in walk(statement):
            if isinstance(call, cst.Call) and self.t.qualified_names(call.func) & STDIN_READS:
                return call
        exits = [  # either branch: `else: sys.exit(1)` (round 37, awd-lstm-lmkit@6510d06)
            node
            for node in walk(statement)
            if isinstance(node, cst.Raise)
            or (isinstance(node, cst.Call) and self.t.qualified_names(node.func) & _EXITS)
        ]
        if exits:
            # Whether or not the program makes the path after it: ranks that read the file
            # system apart exit apart, and a rank left alone waits in its first collective
            # or runs a job the others left. A helper of another function may make the folder
            # (LeeDoYup/FixMatch-pytorch@f167d64: `if os.path.exists(save_path) and not
            # args.overwrite: raise`, then utils.get_logger()'s `os.makedirs(save_path,
            # exist_ok=True)`: rank 0, later, raised).
            return exits[0]
        made, written = made_in(self.t, statement)
        if made is not None and not any(self._is_removal(c) for c in walk(statement)):
            # The branch makes the folder its test checks, on every rank: another rank's
            # make turns the test (decided_paths.made_in). (A removal in it:
            # _removes_then_uses places the barrier right after it.)
            return made
        if written is not None or (written := written_in(self.t, statement)) is not None:
            return written  # a write after the make, or a cache built when absent
        return written_after(self.t, statement)  # a restart test, a cache check

    def _every_rank_names(self, source: cst.CSTNode, write: cst.CSTNode) -> bool:
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

    def _not_every_rank(self, source: cst.CSTNode) -> str:
        """Why the ranks' n-th reads of `source` may not be the same read (ddp_rank0_value
        pairs them by count): it sits under a condition that tests the rank, an exception
        (raised on one rank), or a per-rank read of its own (the clock, the file system);
        or it is in a function a process pool runs in its workers (each counts apart); ""
        otherwise. A condition the uniformity proof only cannot prove (`if run_id is None:`
        on a parameter) is taken as every rank's: that is how programs name runs. The
        calls of the read's function count too, one call deep (`if time.time() - start <
        limit: run_dir = new_run_dir()`)."""
        differs = self._differs_around(source)
        if differs is not None:
            return f"read under `{statement_header(differs)}`, which differs between ranks"
        function = enclosing_function(source, self.t)
        if function is None:
            return ""
        for call in self.facts.uniform.index.call_sites(function):
            differs = self._differs_around(call)
            if differs is not None:
                line = self.t.input_position(call)[0]
                return (
                    f"read in {function.name.value}(), called at line {line} under "
                    f"`{statement_header(differs)}`, which differs between ranks"
                )
        handoff = worker_handoff(self.facts.module, function)
        if handoff is not None:  # each worker counts its own reads (v2-C of stop 62)
            line = self.t.input_position(handoff)[0]
            return (
                f"read in {function.name.value}(), which `{self.t.code(handoff.func)}` at "
                f"line {line} runs in worker processes: each worker counts its reads "
                "apart, so rank 0's n-th value may be another worker's read"
            )
        return ""

    def _differs_around(self, node: cst.CSTNode) -> cst.BaseCompoundStatement | None:
        """A statement around `node` whose condition tests the rank, reads per rank, or
        is an exception handler (see _not_every_rank)."""
        for statement in self.facts.uniform.rank_dependent_statements(node):
            condition: cst.CSTNode | None = None
            if isinstance(statement, (cst.If, cst.While)):
                condition = statement.test
            elif isinstance(statement, cst.For):
                condition = statement.iter
            if condition is None or mentions_rank(condition) or self._reads_per_rank(condition):
                if isinstance(statement, cst.If) and self._shared_test(statement):
                    continue
                return statement
        return None

    def _shared_test(self, statement: cst.If) -> bool:
        """`statement`'s test reads only the file system's state and decides what the ranks
        share: _decided (which runs after the path sinks) makes it rank 0's reading, so a
        read in its branch is made alike on every rank (`if os.path.exists(root): n =
        len(next(os.walk(root))[1])`, inspire-group/SSD@cf2e162, stop 45 v1-A)."""
        if id(statement) in self._asking:
            return True  # asked again for its own checks: the statements around decide
        if self.facts.under_guard(statement) or mentions_rank(statement.test):
            return False
        calls = list(nodes_of(statement.test, cst.Call))
        checks = [c for c in calls if reads_state(self.t, c)]
        if not checks or any(arg.star for c in checks for arg in c.args):
            return False
        others = [c for c in calls if all(c is not check for check in checks)]
        if any(map(self._reads_per_rank, others)) or self._decided_sink(statement) is None:
            return False
        self._asking.add(id(statement))
        try:
            return not any(self._not_every_rank(check) for check in checks)
        finally:
            self._asking.discard(id(statement))

    def _reads_per_rank(self, condition: cst.CSTNode) -> bool:
        """A per-process read or the file system's state in `condition`, not made rank 0's
        (uniformity.share): `while os.path.exists(p): p += str(np.random.randint(100))`
        (loeweX/Greedy_InfoMax@22d17e4) tests rank 0's reading, so every rank loops alike
        and the draw in it is paired (stop 65 v3)."""
        return any(
            isinstance(call, cst.Call)
            and not self.facts.uniform.is_shared(call)
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

    def leave_attribute(
        self, original: cst.Attribute, updated: cst.Attribute
    ) -> cst.BaseExpression:
        """`wandb.run.name` -> `ddp_rank0_value(getattr, wandb.run, "name")`: a wandb run's
        name or folder, read on every rank (the run is disabled off rank 0, and names
        itself otherwise), rank 0's on every rank."""
        if id(original) not in self.sources:
            return updated
        self.t.state.helpers.add("rank0_value")
        self.t.record(original, f"rank 0's value on every rank: {self.sources[id(original)]}")
        quote = '"'
        parent = self.t.parent(original)
        while parent is not None and not isinstance(parent, cst.BaseStatement):
            if isinstance(parent, cst.FormattedString) and '"' in parent.start:
                quote = "'"  # inside f"...": another quote (before Python 3.12)
            parent = self.t.parent(parent)
        return cst.Call(
            func=cst.Name("ddp_rank0_value"),
            args=[
                cst.Arg(cst.Name("getattr")),
                cst.Arg(updated.value),
                cst.Arg(cst.SimpleString(f"{quote}{updated.attr.value}{quote}")),
            ],
        )

    def _rank0_value(self, original: cst.Call, updated: cst.Call) -> cst.Call:
        """`datetime.now()` -> `ddp_rank0_value(datetime.now)`: read on every rank, rank 0's
        value used by all (templates/helpers/rank0_value.py.j2). A reading that returns an
        iterator (`os.walk(d)`) is sent as its items: `iter(ddp_rank0_value(list,
        os.walk(d)))`."""
        self.t.state.helpers.add("rank0_value")
        self.t.record(original, f"rank 0's value on every rank: {self.sources[id(original)]}")
        if lazy_state(self.t, original):
            return items_through("ddp_rank0_value", updated)
        return call_through("ddp_rank0_value", updated)
