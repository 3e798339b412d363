"""Checkpoints written on rank 0 and read by every rank: where ddp_barrier() goes.

A guarded `torch.save` is followed by `ddp_barrier()` when the script also calls
`torch.load`, so no rank reads a checkpoint rank 0 is still writing. A barrier must be
reached by every rank: it goes after the outermost `if` around the save, and further out
after any statement whose condition or iteration may differ between ranks
(analysis/uniformity.py proves what does not: `if acc > best:` on a metric summed over the
ranks is fine, on a rank's own loss it is not). When no such place exists in the function
(it can leave early, or is called under a rank-local condition, in this module or in
another module of the program: uniformity.py's unreached_elsewhere) the barrier is left out,
said in the change record, and each load that may read the file (not a resume before any
save) gets a `ddp_barrier()` before it, or DP031 where that load is not reached by every
rank.

Program-wide: a save in another module of the program (its function or method named in
ProgramHints.saved_by) has no barrier this module could see, so each load of this module
that may follow one (a load before any call of a saving function of the program, such as a
resume at start-up, is left alone) gets a `ddp_barrier()` before it where every rank
reaches it, DP031 where not (thunlp/OpenNRE@8e42fd7: the example reloads the checkpoint
`framework.train_model()` wrote on rank 0 in framework/sentence_re.py, and rank 1 read a
half-written or the previous epoch's file). A function is named as it is defined too
(`evaluate(args)` after `from linear_eval import main as evaluate`). "May follow" is seen,
not guessed: a call of such a function earlier in the load's function (in its blocks, or a
loop around it), or of an instance of another module's class whose `__call__` saves
(`early_stopping(loss, model, path)` with EarlyStopping from utils/tools.py, whose best
checkpoint train() reloads after the epoch loop: zhouhaoyi/Informer2020@29f2a73). A load
with none before it is left as written: most often a file from elsewhere (OpenNRE's
pretrain.get_model() loads downloaded models), and a helper module shared by two programs
(one that saves, one that does not) must migrate the same way in both.

Any other file (issue 29): a file this pass sends to rank 0 (open(path, "w"), np.save,
`.to_csv`, `path.write_text`, pickle/json/yaml into such an open) whose path, as written, is
also read by every rank (open(path), np.load, pd.read_csv, `path.read_text()`) in this
module, in the same function or another, or by a call of another module's function that
reads a file at its parameter (`utils.load_cache(CACHE)`: ProgramHints.file_read_by; at or
under it, or lists it, for every file written within that folder: `Frames(ROOT)` listing
ROOT in `__init__`, file_paths.folders_elsewhere, stop 61), gets a `ddp_barrier()` after the
write where every rank arrives, as a checkpoint does; so does a call of another module's
function that writes one (`prep.build_cache(CACHE)`, at a parameter or a fixed path:
ProgramHints.file_written_by; or files under a folder it is handed, which a read within that
folder may be: file_paths.read_within), the barrier after the call. A preprocess-once cache
(`if not os.path.isfile(CACHE): ... pickle.dump(...)` then `pickle.load`) was read by rank 1
before rank 0 had finished it (a repo crashed on 3 of 3 first runs). Where no such place
exists, DP054 names both. The path is matched by its text, or by its shape (path_shapes.py):
a loop variable by the loop's iterable, a listing (glob, listdir) of the directory written
into; a read that may name the file in a way neither shows (a loop over another iterable,
one helper given other arguments, one attribute of another object) gets DP066 naming the
write and the read, as no barrier is placed. A library's function handed the written path
(or another module's function handing it there: ProgramHints.file_handed_by) is a read of
it; a file kept open off rank 0 is waited for after its `close()` (handle_close.py; stop 52
w4).
"""

from __future__ import annotations

import libcst as cst

