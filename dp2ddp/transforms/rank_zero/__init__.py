"""Print, log, save and track experiments on rank 0 only.

Under torchrun every process runs the whole script, so every print, log line, checkpoint
write and tracker call would happen WORLD_SIZE times (and concurrent writes to one file
corrupt it). Statements doing only that are grouped under one `if ddp_is_main():`.

- print / logging / tqdm.write (also a bar's `bar.write`), `sys.stdout.write` /
  `sys.stderr.write`, `pprint`, `torch.save`, SummaryWriter and wandb-run method calls are
  guarded; consecutive ones form one group, a blank line or comment starts a new one. Inside
  a project function (a `progress_bar(i, n, msg)` helper) the prints in its body are
  guarded, so every call site is covered, also in other modules.
- Files: copies, moves and removals (`shutil.copyfile`, `os.remove`, ...), `np.save`,
  `pickle.dump`, `json.dump`, `save_image`, `savefig` and the like run on rank 0 only; a
  `with open(path, "w"|"a")` block that only writes is guarded whole. Other files opened for
  writing or appending (a log kept open, a csv.writer) are opened on `os.devnull` off rank 0,
  so the code around them runs unchanged on every rank. Paths that mention the rank stay.
- `os.mkdir(d)` / `os.makedirs(d)` / `path.mkdir()` outside a rank-0 block get
  `exist_ok=True` (os.mkdir becomes os.makedirs): every rank may create the directory, in
  any order, and finds it there afterwards. An exist_ok the program computes
  (`exist_ok=run_id == ""`: never overwrite an existing run) is kept: the call becomes
  `ddp_mkdir(path.mkdir, ...)`, made by rank 0 as written while the other ranks wait,
  bounded, for that directory instead of racing it. No process group is needed, so this
  holds in a config parser that runs before ddp_setup().
- A clock or random read that a created directory's path is computed from
  (`run_id = datetime.now().strftime(...)`, `uuid.uuid4()`; per_process.py) becomes
  `ddp_rank0_value(datetime.now)`: rank 0's reading on every rank, passed through
  torchrun's rendezvous store (no collective, so also before ddp_setup()), so ranks a
  second apart still name one directory. Without that store a rank keeps its own reading,
  with a run-time warning.
- Statements already under a rank-0 test, or in a function only called under one, are left.
  So is code a program never runs in a module it imports: a top-level function nothing
  refers to (a model file's demo `test()`) and the `if __name__ == "__main__":` block
  (program_hints.py).
- Log records below WARNING are dropped off rank 0 by ddp_setup() (quiet_logging.py):
  that also covers project loggers configured in other modules or by dictConfig, which
  call sites cannot be followed to.
- Inside `except` handlers prints and logs stay on every rank: a failure is per process.
- Arguments that may do work other ranks need (`print(evaluate(model))`) keep the
  statement on every rank rather than risk a rank-0-only collective (a hang). Project
  functions that only compute from their arguments (`cf.learning_rate(lr, epoch)`, in
  this module or another of the program) do no such work (program_hints.py).
- A guarded `torch.save` is followed by `ddp_barrier()` when the script also calls
  `torch.load`, so no rank reads a checkpoint rank 0 is still writing. A barrier must be
  reached by every rank: it goes after the outermost `if` around the save, and further out
  after any statement whose condition or iteration may differ between ranks (uniform.py
  proves what does not: `if acc > best:` on a metric summed over the ranks is fine, on a
  rank's own loss it is not). When no such place exists in the function (it can leave
  early, or is called under a rank-local condition) the barrier is left out, said in the
  change record, and each load that may read the file (not a resume before any save) gets
  a `ddp_barrier()` before it, or DP031 where that load is not reached by every rank.
  `with open(path, "wb") as f: torch.save(..., f)` is guarded whole (an open() on every
  rank would truncate the file). `torch.load` without `map_location` loads onto `DEVICE`.
- tqdm bars get `disable=not ddp_is_main()`.
- `SummaryWriter(...)` becomes `SummaryWriter(...) if ddp_is_main() else DdpNullWriter(...)`
  (same arguments; anywhere: assigned, `with ... as w`, passed, returned). Not None: the
  writer goes where no pass can follow it (an attribute made in a base class and used by a
  subclass in another module, a helper's argument), and None there crashes rank 1. The
  null writer (templates/helpers/null_writer.py.j2) is truthy, so `if writer:` and
  `if writer is not None:` take the original branch on every rank (code under them,
  collectives included, stays reached by every rank); every method call is a no-op
  returning None; `log_dir`, `logdir`, `get_logdir()`, `file_writer.get_logdir()`, `with`
  and `close()` work; and the log_dir it is given is created (exist_ok), as SummaryWriter
  creates it, because code after it (a log file, a copied config) often writes there.
  Statement calls on a writer the module made are still guarded (their arguments are not
  even built off rank 0), unless those arguments do work every rank needs: then they stay
  on every rank and do nothing off rank 0. DP033: a log directory built from the clock or
  an unseeded random draw (a run id) may be named differently on each rank.
- `wandb.init(...)` runs on every rank with `mode="disabled"` off rank 0, rather than
  being skipped: a disabled run makes every wandb call (`wandb.log`, `run.log`,
  `wandb.config[...]`) a no-op, where a skipped init would make them raise. Statement
  calls (`wandb.log(...)`, `run.finish()`) are guarded as well, so their arguments (images,
  tables) are not even built on other ranks.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

import libcst as cst
import libcst.matchers as m
from libcst.codemod.visitors import AddImportsVisitor

from dp2ddp.transforms._support.base import MigrationTransform
from dp2ddp.transforms._support.nodes import (
    after_imports,
    calls_under,
    enclosing_class,
    enclosing_function,
    inside,
    statement_header,
    walk,
)
from dp2ddp.transforms.rank_zero.guards import (
    exits_block,
    is_main_test,
    is_not_main_test,
    main_call,
    mentions_rank,
    not_main,
)
from dp2ddp.transforms.rank_zero.per_process import per_process_source
from dp2ddp.transforms.rank_zero.program_hints import is_script_guard, pure_functions
from dp2ddp.transforms.rank_zero.quiet_logging import HELPER as QUIET_LOGGING
from dp2ddp.transforms.rank_zero.quiet_logging import logging_import
from dp2ddp.transforms.rank_zero.side_effects import (
    FILE_WRITE_METHODS,
    FILE_WRITES,
    LOG_METHODS,
    LOGGING_FUNCTIONS,
    LOGGING_GET_LOGGER,
    LOGURU_METHODS,
    MAKEDIRS,
    MKDIR,
    OPEN,
    PRINT,
    SUMMARY_WRITER,
    TORCH_LOAD,
    TORCH_SAVE,
    TQDM,
    WANDB_INIT,
    has_side_effects,
    open_mode,
)
from dp2ddp.transforms.rank_zero.uniform import RankUniformity

_SAVE = "torch.save"
#: What a SummaryWriter is off rank 0 (templates/helpers/null_writer.py.j2).
_NULL_WRITER = "DdpNullWriter"
_NULL_WRITER_HELPER = "null_writer"
#: Where `a if c else b` needs no parentheses (elsewhere `.attr`, `or`, ... would bind tighter).
_BARE_IFEXP_PARENTS = (cst.Assign, cst.AnnAssign, cst.Arg, cst.Return, cst.Element)
_WRITER = "SummaryWriter calls"
_FILES = "file writes"
#: Methods of an open file handle that write to it (`f.write(line)` in `with open(...) as f`).
_HANDLE_WRITES = frozenset({"write", "writelines", "flush"})
#: A statement line split into pieces: (original node, rewritten line, what it does).
_Piece = tuple[cst.CSTNode, cst.SimpleStatementLine | cst.With, tuple[str, ...]]
#: Nodes between a guarded statement and the `if` chain it sits in (see _barrier_anchor).
_IF_PARTS = (cst.If, cst.Else, cst.IndentedBlock, cst.SimpleStatementLine, cst.SimpleStatementSuite)
#: `with open(path, "wb") as f: torch.save(state, f)` is guarded whole: an open() for writing
#: on every rank would truncate the file rank 0 is writing.
_OPEN = OPEN | {"gzip.open", "bz2.open", "lzma.open"}
#: A file mode as open() takes it ("w", "wt", "ab"), not a file name.
_FILE_MODE = re.compile(r"[rwxabt+]{1,3}")


@dataclass
class ModuleFacts:
    """What the pre-pass (_Collector) finds in the whole module before anything is rewritten."""

    loggers: set[str] = field(default_factory=set)  # names/attributes bound to a logger
    writers: set[str] = field(default_factory=set)  # ... to a SummaryWriter
    runs: set[str] = field(default_factory=set)  # ... to a wandb run
    bars: set[str] = field(default_factory=set)  # ... to a tqdm bar (`bar.write(...)` prints)
    loads: bool = False  # the script calls torch.load (a save then needs a barrier)
    guarded_callees: set[str] = field(default_factory=set)  # called only under a rank-0 test


class RankZeroOnly(MigrationTransform):
    NAME = "rank_zero"
    DESCRIPTION = "Print, log, save and track experiments on rank 0 only."

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self._early: list[cst.BaseStatement] = []  # module statements before the setup block
        self._facts = ModuleFacts()
        #: Original statements after which a ddp_barrier() goes (see _barrier_plan).
        self._barrier_after: set[int] = set()
        self._uniform: RankUniformity | None = None
        #: A save got no barrier (no place every rank reaches): loads get one before them.
        self._barrier_before_loads = False
        self._saving_functions: set[str] = set()
        self._module = cst.Module(body=[])
        #: id of a clock/random call naming a directory -> that directory's line.
        self._sources_of_paths: dict[int, int] = {}
        self._pure: frozenset[str] | None = None  # see _pure_functions

    # -- what the script has -------------------------------------------------------------
    def visit_Module(self, node: cst.Module) -> bool:
        self._early = list(node.body[: after_imports(list(node.body))])
        node.visit(_Collector(self, self._facts))
        self._uniform = RankUniformity(self, node)
        self._module = node
        self._sources_of_paths = self._shared_sources(node)
        self._pure = None
        self._quiet_logging(node)
        if self._facts.loads:
            for call in walk(node):
                if not (isinstance(call, cst.Call) and self.matches(call.func, TORCH_SAVE)):
                    continue
                if self._under_guard(call) or self._in_except(call):
                    continue
                if self._barrier_plan(call)[1] is not None:
                    self._barrier_before_loads = True
        return True

    def _quiet_logging(self, module: cst.Module) -> None:
        """Log records below WARNING dropped off rank 0 (see quiet_logging.py)."""
        found = logging_import(module) if self.state.text_count("logging") != 0 else None
        if found is None and not (self.state.hints.logs and module.body):
            return
        self.state.helpers.add(QUIET_LOGGING)
        if self.state.program is None:  # a program's generated module says it once
            where = found if found is not None else module.body[0]
            self.record(where, "ddp_setup() drops log records below WARNING on ranks other than 0")

    def _does_work(self, argument: cst.BaseExpression) -> bool:
        """The argument may do work other ranks need (side_effects.has_side_effects)."""
        return has_side_effects(argument, self.qualified_names, self._pure_functions())

    def _pure_functions(self) -> frozenset[str]:
        """Functions of this module and the program safe to skip off rank 0 (lazily: an
        ast parse of the module, only when a guarded call's arguments call something)."""
        if self._pure is None:
            tree = ast.parse(self._module.code)
            self._pure = self.state.hints.pure | pure_functions([("", tree, False)])
        return self._pure

    def _created_by(self, value: cst.BaseExpression | None) -> str | None:
        if isinstance(value, cst.IfExp):
            value = value.body
        if not isinstance(value, cst.Call):
            return None
        names = self.qualified_names(value.func)
        if names & LOGGING_GET_LOGGER:
            return "logger"
        if names & SUMMARY_WRITER:
            return "writer"
        if names & WANDB_INIT:
            return "run"
        if names & TQDM:
            return "bar"
        return None

    def track(self, target: cst.CSTNode, value: cst.BaseExpression | None) -> None:
        """Remember `x` of `x = SummaryWriter()`; `.x` for `self.x = ...` (any owner)."""
        kind = self._created_by(value)
        if kind is None:
            return
        key = "." + target.attr.value if isinstance(target, cst.Attribute) else self.code(target)
        facts = self._facts
        kinds = {"logger": facts.loggers, "writer": facts.writers, "run": facts.runs}
        kinds["bar"] = facts.bars
        kinds[kind].add(key)

    def _tracked(self, receiver: cst.BaseExpression, keys: set[str]) -> bool:
        if isinstance(receiver, cst.Attribute):
            return "." + receiver.attr.value in keys
        return self.code(receiver) in keys

    # -- statements ---------------------------------------------------------------------------
    def _kind(self, small: cst.BaseSmallStatement) -> str | None:
        """What a statement does that belongs on rank 0, if that is all it does."""
        if not (isinstance(small, cst.Expr) and isinstance(small.value, cst.Call)):
            return None
        func = small.value.func
        names = self.qualified_names(func)
        if names & PRINT:
            return "print"
        if names & TORCH_SAVE:
            return _SAVE
        if names & FILE_WRITES:
            return _FILES
        if names & (LOGGING_FUNCTIONS | LOGURU_METHODS):
            return "logging"
        if isinstance(func, cst.Attribute):
            receiver = func.value
            new_logger = isinstance(receiver, cst.Call) and self.matches(
                receiver.func, LOGGING_GET_LOGGER
            )
            if func.attr.value in LOG_METHODS and (
                self._tracked(receiver, self._facts.loggers)
                or self.code(receiver) == "logging.root"
                or new_logger
            ):
                return "logging"
            if self._tracked(receiver, self._facts.writers):
                return _WRITER
            if self._tracked(receiver, self._facts.runs):
                return "wandb calls"
            if func.attr.value == "write" and self._tracked(receiver, self._facts.bars):
                return "print"
            if func.attr.value in FILE_WRITE_METHODS:
                return _FILES
        if any(n.startswith("wandb.") for n in names) and not names & WANDB_INIT:
            return "wandb calls"
        return None

    def _kinds(self, line: cst.SimpleStatementLine | cst.SimpleStatementSuite) -> list[str | None]:
        block = self.parent(line)
        owner = self.parent(block) if isinstance(block, cst.IndentedBlock) else None
        if isinstance(owner, cst.With) and self._file_kinds(owner):
            return [None] * len(line.body)  # the whole `with open(...)` is guarded instead
        return self._guard_kinds(line)

    def _file_kinds(self, node: cst.With) -> tuple[str, ...]:
        """Kinds of a `with open(...)` whose body only does rank-0 work; () otherwise."""
        if node.asynchronous is not None or not isinstance(node.body, cst.IndentedBlock):
            return ()
        if self._under_guard(node):
            return ()
        if not all(
            isinstance(item.item, cst.Call)
            and (self.matches(item.item.func, _OPEN) or _path_open_for_writing(item.item))
            and not any(mentions_rank(arg.value) for arg in item.item.args)
            for item in node.items
        ):
            return ()  # not a file, or one file per rank
        handles = {
            item.asname.name.value
            for item in node.items
            if item.asname is not None and isinstance(item.asname.name, cst.Name)
        }
        kinds: list[str] = []
        for statement in node.body.body:
            if not isinstance(statement, cst.SimpleStatementLine):
                return ()
            if all(self._writes_handle(small, handles) for small in statement.body):
                kinds.append(_FILES)
                continue
            line_kinds = self._guard_kinds(statement)
            if not all(line_kinds):
                return ()
            kinds += [k for k in line_kinds if k]
        return tuple(dict.fromkeys(kinds))

    def _writes_handle(self, small: cst.BaseSmallStatement, handles: set[str]) -> bool:
        """`f.write(text)` on the `as f` of the enclosing `with open(...)`, text built purely."""
        if not (isinstance(small, cst.Expr) and isinstance(small.value, cst.Call)):
            return False
        func = small.value.func
        return (
            isinstance(func, cst.Attribute)
            and func.attr.value in _HANDLE_WRITES
            and isinstance(func.value, cst.Name)
            and func.value.value in handles
            and not any(self._does_work(a.value) for a in small.value.args)
        )

    def _guard_kinds(
        self, line: cst.SimpleStatementLine | cst.SimpleStatementSuite
    ) -> list[str | None]:
        kinds = [self._kind(small) for small in line.body]
        if not any(kinds) or self._under_guard(line):
            return [None] * len(kinds)
        in_except = self._in_except(line)
        for index, (small, kind) in enumerate(zip(line.body, kinds, strict=True)):
            if kind is None or kind == _SAVE:
                continue
            assert isinstance(small, cst.Expr) and isinstance(small.value, cst.Call)
            if in_except and kind in ("print", "logging"):
                kinds[index] = None
            elif any(self._does_work(a.value) for a in small.value.args):
                # It stays on every rank (a writer call there does nothing: DdpNullWriter).
                kinds[index] = None
        return kinds

    def _pieces(
        self,
        originals: Sequence[cst.BaseSmallStatement],
        line: cst.SimpleStatementLine,
        kinds: list[str | None],
        original_line: cst.CSTNode,
    ) -> list[_Piece]:
        """One piece per line; a line mixing guarded and other statements is split."""
        if all(kinds):
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

    def _rewrite(
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
                synced = self._synced_after(originals[index - 1], synced)
            if (
                index >= start
                and not synced
                and isinstance(new, cst.SimpleStatementLine)
                and self._barrier_before_load(original)
            ):
                pieces.append(_barrier().with_changes(leading_lines=new.leading_lines))
                new = new.with_changes(leading_lines=())
                barriers = synced = True
            if id(original) in self._barrier_after:
                pieces += [new, _barrier()]
                barriers = True
                continue
            if index >= start and isinstance(original, cst.With) and isinstance(new, cst.With):
                file_kinds = self._file_kinds(original)
                pieces.append((original, new, file_kinds) if file_kinds else new)
                continue
            kinds = (
                self._kinds(original)
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
            pieces += self._pieces(original.body, new, kinds, original)
        if not barriers and all(isinstance(p, cst.BaseStatement) for p in pieces):
            return None
        return self._group(pieces)

    def _synced_after(self, statement: cst.BaseStatement, synced: bool) -> bool:
        """Whether, after `statement`, every rank has passed a barrier since the last save."""
        if _is_barrier(statement) or id(statement) in self._barrier_after:
            return True
        if self._barrier_before_loads and self._saves(statement):
            return False
        return synced

    def _group(self, pieces: Sequence[_Piece | cst.BaseStatement]) -> list[cst.BaseStatement]:
        out: list[cst.BaseStatement] = []
        group: list[_Piece] = []
        for piece in pieces:
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
            s for i, s in enumerate(out) if not (i and _is_barrier(s) and _is_barrier(out[i - 1]))
        ]

    def _flush(self, group: list[_Piece], out: list[cst.BaseStatement]) -> None:
        if not group:
            return
        lines = [line for _, line, _ in group]
        leading = lines[0].leading_lines
        lines[0] = lines[0].with_changes(leading_lines=())
        out.append(
            cst.If(test=main_call(), body=cst.IndentedBlock(body=lines), leading_lines=leading)
        )
        kinds = list(dict.fromkeys(k for _, _, ks in group for k in ks))
        description = f"{', '.join(kinds)} on rank 0 only"
        first = group[0][0]
        if _SAVE in kinds and self._facts.loads and not self._in_except(first):
            anchor, omitted = self._barrier_plan(first)
            if omitted is not None:
                description += f"; no ddp_barrier() after it: {omitted}"
                description += " (the loads wait at one instead)"
            elif anchor is None:
                self.state.helpers.add("barrier")
                out.append(_barrier())
                description += ", then ddp_barrier() so no rank loads a half-written checkpoint"
            else:
                self.state.helpers.add("barrier")
                self._barrier_after.add(id(anchor))
                description += (
                    f", then ddp_barrier() after the enclosing `{statement_header(anchor)}` "
                    "(every rank must reach it)"
                )
        self.record(first, description)
        group.clear()

    def _barrier_plan(self, save: cst.CSTNode) -> tuple[cst.CSTNode | None, str | None]:
        """Where the ddp_barrier() after a rank-0 save goes: (the statement it follows, None
        for right after the save's guard; why there is none, None when there is one).

        Not next to the save: a condition such as `if accuracy > best:` may differ between
        ranks, and a barrier only some ranks reach hangs. It goes after the outermost `if`
        around the save in its block, or further out after the outermost statement whose
        condition or iteration may differ between ranks (see uniform.py). There is no such
        place when that statement can leave early (return, break, ...), or when the function
        is called where not every rank arrives: then the barrier is left out.
        """
        assert self._uniform is not None
        chain: cst.CSTNode | None = None
        parent = self.parent(self._statement(save))
        while isinstance(parent, _IF_PARTS):
            if isinstance(parent, cst.If):
                chain = parent
            parent = self.parent(parent)
        dependent = self._uniform.rank_dependent_around(save)
        anchor = chain
        if dependent is not None and (chain is None or inside(chain, dependent, self)):
            anchor = dependent
        exits = m.Return() | m.Raise() | m.Break() | m.Continue()
        if anchor is not None and m.findall(anchor, exits):
            if dependent is None:
                return None, None  # every rank takes the same branches: next to the save
            return (
                None,
                f"`{statement_header(anchor)}` may differ between ranks and can leave early",
            )
        function = enclosing_function(save, self)
        if function is not None:
            call = self._uniform.unreached_call(function)
            if call is not None:
                around = self._uniform.rank_dependent_around(call)
                where = f" under `{statement_header(around)}`" if around is not None else ""
                return None, (
                    f"{function.name.value}() is called{where} where not every rank may arrive"
                )
        return anchor, None

    def _statement(self, node: cst.CSTNode) -> cst.CSTNode:
        """The statement line (or `with`) holding `node`."""
        current = node
        while not isinstance(
            current, (cst.SimpleStatementLine, cst.SimpleStatementSuite, cst.With)
        ):
            parent = self.parent(current)
            if parent is None:
                return current
            current = parent
        return current

    def _saves(self, node: cst.CSTNode) -> bool:
        """`node` saves a checkpoint: torch.save, or a call of a function of this module that
        does (followed through its calls)."""
        if not self._saving_functions:
            saving = {
                function.name.value
                for function in walk(self._module)
                if isinstance(function, cst.FunctionDef)
                and any(
                    isinstance(c, cst.Call) and self.matches(c.func, TORCH_SAVE)
                    for c in walk(function)
                )
            }
            while True:
                more = {
                    function.name.value
                    for function in walk(self._module)
                    if isinstance(function, cst.FunctionDef)
                    and any(_callee(c) in saving for c in calls_under(function))
                } - saving
                if not more:
                    break
                saving |= more
            self._saving_functions = saving | {""}
        return any(
            self.matches(c.func, TORCH_SAVE) or _callee(c) in self._saving_functions - {""}
            for c in calls_under(node)
        )

    def _before_any_save(self, statement: cst.CSTNode) -> bool:
        """A load that runs before anything in this run saved (resuming from a checkpoint
        at start-up): its function saves only after it, and no loop around it saves."""
        function = enclosing_function(statement, self)
        scope: cst.CSTNode = function if function is not None else self._module
        child, parent = statement, self.parent(statement)
        later = False
        while parent is not None and parent is not scope:
            if isinstance(parent, (cst.For, cst.While)) and self._saves(parent):
                return False
            if isinstance(parent, (cst.IndentedBlock, cst.Module)):
                body = list(parent.body)
                at = next(i for i, s in enumerate(body) if s is child)
                if any(self._saves(s) for s in body[:at]):
                    return False
                later = later or any(self._saves(s) for s in body[at + 1 :])
            child, parent = parent, self.parent(parent)
        return later

    def _barrier_before_load(self, original: cst.BaseStatement) -> bool:
        """A statement that loads a checkpoint gets a ddp_barrier() before it when a save had
        none after it; False (with DP031 where it is needed) when it cannot."""
        if not self._barrier_before_loads or not isinstance(original, cst.SimpleStatementLine):
            return False
        loads = [
            call
            for call in walk(original, skip_scopes=True)
            if isinstance(call, cst.Call) and self.matches(call.func, TORCH_LOAD)
        ]
        if not loads or self._under_guard(original) or self._before_setup(original):
            return False
        if self._before_any_save(original):
            return False  # resuming: reads what an earlier run wrote
        assert self._uniform is not None
        function = enclosing_function(original, self)
        if self._uniform.rank_dependent_around(original) is not None or (
            function is not None and self._uniform.unreached_call(function) is not None
        ):
            self.warn(
                loads[0],
                "DP031",
                "rank 0's save has no barrier every rank reaches, and this load has none either",
            )
            return False
        self.state.helpers.add("barrier")
        self.record(
            loads[0], "ddp_barrier() before this load: a rank-0 save above could have none after it"
        )
        return True

    def leave_IndentedBlock(
        self, original_node: cst.IndentedBlock, updated_node: cst.IndentedBlock
    ) -> cst.IndentedBlock:
        body = self._rewrite(original_node.body, updated_node.body)
        return updated_node if body is None else updated_node.with_changes(body=body)

    def leave_SimpleStatementSuite(
        self, original_node: cst.SimpleStatementSuite, updated_node: cst.SimpleStatementSuite
    ) -> cst.BaseSuite:
        """`for x in xs: print(x)` becomes an indented block holding the guard."""
        kinds = self._kinds(original_node)
        if not any(kinds):
            return updated_node
        line = cst.SimpleStatementLine(
            body=updated_node.body, trailing_whitespace=updated_node.trailing_whitespace
        )
        return cst.IndentedBlock(
            body=self._group(self._pieces(original_node.body, line, kinds, original_node))
        )

    def leave_Module(self, original_node: cst.Module, updated_node: cst.Module) -> cst.Module:
        body = self._rewrite(original_node.body, updated_node.body, start=len(self._early))
        return updated_node if body is None else updated_node.with_changes(body=body)

    def visit_Break(self, node: cst.Break) -> None:
        """DP032: a training loop left on a condition that may differ between ranks."""
        assert self._uniform is not None
        ifs: list[cst.If] = []
        parent = self.parent(node)
        while parent is not None and not isinstance(parent, (cst.For, cst.While)):
            if isinstance(parent, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
                return
            if isinstance(parent, cst.If):
                ifs.append(parent)
            parent = self.parent(parent)
        if parent is None or self._under_guard(node):
            return
        local = [i for i in ifs if self._uniform.computed_per_rank(i.test, parent)]
        if not local:
            return
        dependent = local[-1]
        trains = any(
            isinstance(c.func, cst.Attribute) and c.func.attr.value == "backward"
            for c in calls_under(parent)
        )
        if trains:
            self.warn(
                dependent,
                "DP032",
                f"`{statement_header(dependent)}` may differ between ranks: one rank would leave "
                "the training loop while the others wait in the next gradient all-reduce",
            )

    # -- calls ------------------------------------------------------------------------------
    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        if id(original_node) in self._sources_of_paths:
            return self._rank0_value(original_node, updated_node)
        names = self.qualified_names(original_node.func)
        if names & TQDM:
            return self._tqdm(original_node, updated_node)
        if names & TORCH_LOAD:
            return self._map_location(original_node, updated_node)
        if names & SUMMARY_WRITER:
            return self._writer(original_node, updated_node)
        if names & WANDB_INIT:
            return self._wandb_init(original_node, updated_node)
        if names & (MKDIR | MAKEDIRS) or _is_path_mkdir(original_node, names):
            return self._idempotent_mkdir(original_node, updated_node, names)
        if names & OPEN:
            return self._open_for_writing(original_node, updated_node)
        return updated_node

    def _idempotent_mkdir(self, original: cst.Call, updated: cst.Call, names: set[str]) -> cst.Call:
        """`os.mkdir(d)` / `os.makedirs(d)` / `path.mkdir()` run by every rank: the second
        rank finds the directory made and raises FileExistsError. With exist_ok=True the
        order does not matter, and ranks that write into the directory find it there.

        An exist_ok the program computes (`exist_ok=run_id == ""`) is the program's intent,
        not dp2ddp's to drop: exist_ok=False protects an existing run from being overwritten.
        The call goes through ddp_mkdir() (templates/helpers/mkdir.py.j2): rank 0 makes the
        directory as written; the other ranks wait, bounded, for it and make nothing, so no
        rank races rank 0. A path read from the clock or a random draw would differ between
        ranks: that read is shared from rank 0 (_shared_sources)."""
        if self._under_guard(original) or self._in_except(original):
            return updated
        if any(arg.star for arg in updated.args):
            return updated
        exist_ok = [
            i for i, a in enumerate(updated.args) if a.keyword and a.keyword.value == "exist_ok"
        ]
        positional = [a for a in updated.args if a.keyword is None]
        if not exist_ok and names & MAKEDIRS and len(positional) > 2:
            exist_ok = [2]  # os.makedirs(name, mode, exist_ok)
        args = list(updated.args)
        if exist_ok:
            value = args[exist_ok[0]].value
            if is_true_literal(value):
                return updated
            if not is_false_literal(value):
                return self._made_by_main(original, updated)
            args[exist_ok[0]] = args[exist_ok[0]].with_changes(value=cst.Name("True"))
            updated = updated.with_changes(args=args)
        else:
            updated = _append_keyword(updated, "exist_ok", cst.Name("True"))
        if names & MKDIR:
            # os.mkdir has no exist_ok: os.makedirs takes the same path and mode.
            func = updated.func
            assert isinstance(func, (cst.Attribute, cst.Name))
            new_func: cst.BaseExpression = (
                func.with_changes(attr=cst.Name("makedirs"))
                if isinstance(func, cst.Attribute)
                else cst.Attribute(value=cst.Name("os"), attr=cst.Name("makedirs"))
            )
            if isinstance(func, cst.Name):
                AddImportsVisitor.add_needed_import(self.context, "os")
            updated = updated.with_changes(func=new_func)
        self.record(
            original, "directory created with exist_ok=True: every rank runs it, in any order"
        )
        return updated

    def _made_by_main(self, original: cst.Call, updated: cst.Call) -> cst.Call:
        """`path.mkdir(parents=True, exist_ok=flag)` ->
        `ddp_mkdir(path.mkdir, parents=True, exist_ok=flag)`: the program's own call,
        passed with its arguments, made on rank 0 only (see _idempotent_mkdir)."""
        if isinstance(updated.whitespace_before_args, cst.ParenthesizedWhitespace):
            separator = cst.Comma(whitespace_after=updated.whitespace_before_args)
        else:
            separator = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
        self.state.helpers.add("mkdir")
        self.record(
            original,
            "directory made by rank 0 with the program's exist_ok; other ranks wait for it",
        )
        return updated.with_changes(
            func=cst.Name("ddp_mkdir"),
            args=[cst.Arg(value=updated.func, comma=separator), *updated.args],
        )

    def _shared_sources(self, module: cst.Module) -> dict[int, int]:
        """The clock or random reads (`datetime.now()`) that the path of a directory made on
        every rank is computed from, each with the line of that directory: they become
        ddp_rank0_value(...) so every rank names the same directory (per_process.py)."""
        sources: dict[int, int] = {}
        for call in walk(module):
            if not isinstance(call, cst.Call) or any(arg.star for arg in call.args):
                continue
            path = _made_directory(call, self.qualified_names(call.func))
            if path is None or self._under_guard(call) or self._in_except(call):
                continue
            if self._in_inserted_helper(call):
                continue  # the inline setup block's own code (DdpNullWriter's default name)
            source = per_process_source(self, path, call)
            if source is not None:
                sources.setdefault(id(source), self._position(call)[0])
        return sources

    def _in_inserted_helper(self, node: cst.CSTNode) -> bool:
        """Inside a function or class of dp2ddp's inserted setup block (a file migrated
        before, run through this pass again): those are dp2ddp's, never the program's."""
        from dp2ddp.transforms._support.runtime import (
            exported_names,  # runtime imports the pipeline
        )

        helpers = exported_names()
        function = enclosing_function(node, self)
        owner = enclosing_class(node, self)
        return (function is not None and function.name.value in helpers) or (
            owner is not None and owner.name.value in helpers
        )

    def _rank0_value(self, original: cst.Call, updated: cst.Call) -> cst.Call:
        """`datetime.now()` -> `ddp_rank0_value(datetime.now)`: read on every rank, rank 0's
        value used by all (templates/helpers/rank0_value.py.j2)."""
        line = self._sources_of_paths[id(original)]
        self.state.helpers.add("rank0_value")
        self.record(
            original,
            f"rank 0's value on every rank: it names the directory made at line {line}",
        )
        return updated.with_changes(
            func=cst.Name("ddp_rank0_value"),
            args=[
                cst.Arg(
                    value=updated.func,
                    comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
                    if updated.args
                    else cst.MaybeSentinel.DEFAULT,
                ),
                *updated.args,
            ],
        )

    def _open_for_writing(self, original: cst.Call, updated: cst.Call) -> cst.Call:
        """`open(path, "w"/"a")` outside a rank-0 block: other ranks write to os.devnull.

        Their writes would duplicate every line (and "w" truncates what rank 0 wrote), but
        the code around the file (a csv.writer, a loop of rows) keeps running on every rank
        unchanged, so nothing in it that other ranks need is skipped."""
        mode = open_mode(original)
        if mode is None or not set(mode) & {"w", "a"} or set(mode) & {"r", "+", "x"}:
            return updated
        if self._under_guard(original) or self._in_except(original) or self._before_setup(original):
            return updated
        item = self.parent(original)
        owner = self.parent(item) if isinstance(item, cst.WithItem) else None
        if isinstance(owner, cst.With) and self._file_kinds(owner):
            return updated  # the whole `with` is guarded
        args = list(updated.args)
        at = next(
            (i for i, a in enumerate(args) if a.keyword is None or a.keyword.value == "file"),
            None,
        )
        if at is None or (args[at].keyword is None and at != 0):
            return updated
        path = args[at].value
        if mentions_rank(path):
            return updated  # a per-rank file name: each rank writes its own
        args[at] = args[at].with_changes(
            value=cst.IfExp(
                test=main_call(),
                body=_parenthesize(path),
                orelse=cst.Attribute(value=cst.Name("os"), attr=cst.Name("devnull")),
            )
        )
        AddImportsVisitor.add_needed_import(self.context, "os")
        self.record(original, "file written on rank 0 only (other ranks write to os.devnull)")
        return updated.with_changes(args=args)

    def _tqdm(self, original: cst.Call, updated: cst.Call) -> cst.Call:
        if self._before_setup(original) or self._under_guard(original):
            return updated
        if any(arg.star == "**" for arg in updated.args):
            return updated  # `disable` may be among the keywords: adding one could clash
        for index, arg in enumerate(updated.args):
            if arg.keyword is None or arg.keyword.value != "disable":
                continue
            value = arg.value
            if mentions_rank(value) or _is_name(value, "True"):
                return updated
            if _is_name(value, "False"):
                new_value: cst.BaseExpression = not_main()
            elif _is_name(value, "None"):  # None: tqdm's "off when not a terminal"
                new_value = cst.IfExp(
                    test=main_call(), body=cst.Name("None"), orelse=cst.Name("True")
                )
            else:
                new_value = cst.BooleanOperation(
                    left=_parenthesize(value), operator=cst.Or(), right=not_main()
                )
            args = list(updated.args)
            args[index] = arg.with_changes(value=new_value)
            self.record(original, "progress bar shown on rank 0 only")
            return updated.with_changes(args=args)
        self.record(original, "progress bar shown on rank 0 only")
        return _append_keyword(updated, "disable", not_main())

    def _map_location(self, original: cst.Call, updated: cst.Call) -> cst.Call:
        if any(arg.star for arg in updated.args):
            self.warn(original, "DP019", "map_location may be among the unpacked arguments")
            return updated
        positional = [arg for arg in updated.args if arg.keyword is None]
        keywords = {arg.keyword.value for arg in updated.args if arg.keyword is not None}
        if len(positional) >= 2 or "map_location" in keywords or self._before_setup(original):
            return updated
        self.record(original, "torch.load maps the checkpoint onto this process's DEVICE")
        return _append_keyword(updated, "map_location", cst.Name("DEVICE"))

    def _writer(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        """`SummaryWriter(...)` becomes `SummaryWriter(...) if ddp_is_main() else
        DdpNullWriter(...)` (same arguments, evaluated once: only one branch runs).

        Not None off rank 0: the writer travels where no pass can follow it (an attribute
        set in a base class and used in a subclass in another module, an argument of a
        helper), and every use there would raise on None. DdpNullWriter
        (templates/helpers/null_writer.py.j2) takes every call, attribute read
        (`log_dir`), `with` and `close()`, and creates an explicit log directory as
        SummaryWriter does, since code after it often writes into it. Any position works
        (assigned, `with ... as w`, passed as an argument, returned).
        """
        if self._under_guard(original):
            return updated
        parent = self.parent(original)
        if self._before_setup(original):
            self.warn(original, "DP021", "SummaryWriter created before the DDP setup block")
            return updated
        self.state.helpers.add(_NULL_WRITER_HELPER)
        null_writer = updated.with_changes(func=cst.Name(_NULL_WRITER), lpar=(), rpar=())
        choice: cst.BaseExpression = cst.IfExp(
            test=main_call(), body=updated.with_changes(lpar=(), rpar=()), orelse=null_writer
        )
        if not isinstance(parent, _BARE_IFEXP_PARENTS) or updated.lpar:
            # `(... if ddp_is_main() else ...).add_scalar(...)`, `with (...) as w:`
            choice = choice.with_changes(
                lpar=updated.lpar or [cst.LeftParen()], rpar=updated.rpar or [cst.RightParen()]
            )
        self.record(
            original,
            f"SummaryWriter created on rank 0 only ({_NULL_WRITER} elsewhere: calls do nothing)",
        )
        self._warn_per_process_log_dir(original)
        return choice

    def _warn_per_process_log_dir(self, writer: cst.Call) -> None:
        """DP033: the writer's log directory is named by the clock or a random draw on each
        rank. Rank 0's events go to its own; DdpNullWriter creates each other rank's
        name so code writing there runs, but ranks that differ write to different places."""
        log_dir = next(
            (
                arg.value
                for index, arg in enumerate(writer.args)
                if (arg.keyword is None and not arg.star and index == 0)
                or (arg.keyword is not None and arg.keyword.value in ("log_dir", "logdir"))
            ),
            None,
        )
        if log_dir is None:
            return
        assert self._uniform is not None
        draw = self._uniform.per_process_draw(log_dir, writer)
        if draw is not None:
            self.warn(
                writer,
                "DP033",
                f"the log directory depends on `{self.code(draw)}`, drawn in each process: "
                "ranks may name different directories",
            )

    def _wandb_init(self, original: cst.Call, updated: cst.Call) -> cst.Call:
        if self._under_guard(original):
            return updated
        if any(arg.star for arg in updated.args) or self._before_setup(original):
            self.warn(original, "DP021", "wandb.init: pass mode='disabled' on ranks other than 0")
            return updated
        description = "wandb run disabled on ranks other than 0"
        for index, arg in enumerate(updated.args):
            if arg.keyword is not None and arg.keyword.value == "mode":
                if mentions_rank(arg.value):
                    return updated
                args = list(updated.args)
                args[index] = arg.with_changes(value=_disabled_off_main(arg.value))
                self.record(original, description)
                return updated.with_changes(args=args)
        self.record(original, description)
        return _append_keyword(updated, "mode", _disabled_off_main(cst.Name("None")))

    # -- where a node is ----------------------------------------------------------------------
    def _under_guard(self, node: cst.CSTNode) -> bool:
        """The node only runs on rank 0 already."""
        child, parent = node, self.parent(node)
        while parent is not None and not isinstance(parent, cst.Module):
            if isinstance(parent, cst.If):
                if child is parent.body and is_main_test(parent.test):
                    return True
                if child is parent.body and self._dead_script_block(parent):
                    return True
                if child is parent.orelse and is_not_main_test(parent.test):
                    return True
            elif isinstance(parent, cst.IfExp):
                if child is parent.body and is_main_test(parent.test):
                    return True
            elif isinstance(parent, cst.IndentedBlock):
                for sibling in parent.body:
                    if sibling is child:
                        break
                    if (
                        isinstance(sibling, cst.If)
                        and exits_block(sibling)
                        and is_not_main_test(sibling.test)
                    ):
                        return True
            elif isinstance(parent, cst.FunctionDef):
                return parent.name.value in self._facts.guarded_callees or self._unused(parent)
            child, parent = parent, self.parent(parent)
        return False

    def _unused(self, function: cst.FunctionDef) -> bool:
        """A top-level function of a library module that nothing in the program refers to
        (a model file's demo `test()` printing a shape): dead code for this program, so it
        is left as written, and a module with nothing else to migrate stays unchanged."""
        return function.name.value in self.state.hints.unused and isinstance(
            self.parent(function), cst.Module
        )

    def _dead_script_block(self, node: cst.If) -> bool:
        """`if __name__ == "__main__":` in a module the program imports: it never runs in
        this program (a model file's demo), so it is left as written."""
        return (
            self.state.hints.imported
            and isinstance(self.parent(node), cst.Module)
            and is_script_guard(node.test)
        )

    def _in_except(self, node: cst.CSTNode) -> bool:
        parent = self.parent(node)
        while parent is not None and not isinstance(parent, (cst.Module, cst.FunctionDef)):
            if isinstance(parent, (cst.ExceptHandler, cst.ExceptStarHandler)):
                return True
            parent = self.parent(parent)
        return False

    def _before_setup(self, node: cst.CSTNode) -> bool:
        """At module level above the inserted setup block, where DEVICE etc. do not exist yet."""
        child, parent = node, self.parent(node)
        while parent is not None and not isinstance(parent, cst.Module):
            child, parent = parent, self.parent(parent)
        return any(statement is child for statement in self._early)


class _Collector(cst.CSTVisitor):
    """Pre-pass over the whole module: loggers, writers, runs, loads, guarded callees."""

    def __init__(self, transform: RankZeroOnly, facts: ModuleFacts) -> None:
        super().__init__()
        self.t = transform
        self.facts = facts

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            self.t.track(target.target, node.value)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self.t.track(node.target, node.value)

    def visit_WithItem(self, node: cst.WithItem) -> None:
        if node.asname is not None:
            self.t.track(node.asname.name, node.item)

    def visit_Call(self, node: cst.Call) -> None:
        if self.t.matches(node.func, TORCH_LOAD):
            self.facts.loads = True

    def visit_If(self, node: cst.If) -> None:
        if not is_main_test(node.test):
            return
        for call in calls_under(node.body):
            func = call.func
            if isinstance(func, cst.Name):
                self.facts.guarded_callees.add(func.value)
            elif isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name):
                if func.value.value == "self":
                    self.facts.guarded_callees.add(func.attr.value)


def is_false_literal(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Name) and node.value == "False"


def is_true_literal(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Name) and node.value == "True"


def _made_directory(call: cst.Call, names: set[str]) -> cst.BaseExpression | None:
    """The path of the directory `os.mkdir(path)`, `os.makedirs(name=path)` or
    `path.mkdir()` makes; None for any other call (or a path dp2ddp cannot see)."""
    if names & (MKDIR | MAKEDIRS):
        return next(
            (
                a.value
                for a in call.args
                if a.keyword is None or a.keyword.value in ("name", "path")
            ),
            None,
        )
    if _is_path_mkdir(call, names):
        assert isinstance(call.func, cst.Attribute)
        return call.func.value
    return None


def _is_path_mkdir(call: cst.Call, names: set[str]) -> bool:
    """`path.mkdir(parents=True)`: pathlib's mkdir (keywords only: an FTP client's
    `mkdir(name)` or any other positional form is someone else's)."""
    return (
        isinstance(call.func, cst.Attribute)
        and call.func.attr.value == "mkdir"
        and not names & MKDIR
        and all(
            a.keyword is not None and a.keyword.value in ("parents", "exist_ok", "mode")
            for a in call.args
        )
    )


def _path_open_for_writing(call: cst.Call) -> bool:
    """`path.open("w")` / `path.open(mode="wt")`: pathlib's open, mode first, for writing
    only (victoresque/pytorch-template@41dc06f utils/util.py write_json). On every rank it
    would truncate the file rank 0 has just written: config.json came out empty. Only a
    literal mode is trusted (`zf.open("data.txt", "w")` is a zip member, not a mode)."""
    func = call.func
    if not isinstance(func, cst.Attribute) or func.attr.value != "open" or mentions_rank(func):
        return False
    positional = [a for a in call.args if a.keyword is None]
    modes = [a.value for a in call.args if a.keyword is not None and a.keyword.value == "mode"]
    value = positional[0].value if positional else (modes[0] if modes else None)
    if not isinstance(value, cst.SimpleString):
        return False
    mode = value.evaluated_value
    return (
        isinstance(mode, str)
        and _FILE_MODE.fullmatch(mode) is not None
        and bool(set(mode) & {"w", "a"})
        and not set(mode) & {"r", "+"}
    )


def _callee(call: cst.Call) -> str:
    """`f` of `f(...)` or `self.f(...)`; "" otherwise."""
    func = call.func
    if isinstance(func, cst.Name):
        return func.value
    if isinstance(func, cst.Attribute) and m.matches(func.value, m.Name("self")):
        return func.attr.value
    return ""


def _is_barrier(piece: object) -> bool:
    """A `ddp_barrier()` statement line (inserted, or already there)."""
    return isinstance(piece, cst.SimpleStatementLine) and m.matches(
        piece, m.SimpleStatementLine(body=[m.Expr(m.Call(func=m.Name("ddp_barrier")))])
    )


def _barrier() -> cst.SimpleStatementLine:
    return cst.SimpleStatementLine(body=[cst.Expr(cst.Call(func=cst.Name("ddp_barrier")))])


def _is_name(node: cst.BaseExpression, name: str) -> bool:
    return isinstance(node, cst.Name) and node.value == name


def _parenthesize(node: cst.BaseExpression) -> cst.BaseExpression:
    if node.lpar or not isinstance(node, (cst.IfExp, cst.Lambda, cst.NamedExpr)):
        return node
    return node.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


def _disabled_off_main(value: cst.BaseExpression) -> cst.IfExp:
    """`<value> if ddp_is_main() else "disabled"`."""
    return cst.IfExp(
        test=main_call(), body=_parenthesize(value), orelse=cst.SimpleString('"disabled"')
    )


def _append_keyword(call: cst.Call, name: str, value: cst.BaseExpression) -> cst.Call:
    """Add `name=value` last, keeping a multi-line call's trailing comma and layout."""
    new = cst.Arg(
        keyword=cst.Name(name),
        value=value,
        equal=cst.AssignEqual(
            whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")
        ),
    )
    args = list(call.args)
    if args and isinstance(args[-1].comma, cst.Comma):
        # A trailing comma: the new argument takes it; the old last one gets a separator
        # laid out like the ones before it.
        if len(args) >= 2 and isinstance(args[-2].comma, cst.Comma):
            separator = args[-2].comma
        elif isinstance(call.whitespace_before_args, cst.ParenthesizedWhitespace):
            separator = cst.Comma(whitespace_after=call.whitespace_before_args)
        else:
            separator = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
        new = new.with_changes(comma=args[-1].comma)
        args[-1] = args[-1].with_changes(comma=separator)
    return call.with_changes(args=[*args, new])
