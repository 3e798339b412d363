"""An exists-check that raises, right before a directory is made: on rank 0, with it.

`if os.path.exists(save_dir): raise NameError("model dir exists!")` then
`os.makedirs(save_dir)` (wujiyang/Face_Pytorch@3afd941 train.py): the check protects a run
from being overwritten. On every rank it fails the run: once rank 0 has made the folder,
rank 1 finds it and raises (5 runs of 5). Making the directory idempotent does not help;
the check is what raises. So the check and the directory it guards go to rank 0 together:
the test becomes `ddp_is_main() and os.path.exists(save_dir)`, and the directory is made
as written by rank 0 while the other ranks wait for it (`ddp_mkdir(os.makedirs,
save_dir)`, mkdir.py), so no rank makes it before rank 0 has checked. An existing folder
still stops the run: rank 0 raises, and torchrun ends the other ranks.

Matched: an `if` without `else` whose test is `os.path.exists(p)` / `os.path.isdir(p)` /
`p.exists()` / `p.is_dir()` and whose body only raises (or exits), directly followed by the
mkdir of the same path `p`.
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from dp2ddp.transforms._support.nodes import walk
from dp2ddp.transforms.analysis.guards import main_call
from dp2ddp.transforms.rank_zero.mkdir import made_directory
from dp2ddp.transforms.rank_zero.rule import Rule

#: Tests that a path exists.
_EXISTS = frozenset({"os.path.exists", "os.path.isdir", "os.path.lexists"})
#: Methods of a pathlib path that test it exists.
_PATH_EXISTS = frozenset({"exists", "is_dir"})
#: Calls that end the program, as a `raise` does.
_EXITS = frozenset({"sys.exit", "builtins.exit", "builtins.quit", "os._exit"})


class ExistsChecks(Rule):
    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        #: ids of the directory-making calls an exists-check guards.
        self.checked_calls: set[int] = set()
        #: ids of those exists-checks.
        self._checks: set[int] = set()

    def plan(self, module: cst.Module) -> None:
        for block in walk(module):
            if not isinstance(block, (cst.IndentedBlock, cst.Module)):
                continue
            body = list(block.body)
            for check, following in zip(body, body[1:], strict=False):
                call = self._guarded_mkdir(check, following)
                if call is not None:
                    self.checked_calls.add(id(call))
                    self._checks.add(id(check))

    def _guarded_mkdir(
        self, check: cst.BaseStatement, following: cst.BaseStatement
    ) -> cst.Call | None:
        """The mkdir call `following` makes, when `check` raises if its path exists."""
        if not isinstance(check, cst.If) or check.orelse is not None:
            return None
        path = self._checked_path(check.test)
        if path is None or not self._only_exits(check.body):
            return None
        if not m.matches(following, m.SimpleStatementLine(body=[m.Expr(m.Call())])):
            return None
        assert isinstance(following, cst.SimpleStatementLine)
        expr = following.body[0]
        assert isinstance(expr, cst.Expr) and isinstance(expr.value, cst.Call)
        call = expr.value
        if any(arg.star for arg in call.args):
            return None
        made = made_directory(call, self.t.qualified_names(call.func))
        if made is None or self.t.code(made) != self.t.code(path):
            return None
        if self.facts.under_guard(call) or self.facts.in_except(call):
            return None
        if self.facts.before_setup(check):
            return None
        return call

    def _checked_path(self, test: cst.BaseExpression) -> cst.BaseExpression | None:
        """`p` of `os.path.exists(p)` or `p.exists()`; None for any other test."""
        if not isinstance(test, cst.Call) or test.lpar:
            return None
        if self.t.qualified_names(test.func) & _EXISTS:
            positional = [a for a in test.args if a.keyword is None and not a.star]
            return positional[0].value if len(test.args) == len(positional) == 1 else None
        func = test.func
        if isinstance(func, cst.Attribute) and func.attr.value in _PATH_EXISTS and not test.args:
            return func.value
        return None

    def _only_exits(self, body: cst.BaseSuite) -> bool:
        """The body is simple statements ending in a `raise` (or an exit call)."""
        if isinstance(body, cst.SimpleStatementSuite):
            smalls = list(body.body)
        else:
            lines = list(body.body)
            if not lines or not all(isinstance(s, cst.SimpleStatementLine) for s in lines):
                return False
            last = lines[-1]
            assert isinstance(last, cst.SimpleStatementLine)
            smalls = list(last.body)
        if not smalls:
            return False
        final = smalls[-1]
        if isinstance(final, cst.Raise):
            return True
        return (
            isinstance(final, cst.Expr)
            and isinstance(final.value, cst.Call)
            and bool(self.t.qualified_names(final.value.func) & _EXITS)
        )

    def leave_if(self, original: cst.If, updated: cst.If) -> cst.If:
        if id(original) not in self._checks:
            return updated
        self.t.record(original, "exists-check on rank 0 only, with the directory it guards")
        return updated.with_changes(
            test=cst.BooleanOperation(left=main_call(), operator=cst.And(), right=updated.test)
        )
