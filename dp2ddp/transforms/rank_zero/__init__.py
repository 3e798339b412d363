"""Print, log, save and track experiments on rank 0 only.

Under torchrun every process runs the whole script, so every print, log line, checkpoint
write and tracker call would happen WORLD_SIZE times (and concurrent writes to one file
corrupt it). Statements doing only that are grouped under one `if ddp_is_main():`; the
objects that do it (writers, runs, bars, files, directories) are made so that the code
around them runs unchanged on every rank.

One pass, NAME "rank_zero" (every change is recorded under it), holding small rules over
one shared analysis of the module (facts.py: what it binds and loads, and where a node is:
already on rank 0 only, in code this program never runs, in an `except`, above the setup
block). Each rule's module says what it does and why:

- guard_statements.py: print / log / save / tracker statements grouped under the guard
  (logged_arguments.py: a loguru call whose arguments do work, bound first on every rank);
- barriers.py: ddp_barrier() after a rank-0 save that other ranks load (DP031), and after
  a rank-0 file write every rank reads (DP054); save_order.py: whether a load may follow a
  save (a resume at start-up does not), through the calls of its function; the files
  other modules' functions and objects read or write at what they are handed:
  file_calls.py;
- file_writes.py: files written on rank 0 only, or on a scratch file elsewhere;
- mkdir.py: directories made idempotent, or by rank 0 as the program says;
- downloads.py: datasets that download their files built by rank 0 first (DP065);
- run_dir.py: the agreement proof: a per-rank read (clock, random, the file system's
  state) naming a shared path, or deciding a shared step (a read of stdin, an exit before
  the directory checked is made, a removal), is rank 0's value (DP053), a removal it
  decides is waited for;
- set_orders.py: a set of strings' iteration order (per process: str hashes are
  randomized) taken into a numbering is rank 0's order (DP158 where not proved);
- stdin.py: the terminal read on rank 0, its answer on every rank (DP055);
- writers.py: SummaryWriter on rank 0, DdpNullWriter elsewhere;
- wandb_runs.py: wandb runs disabled off rank 0;
- tqdm_bars.py: progress bars drawn by rank 0;
- map_location.py: torch.load onto this process's DEVICE (DP019);
- loop_exits.py: DP032, a training loop left on a rank-local condition; DP075, an
  optimizer step taken on one;
- local_branches.py: DP219, a branch of the training step (a weight of the loss, a
  backward) decided on a figure of this rank's own batch;
- quiet_logging.py: log records below WARNING dropped off rank 0 by the setup block, at import.

The call rules are asked in that order (run_dir first: its clock reads are known by node);
the first that claims a call rewrites it.
"""

from __future__ import annotations

import libcst as cst

from dp2ddp.transforms._support.base import MigrationTransform
from dp2ddp.transforms.rank_zero.barriers import Barriers
from dp2ddp.transforms.rank_zero.downloads import Downloads
from dp2ddp.transforms.rank_zero.facts import RankZeroFacts
from dp2ddp.transforms.rank_zero.file_writes import FileWrites
from dp2ddp.transforms.rank_zero.guard_statements import (
    PRINT_FUNCTION,
    PRINT_HELPER,
    StatementGuards,
)
from dp2ddp.transforms.rank_zero.library_prints import TracedGraphs
from dp2ddp.transforms.rank_zero.local_branches import LocalBranches
from dp2ddp.transforms.rank_zero.loop_exits import LoopExits
from dp2ddp.transforms.rank_zero.map_location import CheckpointLoads
from dp2ddp.transforms.rank_zero.mkdir import Directories
from dp2ddp.transforms.rank_zero.object_saves import saves_elsewhere
from dp2ddp.transforms.rank_zero.quiet_logging import quiet_logging
from dp2ddp.transforms.rank_zero.rule import CallRule
from dp2ddp.transforms.rank_zero.run_dir import RunDirValues
from dp2ddp.transforms.rank_zero.run_frameworks import RunFrameworks
from dp2ddp.transforms.rank_zero.set_orders import SetOrders
from dp2ddp.transforms.rank_zero.stdin import StdinReads
from dp2ddp.transforms.rank_zero.tqdm_bars import ProgressBars
from dp2ddp.transforms.rank_zero.wandb_runs import WandbRuns
from dp2ddp.transforms.rank_zero.writers import Writers


