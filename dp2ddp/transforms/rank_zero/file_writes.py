"""Files written on rank 0 only.

Copies, moves and removals (`shutil.copyfile`, `os.remove`, ...), `np.save` / `np.savez`,
`scipy.io.savemat`, `pickle.dump`, `json.dump`, `save_image`, `savefig`, a PIL image's `.save`
and the like run on rank 0 only (guard_statements.py guards them as statements); a
`with open(path, "w"|"a")` or `with h5py.File(path, "w"|"a"|"x"|"w-")` block that only writes
is guarded whole, and so is `with open(path, "wb") as f: torch.save(..., f)` (an open() on
every rank would truncate the file rank 0 is writing). Other files opened for writing or
appending (a log kept open, a csv.writer) are opened off rank 0 on a scratch file of the
process's own (`ddp_discard_path()`, removed at exit), so the code around them runs
unchanged on every rank. Paths that mention the rank stay.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

import libcst as cst

from dp2ddp.flow import DefUse, view
from dp2ddp.transforms._support.class_methods import methods_of
from dp2ddp.transforms._support.nodes import enclosing_function, walk
from dp2ddp.transforms.analysis.guards import main_call, mentions_rank
from dp2ddp.transforms.rank_zero.edits import parenthesize
from dp2ddp.transforms.rank_zero.rule import CallRule
from dp2ddp.transforms.rank_zero.side_effects import (
    H5PY_FILE,
    OPEN,
    OPEN_FILE_KEYWORDS,
    READS_AT_FIRST,
    WRITER_OPENERS,
    mode_argument,
    open_mode,
)

if TYPE_CHECKING:
    from dp2ddp.transforms.rank_zero import RankZeroOnly

#: Where a file kept open for writing is opened off rank 0 (templates/helpers/discard_path.py.j2).
DISCARD_PATH = "ddp_discard_path"
#: What a guarded group of file writes is called in the change record.
FILES = "file writes"
#: A print whose arguments do work every rank needs (`print(evaluate(model))`): it becomes
#: `ddp_print(...)`, never part of a guarded group (guard_statements.py).
PRINT_EVERY_RANK = "print (its arguments evaluated on every rank)"
#: A loguru call whose arguments may do work every rank needs (logged_arguments.py).
LOG_EVERY_RANK = "loguru call (its arguments evaluated on every rank)"
#: Methods of an open file handle that write to it (`f.write(line)` in `with open(...) as f`,
#: `f.create_dataset(name, data=x)` in `with h5py.File(path, "w") as f`).
#: An archive's (`z.writestr(name, text)`, `t.add(folder)` in `with tarfile.open(p, "w")`).
_HANDLE_WRITES = frozenset(
    {"write", "writelines", "flush", "create_dataset", "create_group", "writestr", "add"}
    | {"addfile", "append_data"}
)
#: h5py.File modes that create or change the file (its default, "r", only reads); "r+"
#: opens it for writing too, and HDF5 lets one process hold a file so: a second rank's open
#: fails ("unable to lock file") even where the program only reads through the handle
#: (AnTao97/UnsupervisedPointCloudReconstruction@b589694's dataset.py, stop 56 v4-C).
H5PY_WRITE_MODES = frozenset({"w", "w-", "x", "a", "r+"})
#: A file mode as open() takes it ("w", "wt", "ab"), not a file name.
_FILE_MODE = re.compile(r"[rwxabt+]{1,3}")


class FileWrites(CallRule):
    def leave_call(
        self, original: cst.Call, updated: cst.Call, names: set[str]
    ) -> cst.BaseExpression | None:
        if names & OPEN:
            return self._open_for_writing(original, updated)
        if path_open_for_writing(original):
            return self._path_open_for_writing(original, updated)
        if names & H5PY_FILE and h5py_mode(original):
            return self._h5py_for_writing(original, updated)
        return None

    def _h5py_for_writing(self, original: cst.Call, updated: cst.Call) -> cst.Call:
        """`h5py.File(path, "w")` outside a rank-0 block (a `with` whose body does more than
        write: f90/Wave-U-Net-Pytorch@86c113d builds `hdf/train.hdf5` in its Dataset's
        `__init__`, loading audio in a loop): other ranks write a scratch file of their own,
        as for open(); barriers.py then puts `ddp_barrier()` after the block, before every
        rank reads the file (or says DP054). Before, both ranks created and filled the one
        file (stop 44). Only "w" (create or truncate) takes a scratch file: "a" would
        append to rank 0's HDF file and "x"/"w-" fail on an existing file, so those say
        DP111 and stay as written; so does "r+" (read and write: HDF5's lock refuses the
        second rank's open, stop 56 v4-C)."""
        if self._kept_guarded(original):
            return updated
        args = list(updated.args)
        at = next(
            (
                i
                for i, a in enumerate(args)
                if (a.keyword is None and i == 0) or (a.keyword and a.keyword.value == "name")
            ),
            None,
        )
        if at is None or mentions_rank(args[at].value):
            return updated  # a per-rank file name: each rank writes its own
        mode = open_mode(original)
        if mode == "r+":
            self.t.warn(
                original,
                "DP111",
                f"{self.t.code(original)} opens the one file for reading and writing on "
                "every rank, and HDF5 lets one process hold it so (the second rank's open "
                'fails: "unable to lock file"); where the handle is only read, open it '
                'with "r"',
            )
            return updated
        if mode != "w":
            self.t.warn(
                original,
                "DP111",
                f"{self.t.code(original)} changes the one file on every rank; only "
                '"w" can go to a scratch file off rank 0',
            )
            return updated
        args[at] = args[at].with_changes(
            value=cst.IfExp(
                test=main_call(),
                body=parenthesize(args[at].value),
                orelse=cst.Call(func=cst.Name(DISCARD_PATH)),
            )
        )
        self.t.state.helpers.add("discard_path")
        self.t.record(original, "file written on rank 0 only (elsewhere to a scratch file)")
        return updated.with_changes(args=args)

    def file_kinds(self, node: cst.With) -> tuple[str, ...]:
        """Kinds of a `with open(...)` whose body only does rank-0 work; () otherwise."""
        if node.asynchronous is not None or not isinstance(node.body, cst.IndentedBlock):
            return ()
        if self.facts.under_guard(node) or per_sample_write(self.t, node):
            return ()
        if not all(
            isinstance(item.item, cst.Call)
            and (
                self.t.matches(item.item.func, OPEN)
                or path_open_for_writing(item.item)
                or (self.t.matches(item.item.func, H5PY_FILE) and h5py_mode(item.item))
                or self.t.matches(item.item.func, WRITER_OPENERS)
            )
            and not any(mentions_rank(arg.value) for arg in item.item.args)
            for item in node.items
        ):
            return ()  # not a file, or one file per rank
        handles = {
            item.asname.name.value
            for item in node.items
            if item.asname is not None and isinstance(item.asname.name, cst.Name)
        }
        writer = any(
            isinstance(item.item, cst.Call) and self.t.matches(item.item.func, WRITER_OPENERS)
            for item in node.items
        )
        kinds = self._body_kinds(node.body.body, handles, loops=writer)
        if kinds is None:
            self._writer_every_rank(node)
            return ()
        return tuple(dict.fromkeys(kinds))

    def _writer_every_rank(self, node: cst.With) -> None:
        """DP079 for a library's writer (WRITER_OPENERS) whose `with` block does more than
        write (a listing every rank takes from rank 0, `ddp_rank0_value(glob.glob, ...)`, is
        a collective): the block stays on every rank, and every rank writes the file."""
        for item in node.items:
            call = item.item
            if not (
                isinstance(call, cst.Call)
                and self.t.matches(call.func, WRITER_OPENERS)
                and self.t.guards.first_saying(call)
            ):
                continue
            self.t.warn(
                call,
                "DP079",
                f"{self.t.code(call.func)}() writes a file on every rank: its `with` block "
                "does more than write it (work every rank needs, or a value every rank "
                "takes from rank 0), so the block was not put on rank 0",
            )

    def _body_kinds(
        self, body: Sequence[cst.BaseStatement], handles: set[str], *, loops: bool
    ) -> list[str] | None:
        """The kinds of a `with`'s body that only writes its files; None where it does more.
        `loops` (a library writer's block): a `for` over a value built without work, whose
        body only writes the handles or reads a file into a local name (`frame =
        imageio.imread(name)` then `writer.append_data(frame)`), is part of the writing."""
        kinds: list[str] = []
        for statement in body:
            if loops and isinstance(statement, cst.For):
                if (
                    statement.asynchronous is not None
                    or statement.orelse is not None
                    or self.facts.does_work(statement.iter)
                    or not isinstance(statement.body, cst.IndentedBlock)
                ):
                    return None
                inner = self._body_kinds(statement.body.body, handles, loops=True)
                if inner is None:
                    return None
                kinds += inner
                continue
            if not isinstance(statement, cst.SimpleStatementLine):
                return None
            if all(
                self.writes_handle(small, handles) or (loops and self._local_read(small))
                for small in statement.body
            ):
                kinds.append(FILES)
                continue
            line_kinds = self.t.guards.guard_kinds(statement)
            if not all(line_kinds) or {PRINT_EVERY_RANK, LOG_EVERY_RANK} & set(line_kinds):
                return None
            kinds += [k for k in line_kinds if k]
        return kinds

    def _local_read(self, small: cst.BaseSmallStatement) -> bool:
        """`name = reader(path)`: a file read (READS_AT_FIRST) into a name, its arguments
        built without work, inside a loop that writes what it read."""
        if not (
            isinstance(small, cst.Assign)
            and len(small.targets) == 1
            and isinstance(small.targets[0].target, cst.Name)
            and isinstance(small.value, cst.Call)
        ):
            return False
        call = small.value
        return self.t.matches(call.func, READS_AT_FIRST) and not any(
            self.facts.does_work(a.value) for a in call.args
        )

    def writes_handle(self, small: cst.BaseSmallStatement, handles: set[str]) -> bool:
        """`f.write(text)` on the `as f` of the enclosing `with open(...)`, text built purely;
        `f["name"] = x` / `f.attrs["name"] = x` on an h5py file."""
        if isinstance(small, cst.Assign) and len(small.targets) == 1:
            target = small.targets[0].target
            owner = target.value if isinstance(target, cst.Subscript) else None
            if isinstance(owner, cst.Attribute) and owner.attr.value == "attrs":
                owner = owner.value
            return (
                isinstance(owner, cst.Name)
                and owner.value in handles
                and not self.facts.does_work(small.value)
            )
        if not (isinstance(small, cst.Expr) and isinstance(small.value, cst.Call)):
            return False
        func = small.value.func
        return (
            isinstance(func, cst.Attribute)
            and func.attr.value in _HANDLE_WRITES
            and isinstance(func.value, cst.Name)
            and func.value.value in handles
            and not any(self.facts.does_work(a.value) for a in small.value.args)
        )

    def _open_for_writing(self, original: cst.Call, updated: cst.Call) -> cst.Call:
        """`open(path, "w"/"a")` outside a rank-0 block: other ranks write to a scratch file of
        their own, `ddp_discard_path()` (templates/helpers/discard_path.py.j2).

        Their writes would duplicate every line (and "w" truncates what rank 0 wrote), but
        the code around the file (a csv.writer, a loop of rows) keeps running on every rank
        unchanged, so nothing in it that other ranks need is skipped. Not os.devnull: a
        device rejects os.fsync of its descriptor (EINVAL), which a tee logger's flush()
        calls at exit (bnu-wangxun/Deep_Metric@04ca510 utils/logging.py: rank 1 exited 120
        and torchrun failed the job); a regular file takes every call the program's does."""
        mode = open_mode(original)
        if mode is None:
            mode = self._held_mode(original)
        if mode is None or not set(mode) & {"w", "a"} or set(mode) & {"r", "x"}:
            return updated
        if self._kept_guarded(original):
            return updated
        if "+" in mode and not self._never_read(original):
            self.t.warn(
                original,
                "DP224",
                f"`{self.t.code(original)}` opens its file with {mode!r}, and the handle is "
                "read or handed where dp2ddp does not follow it: left on every rank, each "
                "writes the one file",
            )
            return updated
        args = list(updated.args)
        at = next(
            (
                i
                for i, a in enumerate(args)
                if a.keyword is None or a.keyword.value in OPEN_FILE_KEYWORDS
            ),
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
                body=parenthesize(path),
                orelse=cst.Call(func=cst.Name(DISCARD_PATH)),
            )
        )
        self.t.state.helpers.add("discard_path")
        self.t.record(original, "file written on rank 0 only (elsewhere to a scratch file)")
        return updated.with_changes(args=args)

    def _held_mode(self, original: cst.Call) -> str | None:
        """The mode of `open(path, mode)` whose mode is not a literal but a name bound to
        literals (`open_type = 'a' if os.path.exists(p) else 'w'`: yulunzhang/RCAN@f722e5d
        utility.py's log.txt and config.txt, which every rank appended to, stop 45's v2-B):
        the characters of every mode it may hold, when each writes ("a" or "w", no "r" or
        "x"), so that the open is rewritten as a write. Modes that all read: "r". Anything
        else (a parameter, a computed mode, a read or a write by the run) is DP081 and left
        as it is: the file may be written by every rank."""
        if self._kept_guarded(original):
            return None
        held = mode_argument(original)
        modes = held_modes(held, view(self.facts.module)) if held is not None else None
        if modes and all(set(m) & {"w", "a"} and not set(m) & {"r", "x"} for m in modes):
            return "".join(sorted(set("".join(modes))))
        if modes and all("r" in m and "+" not in m for m in modes):
            return "r"
        text = self.t.code(held) if held is not None else "*args"
        what = (
            f"`{text}` is bound to something other than string literals"
            if not modes
            else f"`{text}` may be {' or '.join(repr(m) for m in sorted(modes))}: a read or a write"
        )
        self.t.warn(original, "DP081", f"`{self.t.code(original)}`: the mode {what}")
        return None

    def _kept_guarded(self, original: cst.Call) -> bool:
        """The open needs no change: it runs on rank 0 only already, in an `except`, above
        the setup block, as the item of a `with` that is guarded whole, or in per-sample
        code (each rank writes its own samples' files: per_sample_write)."""
        if (
            self.facts.under_guard(original)
            or self.facts.in_except(original)
            or self.facts.before_setup(original)
            or per_sample_write(self.t, original)
        ):
            return True
        item = self.t.parent(original)
        owner = self.t.parent(item) if isinstance(item, cst.WithItem) else None
        return isinstance(owner, cst.With) and bool(self.file_kinds(owner))

    def _path_open_for_writing(self, original: cst.Call, updated: cst.Call) -> cst.Call:
        """`path.open("a")` (pathlib) outside a rank-0 block: `open(path if ddp_is_main() else
        ddp_discard_path(), "a")`, which is what pathlib's open does (`io.open(self, ...)`,
        the same parameters after the file), with other ranks on their scratch file as for
        the builtin open. A log kept open this way and written by a helper
        (`log = root.joinpath('train_0.log').open('at')`, then `write_event(log, ...)`:
        ternaus/robot-surgery-segmentation@1d18157 utils.train) had both ranks append
        their own lines, each figure twice and different (class v1-C of stop 42)."""
        if self._kept_guarded(original):
            return updated
        assert isinstance(updated.func, cst.Attribute)
        receiver = updated.func.value
        if mentions_rank(receiver):
            return updated  # a per-rank file name: each rank writes its own
        path = cst.IfExp(
            test=main_call(),
            body=parenthesize(receiver),
            orelse=cst.Call(func=cst.Name(DISCARD_PATH)),
        )
        comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
        args = [cst.Arg(path, comma=comma), *updated.args]
        self.t.state.helpers.add("discard_path")
        self.t.record(original, "file written on rank 0 only (elsewhere to a scratch file)")
        return updated.with_changes(func=cst.Name("open"), args=args)

    def _never_read(self, call: cst.Call) -> bool:
        """`log = open(path, "a+")` whose handle its scope only writes (`log.write(...)`,
        `log.flush()`, `log.close()`, also in nested functions): the "+" reads nothing, so it
        is a file written like "a" (princeton-vl/pytorch_stacked_hourglass@ceedc14
        task/pose.py: the per-step loss log, opened in make_network() and written from its
        nested step function, had every line twice). The name rebound by another assignment
        is no read of it (MILVLG/mcan-vqa@6b165e9 core/exec.py reopens `logfile` with "a+"
        for each entry of its epoch log: both ranks wrote every line, stop 42's v3-C).
        The handle may be held by `self.X` (its class's methods only write it) and may be
        one value of a dict or list literal so bound, each use an item's write
        (`self.logger = {'train': open(p, 'a+'), ...}`, then `self.logger[split]
        .write(log)`: mtroym/pytorch.template@6af2caf's trainers, whose train.log and
        test.log held every line twice, stop 63)."""
        assign = self.t.parent(call)
        contained = isinstance(assign, (cst.DictElement, cst.Element)) and assign.value is call
        if contained:
            literal = self.t.parent(assign) if assign is not None else None
            if not isinstance(literal, (cst.Dict, cst.List, cst.Tuple)):
                return False
            assign = self.t.parent(literal)
        bound: cst.CSTNode
        scope: cst.CSTNode | None
        if isinstance(assign, cst.WithItem) and isinstance(assign.asname, cst.AsName):
            # `with open(csv_path, "w+") as f: f.write(header)`: the handle is the with's
            # (ryanchankh/mcr2@005c2f7 utils.py:50: every rank wrote losses.csv's header)
            bound, scope = assign.asname.name, self.t.parent(assign)
            if contained or not isinstance(bound, cst.Name) or not isinstance(scope, cst.With):
                return False
        elif isinstance(assign, cst.Assign) and len(assign.targets) == 1:
            bound, scope = assign.targets[0].target, self.t.parent(assign)
            kinds: tuple[type[cst.CSTNode], ...] = (cst.FunctionDef, cst.Module)
            if isinstance(bound, cst.Attribute) and _is_self(bound.value):
                kinds = (cst.ClassDef,)  # `self.log`: every method of the class
            elif not isinstance(bound, cst.Name):
                return False
            while scope is not None and not isinstance(scope, kinds):
                scope = self.t.parent(scope)
            if scope is None:
                return False
        else:
            return False
        for node in walk(scope):
            if node is bound or not _same_holder(node, bound):
                continue
            holder = self.t.parent(node)
            if isinstance(holder, cst.AssignTarget):
                continue  # a rebinding (the next `log = open(path, "a+")`), not a read
            if contained:  # `handles[key]`, then its method
                if not (isinstance(holder, cst.Subscript) and holder.value is node):
                    return False
                node, holder = holder, self.t.parent(holder)
            if isinstance(holder, cst.Arg) and self._write_only_holder(holder):
                continue  # `DoubleWriter(sys.stderr, self.log)`, a class that only writes it
            if not (
                isinstance(holder, cst.Attribute)
                and holder.value is node
                and holder.attr.value in _HANDLE_WRITES | {"close"}
            ):
                return False
        return True

    def _write_only_holder(self, arg: cst.Arg) -> bool:
        """`arg` hands the handle to a class of this module that keeps it in an attribute
        and only writes, flushes or closes it there (a tee: `sys.stderr = DoubleWriter(
        sys.stderr, log)`; round 31, MingSun-Tse/Good-DA-in-KD@75443f9: its log.txt held
        every line twice, no warning)."""
        call = self.t.parent(arg)
        if not isinstance(call, cst.Call) or not isinstance(call.func, cst.Name) or arg.keyword:
            return False
        index = [a for a in call.args if a.keyword is None].index(arg)
        cls = next(
            (
                c
                for c in self.facts.module.body
                if isinstance(c, cst.ClassDef) and c.name.value == call.func.value
            ),
            None,
        )
        init = methods_of(cls).get("__init__") if cls is not None else None
        if init is None or index + 1 >= len(init.params.params):
            return False
        param = init.params.params[index + 1].name.value
        stored: set[str] = set()
        for node in walk(init.body):
            if not isinstance(node, cst.Assign):
                continue
            for target in node.targets:  # `self.out = out`, `self.f1, self.f2 = f1, f2`
                pairs: list[tuple[cst.BaseExpression, cst.BaseExpression]]
                pairs = [(target.target, node.value)]
                if isinstance(target.target, cst.Tuple) and isinstance(node.value, cst.Tuple):
                    elements = zip(target.target.elements, node.value.elements, strict=False)
                    pairs = [(t.value, v.value) for t, v in elements]
                stored |= {
                    t.attr.value
                    for t, v in pairs
                    if isinstance(t, cst.Attribute)
                    and _is_self(t.value)
                    and isinstance(v, cst.Name)
                    and v.value == param
                }
        if not stored:
            return False
        assert cls is not None
        for node in walk(cls):
            if not (isinstance(node, cst.Attribute) and node.attr.value in stored):
                continue
            if not _is_self(node.value):
                continue
            holder = self.t.parent(node)
            if isinstance(holder, cst.Element):  # `self.f1, self.f2 = ...`: a target
                holder = self.t.parent(self.t.parent(holder) or holder)
            if isinstance(holder, cst.AssignTarget):
                continue
            if not (
                isinstance(holder, cst.Attribute)
                and holder.attr.value in _HANDLE_WRITES | {"close"}
            ):
                return False
        return True


