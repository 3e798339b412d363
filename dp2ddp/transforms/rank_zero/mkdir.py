"""Directories every rank creates: made idempotent, or made by rank 0 as the program says.

`os.mkdir(d)` / `os.makedirs(d)` / `path.mkdir()` outside a rank-0 block get `exist_ok=True`
(os.mkdir becomes os.makedirs): every rank may create the directory, in any order, and
finds it there afterwards. An exist_ok the program computes (`exist_ok=run_id == ""`: never
overwrite an existing run) is kept: the call becomes `ddp_mkdir(path.mkdir, ...)`, made by
rank 0 as written while the other ranks wait, bounded, for that directory instead of racing
it. No process group is needed, so this holds in a config parser that runs before
ddp_setup(). An exists-check that raises before it is rank 0's reading (run_dir.py).

Not folded into the agreement rule (run_dir.py), which makes a value each process reads on
its own rank 0's: a make with exist_ok=True reads nothing that differs between ranks, and a
make whose exist_ok the program computes is an effect rank 0 alone must have, not a value to
hand over (rank 0 raising FileExistsError as written, not each rank by its own finding). The
directory's path is one of the rule's sinks (made_directory).

`x.mkdir(...)` is pathlib's only where nothing says otherwise: hansen7/OcCo@4a236a6's
TrainLogger calls its own `self.mkdir()` (no exist_ok parameter), and `exist_ok=True` made
both ranks raise TypeError before training (stop 45, v3-B). `self.mkdir()` / `cls.mkdir()`
in a class that defines `mkdir` runs that method (migrated in its own right): left as it
is. Another `x.mkdir(...)` where the program defines a `mkdir` of its own (a class of this
module, or of another: ProgramHints.class_methods) is not proved pathlib's unless `x` is made
by a pathlib call in place (`Path(d).mkdir()`): left as written and said (DP101), as is
`self.mkdir()` in a class that does not define it (a base class's, unread). A call that
already passes `exist_ok=True` needs nothing, whoever's it is: no word.
"""

from __future__ import annotations

import libcst as cst
from libcst.codemod.visitors import AddImportsVisitor

from dp2ddp.transforms._support.nodes import enclosing_class, walk
from dp2ddp.transforms.rank_zero.edits import (
    append_keyword,
    call_through,
    is_false_literal,
    is_true_literal,
)
from dp2ddp.transforms.rank_zero.rule import CallRule
from dp2ddp.transforms.rank_zero.side_effects import (
    CHILD_PROCESSES,
    MAKEDIRS,
    MKDIR,
    repeat_safe_command,
)


class Directories(CallRule):
    def leave_call(
        self, original: cst.Call, updated: cst.Call, names: set[str]
    ) -> cst.BaseExpression | None:
        if names & (MKDIR | MAKEDIRS):
            return self._idempotent_mkdir(original, updated, names)
        if is_path_mkdir(original, names):
            if self._own_method(original) or _passes_exist_ok_true(updated):
                return updated  # the program's own method, or nothing to add either way
            unproved = self._not_proved_pathlib(original)
            if unproved is not None:
                if not self.facts.under_guard(original):
                    self.t.warn(original, "DP101", unproved)
                return updated
            return self._idempotent_mkdir(original, updated, names)
        return None

    def _own_method(self, call: cst.Call) -> bool:
        """`self.mkdir(...)` (or `cls.`) inside a class that defines `mkdir` itself: the
        program's own method runs, not pathlib's."""
        owner = enclosing_class(call, self.t)
        return _receiver_is_self(call) and owner is not None and _defines_mkdir(owner)

    def _not_proved_pathlib(self, call: cst.Call) -> str | None:
        """Why `x.mkdir(...)` is not proved pathlib's (DP101's detail), or None where it is
        taken as pathlib's: `self.mkdir()` of a class that does not define it, or any
        receiver but a pathlib call's result where the program defines a `mkdir` itself."""
        assert isinstance(call.func, cst.Attribute)
        receiver = self.t.code(call.func.value)
        if _receiver_is_self(call):
            return (
                f"{receiver}.mkdir() runs a method its class inherits (not read); "
                "not proved to be pathlib's, so no exist_ok=True was added"
            )
        owners = self._own_mkdirs()
        if not owners or _made_by_pathlib(call.func.value):
            return None
        return (
            f"{receiver}.mkdir() may be the program's own {owners[0]}() (no exist_ok "
            "parameter is known), not pathlib's: if it is a pathlib path, "
            "every rank makes the directory and all but the first raise FileExistsError"
        )

    def _own_mkdirs(self) -> list[str]:
        """The program's own methods named mkdir: this module's classes' and those of its
        other modules (ProgramHints.class_methods), as `Class.mkdir`."""
        here = [
            f"{c.name.value}.mkdir"
            for c in walk(self.facts.module)
            if isinstance(c, cst.ClassDef) and _defines_mkdir(c)
        ]
        told = sorted(
            ".".join(m.split(".")[-2:])
            for m in self.t.state.hints.class_methods
            if m.endswith(".mkdir")
        )
        return here + told

    def _idempotent_mkdir(self, original: cst.Call, updated: cst.Call, names: set[str]) -> cst.Call:
        """`os.mkdir(d)` / `os.makedirs(d)` / `path.mkdir()` run by every rank: the second
        rank finds the directory made and raises FileExistsError. With exist_ok=True the
        order does not matter, and ranks that write into the directory find it there.

        An exist_ok the program computes (`exist_ok=run_id == ""`) is the program's intent,
        not dp2ddp's to drop: exist_ok=False protects an existing run from being overwritten.
        The call goes through ddp_mkdir() (templates/helpers/mkdir.py.j2): rank 0 makes the
        directory as written; the other ranks wait, bounded, for it and make nothing, so no
        rank races rank 0. A path read from the clock or a random draw would differ between
        ranks: that read is shared from rank 0 (run_dir.py)."""
        if self.facts.under_guard(original):
            return updated
        if any(arg.star for arg in updated.args):
            return updated
        exist_ok = [
            i for i, a in enumerate(updated.args) if a.keyword and a.keyword.value == "exist_ok"
        ]
        positional = [a for a in updated.args if a.keyword is None]
        if not exist_ok and names & MAKEDIRS and len(positional) > 2:
            exist_ok = [2]  # os.makedirs(name, mode, exist_ok)
        if exist_ok and self.facts.in_except(original):
            # In a handler only some ranks may run: no waiting for rank 0 there. A make
            # with none given gets exist_ok=True there too, a change of this rank alone
            # (round 30, xcmyz/GST-Tacotron@7ff97fe: `except:` after a failed torch.load,
            # `if not os.path.exists(d): os.mkdir(d)`, raced on a fresh run, unsaid).
            return updated
        args = list(updated.args)
        if exist_ok:
            value = args[exist_ok[0]].value
            if is_true_literal(value):
                return updated
            if not is_false_literal(value):
                return self._made_by_main(
                    original,
                    updated,
                    "directory made by rank 0 with the program's exist_ok; other ranks wait for it",
                )
            args[exist_ok[0]] = args[exist_ok[0]].with_changes(value=cst.Name("True"))
            updated = updated.with_changes(args=args)
        else:
            updated = append_keyword(updated, "exist_ok", cst.Name("True"))
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
                AddImportsVisitor.add_needed_import(self.t.context, "os")
            updated = updated.with_changes(func=new_func)
        self.t.record(
            original, "directory created with exist_ok=True: every rank runs it, in any order"
        )
        return updated

    def _made_by_main(self, original: cst.Call, updated: cst.Call, description: str) -> cst.Call:
        """`path.mkdir(parents=True, exist_ok=flag)` ->
        `ddp_mkdir(path.mkdir, parents=True, exist_ok=flag)`: the program's own call,
        passed with its arguments, made on rank 0 only (see _idempotent_mkdir)."""
        self.t.state.helpers.add("mkdir")
        self.t.record(original, description)
        return call_through("ddp_mkdir", updated)