class RankZeroOnly(MigrationTransform):
    NAME = "rank_zero"
    DESCRIPTION = "Print, log, save and track experiments on rank 0 only."

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self._facts: RankZeroFacts | None = None
        self.guards = StatementGuards(self)
        self.barriers = Barriers(self)
        self.file_writes = FileWrites(self)
        self.run_dir = RunDirValues(self)
        self.loop_exits = LoopExits(self)
        self.local_branches = LocalBranches(self)
        self.stdin = StdinReads(self)
        self.set_orders = SetOrders(self)
        #: The rules that rewrite calls, in the order they are asked.
        self.call_rules: tuple[CallRule, ...] = (
            self.run_dir,
            self.stdin,
            ProgressBars(self),
            CheckpointLoads(self),
            TracedGraphs(self),
            Writers(self),
            WandbRuns(self),
            RunFrameworks(self),
            Directories(self),
            Downloads(self),
            self.file_writes,
        )

    @property
    def facts(self) -> RankZeroFacts:
        """The module's facts (built when the pass enters the module)."""
        assert self._facts is not None
        return self._facts

    def visit_Module(self, node: cst.Module) -> bool:
        self._facts = RankZeroFacts(self, node)
        self.loop_exits.plan(node)
        self.run_dir.plan(node)
        self.stdin.plan(node)
        self.set_orders.plan(node)
        quiet_logging(self, node)
        self.barriers.plan(node)
        return True

    # -- statements ---------------------------------------------------------------------------
    def leave_IndentedBlock(
        self, original_node: cst.IndentedBlock, updated_node: cst.IndentedBlock
    ) -> cst.IndentedBlock:
        body = self.guards.rewrite(original_node.body, updated_node.body)
        return updated_node if body is None else updated_node.with_changes(body=body)

    def leave_SimpleStatementSuite(
        self, original_node: cst.SimpleStatementSuite, updated_node: cst.SimpleStatementSuite
    ) -> cst.BaseSuite:
        """`for x in xs: print(x)` becomes an indented block holding the guard."""
        return self.guards.suite(original_node, updated_node)

    def leave_Module(self, original_node: cst.Module, updated_node: cst.Module) -> cst.Module:
        early = len(self.facts.early)
        body = self.guards.rewrite(original_node.body, updated_node.body, start=early)
        return updated_node if body is None else updated_node.with_changes(body=body)

    def leave_Attribute(
        self, original_node: cst.Attribute, updated_node: cst.Attribute
    ) -> cst.BaseExpression:
        return self.run_dir.leave_attribute(original_node, updated_node)

    def leave_Arg(self, original_node: cst.Arg, updated_node: cst.Arg) -> cst.Arg:
        return self.set_orders.leave_arg(original_node, updated_node)

    def leave_Name(self, original_node: cst.Name, updated_node: cst.Name) -> cst.BaseExpression:
        return cst.Name(PRINT_FUNCTION) if self._print_value(original_node) else updated_node

    def _alias_test(self, target: cst.ComparisonTarget) -> bool:
        """`log is print` as the test of `(ddp_print if log is print else log)`, which
        print_aliases.alias_print_call writes for an alias bound above the setup block: there
        `log` is the builtin print (or a no-op), so the test must read the builtin."""
        test = self.parent(target)
        choice = self.parent(test) if test is not None else None
        return (
            isinstance(target.operator, cst.Is)
            and isinstance(choice, cst.IfExp)
            and choice.test is test
            and isinstance(choice.body, cst.Name)
            and choice.body.value == PRINT_FUNCTION
        )

    def _print_value(self, node: cst.Name) -> bool:
        """The builtin `print` read as a value, not called: stored (`self.log = print if
        verbose else lambda *a: None`, `say = print`), a parameter's default (`def
        print_params(self, prtf=print)`) or an argument (`show(print)`). Whatever later
        calls it, in this module or another (a subclass's `self.log(...)` in another
        module: GT-RIPL/Continual-Learning-Benchmark@d78b997's agents, stop 62), printed
        on every rank, where the guards see no print; and a guard at each call kept the
        call's work (`self.log(..., timer.toc())`) off the other ranks, or left the call
        on all (rank 1 printed). As `ddp_print` it prints on rank 0 with the same
        arguments, which every rank still evaluates in the original order (khanrc/
        pt.darts@48e7137's config.py, stop 61; print_aliases.py). Left: an argument of a
        call in an `except` handler (a failure is per process), code that runs on rank 0
        only already, and a value above the setup block (no `ddp_print` there yet:
        print_aliases.py guards its calls)."""
        if node.value != "print":
            return False
        parent = self.parent(node)
        if isinstance(parent, cst.Call) and parent.func is node:
            return False
        if isinstance(parent, cst.Attribute) and parent.attr is node:
            return False
        if isinstance(parent, cst.Arg) and parent.keyword is node:
            return False  # `f(print=...)`
        if isinstance(parent, cst.Param) and parent.name is node:
            return False  # `def f(print):`
        if isinstance(parent, cst.ComparisonTarget) and self._alias_test(parent):
            return False  # print_aliases' `(ddp_print if log is print else log)`: a fixed point
        if "builtins.print" not in self.qualified_names(node):
            return False
        if self.facts.under_guard(node) or self.facts.before_setup(node):
            return False
        if isinstance(parent, cst.Arg) and self.facts.in_except(node):
            return False
        self.state.helpers.add(PRINT_HELPER)
        self.record(node, "print as a value: ddp_print, which prints on rank 0")
        return True

    def leave_CompFor(self, original_node: cst.CompFor, updated_node: cst.CompFor) -> cst.CompFor:
        return self.set_orders.leave_comp_for(original_node, updated_node)

    def leave_For(self, original_node: cst.For, updated_node: cst.For) -> cst.For:
        return self.set_orders.leave_for(original_node, updated_node)

    def leave_Lambda(self, original_node: cst.Lambda, updated_node: cst.Lambda) -> cst.Lambda:
        return self.guards.lambda_body(original_node, updated_node)

    def leave_Return(self, original_node: cst.Return, updated_node: cst.Return) -> cst.Return:
        return self.guards.return_value(original_node, updated_node)

    def leave_If(self, original_node: cst.If, updated_node: cst.If) -> cst.BaseStatement:
        updated_node = self.loop_exits.leave_if(original_node, updated_node)
        return self.guards.merge_test(original_node, updated_node)

    def visit_If(self, node: cst.If) -> None:
        self.local_branches.visit_if(node)

    def visit_Break(self, node: cst.Break) -> None:
        self.loop_exits.visit_break(node)

    def visit_Call(self, node: cst.Call) -> None:
        self.loop_exits.visit_call(node)

    # -- calls ------------------------------------------------------------------------------
    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        names = self.qualified_names(original_node.func)
        saves_elsewhere(self, original_node, names)  # DP154: a library saver's value kept
        for call_rule in self.call_rules:
            rewritten = call_rule.leave_call(original_node, updated_node, names)
            if rewritten is not None:
                return rewritten
        return updated_node