from dp2ddp.flow import Definition, view
from dp2ddp.transforms._support.nodes import (
    calls_under,
    enclosing_class,
    enclosing_function,
    inside,
    nodes_of,
    statement_header,
    walk,
)
from dp2ddp.transforms.rank_zero.decided_paths import apart
from dp2ddp.transforms.rank_zero.edits import callee, functions_calling
from dp2ddp.transforms.rank_zero.file_paths import (
    argument_elsewhere,
    called_names,
    file_kinds,
    file_path,
    folders_elsewhere,
    library_read,
    parameters_apart,
    path_argument,
    read_elsewhere,
    read_within,
    shown_read,
    torch_receiver,
    written_elsewhere,
)
from dp2ddp.transforms.rank_zero.handle_close import (
    closing_call,
    exclusive_create,
    opened_handle,
)
from dp2ddp.transforms.rank_zero.maybe_read import maybe_read
from dp2ddp.transforms.rank_zero.path_forms import form_within, listing
from dp2ddp.transforms.rank_zero.path_shapes import (
    LOOP_NAME,
    concrete_paths,
    family,
    loop_pattern,
    spelled_same,
    suffix,
)
from dp2ddp.transforms.rank_zero.removal_reads import plan_removal
from dp2ddp.transforms.rank_zero.rule import Rule
from dp2ddp.transforms.rank_zero.save_order import (
    before_any_save,
    opening_with,
    saver_before,
    unsynced_before,
)
from dp2ddp.transforms.rank_zero.side_effects import (
    OPEN,
    REMOVALS,
    TORCH_LOAD,
    TORCH_SAVE,
)
from dp2ddp.transforms.rank_zero.writing_block import barrier, is_barrier, leaves, writing_block

#: Nodes between a guarded statement and the `if` chain it sits in (see _barrier_anchor).
_IF_PARTS = (cst.If, cst.Else, cst.IndentedBlock, cst.SimpleStatementLine, cst.SimpleStatementSuite)


