"""Statements that only print, log, save or track: grouped under one `if ddp_is_main():`.

- print / logging (also a logger handed in: handed_loggers.py) / tqdm.write, a bar's
  `bar.write`, `sys.stdout.write`, `pprint`, a library's printed report of an unwrapped
  model (`torchsummary.summary`, library_prints.py; DP099 where not proved), `torch.save`,
  SummaryWriter and wandb-run method calls and file writes (file_writes.py) are guarded;
  consecutive ones form one group, a blank line or comment starts a new one. A project
  function's (`progress_bar(i, n, msg)`) prints are guarded in its body, for every caller.
  A write into an in-memory file (`io.BytesIO()`, stream_names.in_memory_file) is no output.
- Inside `except` handlers prints and logs stay on every rank (a failure is per process).
  Arguments that may do work other ranks need (`print(evaluate(model))`) keep the
  statement on every rank rather than risk a rank-0-only collective (a hang); a print
  there becomes `ddp_print(evaluate(model))`, which evaluates its arguments on every rank
  and prints on rank 0 (the line once, not once a rank). Project functions computing from
  their arguments only (`cf.learning_rate(lr, epoch)`) do no such work (program_hints.py).
- A group holding a save is followed by a barrier where the script also loads
  (barriers.py); the barriers that go before loads are placed in the same walk.
- `if cond:` whose whole body went under the guard becomes `if cond and ddp_is_main():`
  (no `else`: the same statements run on the same ranks), one nested block less.
- A group that is one `print(...)` becomes `ddp_print(...)` (rank 0 prints;
  templates/helpers/print.py.j2): its lines stay as they were, not re-indented under a
  guard (one changed line in the diff); its arguments are evaluated on every rank.
- A group of standard-library log calls below WARNING (`logger.info(...)` of a module
  logger from `logging.getLogger`, `logging.debug(...)`) inside a function needs no guard
  where the setup block quiets logging (quiet_logging.py drops those records off rank 0): it
  stays as written, one edit less for a reviewer to read. Elsewhere (module level, before
  ddp_setup(); a parameter or attribute, maybe another library's logger) it is guarded.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

import libcst as cst

from dp2ddp.transforms._support.nodes import enclosing_function, is_script_guard
from dp2ddp.transforms._support.qualified import told_name
from dp2ddp.transforms.analysis.guards import MAIN_FUNCTION, is_main_test, main_call
from dp2ddp.transforms.rank_zero.file_writes import (
    FILES,
    LOG_EVERY_RANK,
    PRINT_EVERY_RANK,
    per_sample_write,
)
from dp2ddp.transforms.rank_zero.handed_loggers import handed_logger
from dp2ddp.transforms.rank_zero.library_outputs import said_library_output
from dp2ddp.transforms.rank_zero.library_prints import report_model, unwrapped_at
from dp2ddp.transforms.rank_zero.logged_arguments import log_every_rank, unquieted_log
from dp2ddp.transforms.rank_zero.object_saves import (
    library_class,
    library_saver,
    returned_by,
    saved_path,
)
from dp2ddp.transforms.rank_zero.print_aliases import alias_print_call, print_alias
from dp2ddp.transforms.rank_zero.quiet_logging import HELPER as QUIET_LOGGING
from dp2ddp.transforms.rank_zero.rule import Rule
from dp2ddp.transforms.rank_zero.side_effects import (
    CHILD_PROCESSES,
    FILE_WRITE_METHODS,
    FILE_WRITES,
    KNOWN_PACKAGES,
    LOGGER_METHODS,
    LOGGING_FUNCTIONS,
    LOGGING_GET_LOGGER,
    LOGURU_METHODS,
    OPEN,
    OUTPUT_METHODS,
    PIL_IMAGES,
    PRINT,
    TORCH_SAVE,
    WANDB_INIT,
    WRITER_CONFIGURE,
    WRITER_FUNCTIONS,
    repeat_safe_command,
    returns_text,
    working_call,
)
from dp2ddp.transforms.rank_zero.stream_names import (
    STREAM_METHODS,
    in_memory_file,
    standard_stream,
)
from dp2ddp.transforms.rank_zero.writing_block import barrier, is_barrier

if TYPE_CHECKING:
    from dp2ddp.transforms.rank_zero import RankZeroOnly

_SAVE = "torch.save"
#: The helper a long print becomes (templates/helpers/print.py.j2).
PRINT_HELPER, PRINT_FUNCTION = "print", "ddp_print"
_DEFAULT_WIDTH, _INDENT = 88, "    "  # migrate/line_length.py's width; a guard's indent
#: Log methods below WARNING: ddp_quiet_logging() drops their records off rank 0.
_QUIET_METHODS = frozenset({"debug", "info"})
_QUIET_FUNCTIONS = frozenset(f"logging.{m}" for m in _QUIET_METHODS)
_WRITER = "SummaryWriter calls"
#: A statement line split into pieces: (original node, rewritten line, what it does).
_Piece = tuple[cst.CSTNode, cst.SimpleStatementLine | cst.With, tuple[str, ...]]


def _added_guard(test: cst.BaseExpression) -> bool:
    """`ddp_is_main()`, as _flush writes it."""
    return (
        isinstance(test, cst.Call)
        and not test.args
        and isinstance(test.func, cst.Name)
        and test.func.value == MAIN_FUNCTION
    )


def _joinable(original: cst.BaseExpression, test: cst.BaseExpression) -> bool:
    """`if test:` may become `if test and ddp_is_main():` (merge_test)."""
    if is_script_guard(original) or is_main_test(original):
        return False
    return bool(test.lpar) or not (
        isinstance(test, (cst.IfExp, cst.Lambda, cst.NamedExpr))
        or (isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.Or))
    )


class StatementGuards(Rule):
    def __init__(self, transform: RankZeroOnly) -> None:
        super().__init__(transform)
        #: ids of the calls DP080 was given for (kind() is asked more than once per line)
        self.said: set[int] = set()

    def kind(self, small: cst.BaseSmallStatement) -> str | None:
        """What a statement does that belongs on rank 0, if that is all it does."""
        if isinstance(small, cst.Expr) and isinstance(small.value, cst.Tuple):
            return self.tuple_kind(small.value)
        if isinstance(small, cst.Assign) and isinstance(small.value, cst.Call):  # output read
            if self.t.qualified_names(small.value.func) & CHILD_PROCESSES:
                self.child_every_rank(small.value, read=True)
            return None
        if not (isinstance(small, cst.Expr) and isinstance(small.value, cst.Call)):
            return None
        func = small.value.func
        names = self.t.qualified_names(func)
        if names & PRINT or print_alias(self.t, func):  # `log = print` above the setup
            return "print"
        model = report_model(self.t, small.value)
        if model is not None:  # torchsummary's summary(model, ...): a forward, then a print
            if unwrapped_at(self.t, self.facts, small.value, model):
                return "print"
            self.report_every_rank(small.value, model)
            return None
        if in_memory_file(self.t, self.facts.module, small.value):  # `savefig(io.BytesIO())`
            return None
        if names & TORCH_SAVE:
            return _SAVE
        if names & FILE_WRITES or library_saver(self.t, small.value, names):
            return None if returns_text(small.value, names) else FILES
        if names & (LOGGING_FUNCTIONS | LOGURU_METHODS):
            return "logging"
        if names & WRITER_CONFIGURE:
            return None  # every rank's, on a scratch folder off rank 0 (writers.py)
        if names & WRITER_FUNCTIONS:
            return _WRITER
        if names & CHILD_PROCESSES:
            self.child_every_rank(small.value)
            return None
        if isinstance(func, cst.Attribute):
            receiver = func.value
            new_logger = isinstance(receiver, cst.Call) and self.t.matches(
                receiver.func, LOGGING_GET_LOGGER
            )
            if func.attr.value in LOGGER_METHODS and (
                self.facts.tracked(receiver, self.facts.loggers)
                or self.t.code(receiver) == "logging.root"
                or new_logger
                or handed_logger(self.facts, receiver)
            ):
                return "logging"
            if self.facts.tracked(receiver, self.facts.writers):
                return _WRITER
            if self.facts.tracked(receiver, self.facts.runs):
                return "wandb calls"
            if func.attr.value == "write" and self.facts.tracked(receiver, self.facts.bars):
                return "print"
            if func.attr.value in STREAM_METHODS and standard_stream(self.t, receiver):
                return "print"  # `out.write(...)` of `out = sys.stdout` (stream_names.py)
            if func.attr.value in FILE_WRITE_METHODS:
                return FILES
            if func.attr.value == "save" and self.image(receiver):
                return FILES
            if func.attr.value == "save":
                self.unproven_save(small.value, receiver)
            if func.attr.value in OUTPUT_METHODS or func.attr.value.startswith("add_"):
                said_library_output(self, small.value, receiver)
        if any(n.startswith("wandb.") for n in names) and not names & WANDB_INIT:
            return "wandb calls"
        return None

    def first_saying(self, call: cst.Call) -> bool:
        """Whether `call` was not yet given its warning (kind() is asked more than once per
        line); it counts as given from now on."""
        if id(call) in self.said:
            return False
        self.said.add(id(call))
        return True

    def child_every_rank(self, call: cst.Call, *, read: bool = False) -> None:
        """DP087 for a statement that runs a child process (`os.system(cmd)`,
        `subprocess.run(args)`) on every rank: what the command does is not read, so nothing
        proves it safe to repeat (GDANet's `cp` backups ran once per rank, stop 39, v4-F), nor
        that rank 0 alone may run it (a script whose output every rank reads). Said, not
        guarded; but `mkdir -p path` alone is proved safe to repeat (repeat_safe_command).
        `read`: its output is read (NEU_NMT_v2's BLEU script, round 20 of issue 28)."""
        names = self.t.qualified_names(call.func)  # `mkdir -p path`: safe to repeat
        if self.facts.under_guard(call) or repeat_safe_command(call, names):
            return
        if not self.first_saying(call):
            return
        used = ", and every rank reads its output" if read else ""
        what = f"{self.t.code(call.func)}() runs a child process on every rank{used}; what"
        detail = "it does is not read, so it is neither proved safe to repeat nor put on rank 0"
        self.t.warn(call, "DP087", f"{what} {detail}")

    def report_every_rank(self, call: cst.Call, model: cst.BaseExpression) -> None:
        """DP099 for a library report (`summary(model, ...)`, library_prints.py) left on
        every rank: it runs the model's forward, and `model` is not proved unwrapped there,
        so rank 0 alone may not run it (a DDP forward on one rank waits for the others).
        Said, not guarded."""
        if self.facts.under_guard(call) or not self.first_saying(call):
            return
        self.t.warn(
            call,
            "DP099",
            f"{self.t.code(call.func)}() runs a forward of {self.t.code(model)} and prints "
            f"on every rank; {self.t.code(model)} is not proved to be the unwrapped model "
            "there (before its DDP wrap, or its .module), so the call was not put on rank 0",
        )

    def own_method(self, cls: str, method: str) -> bool:
        """`cls` is a class of another module of the program that defines `method` itself
        (ProgramHints.class_methods; a relative import's name by its tail): the call runs
        the program's own method, whose prints and writes the program's migration put on
        rank 0 in that module, as for a class of this module; one that prints nothing is
        no output."""
        return told_name((f"{cls}.{method}",), self.t.state.hints.class_methods) is not None

    def unproven_save(self, call: cst.Call, receiver: cst.BaseExpression) -> None:
        """DP078 for `images.save(path)` where `images` was bound, in this scope, to what a
        function returned whose type no rule proves, or to an object of a library class
        dp2ddp does not know (object_saves.py): the file may be written by every rank.
        Said, not guarded: what the method does is not known."""
        if self.facts.under_guard(call):
            return
        path = saved_path(call)
        made = self.library_object(receiver) if path is not None else None
        if made is not None and path is not None and self.first_saying(call):
            self.t.warn(
                call,
                "DP078",
                f"{self.t.code(call.func)}({self.t.code(path)}) of {made}, runs on every "
                "rank; not proved to be an object whose save is known, so the file is not "
                "proved written once",
            )
        if made is not None or not isinstance(receiver, cst.Name):
            return
        classes = self.facts.instances.get((self.facts.scope_id(call), receiver.value))
        maker = returned_by(classes, KNOWN_PACKAGES | sys.stdlib_module_names)
        if path is None or maker is None or self.own_save() or not self.first_saying(call):
            return
        self.t.warn(
            call,
            "DP078",
            f"{self.t.code(call.func)}({self.t.code(path)}) of {receiver.value}, returned by "
            f"{maker}(), runs on every rank; not proved to be an object whose save is "
            "known, so the file is not proved written once",
        )

    def library_object(self, receiver: cst.BaseExpression) -> str | None:
        """What `receiver` is, said, where it is an object of a library's class no rule
        knows (`img` bound in this scope to `tio.ScalarImage(...)`, or that call itself)
        and not a class of the program defining its own save: None otherwise."""
        if isinstance(receiver, cst.Name):
            key = (self.facts.scope_id(receiver), receiver.value)
            classes, said = self.facts.instances.get(key), f"{receiver.value}, an object of "
        elif isinstance(receiver, cst.Call):
            classes = frozenset(self.t.qualified_names(receiver.func))
            said = "an object of "
        else:
            return None
        made = library_class(classes, KNOWN_PACKAGES | sys.stdlib_module_names)
        if made is None or self.own_method(made, "save"):
            return None
        return said + made

    def own_save(self) -> bool:
        """The program defines a `save` of its own that saves a checkpoint (ProgramHints.
        saved_by), or this module a method of that name: `x.save(path)` may be it, whose
        writes are migrated where they are."""
        if any(n.rsplit(".", 1)[-1] == "save" for n in self.t.state.hints.saved_by):
            return True
        return any(
            isinstance(s, cst.FunctionDef) and s.name.value == "save"
            for c in self.facts.module.body
            if isinstance(c, cst.ClassDef)
            for s in c.body.body
        )

    def image(self, receiver: cst.BaseExpression) -> bool:
        """A PIL image: `Image.fromarray(x)`, or a name bound from Image.open/fromarray/new."""
        if isinstance(receiver, cst.Call):
            return self.t.matches(receiver.func, PIL_IMAGES)
        return self.facts.tracked(receiver, self.facts.images)

    def kinds(self, line: cst.SimpleStatementLine | cst.SimpleStatementSuite) -> list[str | None]:
        block = self.t.parent(line)
        owner = self.t.parent(block) if isinstance(block, cst.IndentedBlock) else None
        if isinstance(owner, cst.With) and self.t.file_writes.file_kinds(owner):
            return [None] * len(line.body)  # the whole `with open(...)` is guarded instead
        return self.guard_kinds(line)

    def tuple_kind(self, value: cst.Tuple) -> str | None:
        """`print(...), pprint(...)` as one statement: a tuple of prints nobody keeps (stop
        57 v3-C, dml_cross_entropy's `print('Validation ...'), pprint(metrics.recall)`)
        prints as its calls do, on rank 0 alone where no argument does work every rank
        needs; any other element keeps the statement on every rank."""
        calls = [element.value for element in value.elements]
        if not calls or not all(isinstance(call, cst.Call) for call in calls):
            return None
        if {self.kind(cst.Expr(call)) for call in calls} != {"print"}:
            return None
        arguments = (a.value for call in calls if isinstance(call, cst.Call) for a in call.args)
        return None if any(self.facts.does_work(a) for a in arguments) else "print"

    def guard_kinds(
        self, line: cst.SimpleStatementLine | cst.SimpleStatementSuite
    ) -> list[str | None]:
        kinds = [self.kind(small) for small in line.body]
        if not any(kinds) or self.facts.under_guard(line):
            return [None] * len(kinds)
        if {FILES, _SAVE} & set(kinds) and per_sample_write(self.t, line):
            kinds = [None if kind in (FILES, _SAVE) else kind for kind in kinds]
        in_except = self.facts.in_except(line)
        for index, (small, kind) in enumerate(zip(line.body, kinds, strict=True)):
            if kind is None or kind == _SAVE:
                continue
            if isinstance(small, cst.Expr) and isinstance(small.value, cst.Tuple):
                kinds[index] = None if in_except else kind  # its arguments do no work
                continue
            assert isinstance(small, cst.Expr) and isinstance(small.value, cst.Call)
            if in_except and kind in ("print", "logging"):
                kinds[index] = None
            elif any(self.facts.does_work(a.value) for a in small.value.args):
                # It stays on every rank (a writer call there does nothing: DdpNullWriter);
                # a print's arguments do so through ddp_print.
                printed = self.t.qualified_names(small.value.func)
                through = kind == "print" and print_alias(self.t, small.value.func)
                every = "builtins.print" in printed or through
                kinds[index] = PRINT_EVERY_RANK if every else None
                if kind == "logging" and unquieted_log(self.t, self.facts, small.value):
                    kinds[index] = LOG_EVERY_RANK  # loguru's: no setup quiets it
                if kind == FILES:
                    self.write_every_rank(small.value)
        return kinds

    def write_every_rank(self, call: cst.Call) -> None:
        """DP079 for a file write left on every rank because an argument may do work the
        other ranks need: every rank then writes the file (SR3's `cv2.imwrite(path,
        cv2.cvtColor(img, ...))` before cv2 was known, stop 39). Said, not guarded."""
        if not self.first_saying(call):
            return
        # an `open(path, "w")` argument writes to a scratch file on the other ranks
        # (file_writes.py): the file is written once, through it
        known = self.facts.pure_functions() | OPEN
        work = next(
            (
                found
                for arg in call.args
                if (found := working_call(arg.value, self.facts.instance_methods, known))
                is not None
            ),
            None,
        )
        if work is None:
            return
        what = f"{self.t.code(work.func)}(...)"
        self.t.warn(
            call,
            "DP079",
            f"{self.t.code(call.func)}() writes a file on every rank: {what} in its "
            "arguments is not proved free of work every rank needs, so the write was not "
            "put on rank 0",
        )

    def pieces(
        self,
        originals: Sequence[cst.BaseSmallStatement],
        line: cst.SimpleStatementLine,
        kinds: list[str | None],
        original_line: cst.CSTNode,
    ) -> list[_Piece]:
        """One piece per line; a line mixing guarded and other statements is split."""
        if all(kinds) and not {PRINT_EVERY_RANK, LOG_EVERY_RANK} & set(kinds):
            return [(original_line, line, tuple(k for k in kinds if k))]
        pieces: list[_Piece] = []
        last = len(line.body) - 1
        for index, (original, small, kind) in enumerate(
            zip(originals, line.body, kinds, strict=True)
        ):
            piece = cst.SimpleStatementLine(
                body=[small.with_changes(semicolon=cst.MaybeSentinel.DEFAULT)],
                leading_lines=line.leading_lines if index == 0 else (),
                trailing_whitespace=(
                    line.trailing_whitespace if index == last else cst.TrailingWhitespace()
                ),
            )
            pieces.append((original, piece, (kind,) if kind else ()))
        return pieces

    def rewrite(
        self,
        originals: Sequence[cst.BaseStatement],
        updated: Sequence[cst.BaseStatement],
        start: int = 0,
    ) -> list[cst.BaseStatement] | None:
        pieces: list[_Piece | cst.BaseStatement] = []
        barriers = False
        synced = False  # a barrier since the last save in this block
        for index, (original, new) in enumerate(zip(originals, updated, strict=True)):
            if index:
                synced = self.t.barriers.synced_after(originals[index - 1], synced)
            if (
                index >= start
                and not synced
                and isinstance(new, (cst.With, cst.SimpleStatementLine))
                and (
                    id(original) in self.t.barriers.before_withs
                    if isinstance(new, cst.With)
                    else self.t.barriers.before_load(original)
                )
            ):
                pieces.append(barrier().with_changes(leading_lines=new.leading_lines))
                new = new.with_changes(leading_lines=())
                barriers = synced = True
            if self.t.barriers.follows(original):
                pieces += [new, barrier()]
                barriers = True
                continue
            if index >= start and isinstance(original, cst.With) and isinstance(new, cst.With):
                file_kinds = self.t.file_writes.file_kinds(original)
                pieces.append((original, new, file_kinds) if file_kinds else new)
                continue
            kinds = (
                self.kinds(original)
                if index >= start
                and isinstance(original, cst.SimpleStatementLine)
                and isinstance(new, cst.SimpleStatementLine)
                else []
            )
            if not any(kinds):
                pieces.append(new)
                continue
            assert isinstance(original, cst.SimpleStatementLine)
            assert isinstance(new, cst.SimpleStatementLine)
            pieces += self.pieces(original.body, new, kinds, original)
        if not barriers and all(isinstance(p, cst.BaseStatement) for p in pieces):
            return None
        return self.group(pieces)

    def group(self, pieces: Sequence[_Piece | cst.BaseStatement]) -> list[cst.BaseStatement]:
        out: list[cst.BaseStatement] = []
        group: list[_Piece] = []
        for piece in pieces:
            if not isinstance(piece, cst.BaseStatement) and piece[2] == (PRINT_EVERY_RANK,):
                self._flush(group, out)
                out.append(self._print_every_rank(piece))
                continue
            if not isinstance(piece, cst.BaseStatement) and piece[2] == (LOG_EVERY_RANK,):
                self._flush(group, out)
                original, line, _ = piece
                assert isinstance(line, cst.SimpleStatementLine)
                out += log_every_rank(self.t, self.facts, original, line)
                continue
            if isinstance(piece, cst.BaseStatement) or not piece[2]:
                self._flush(group, out)
                out.append(piece if isinstance(piece, cst.BaseStatement) else piece[1])
                continue
            if group and piece[1].leading_lines:
                self._flush(group, out)
            group.append(piece)
        self._flush(group, out)
        # A save's barrier right before a load's: one is enough.
        return [
            s for i, s in enumerate(out) if not (i and is_barrier(s) and is_barrier(out[i - 1]))
        ]

    def _flush(self, group: list[_Piece], out: list[cst.BaseStatement]) -> None:
        if not group:
            return
        if all(self._quiet(original) for original, _, _ in group):
            out.extend(line for _, line, _ in group)
            group.clear()
            return
        lines = [line for _, line, _ in group]
        if len(group) == 1 and (printed := self._long_print(group[0][0], lines[0])) is not None:
            self.t.state.helpers.add(PRINT_HELPER)
            out.append(printed)
            self.t.record(group[0][0], "print on rank 0 only (ddp_print)")
            group.clear()
            return
        leading = lines[0].leading_lines
        lines[0] = lines[0].with_changes(leading_lines=())
        out.append(
            cst.If(test=main_call(), body=cst.IndentedBlock(body=lines), leading_lines=leading)
        )
        kinds = list(dict.fromkeys(k for _, _, ks in group for k in ks))
        description = f"{', '.join(kinds)} on rank 0 only"
        first = group[0][0]
        file_read = self.t.barriers.writes_read_file([original for original, _, _ in group])
        if _SAVE in kinds or file_read:
            description += self.t.barriers.after_save(
                first, out, file_read=file_read, checkpoint=_SAVE in kinds
            )
        self.t.record(first, description)
        group.clear()

    def _print_every_rank(self, piece: _Piece) -> cst.BaseStatement:
        """`print(evaluate(model))` as `ddp_print(evaluate(model))`: the arguments do work
        every rank needs (a forward pass, a project function's side effects, a
        collective), and ddp_print evaluates them on every rank, as the original did,
        and prints on rank 0 alone."""
        original, line, _ = piece
        assert isinstance(line, cst.SimpleStatementLine)
        small = line.body[0]
        assert isinstance(small, cst.Expr) and isinstance(small.value, cst.Call)
        before = original  # the original small statement (pieces splits the line)
        call = small.value.with_changes(func=cst.Name(PRINT_FUNCTION))
        if isinstance(before, cst.Expr) and isinstance(before.value, cst.Call):
            through = alias_print_call(self.t, before.value, small.value, PRINT_FUNCTION)
            call = call if through is None else through  # `log = print` above the setup
        self.t.state.helpers.add(PRINT_HELPER)
        self.t.record(
            original,
            "print on rank 0 only, its arguments evaluated on every rank (ddp_print)",
        )
        return line.with_changes(body=[small.with_changes(value=call)])

    def _long_print(
        self, original: cst.CSTNode, line: cst.SimpleStatementLine | cst.With
    ) -> cst.SimpleStatementLine | None:
        """`print(...)` alone in its group: as `ddp_print(...)`."""
        if not (
            isinstance(original, cst.SimpleStatementLine)
            and isinstance(line, cst.SimpleStatementLine)
        ):
            return None
        if len(line.body) != 1 or len(original.body) != 1:
            return None
        small, before = line.body[0], original.body[0]
        if not (isinstance(small, cst.Expr) and isinstance(small.value, cst.Call)):
            return None
        if not (isinstance(before, cst.Expr) and isinstance(before.value, cst.Call)):
            return None
        if "builtins.print" not in self.t.qualified_names(before.value.func):
            return None
        if self._guard_joins_if(original):
            return None  # `if cond and ddp_is_main():` leaves the print's lines as they are
        call = small.value.with_changes(func=cst.Name(PRINT_FUNCTION))
        return line.with_changes(body=[small.with_changes(value=call)])

    def _guard_joins_if(self, original: cst.SimpleStatementLine) -> bool:
        """`original` is all of an `if` body that merge_test joins with the guard."""
        if any(line.comment is not None for line in original.leading_lines):
            return False
        block = self.t.parent(original)
        owner = self.t.parent(block) if isinstance(block, cst.IndentedBlock) else None
        if not isinstance(owner, cst.If) or owner.orelse is not None:
            return False
        assert isinstance(block, cst.IndentedBlock)
        return len(block.body) == 1 and _joinable(owner.test, owner.test)

    def merge_test(self, original: cst.If, updated: cst.If) -> cst.If:
        """`if cond:` holding nothing but the guard added here, `if ddp_is_main(): ...`,
        becomes `if cond and ddp_is_main(): ...` (`cond` still evaluated on every rank).
        Left nested: an `if` with an `else`, the script guard, a test that needs
        parentheses next to `and`, a comment above the guard."""
        body = updated.body
        if updated.orelse is not None or not isinstance(body, cst.IndentedBlock):
            return updated
        if len(body.body) != 1 or not isinstance(guard := body.body[0], cst.If):
            return updated
        if guard.orelse is not None or not _added_guard(guard.test):
            return updated
        if any(line.comment is not None for line in guard.leading_lines):
            return updated
        test = updated.test
        if not _joinable(original.test, test):
            return updated
        return updated.with_changes(
            test=cst.BooleanOperation(left=test, operator=cst.And(), right=guard.test),
            body=guard.body.with_changes(header=body.header),  # a comment after `cond:`
        )

    def _quiet(self, original: cst.CSTNode) -> bool:
        """`original` only logs below WARNING through the standard library, inside a
        function, where ddp_quiet_logging() drops those records off rank 0 (see above)."""
        if QUIET_LOGGING not in self.t.state.helpers:
            return False
        if enclosing_function(original, self.t) is None:
            return False
        smalls = (
            original.body
            if isinstance(original, (cst.SimpleStatementLine, cst.SimpleStatementSuite))
            else [original]
        )
        return all(self._quiet_call(small) for small in smalls)

    def _quiet_call(self, small: cst.CSTNode) -> bool:
        if not (isinstance(small, cst.Expr) and isinstance(small.value, cst.Call)):
            return False
        func = small.value.func
        if not (isinstance(func, cst.Attribute) and func.attr.value in _QUIET_METHODS):
            return False
        if self.t.qualified_names(func) & _QUIET_FUNCTIONS:
            return True
        receiver = func.value
        if not isinstance(receiver, cst.Name):
            return False  # `self.log`: an attribute of any owner may be another kind of logger
        scope = self.facts.scope_id(small)
        return (scope, receiver.value) not in self.facts.instances and self.facts.instances.get(
            (0, receiver.value)
        ) == frozenset(LOGGING_GET_LOGGER)

    def suite(
        self, original: cst.SimpleStatementSuite, updated: cst.SimpleStatementSuite
    ) -> cst.BaseSuite:
        """`for x in xs: print(x)` becomes an indented block holding the guard."""
        kinds = self.kinds(original)
        if not any(kinds):
            return updated
        line = cst.SimpleStatementLine(
            body=updated.body, trailing_whitespace=updated.trailing_whitespace
        )
        return cst.IndentedBlock(body=self.group(self.pieces(original.body, line, kinds, original)))

    def lambda_body(self, original: cst.Lambda, updated: cst.Lambda) -> cst.Lambda:
        """`lambda ep: torch.save(state, path)` (a checkpoint save, or a file write whose
        arguments do no work) runs on rank 0 only: its body becomes `(... if ddp_is_main()
        else None)`, what the call returned (None) kept. A lambda's body is an expression,
        so the statement guard never saw it: `save = lambda ep: torch.save({...}, path)` then
        `save(epoch + 1)` (ternaus/robot-surgery-segmentation@1d18157 utils.train) had both
        ranks write one file at once (class v1-D of stop 42)."""
        guarded = self.returned_write(original, original.body, updated.body, "a lambda")
        return updated if guarded is None else updated.with_changes(body=guarded)

    def return_value(self, original: cst.Return, updated: cst.Return) -> cst.Return:
        """`return torch.save(*args, **kwargs)`, a save that is a function's returned value
        (fairseq's `torch_persistent_save`, three tries of it, copied by
        patelrajnath/pytorch-dl@008c0e9): no expression statement, so the statement guard
        never saw it and every rank wrote every checkpoint (class r2-B of stop 49). As in a
        lambda: `return (... if ddp_is_main() else None)`, every rank still returning
        there, with the value the call returned (None)."""
        if original.value is None or updated.value is None:
            return updated
        guarded = self.returned_write(original, original.value, updated.value, "a return")
        return updated if guarded is None else updated.with_changes(value=guarded)

    def returned_write(
        self,
        owner: cst.CSTNode,
        value: cst.BaseExpression,
        new: cst.BaseExpression,
        where: str,
    ) -> cst.IfExp | None:
        """`(new if ddp_is_main() else None)` for a value that is a save or a file write
        whose arguments do no work, outside a guard, an `except` and the lines before the
        process group; None otherwise."""
        if not isinstance(value, cst.Call) or self.facts.under_guard(owner):
            return None
        if self.facts.in_except(owner) or self.facts.before_setup(owner):
            return None
        kind = self.kind(cst.Expr(value))
        if kind not in (_SAVE, FILES):
            return None
        if kind == FILES and any(self.facts.does_work(a.value) for a in value.args):
            return None
        self.t.record(owner, f"{kind} in {where}: on rank 0 only")
        return cst.IfExp(
            test=main_call(),
            body=new,
            orelse=cst.Name("None"),
            lpar=[cst.LeftParen()],
            rpar=[cst.RightParen()],
        )