def made_directory(call: cst.Call, names: set[str]) -> cst.BaseExpression | None:
    """The path of the directory `os.mkdir(path)`, `os.makedirs(name=path)` or
    `path.mkdir()` makes; None for any other call (or a path dp2ddp cannot see). For a
    shell's `mkdir -p` (`os.system(f"mkdir -p {run_dir}")`, side_effects.repeat_safe_command,
    left to every rank as os.makedirs is) the whole command: a clock or a draw it is made
    from names the directory, so it becomes rank 0's value (run_dir.py) as for os.makedirs
    (stop 62 v4: else each rank made a folder of its own clock)."""
    if names & CHILD_PROCESSES and repeat_safe_command(call, names):
        return call.args[0].value
    if names & (MKDIR | MAKEDIRS):
        return next(
            (
                a.value
                for a in call.args
                if a.keyword is None or a.keyword.value in ("name", "path")
            ),
            None,
        )
    if is_path_mkdir(call, names):
        assert isinstance(call.func, cst.Attribute)
        return call.func.value
    return None


def is_path_mkdir(call: cst.Call, names: set[str]) -> bool:
    """`path.mkdir(parents=True)`: pathlib's mkdir (keywords only: an FTP client's
    `mkdir(name)` or any other positional form is someone else's). `self.mkdir()` is an
    object's own method (Directories decides whether it is proved to be not pathlib's)."""
    return (
        isinstance(call.func, cst.Attribute)
        and call.func.attr.value == "mkdir"
        and not names & MKDIR
        and all(
            a.keyword is not None and a.keyword.value in ("parents", "exist_ok", "mode")
            for a in call.args
        )
    )


def _passes_exist_ok_true(call: cst.Call) -> bool:
    """`x.mkdir(exist_ok=True)`: idempotent as written, whoever's mkdir it is."""
    return any(
        a.keyword is not None and a.keyword.value == "exist_ok" and is_true_literal(a.value)
        for a in call.args
    )


def _defines_mkdir(owner: cst.ClassDef) -> bool:
    """The class's own body defines a method `mkdir`."""
    return any(isinstance(s, cst.FunctionDef) and s.name.value == "mkdir" for s in owner.body.body)


def _receiver_is_self(call: cst.Call) -> bool:
    return (
        isinstance(call.func, cst.Attribute)
        and isinstance(call.func.value, cst.Name)
        and call.func.value.value in ("self", "cls")
    )


#: pathlib calls whose result is a path (`Path(d)`, `p.joinpath(d)`, `p.with_suffix(s)`).
_PATH_MAKERS = frozenset(
    (
        "Path",
        "PurePath",
        "PosixPath",
        "WindowsPath",
        "joinpath",
        "with_name",
        "with_suffix",
        "with_stem",
        "resolve",
        "absolute",
        "expanduser",
    )
)


def _made_by_pathlib(receiver: cst.BaseExpression) -> bool:
    """`Path(d)`, `Path(d) / "x"`, `p.joinpath(...)`: a path made in place."""
    while isinstance(receiver, cst.BinaryOperation) and isinstance(receiver.operator, cst.Divide):
        receiver = receiver.left
    if not isinstance(receiver, cst.Call):
        return False
    func = receiver.func
    name = func.attr.value if isinstance(func, cst.Attribute) else getattr(func, "value", None)
    return name in _PATH_MAKERS