def _is_self(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Name) and node.value == "self"


def _same_holder(node: cst.CSTNode, bound: cst.CSTNode) -> bool:
    """`node` names what `bound` (a name, or `self.X`) holds."""
    if isinstance(bound, cst.Name):
        return isinstance(node, cst.Name) and node.value == bound.value
    assert isinstance(bound, cst.Attribute)
    return (
        isinstance(node, cst.Attribute)
        and _is_self(node.value)
        and node.attr.value == bound.attr.value
    )


def per_sample_write(transform: RankZeroOnly, node: cst.CSTNode) -> bool:
    """`node` is in code a loader runs per sample (a Dataset's `__getitem__` and what it
    calls: analysis/sample_code.py, planned by run_dir): each rank runs it for the samples
    of its own shard, so a file written there (a debug image or a cache entry named by the
    sample) is this rank's sample's, and rank 0 alone would write half of them (round 23,
    motokimura/yolo_v1_pytorch@c3e60d7's `cv2.imwrite` in its VOC Dataset: 8 of 16 written,
    unsaid). The write stays on every rank, as DataParallel's loader workers each wrote
    theirs."""
    return id(enclosing_function(node, transform)) in transform.run_dir.per_sample


def path_open_for_writing(call: cst.Call) -> bool:
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


def h5py_mode(call: cst.Call) -> bool:
    """`h5py.File(path, "w")` (or "a", "x", "w-"; positional or `mode=`): a literal mode that
    writes. On every rank each would create or truncate the file rank 0 is writing. Its
    mode is read as open()'s is (the second positional or `mode=`, "r" when left out)."""
    return open_mode(call) in H5PY_WRITE_MODES


def held_modes(node: cst.BaseExpression, flow: DefUse, depth: int = 0) -> set[str] | None:
    """Every file mode `node` may hold: a string literal, a conditional expression of such,
    or a name each binding that reaches it assigns one of these; None where one is anything
    else (a parameter, a call, an attribute)."""
    if depth > 4:
        return None
    if isinstance(node, cst.SimpleString):
        value = node.evaluated_value
        return {value} if isinstance(value, str) and _FILE_MODE.fullmatch(value) else None
    if isinstance(node, cst.IfExp):
        body, orelse = (
            held_modes(node.body, flow, depth + 1),
            held_modes(node.orelse, flow, depth + 1),
        )
        return body | orelse if body is not None and orelse is not None else None
    if not isinstance(node, cst.Name):
        return None
    definitions = flow.reaching(node)
    modes: set[str] = set()
    for definition in definitions:
        if definition.kind not in ("assign", "annassign") or definition.element:
            return None
        if definition.value is None:
            return None
        held = held_modes(definition.value, flow, depth + 1)
        if held is None:
            return None
        modes |= held
    return modes or None
