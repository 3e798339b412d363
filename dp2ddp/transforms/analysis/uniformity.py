"""Which values are the same on every rank, and which places every rank reaches.

An inserted collective (`ddp_barrier()`) must be reached by every rank the same number of
times, or the ranks that reach it wait forever. So it may only go where the path from the
function's start depends on nothing rank-local: a condition such as `if score > best:` is
the same on every rank only when `score` is, and a function called under such a condition
is reached by some ranks only.

"Uniform" is proved, never assumed. A value is uniform when it is built only from:
literals; imports, functions and classes; WORLD_SIZE; what `ddp_all_reduce_sum` returns
(summed over the ranks); deterministic builtins and arithmetic on uniform values; attributes
and methods (`args.epochs`, `x.item()`) of uniform values when every assignment to that
attribute in the module is uniform (`setattr(x, "epochs", ...)` counts, as not uniform; a
computed setattr name is not followed) and, in a program, no other module assigns it; the
command-line (`parser.parse_args()`: torchrun gives every process the same argv);
`torch.load` (every rank reads one file, written before the run or behind a barrier); calls
of functions of this module whose every return is uniform; parameters whose every call site
in the module passes a uniform argument, the same one at every site or else at sites every
rank reaches (`f(True)` on rank 0 and `f(False)` elsewhere give each rank its own value).
A name's value is the one bound last before the use in its block and the blocks around it;
a binding inside a branch or loop also needs uniform branch and loop conditions.

Values that cross modules (constructor arguments, other modules' functions, parsed command
lines): across_modules.py.
A place in a function is reached by every rank only when every call of the function is, in
this module (unreached_call) and in every other module of the program that may call it
(unreached_elsewhere: a barrier in `Checkpoint.save` of pkg/ckpt.py hung the ranks when
train.py called it under `if time.time() - t0 > every:`). Anything else (a loss, a per-rank
metric, `time.time()`, `os.path.exists`, a value from a DataLoader, RANK) may differ between ranks.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import TYPE_CHECKING

import libcst as cst
import libcst.matchers as m

from dp2ddp.flow import view
from dp2ddp.transforms._support.children import children_of
from dp2ddp.transforms._support.names import SHARD_BATCH
from dp2ddp.transforms._support.nodes import (
    NodeView,
    code_of,
    enclosing_function,
    leaves_past,
    name_of,
    statement_header,
    walk,
)
from dp2ddp.transforms.analysis.across_modules import (
    external_call,
    stored_elsewhere,
)
from dp2ddp.transforms.analysis.alike_evaluations import (
    COMPREHENSIONS,
    alike_call,
    comprehension_alike,
    comprehension_target,
)
from dp2ddp.transforms.analysis.fixed_memo import FixedPoint
from dp2ddp.transforms.analysis.guards import bar_iterable, mentions_rank
from dp2ddp.transforms.analysis.module_index import (
    BLOCKS,
    ModuleIndex,
    binds_name,
    direct_calls,
    imports_name,
    mutation_root,
    operands,
)
from dp2ddp.transforms.analysis.none_tests import class_test, never_none, none_test
from dp2ddp.transforms.analysis.random_draws import in_same_random, shared_stream
from dp2ddp.transforms.analysis.sharded_passes import left_per_rank, sharded_passes_alike
from dp2ddp.transforms.analysis.uniform_names import (
    UNIFORM_CALLS,
    UNIFORM_GLOBALS,
    UNIFORM_METHODS,
    UNIFORM_PREFIXES,
)
from dp2ddp.transforms.analysis.uniform_parameters import parameter_alike

if TYPE_CHECKING:
    from dp2ddp.facts import ProgramFacts, Uniformity
    from dp2ddp.transforms._support.base import MigrationTransform

__all__ = ["RankUniformity", "direct_calls"]

_LITERALS = (cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString, cst.Ellipsis)
_OPERATIONS = (
    cst.BinaryOperation,
    cst.UnaryOperation,
    cst.BooleanOperation,
    cst.Comparison,
    cst.IfExp,
    cst.Tuple,
    cst.List,
    cst.Set,
    cst.Dict,
    cst.FormattedString,
    cst.ConcatenatedString,
    cst.Subscript,
)
_LOOPS = (cst.For, cst.While)


class RankUniformity:
    """Answers "same on every rank?" for one module (see the module docstring)."""

    def __init__(
        self,
        module: cst.Module,
        view: NodeView,
        program: ProgramFacts | None = None,
        filename: str | None = None,
    ) -> None:
        """`view` answers parents and qualified names of `module`'s nodes (a pass, or the
        tree's PassMetadata); `program` and `filename` place the module in a program
        (None: a single file, which is then the program)."""
        self.view = view
        self.module = module
        self.program = program
        self.filename = filename
        self.index = ModuleIndex(module, view)
        #: The answers (fixed_memo.py: the same whatever the order of the questions).
        self._answers = FixedPoint()
        self._memo = self._answers.final
        #: The data pass has run: a loader it left whole is every rank's (alike_evaluations).
        self.loaders_placed = False
        #: Parameters whose call sites are being judged (_parameter): a cycle proves nothing.
        self._judging_sites: set[tuple[int, str]] = set()
        #: ids of calls the migration makes rank 0's value on every rank (see share).
        self._shared: set[int] = set()
        #: The module's original text, asked by another module (program/uniformity.py).
        self.original_text = False

    def share(self, expr: cst.BaseExpression, *, undo: bool = False) -> None:
        """`expr` becomes one value on every rank (`ddp_rank0_value(...)`, `ddp_stdin(...)`,
        `ddp_any_rank(mark)`: rank_zero's agreement rules), so a condition made of it is
        every rank's (`undo`: no longer). Earlier answers are forgotten."""
        (self._shared.discard if undo else self._shared.add)(id(expr))
        self._answers.clear()

    def is_shared(self, expr: cst.BaseExpression) -> bool:
        return id(expr) in self._shared  # made one value on every rank (share)

    @classmethod
    def for_pass(cls, transform: MigrationTransform, module: cst.Module) -> RankUniformity:
        """The module a pass is visiting, placed where the pass's state says."""
        made = cls(module, transform, transform.state.program, transform.context.filename)
        made.loaders_placed = transform.state.loaders_placed
        return made

    @property
    def memo(self) -> dict[Hashable, bool]:
        """Answers kept for this module (alike_evaluations.py keeps its once-per-module ones)."""
        return self._memo

    # -- places ---------------------------------------------------------------------------
    def rank_dependent_around(self, node: cst.CSTNode) -> cst.BaseCompoundStatement | None:
        """The outermost statement around `node`, within its function, whose condition or
        iteration may differ between ranks (so not every rank reaches `node`); None when
        every rank that enters the function reaches it."""
        found = self.rank_dependent_statements(node)
        return found[-1] if found else None

    def rank_dependent_statements(self, node: cst.CSTNode) -> list[cst.BaseCompoundStatement]:
        """Every statement around `node`, within its function, innermost first, whose
        condition or iteration may differ between ranks (an `except` counts: an exception
        is raised on one rank)."""
        found: list[cst.BaseCompoundStatement] = []
        child, parent = node, self.view.parent(node)
        while parent is not None and not isinstance(
            parent, (cst.FunctionDef, cst.ClassDef, cst.Lambda, cst.Module)
        ):
            if isinstance(parent, cst.If) and child is not parent.test:
                if not self.value(parent.test, parent):
                    found.append(parent)
            elif isinstance(parent, cst.For) and child is not parent.iter:
                if not self.value(parent.iter, parent) and not self._passes_alike(parent):
                    found.append(parent)
            elif isinstance(parent, cst.While) and child is not parent.test:
                if not self._while_uniform(parent):
                    found.append(parent)
            elif isinstance(parent, cst.Try) and isinstance(
                child, (cst.ExceptHandler, cst.ExceptStarHandler)
            ):
                found.append(parent)  # an exception is raised on one rank
            elif isinstance(parent, cst.TryStar) and isinstance(child, cst.ExceptStarHandler):
                found.append(parent)
            child, parent = parent, self.view.parent(parent)
        return found

    def branch_header(self, statement: cst.BaseCompoundStatement, node: cst.CSTNode) -> str:
        """`statement`'s header as `node` runs under it, for a message: `if a`, or in an
        `elif` chain the branch holding `node`, `elif b` (after `if a`), or `else` of `if a`
        (ae-foster/pytorch-simclr@cd4744c configs.py: a call under `elif dataset ==
        'cifar10'` was said to run under `if dataset == 'cifar100'`)."""
        first = f"`{statement_header(statement)}`"
        if not isinstance(statement, cst.If):
            return first
        above = {id(a) for a in self._above(node)}
        branch: cst.If | cst.Else | None = statement
        while isinstance(branch, cst.If):
            if id(branch.body) in above:
                if branch is statement:
                    return first
                return f"`elif {code_of(branch.test)}` (after {first})"
            branch = branch.orelse
        return f"the `else` of {first}" if branch is not None else first

    def _above(self, node: cst.CSTNode) -> list[cst.CSTNode]:
        found: list[cst.CSTNode] = []
        parent = self.view.parent(node)
        while parent is not None:
            found.append(parent)
            parent = self.view.parent(parent)
        return found

    def left_before(self, node: cst.CSTNode) -> cst.BaseCompoundStatement | None:
        """An earlier statement of `node`'s function (in its block or one around it) that may
        leave (return, raise, or break/continue a loop around `node`) under a condition that
        differs between ranks, so not every rank reaches `node` (`if os.path.isfile(cache):
        return` before a rank-0 write and its barrier: a hang)."""
        child, parent = node, self.view.parent(node)
        while parent is not None and not isinstance(
            parent, (cst.FunctionDef, cst.ClassDef, cst.Lambda, cst.Module)
        ):
            if isinstance(parent, cst.IndentedBlock):
                for earlier in parent.body:
                    if earlier is child:
                        break
                    if self.returns_per_rank(earlier):
                        return earlier  # type: ignore[return-value]
            child, parent = parent, self.view.parent(parent)
        return None

    def returns_per_rank(self, statement: cst.BaseStatement) -> bool:
        """A jump out of `statement` under a condition of it that may differ between ranks."""
        return self.exit_decider(statement) is not None

    def exit_decider(self, statement: cst.BaseStatement) -> cst.BaseCompoundStatement | None:
        """The statement in `statement` (itself or one inside it) whose condition, differing
        between ranks, decides a jump out of it: the one a warning names (`if
        os.path.isfile(args.resume)`, not the `if args.resume` around it, a parsed
        argument alike on every rank); None where there is no such jump."""
        if not isinstance(statement, cst.BaseCompoundStatement):
            return None
        nodes = list(walk(statement, skip_scopes=True))
        within = {id(node) for node in nodes}
        for exit_ in nodes:
            if leaves_past(exit_, within, self.view):
                found = [a for a in self.rank_dependent_statements(exit_) if id(a) in within]
                if found:
                    return found[-1]
        return None

    def unreached_call(self, function: cst.FunctionDef) -> cst.Call | None:
        """A call of `function` in this module that not every rank reaches (directly, under
        a condition or after an earlier statement that may leave per rank, or because its
        own function is called so); None when there is none. A helper called after an epoch
        loop that returns when the rank's running loss is NaN (YuanGongND/psla@76aedd1
        validate_wa()) is not reached by a rank that left."""
        return self._unreached_call(function, set())

    def _unreached_call(self, function: cst.FunctionDef, seen: set[int]) -> cst.Call | None:
        if id(function) in seen:
            return None
        seen.add(id(function))
        for call in self.index.call_sites(function):
            if self.rank_dependent_around(call) is not None or self.left_before(call):
                return call
            caller = enclosing_function(call, self.view)
            if caller is not None and (self._unreached_call(caller, seen)) is not None:
                return call
        return None

    def unreached_elsewhere(self, function: cst.FunctionDef) -> str | None:
        """The path of another module of the program that calls `function`, or a function
        of this module that leads to it (as unreached_call follows them), where not every
        rank may arrive; None when no module does, or the module is no program's. A barrier
        in a helper (`Checkpoint.save` in pkg/ckpt.py) is reached only as often as its
        callers reach it: train.py calling it under `if time.time() - t0 > every:` hung
        the ranks (LMescheder/GAN_stability@c1f64c9)."""
        program = self.program_uniform()
        if program is None:
            return None
        uniform, path = program
        todo, seen = [function], set()
        while todo:
            current = todo.pop()
            if id(current) in seen:
                continue
            seen.add(id(current))
            called = self.index.called_as(current)
            if called is not None:
                found = uniform.unreached_elsewhere(path, *called)
                if found is not None:
                    return found
            for call in self.index.call_sites(current):
                caller = enclosing_function(call, self.view)
                if caller is not None:
                    todo.append(caller)
        return None

    def why_not_reached(self, node: cst.CSTNode, *, conditions: bool = True) -> str | None:
        """Why not every rank may reach `node` (a collective there would hang), for a warning;
        None when every rank does. `conditions=False`: the caller placed it outside them."""
        around = self.rank_dependent_around(node) if conditions else None
        if around is not None:
            return (
                f"it runs under {self.branch_header(around, node)}, which may differ between ranks"
            )
        left = self.left_before(node)
        decider = None if left is None else self.exit_decider(left)
        if decider is not None:
            return (
                f"`{statement_header(decider)}` before it may differ between ranks and can "
                "leave early"
            )
        function = enclosing_function(node, self.view)
        if function is None:
            return None
        call = self.unreached_call(function)
        if call is not None:
            around = self.rank_dependent_around(call)
            where = f" under {self.branch_header(around, call)}" if around is not None else ""
        elif (elsewhere := self.unreached_elsewhere(function)) is not None:
            where = f" in {elsewhere}"
        else:
            return None
        return f"{function.name.value}() is called{where} where not every rank may arrive"

    def _while_uniform(self, loop: cst.While) -> bool:
        """Every rank runs the loop's passes alike: its test is uniform, and so is each
        binding of the test's names in its body, and no rank leaves it on its own
        (sharded_passes.left_per_rank: `if loss.item() < limit: break`). A binding in the
        body asks whether every rank reaches it, which asks this loop again (`while go:
        ... go = False`): asked again while it is being decided, the loop is taken as
        uniform, and the answer is the other parts' (as `value` decides a value defined
        through itself)."""
        names = {n.value for n in walk(loop.test) if isinstance(n, cst.Name)}
        return self._answers.decide(
            ("while", id(loop)),
            lambda: (
                self.value(loop.test, loop)
                and all(self._bindings_uniform(name, loop.body) for name in names)
                and not left_per_rank(self, loop)
            ),
        )

    def _passes_alike(self, loop: cst.For) -> bool:
        """Every rank runs as many passes of a loop over a sharded loader
        (sharded_passes.py); asked again while it is being decided, taken as so (as
        _while_uniform)."""
        return self._answers.decide(("passes", id(loop)), lambda: sharded_passes_alike(self, loop))

    # -- values ---------------------------------------------------------------------------
    def value(self, expr: cst.BaseExpression, at: cst.CSTNode) -> bool:
        """`expr`, evaluated at `at`, has the same value on every rank."""
        # a value defined through itself: decided by its other parts (fixed_memo.py)
        return self._answers.decide(("value", id(expr), id(at)), lambda: self._value(expr, at))

    def _value(self, expr: cst.BaseExpression, at: cst.CSTNode) -> bool:
        if id(expr) in self._shared:
            return True  # one value on every rank (share)
        if (iterated := bar_iterable(expr, self.view)) is not None:
            return self.value(iterated, at)  # a progress bar: its own options do not count
        if mentions_rank(expr):
            return False
        if isinstance(expr, _LITERALS):
            return True
        if isinstance(expr, cst.Name):
            own = comprehension_target(self, expr, at)  # a comprehension's own `for`
            return self._name(expr.value, at) if own is None else own
        if isinstance(expr, COMPREHENSIONS):
            return comprehension_alike(self, expr, at)
        if isinstance(expr, cst.Attribute):
            return self._attribute(expr, at)
        if isinstance(expr, cst.Call):
            return class_test(self, expr, at) or self._call(expr, at)
        if isinstance(expr, cst.Comparison) and none_test(self, expr):
            return True  # `x is not None` where x is never None (none_tests.py)
        if isinstance(expr, _OPERATIONS):
            parts = [n for n in children_of(expr) if isinstance(n, cst.BaseExpression)]
            return all(self.value(part, at) for part in parts + operands(expr))
        return False

    def never_none(self, expr: cst.BaseExpression) -> bool:
        """`expr` is never None (none_tests.py), each node answered once."""
        # asked again while being answered: not proved
        return self._answers.decide(("never_none", id(expr)), lambda: never_none(self, expr), False)

    def _attribute(self, expr: cst.Attribute, at: cst.CSTNode) -> bool:
        """`args.epochs`, `self.best`: the object is uniform and every assignment to that
        attribute anywhere in the module stores a uniform value under uniform conditions."""
        if not self.value(expr.value, at):
            return False
        if stored_elsewhere(self, expr, self._own_class(expr, at)):
            return False
        for statement, value in self.index.attribute_sets.get(expr.attr.value, []):
            if value is None and _grows(statement, expr.attr.value):
                value = statement.value  # type: ignore[attr-defined]  # the old one: this
            if value is None or not self.value(value, statement):
                return False
            if self.rank_dependent_around(statement) is not None:
                return False
        return True

    def _own_class(self, expr: cst.Attribute, at: cst.CSTNode) -> str:
        """`self.args` in a method of top-level class C whose bases are none or torch's:
        C's name, for the program's stores of `args` (only C's own and its subclasses'
        `self.args = ...` can store on it: stop 47, seathiefwang/MGN-pytorch@384e820's
        `self.args` of Trainer beside every other class's `self.args = args`); else ""."""
        function = at if isinstance(at, cst.FunctionDef) else enclosing_function(at, self.view)
        if not (isinstance(expr.value, cst.Name) and expr.value.value == "self") or not function:
            return ""
        owner = self.index.top_level_class(function)
        if owner is None or any(
            not all(q.startswith("torch.") for q in self.view.qualified_names(b.value) or {""})
            for b in owner.bases
        ):
            return ""
        return owner.name.value

    def _call(self, call: cst.Call, at: cst.CSTNode) -> bool:
        func = call.func
        name = name_of(func)
        if name in ("ddp_all_reduce_sum", "ddp_any_rank", "ddp_rank0_value"):
            return True  # reduced over the ranks, or rank 0's: the same everywhere
        if name == SHARD_BATCH:
            return False  # this rank's part of the batch (round 37's GPT2-Chinese D6)
        names = self.view.qualified_names(func)
        if in_same_random(call, self.view.parent) and self._same_random_draw(call, names, at):
            return True  # drawn in `with ddp_same_random():`: rank 0's draw on every rank
        args = all(self.value(a.value, at) for a in call.args)
        if names & UNIFORM_CALLS or any(n.startswith(UNIFORM_PREFIXES) for n in names):
            return args
        if isinstance(func, cst.Name) and func.value in self.index.functions:
            # Its parameters are judged at every call site (see _parameter).
            return all(self.returns_uniform(f) for f in self.index.functions[func.value])
        if external_call(self, func):
            return args
        if isinstance(func, cst.Attribute):
            if func.attr.value in UNIFORM_METHODS:
                return args and self.value(func.value, at)
            if isinstance(func.value, cst.Name) and func.value.value == "self":
                defined = self.index.functions.get(func.attr.value, [])
                return bool(defined) and all(self.returns_uniform(f) for f in defined)
        return alike_call(self, call, at, args)  # an evaluation's facts (alike_evaluations)

    def _same_random_draw(self, call: cst.Call, names: set[str], at: cst.CSTNode) -> bool:
        """In `with ddp_same_random():` every rank draws rank 0's numbers: a draw from a
        shared stream (random_draws.shared_stream) of alike arguments, or `next(g)` of a
        generator every binding of which is made in such a block from alike arguments (a
        fetch the data pass made alike: early_stop_drawn_validation's `next(gen)`)."""
        if shared_stream(call, names):
            return all(self.value(a.value, at) for a in call.args)
        if "builtins.next" not in names or len(call.args) != 1:
            return False
        made = call.args[0].value
        if not isinstance(made, cst.Name):
            return False
        found = view(self.module).reaching(made)
        return bool(found) and all(
            d.kind == "assign"
            and isinstance(d.value, cst.Call)
            and in_same_random(d.value, self.view.parent)
            and all(self.value(a.value, d.value) for a in d.value.args)
            for d in found
        )

    def returns_uniform(self, function: cst.FunctionDef) -> bool:
        return self._answers.decide(("returns", id(function)), lambda: self._returns(function))

    def _returns(self, function: cst.FunctionDef) -> bool:
        result = True
        for node in walk(function.body, skip_scopes=True):
            if isinstance(node, (cst.Yield, cst.Await)):
                result = False
            elif isinstance(node, cst.Return):
                if node.value is not None and not self.value(node.value, node):
                    result = False
                elif self.rank_dependent_around(node) is not None:
                    result = False  # which return runs differs between ranks
            if not result:
                break
        return result

    # -- names --------------------------------------------------------------------------------
    def _name(self, name: str, at: cst.CSTNode) -> bool:
        if name in UNIFORM_GLOBALS:
            return True
        function = at if isinstance(at, cst.FunctionDef) else enclosing_function(at, self.view)
        if function is not None and self.index.declared_global(function, name):
            return self._global(name)
        statement = self.index.statement_of(at)
        if statement is None:
            return False
        return self._reaching(name, statement)

    def _reaching(self, name: str, statement: cst.CSTNode) -> bool:
        """The value `name` has when `statement` starts: from the last binding before it in
        its block, else in the blocks around it, else the parameters or the module."""
        return self._answers.decide(
            ("reaching", name, id(statement)), lambda: self._reaching_uncached(name, statement)
        )

    def _reaching_uncached(self, name: str, statement: cst.CSTNode) -> bool:
        current = statement
        while True:
            block = self.view.parent(current)
            if not isinstance(block, BLOCKS):
                return False
            body = list(block.body)
            at = next(i for i, s in enumerate(body) if s is current)
            last = self._last_binding(body[:at], name)
            if last is not None:
                return last
            owner = self.view.parent(block)
            if isinstance(block, cst.Module) or owner is None:
                return True  # not bound in the module: a builtin
            if isinstance(owner, cst.FunctionDef):
                return self._parameter(owner, name)
            if isinstance(owner, _LOOPS) and not self._bindings_uniform(name, owner.body):
                return False  # a value carried over from the previous iteration
            if isinstance(owner, cst.For) and binds_name(owner.target, name):
                return self.counts_passes(owner, name) or self.value(owner.iter, owner)
            if isinstance(owner, cst.With):
                for item in owner.items:
                    if item.asname is not None and binds_name(item.asname.name, name):
                        return self.value(item.item, owner)
            current = owner
            while not isinstance(self.view.parent(current), BLOCKS):
                parent = self.view.parent(current)
                if parent is None:
                    return False
                current = parent

    def _last_binding(self, statements: Sequence[cst.CSTNode], name: str) -> bool | None:
        """Scanning `statements` backwards: whether the binding of `name` that holds after
        them is uniform; None when they may leave it unbound (look further up)."""
        for earlier in reversed(statements):
            if isinstance(earlier, cst.With) and isinstance(earlier.body, cst.IndentedBlock):
                inner = self._last_binding(list(earlier.body.body), name)  # always runs
                if inner is not None:
                    return inner
                continue
            bound = self._binds(earlier, name)
            if bound is None:
                continue
            if isinstance(earlier, cst.SimpleStatementLine) or not bound:
                return bound
            # A compound statement that may or may not bind: the earlier value counts too.
        return None

    def _binds(self, statement: cst.CSTNode, name: str) -> bool | None:
        """None when `statement` does not bind `name`; else whether every binding in it is
        uniform (each under uniform conditions)."""
        mutated = name in self.index.mutated_names(statement)
        if not mutated and name not in self.index.bound_names(statement):
            return None
        found = False
        for node in walk(statement, skip_scopes=True):
            if isinstance(node, (cst.FunctionDef, cst.ClassDef)) and node is not statement:
                continue
            if isinstance(node, (cst.FunctionDef, cst.ClassDef)) and node.name.value == name:
                return True
            if isinstance(node, (cst.Import, cst.ImportFrom)) and imports_name(node, name):
                return True
            result = self._binding(node, name)
            if result is None and mutated and mutation_root(node) == name:
                result = self._mutation(node, name)
            if result is None:
                continue
            found = True
            if not result:
                return False
        return True if found else None

    def _binding(self, node: cst.CSTNode, name: str) -> bool | None:
        """None when `node` binds no `name`; else whether the bound value is uniform."""
        if isinstance(node, cst.Assign):
            if not any(binds_name(t.target, name) for t in node.targets):
                return None
            value = self.value(node.value, node)
        elif isinstance(node, cst.AnnAssign):
            if not binds_name(node.target, name):
                return None
            value = node.value is not None and self.value(node.value, node)
        elif isinstance(node, cst.AugAssign):
            if not binds_name(node.target, name):
                return None
            statement = self.index.statement_of(node)
            value = (
                self.value(node.value, node)
                and statement is not None
                and self._reaching(name, statement)
            )
        elif isinstance(node, cst.For):
            if not binds_name(node.target, name):
                return None
            # `i` of `for i, batch in enumerate(...)` counts the passes: the same on every
            # rank for as long as they loop (whether they loop alike is the loop's question).
            value = self.counts_passes(node, name) or self.value(node.iter, node)
        elif isinstance(node, cst.WithItem):
            if node.asname is None or not binds_name(node.asname.name, name):
                return None
            value = self.value(node.item, node)
        elif isinstance(node, (cst.NamedExpr, cst.ExceptHandler, cst.CompFor)):
            target = node.target if not isinstance(node, cst.ExceptHandler) else node.name
            if target is None or not binds_name(
                target.name if isinstance(target, cst.AsName) else target, name
            ):
                return None
            return False
        else:
            return None
        return value and self.rank_dependent_around(node) is None

    def _mutation(self, node: cst.CSTNode, name: str) -> bool:
        """`d[k] = v`, `d[k] += v`, `d.append(v)` (module_index.mutation_root): `d` holds
        alike after it where it did before, and what is put in, where, is alike."""
        statement = self.index.statement_of(node)
        parts: list[cst.BaseExpression] = []
        if isinstance(node, cst.Assign):
            parts = [node.value, *(t.target for t in node.targets)]
        elif isinstance(node, cst.AugAssign):
            parts = [node.value, node.target]
        elif isinstance(node, cst.Expr) and isinstance(node.value, cst.Call):
            parts = [a.value for a in node.value.args]
        return (
            statement is not None
            and all(self.value(part, node) for part in parts if not isinstance(part, cst.Name))
            and self._reaching(name, statement)
            and self.rank_dependent_around(node) is None
        )

    def counts_passes(self, loop: cst.For, name: str) -> bool:
        target, iterated = loop.target, loop.iter
        return (
            isinstance(target, cst.Tuple)
            and bool(target.elements)
            and m.matches(target.elements[0].value, m.Name(name))
            and isinstance(iterated, cst.Call)
            and bool(self.view.qualified_names(iterated.func) & {"builtins.enumerate"})
            and all(a.keyword is None and not a.star for a in iterated.args[1:])
            and all(self.value(a.value, loop) for a in iterated.args[1:])
        )

    def _bindings_uniform(self, name: str, root: cst.CSTNode) -> bool:
        return self._binds(root, name) is not False

    def _parameter(self, function: cst.FunctionDef, name: str) -> bool:
        return parameter_alike(self, function, name)  # uniform_parameters.py

    # -- the program ----------------------------------------------------------------------
    def program_uniform(self) -> tuple[Uniformity, str] | None:
        """The program-wide facts and this module's path, in whole-program mode."""
        program, filename = self.program, self.filename
        if program is None or program.uniform is None or filename is None:
            return None
        return program.uniform, filename

    def _global(self, name: str) -> bool:
        """A module-level name: every binding of it (at module level, or in a function that
        declares it global) is uniform."""
        return self._answers.decide(("global", name), lambda: self._global_uncached(name))

    def _global_uncached(self, name: str) -> bool:
        result = True
        bound = self._binds(self.module, name)
        if bound is False:
            result = False
        for functions in self.index.functions.values():
            for function in functions:
                if result and self.index.declared_global(function, name):
                    if self._binds(function.body, name) is False:
                        result = False
        return result


def _grows(statement: cst.CSTNode, attr: str) -> bool:
    """`self.step += 1`: the attribute's old value (uniform where its every store is, the
    question asked) and the operand (class w6 of stop 51, Cold-Diffusion's Trainer)."""
    return (
        isinstance(statement, cst.AugAssign)
        and isinstance(statement.target, cst.Attribute)
        and statement.target.attr.value == attr
    )