class Barriers(Rule):
    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        #: Original statements after which a ddp_barrier() goes (see plan_after).
        self._after: set[int] = set()
        #: Each file call's path spelled out, for the paths no text matches
        #: (path_shapes.concrete_paths).
        self._spelled: dict[int, tuple[str, ...] | None] = {}
        #: A save got no barrier (no place every rank reaches): loads get one before them
        self.before_loads = False
        self.before_withs: set[int] = set()  # or before the `with open()` they read from
        #: This module's functions that save, or load, a checkpoint (edits.functions_calling).
        self._saving_functions: frozenset[str] | None = None
        self._loading_functions: frozenset[str] | None = None
        #: Functions and methods of the program's other modules that save (ProgramHints).
        self._saved_elsewhere: frozenset[str] = frozenset()
        #: A save of this module has no barrier after it.
        self._local_unsynced = False
        #: Those saves and why each has none, for DP031 (save_order.unsynced_before).
        self.unsynced: list[tuple[cst.Call, str]] = []
        #: Functions and methods of the program's other modules that load (ProgramHints).
        self._loaded_elsewhere: frozenset[str] = frozenset()
        #: The module loads a checkpoint: torch.load, or a call of another module's loader.
        self.loads = False
        #: ids of the file writes (not checkpoints) whose file every rank reads afterwards,
        #: and of the removals every rank waits for -> what rank 0 does there, for DP054.
        self._written_read: dict[int, str] = {}
        #: ids of those whose barrier goes nearest (wait_for; a write read in its block).
        self._removals: set[int] = set()
        #: ids of the module's file reads and listings, and the names of its functions:
        #: a loop holding none is a writing block its barrier may follow (plan_after).
        self._file_reads: set[int] = set()
        self._own_functions: set[str] = set()
        #: ids of the calls of another module's function that writes a file (rank 0
        #: alone, once migrated: ProgramHints.file_written_by).
        self._elsewhere: set[int] = set()

    def plan(self, module: cst.Module) -> None:
        """Whether some rank-0 save has no barrier after it, or another module of the
        program saves: then loads get one before."""
        self._plan_files(module)
        self._loaded_elsewhere = self.t.state.hints.loaded_by
        self.loads = self.facts.loads or any(
            self._loader_call(call) for call in nodes_of(module, cst.Call)
        )
        if not self.loads:
            return
        self._saved_elsewhere = self.t.state.hints.saved_by
        if self._saved_elsewhere:
            self.before_loads = True
        for call in nodes_of(module, cst.Call):
            if not self.t.matches(call.func, TORCH_SAVE):
                continue
            if self.facts.under_guard(call) or self.facts.in_except(call):
                continue
            anchor, omitted = self.plan_after(call)
            if omitted is None and anchor is not None and self._loads_inside(anchor, call):
                omitted = f"its barrier goes after `{statement_header(anchor)}`, past a load in it"
            if omitted is not None:
                self.before_loads = self._local_unsynced = True
                line = self.t.input_position(call)[0]
                self.unsynced.append((call, f"rank 0's save at line {line} ({omitted})"))

    def _plan_files(self, module: cst.Module) -> None:
        """The writes of files every rank reads afterwards (see the module's docstring): a
        barrier after each, where every rank arrives, or DP054 naming the write and the read;
        DP066 where the read may be the written file and no text shows it (path_shapes.py)."""
        writes: list[tuple[cst.Call, tuple[str, ...]]] = []
        reads: dict[str, list[cst.Call]] = {}
        listings: list[tuple[cst.Call, str, str]] = []
        removals: list[cst.Call] = []
        iterables: dict[str, int] = {}
        index = self.facts.uniform.index
        first_read: list[cst.Call] = []
        handed: list[cst.Call] = []  # no known read: a library's may read its argument
        for call in nodes_of(module, cst.Call):
            if self.facts.under_guard(call):
                continue
            if self.facts.in_except(call):
                continue
            names = self.t.qualified_names(call.func)
            if names & REMOVALS:
                removals.append(call)
            written = file_path(call, self.t, index, write=True)
            if written is None:
                hints = self.t.state.hints
                written = written_elsewhere(call, self.t, index, hints.file_written_by)
                if written is not None:
                    self._elsewhere.add(id(call))
            if written is not None:
                writes.append((call, self._with_pattern(written, call, iterables)))
            if self.facts.before_setup(call):
                continue
            read = file_path(call, self.t, index, write=False) or read_elsewhere(
                call, self.t, index, self.t.state.hints.file_read_by
            )
            if read is None:
                handed.append(call)
            if read is not None:
                first_read.append(call)
                for text in self._with_pattern(read, call, iterables):
                    reads.setdefault(text, []).append(call)
            listed = listing(call, self.t)  # its folder's form (path_forms.py)
            if listed is not None:
                listings.append((call, *listed))
            for folder in folders_elsewhere(call, self.t, self.t.state.hints.file_read_by):
                listings.append((call, *folder))  # another module's reader (stop 61)
                listed = listed or folder
            if read is not None or listed is not None:
                self._file_reads.add(id(call))
        self._own_functions = {node.name.value for node in nodes_of(module, cst.FunctionDef)}
        write_texts = {text for _, texts in writes for text in texts}
        for call in handed if writes else ():  # a path handed to a library (stop 52 w4)
            handed_to = self.t.state.hints.file_handed_by
            texts = (library_read(call, self.t, index) or ()) + (
                read_elsewhere(call, self.t, index, handed_to) or ()
            )
            for text in set(texts) & write_texts:  # one of those paths: a read in its loop
                reads.setdefault(text, []).append(call)
                self._file_reads.add(id(call))
        unmatched: list[tuple[cst.Call, tuple[str, ...], list[cst.Call]]] = []
        calls = nodes_of(module, cst.Call) if writes else ()
        called = frozenset(n for c in calls for n in called_names(c, self.t))
        for write, texts in writes:
            matched = [
                (t, r)
                for t in texts
                for r in reads.get(t, ())
                if self.may_follow(write, r) and self.kinds_meet(write, r)
            ]
            matched += [
                (f"{texts[0]}` in `{self.t.code(lister)}", lister)
                for t in texts
                for lister, folder, wanted in listings
                if form_within(t, folder)
                and not (wanted and suffix(t) and suffix(t) != wanted)
                and self.may_follow(write, lister)
            ]
            if id(write) in self._elsewhere:  # files under a folder it is handed
                hints = self.t.state.hints
                within = read_within(write, self.t, hints.file_written_by, reads)
                matched += [(texts[0], r) for _, r in within if self.may_follow(write, r)]
            spelled = self.spell(write, write=True)
            maybe: list[cst.Call] = []
            for reader in first_read if not matched and spelled else ():
                verdict = spelled_same(spelled or (), self.spell(reader, write=False) or ())
                if verdict and self.may_follow(write, reader):
                    if verdict == "same":
                        matched.append((texts[0], reader))
                    maybe.append(reader)
            if not matched:
                unmatched.append((write, texts, maybe[:1]))
                continue
            path, readers = matched[0][0], [r for _, r in matched]
            if exclusive_create(self.t, write, readers[0]):
                continue  # no barrier after it reaches every rank: DP054 said
            if LOOP_NAME in path:
                path = texts[0]
            anchor, omitted = self.plan_after(write, leave_loops=True)
            read_line = self.t.input_position(readers[0])[0]
            early = [r for r in readers if anchor is not None and inside(r, anchor, self.t)]
            if early and self.plan_after(write, nearest=True) == (None, None):
                # every rank reaches the write itself (Face_Pytorch@3afd941 train.py: under
                # `if total_iters % args.test_freq == 0:`): the barrier right after it
                anchor, early, omitted = None, [], None
                self._removals.add(id(write))
            if early and anchor is not None:
                read_line = self.t.input_position(early[0])[0]
                omitted = f"the read is inside `{statement_header(anchor)}`, before a barrier"
            if omitted is not None and all(
                parameters_apart(write, r, path, self.t, called) for r in early or readers
            ):
                continue  # the callers pair them (file_written_by): barrier or DP054 there
            if omitted is not None:
                shown = shown_read(self.t, write, (early or readers)[0], path)
                self.t.warn(
                    write,
                    "DP054",
                    f"written on rank 0 here, read by every rank at line {read_line} "
                    f"{shown}; no barrier between: {omitted}",
                )
                continue
            if id(write) in self._elsewhere:
                # Every rank calls it; rank 0 alone writes in there: the barrier follows it
                # (or the statement every rank arrives after), before the read.
                self.t.state.helpers.add("barrier")
                self._after.add(id(anchor if anchor is not None else self._statement(write)))
                why = f"writes `{path}` on rank 0 (another module), read at line {read_line}"
                self.t.record(write, f"ddp_barrier() after it: it {why}")
                continue
            self._written_read[id(write)] = (
                f"written on rank 0 here, read by every rank at line {read_line}"
            )
            statement = self._statement(write)
            handle = opened_handle(statement, write)
            if handle is not None:  # kept open off rank 0 (handle_close.py)
                close = closing_call(self, statement, handle)
                anchor, omitted = (
                    self.plan_after(close, leave_loops=True) if close else (None, None)
                )
                omitted = omitted if close else f"`{handle}` is not closed where it is opened"
                if omitted is not None:
                    self.t.warn(
                        write,
                        "DP054",
                        f"{self._written_read.pop(id(write))}; no barrier between: {omitted}",
                    )
                elif close is not None:
                    self.t.state.helpers.add("barrier")
                    self._after.add(id(anchor if anchor is not None else self._statement(close)))
            elif (
                isinstance(statement, cst.With)
                and not self.t.file_writes.file_kinds(statement)
                or isinstance(self.t.parent(write), cst.Arg)
                and self.t.matches(write.func, OPEN)
            ):
                # Not guarded whole (its body does more than write; or `pickle.dump(log,
                # open(p, "wb"))`, closed as the statement ends: round 32, 3neutronstar/
                # GuidedMixup@73494e1): opened off rank 0 on a scratch file (file_writes.py),
                # so no guarded group places this barrier; it follows the statement, or the
                # one every rank arrives after.
                self.t.state.helpers.add("barrier")
                self._after.add(id(anchor if anchor is not None else statement))
        for write, texts, maybe in unmatched:  # once every barrier for a matched read is known
            maybe_read(self, write, texts, reads, maybe, [w for w, _ in writes])

        for removal in removals:
            plan_removal(self, removal, reads)

    def _with_pattern(
        self, texts: tuple[str, ...], call: cst.Call, iterables: dict[str, int]
    ) -> tuple[str, ...]:
        """`texts`, and the first one's loop pattern (path_shapes.loop_pattern) if a loop
        around `call` binds a name of it."""
        pattern = loop_pattern(texts[0], call, self.t, self.t.code, iterables)
        kin = family(texts, call, self.t)  # `{name}.ext` of a loop or a parameter's names
        return (*texts, *(p for p in (pattern, kin) if p is not None))

    def spell(self, call: cst.Call, *, write: bool) -> tuple[str, ...] | None:
        """The paths `call` writes or reads at, spelled out (path_shapes.concrete_paths)."""
        if id(call) not in self._spelled:
            hints = self.t.state.hints
            path = path_argument(call, self.t, write=write) or argument_elsewhere(
                call, self.t, hints.file_written_by if write else hints.file_read_by
            )
            self._spelled[id(call)] = concrete_paths(path, call, self.t)
        return self._spelled[id(call)]

    def spelled_at(self, call: cst.Call) -> tuple[str, ...] | None:
        """The paths `call` was spelled out at (spell), None when not asked yet."""
        return self._spelled.get(id(call))

    def kinds_meet(self, write: cst.Call, read: cst.Call) -> bool:
        """The write and the read may be of one file: not two other modules' functions
        naming the kinds of file they write and read under a folder, none in common
        (file_paths.file_kinds: `.json` scores beside `.png` predictions)."""
        hints = self.t.state.hints
        wrote = file_kinds(write, self.t, hints.file_written_by)
        read_kinds = file_kinds(read, self.t, hints.file_read_by)
        return not (wrote and read_kinds and not wrote & read_kinds)

    def may_follow(self, write: cst.CSTNode, read: cst.CSTNode) -> bool:
        """The read may run after the write: later in the module's text, or in another
        function (called after it, or not: a barrier every rank reaches costs little)."""
        if enclosing_function(write, self.t) is not enclosing_function(read, self.t):
            return True
        return self.t._position(read) > self.t._position(write)

    def writes_read_file(self, nodes: list[cst.CSTNode]) -> cst.CSTNode | None:
        """The call of `nodes` (a guarded group) that writes a file every rank reads
        afterwards, or removes what every rank uses; None when there is none."""
        if not self._written_read:
            return None
        return next((n for node in nodes for n in walk(node) if id(n) in self._written_read), None)

    def wait_for(self, removal: cst.Call, *, nearest: bool = False) -> None:
        """Every rank waits for this rank-0 call before going on, as for a write of a file
        every rank reads: a shared directory removed on rank 0 (run_dir.py's decided
        checks), which another rank would otherwise write into before it is gone. With
        `nearest` the barrier goes right after the removal's guard (see plan_after)."""
        self._written_read[id(removal)] = "removed on rank 0 here, used by every rank after it"
        if nearest:
            self._removals.add(id(removal))

    def follows(self, statement: cst.CSTNode) -> bool:
        """A ddp_barrier() goes right after this original statement."""
        return id(statement) in self._after

    def after_save(
        self,
        first: cst.CSTNode,
        out: list[cst.BaseStatement],
        *,
        file_read: cst.CSTNode | None = None,
        checkpoint: bool = True,
    ) -> str:
        """The barrier after a guarded group holding a save, or a write of a file every rank
        reads, or a removal every rank waits for (`file_read`, that call; appended to `out`,
        or placed after an enclosing statement); what the change record adds about it.

        Where no place every rank reaches exists, a checkpoint's loads wait at a barrier
        before them instead (before_load); a file read or a removal has no such fallback,
        so DP054 says so: a note in the change record would pass `--check` silently."""
        description = ""
        if not (self.loads or file_read) or self.facts.in_except(first):
            return description
        leave_loops = file_read is not None and not checkpoint
        nearest = file_read is not None and id(file_read) in self._removals
        anchor, omitted = self.plan_after(first, leave_loops=leave_loops, nearest=nearest)
        if omitted is not None:
            description += f"; no ddp_barrier() after it: {omitted}"
            if checkpoint:
                description += " (the loads wait at one instead)"
            if file_read is not None:
                self.t.warn(
                    file_read,
                    "DP054",
                    f"{self._written_read[id(file_read)]} (`{self.t.code(file_read)}`); "
                    f"no barrier between: {omitted}",
                )
        elif anchor is None:
            self.t.state.helpers.add("barrier")
            out.append(barrier())
            description += ", then ddp_barrier() so no rank loads a half-written file"
        else:
            self.t.state.helpers.add("barrier")
            self._after.add(id(anchor))
            description += (
                f", then ddp_barrier() after the enclosing `{statement_header(anchor)}` "
                "(every rank must reach it)"
            )
        return description

    def plan_after(
        self, save: cst.CSTNode, *, leave_loops: bool = False, nearest: bool = False
    ) -> tuple[cst.CSTNode | None, str | None]:
        """Where the ddp_barrier() after a rank-0 save goes: (the statement it follows, None
        for right after the save's guard; why there is none, None when there is one).

        Not next to the save: a condition such as `if accuracy > best:` may differ between
        ranks, and a barrier only some ranks reach hangs. It goes after the outermost `if`
        around the save in its block, or further out after the outermost statement whose
        condition or iteration may differ between ranks (see analysis/uniformity.py). There is
        no such place when that statement can leave early (return, break, ...), or when the
        function is called where not every rank arrives: then the barrier is left out.
        With `leave_loops` (a file write whose reads are known: none inside the loop), a
        loop a rank may leave by `break` also counts as such a statement: the barrier goes
        after it, where a rank that broke out arrives too. With `nearest` (a removal the
        ranks wait for: they use the path again right after it, in the same `if`), the
        barrier goes right after the guard where every rank reaches it there.
        """
        chain: cst.CSTNode | None = None
        parent = self.t.parent(self._statement(save))
        while isinstance(parent, _IF_PARTS):
            if isinstance(parent, cst.If):
                chain = parent
            parent = self.t.parent(parent)
        dependent = self.facts.uniform.rank_dependent_around(save)
        left = self._loop_left_per_rank(save) if leave_loops else None
        if left is not None and (dependent is None or inside(dependent, left, self.t)):
            dependent = left
        anchor = None if nearest else chain
        if (
            chain is not None
            and dependent is None
            and not leave_loops
            and self._loads(chain, own=True)
        ):
            # every rank takes the chain's branches alike, and a load in it follows the
            # save: the barrier goes next to the save, before that load
            anchor = None
        if dependent is not None and (chain is None or inside(chain, dependent, self.t)):
            anchor = dependent
        if leave_loops and not nearest:
            anchor = (
                writing_block(
                    self.t, anchor or self._statement(save), self._file_reads, self._own_functions
                )
                or anchor
            )
        if anchor is not None and leaves(anchor):
            if dependent is None:
                return None, None  # every rank takes the same branches: next to the save
            return (
                None,
                f"`{statement_header(anchor)}` may differ between ranks and can leave early",
            )
        # the barrier goes after `anchor`: what leaves from inside it was judged just above,
        # and no condition around it may differ between ranks
        why = self.facts.uniform.why_not_reached(anchor or self._statement(save), conditions=False)
        if why is not None:
            return None, why
        return anchor, None

    def _loads_inside(self, anchor: cst.CSTNode, save: cst.Call) -> bool:
        """A load inside the statement the barrier follows (a loop that saves, then loads
        back): the barrier after it comes too late for that load, which then waits at one of
        its own, or gets DP031 (before_load). Not one in the `if`'s other branch where every
        rank takes the same branch (decided_paths.apart: a cache built when absent)."""
        return any(not apart(self.t, load, save, anchor) for load in self._loads(anchor))

    def _loads(self, root: cst.CSTNode, *, own: bool = False) -> list[cst.Call]:
        """The checkpoint loads under `root`: torch.load, another module's loader, and with
        `own` a call of this module's function that loads (khassanoff/Speaker_Verification@
        fd8904d: `eer = testVoxCeleb(ckpt_model_path)` right after the save, in its `if`).
        Only for the `if` around a save: a barrier before every call of a function that
        loads somewhere (`main()` itself) would wait where nothing was saved."""
        if own and self._loading_functions is None:
            self._loading_functions = functions_calling(
                self.facts.module, lambda c: self.t.matches(c.func, TORCH_LOAD)
            )
        loading = self._loading_functions if own and self._loading_functions else frozenset()
        return [
            call
            for call in walk(root, skip_scopes=True)
            if isinstance(call, cst.Call)
            and (
                self.t.matches(call.func, TORCH_LOAD)
                or self._loader_call(call)
                or callee(call) in loading
            )
        ]

    def _loop_left_per_rank(self, node: cst.CSTNode) -> cst.BaseCompoundStatement | None:
        """The outermost loop around `node` (in its function) that a rank may leave on its
        own: a `break`, `return` or `raise` in it under a condition that may differ between
        ranks (`if loss.item() > limit: break`). A barrier inside it would wait for a rank
        that left."""
        found: cst.BaseCompoundStatement | None = None
        parent = self.t.parent(node)
        while parent is not None and not isinstance(parent, (cst.FunctionDef, cst.Module)):
            if isinstance(parent, (cst.For, cst.While)) and any(
                isinstance(exit_, (cst.Break, cst.Return, cst.Raise))
                and any(
                    inside(statement, parent, self.t) and statement is not parent
                    for statement in self.facts.uniform.rank_dependent_statements(exit_)
                )
                for exit_ in walk(parent.body, skip_scopes=True)
            ):
                found = parent
            parent = self.t.parent(parent)
        return found

    def _statement(self, node: cst.CSTNode) -> cst.CSTNode:
        """The statement line (or `with`) holding `node`."""
        current = node
        while not isinstance(
            current, (cst.SimpleStatementLine, cst.SimpleStatementSuite, cst.With)
        ):
            parent = self.t.parent(current)
            if parent is None:
                return current
            current = parent
        return current

    def saves(self, node: cst.CSTNode) -> bool:
        """`node` saves a checkpoint: torch.save, or a call of a function of this module that
        does (followed through its calls)."""
        if self._saving_functions is None:
            self._saving_functions = functions_calling(  # or another module's (`learn()`)
                self.facts.module,
                lambda c: self.t.matches(c.func, TORCH_SAVE) or bool(self.saves_elsewhere(c)),
            )
        return any(
            self.t.matches(c.func, TORCH_SAVE)
            or callee(c) in self._saving_functions
            or self.saves_elsewhere(c)
            for c in calls_under(node)
        )

    def _loader_call(self, call: cst.Call) -> bool:
        """A call of another module's loading function (`utils.load_checkpoint(...)`,
        `load_best(...)`, `trainer.restore()`, `evaluate(args)` of `from evaluate import
        main as evaluate`): it reads a checkpoint as torch.load does. Not a method of a
        torch object (`model.train()` of `model = nn.DataParallel(net)`: nn.Module's mode,
        not another module's `Trainer.train` that loads; round 34, thunlp/DocRED@64622e6,
        a false DP031)."""
        return bool(called_names(call, self.t) & self._loaded_elsewhere) and not torch_receiver(
            self.t, self.facts.module, call, own=True
        )

    def saves_elsewhere(self, call: cst.Call) -> str:
        """The name of the other module's saving function `call` may call (`train_model` of
        `framework.train_model(...)`, `utils.save_checkpoint`, an imported name), or ""; not
        a method of a torch object (_loader_call)."""
        if torch_receiver(self.t, self.facts.module, call) or any(
            n.startswith("torch.") for n in self.t.qualified_names(call.func)
        ):  # `torch.load(p)` is no `CorpusLoader.load()` (round 37, awd-lstm-lmkit@6510d06)
            return ""
        found = sorted(called_names(call, self.t) & self._saved_elsewhere)
        if found:
            return found[0]
        for cls in self._instance_classes(call.func):
            if f"{cls}.__call__" in self._saved_elsewhere:
                return f"{cls}.__call__"
        return ""

    def _instance_classes(self, func: cst.BaseExpression) -> list[str]:
        """The class names `func` may be an instance of, called (`early_stopping(...)` after
        `early_stopping = EarlyStopping(...)`, or `self.stopper(...)`): an imported class
        whose `__call__` saves (zhouhaoyi/Informer2020@29f2a73: EarlyStopping in utils/tools.py
        saves the best checkpoint, which train() reloads after the epoch loop)."""
        if not self._saved_elsewhere:
            return []
        flow = view(self.facts.module)
        definitions: list[Definition] = []
        if isinstance(func, cst.Name):
            definitions = flow.definitions(func)
        elif (
            isinstance(func, cst.Attribute)
            and isinstance(func.value, cst.Name)
            and func.value.value == "self"
        ):
            owner = enclosing_class(func, self.t)
            if owner is not None:
                definitions = flow.attribute_definitions(owner, func.attr.value)
        found = []
        for definition in definitions:
            value = definition.value
            if isinstance(value, cst.Call):
                called = value.func
                if isinstance(called, cst.Attribute):
                    found.append(called.attr.value)
                elif isinstance(called, cst.Name):
                    found.append(called.value)
        return found

    def before_load(self, original: cst.BaseStatement) -> bool:
        """A statement that loads a checkpoint gets a ddp_barrier() before it when a save had
        none after it; False (with DP031 where it is needed) when it cannot."""
        if not self.before_loads or not isinstance(original, cst.SimpleStatementLine):
            return False
        loads = self._loads(original)
        if not loads or self.facts.under_guard(original) or self.facts.before_setup(original):
            return False
        if before_any_save(self, original):
            return False  # resuming: reads what an earlier run wrote
        function = enclosing_function(original, self.t)
        saver = saver_before(self, original, set())
        if not saver and not self._local_unsynced:
            # Only another module saves, and no call of its saving function is seen before
            # this load: a file from elsewhere (OpenNRE's pretrain.get_model() loads
            # downloaded models), or a helper whose callers are not seen. Left as written:
            # a barrier here would also differ between the programs that share the module.
            return False
        why = (
            f"rank 0 saves in {saver}() (another module of the program)"
            if saver
            else "a rank-0 save above could have none after it"
        )
        unsynced = "rank 0's save"
        if self.facts.uniform.rank_dependent_around(original) is not None or (
            function is not None
            and (
                self.facts.uniform.unreached_call(function) is not None
                or self.facts.uniform.unreached_elsewhere(function) is not None
            )
        ):
            self.t.warn(
                loads[0],
                "DP031",
                f"{why}, and this load is not reached by every rank"
                if saver
                else f"{unsynced_before(self, original) or unsynced} has no barrier every "
                "rank reaches, "
                "and this load has none either",
            )
            return False
        self.t.state.helpers.add("barrier")
        self.t.record(loads[0], f"ddp_barrier() before this load: {why}")
        if (opening := opening_with(original, self.t.parent)) is not None:
            self.before_withs.add(id(opening))  # before the open (round 36, d-bert)
        return opening is None

    def synced_after(self, statement: cst.BaseStatement, synced: bool) -> bool:
        """Whether, after `statement`, every rank has passed a barrier since the last save."""
        if is_barrier(statement) or id(statement) in self._after:
            return True
        if self.before_loads and self.saves(statement):
            return False
        return synced
