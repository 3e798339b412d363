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

Configuration objects cross modules and classes: `__init__`'s parameter of a top-level class
is uniform when the class is constructed at exactly one place in the program (every other
mention of its name is an import; no `x.__init__(...)` but `super().__init__(...)`) and that
call passes a uniform value; one place, because two could pass different uniform values and
which one built an object could depend on the rank. An attribute set only from it in
`__init__` is then uniform by the attribute rule. In a program (program/uniformity.py) that
call may be in another module, judged there by these rules, and a call of a top-level
function of another program module (imported by name, or by the module's single `from m
import *`) is uniform when every return of it is; in a single file the file is the program.
Anything else (a loss, a per-rank metric, `time.time()`,
`os.path.exists`, a value from a DataLoader, RANK) may differ between ranks.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Final

import libcst as cst
import libcst.matchers as m

from dp2ddp.transforms._support.base import MigrationTransform
from dp2ddp.transforms._support.nodes import code_of, enclosing_function, name_of, walk
from dp2ddp.transforms.rank_zero.guards import mentions_rank
from dp2ddp.transforms.rank_zero.per_process import PER_PROCESS_PREFIXES

if TYPE_CHECKING:
    from dp2ddp.facts import Uniformity

#: Calls whose result depends only on their (uniform) arguments.
_UNIFORM_CALLS: Final = frozenset(
    f"builtins.{name}"
    for name in (
        "abs all any bool dict divmod enumerate float format int isinstance len list max min "
        "range reversed round set sorted str sum tuple zip getattr hasattr"
    ).split()
) | frozenset(
    {
        "os.path.join",
        "os.path.basename",
        "os.path.dirname",
        "os.path.splitext",
        "os.environ.get",
        "argparse.ArgumentParser",
        "json.loads",
        "torch.load",
        "torch.serialization.load",
        "torch.distributed.get_world_size",
        "torch.distributed.is_initialized",
        "torch.cuda.is_available",
        "torch.cuda.device_count",
    }
)
_UNIFORM_PREFIXES: Final = ("math.",)
#: Calls whose result differs between processes even on the same input.
_PER_PROCESS: Final = ("time.", "random.", "numpy.random.", "os.path.exists", "os.path.is")
#: Seeding calls: after one (the same seed on every rank) the generator's draws agree.
_SEEDS: Final = {"random.": "random.seed", "numpy.random.": "numpy.random.seed"}
#: Methods that compute from their receiver and arguments only.
_UNIFORM_METHODS: Final = frozenset(
    (
        "item tolist float int double long mean sum max min abs round sqrt exp log "
        "format join split strip lower upper replace startswith endswith get keys values "
        "items copy index count parse_args parse_known_args"
    ).split()
)
#: What the inserted header defines, the same on every rank.
_UNIFORM_GLOBALS: Final = frozenset({"WORLD_SIZE", "True", "False", "None", "__name__"})
_LITERALS = (
    cst.Integer,
    cst.Float,
    cst.Imaginary,
    cst.SimpleString,
    cst.Ellipsis,
)
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
_BLOCKS = (cst.IndentedBlock, cst.Module)
_LOOPS = (cst.For, cst.While)
_BINDERS = (cst.Assign, cst.AugAssign, cst.AnnAssign, cst.For, cst.WithItem)


class RankUniformity:
    """Answers "same on every rank?" for the module `transform` is rewriting."""

    def __init__(self, transform: MigrationTransform, module: cst.Module) -> None:
        self.t = transform
        self.module = module
        self._functions: dict[str, list[cst.FunctionDef]] = {}
        self._calls: list[cst.Call] = []
        self._attribute_sets: dict[str, list[tuple[cst.CSTNode, cst.BaseExpression | None]]] = {}
        for node in walk(module):
            if isinstance(node, cst.FunctionDef):
                self._functions.setdefault(node.name.value, []).append(node)
            elif isinstance(node, cst.Call):
                self._calls.append(node)
                written = _set_by_name(node)
                if written is not None:
                    self._attribute_sets.setdefault(written, []).append((node, None))
            elif isinstance(node, (cst.Assign, cst.AugAssign, cst.AnnAssign)):
                targets = node.targets if isinstance(node, cst.Assign) else [node]
                for target in targets:
                    for bound in walk(target.target):
                        if isinstance(bound, cst.Attribute):
                            value = None if isinstance(node, cst.AugAssign) else node.value
                            self._attribute_sets.setdefault(bound.attr.value, []).append(
                                (node, value)
                            )
        self._memo: dict[tuple[object, ...], bool] = {}
        self._bound: dict[int, frozenset[str]] = {}
        self._globals: dict[int, frozenset[str]] = {}
        #: Parameters whose call sites are being judged (_parameter): a cycle proves nothing.
        self._judging_sites: set[tuple[int, str]] = set()

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
        child, parent = node, self.t.parent(node)
        while parent is not None and not isinstance(
            parent, (cst.FunctionDef, cst.ClassDef, cst.Lambda, cst.Module)
        ):
            if isinstance(parent, cst.If) and child is not parent.test:
                if not self.value(parent.test, parent):
                    found.append(parent)
            elif isinstance(parent, cst.For) and child is not parent.iter:
                if not self.value(parent.iter, parent):
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
            child, parent = parent, self.t.parent(parent)
        return found

    def unreached_call(self, function: cst.FunctionDef) -> cst.Call | None:
        """A call of `function` in this module that not every rank reaches (directly, or
        because its own function is called so); None when there is none."""
        return self._unreached_call(function, set())

    def _unreached_call(self, function: cst.FunctionDef, seen: set[int]) -> cst.Call | None:
        if id(function) in seen:
            return None
        seen.add(id(function))
        for call in self._call_sites(function):
            if self.rank_dependent_around(call) is not None:
                return call
            caller = enclosing_function(call, self.t)
            if caller is not None and (self._unreached_call(caller, seen)) is not None:
                return call
        return None

    def _call_sites(self, function: cst.FunctionDef) -> Iterator[cst.Call]:
        """Calls in this module that may call `function`: by its name, or `x.name(...)` for
        a method."""
        name = function.name.value
        method = isinstance(self.t.parent(self.t.parent(function) or function), cst.ClassDef)
        for call in self._calls:
            func = call.func
            if isinstance(func, cst.Name) and func.value == name and not method:
                yield call
            elif isinstance(func, cst.Attribute) and func.attr.value == name and method:
                yield call

    def computed_per_rank(self, test: cst.BaseExpression, loop: cst.For | cst.While) -> bool:
        """`test` reads a value that `loop` computes differently on each rank: from its
        batches (a loss, a model output), under a rank-local `if`, or a clock or random draw.
        Values from before the loop and counters (`step += args.batch`) do not count: this
        is for a warning about leaving the loop, and a loss is the usual culprit."""
        return self._loop_local(test, loop, set())

    def _loop_local(
        self, expr: cst.BaseExpression, loop: cst.For | cst.While, seen: set[str]
    ) -> bool:
        if mentions_rank(expr):
            return True
        for call in walk(expr):
            if isinstance(call, cst.Call) and any(
                n.startswith(_PER_PROCESS) for n in self.t.qualified_names(call.func)
            ):
                return True
        names = {n.value for n in walk(expr) if isinstance(n, cst.Name)} - seen
        seen |= names
        for node in walk(loop, skip_scopes=True):
            if isinstance(node, cst.For):
                bound = [n for n in names if _binds_name(node.target, n)]
                if any(
                    not self._counts_passes(node, n) and not self.value(node.iter, node)
                    for n in bound
                ):
                    return True
                continue
            if not isinstance(node, (cst.Assign, cst.AnnAssign, cst.AugAssign)):
                continue
            targets = node.targets if isinstance(node, cst.Assign) else [node]
            if not any(_binds_name(t.target, n) for t in targets for n in names):
                continue
            if node.value is None or self._loop_local(node.value, loop, seen):
                return True
            child: cst.CSTNode = node
            parent = self.t.parent(node)
            while parent is not None and parent is not loop:
                if (
                    isinstance(parent, cst.If)
                    and child is not parent.test
                    and self._loop_local(parent.test, loop, seen)
                ):
                    return True
                child, parent = parent, self.t.parent(parent)
        return False

    def per_process_draw(self, expr: cst.BaseExpression, at: cst.CSTNode) -> cst.Call | None:
        """A clock read or random draw that `expr` (evaluated at `at`) is built from, through
        the names and `self.` attributes bound in its function or module; None when none is.

        Flow-insensitive (any binding of a name counts) and module-local (a parameter's
        argument is not followed): it names a likely cause for a warning, it proves nothing.
        A draw from a generator the module seeds (`random.seed(0)`) does not count."""
        scope: cst.CSTNode = enclosing_function(at, self.t) or self.module
        seeded = {
            prefix
            for prefix, seed in _SEEDS.items()
            if any(seed in self.t.qualified_names(call.func) for call in self._calls)
        }
        seen: set[str] = set()
        stack: list[cst.CSTNode] = [expr]
        while stack:
            node = stack.pop()
            for part in _read_parts(node):
                if isinstance(part, cst.Call):
                    names = self.t.qualified_names(part.func)
                    if any(
                        n.startswith(PER_PROCESS_PREFIXES) and not n.startswith(tuple(seeded))
                        for n in names
                    ):
                        return part
                    continue
                key = part.value if isinstance(part, cst.Name) else "self." + part.attr.value
                if key in seen:
                    continue
                seen.add(key)
                if isinstance(part, cst.Attribute):
                    stack += [v for _, v in self._attribute_sets.get(part.attr.value, []) if v]
                    continue
                for root in (scope, self.module) if scope is not self.module else (scope,):
                    stack += _bound_values(root, part.value)
        return None

    def _while_uniform(self, loop: cst.While) -> bool:
        if not self.value(loop.test, loop):
            return False
        names = {n.value for n in walk(loop.test) if isinstance(n, cst.Name)}
        return all(self._bindings_uniform(name, loop.body) for name in names)

    # -- values ---------------------------------------------------------------------------
    def value(self, expr: cst.BaseExpression, at: cst.CSTNode) -> bool:
        """`expr`, evaluated at `at`, has the same value on every rank."""
        key = ("value", id(expr), id(at))
        if key in self._memo:
            return self._memo[key]
        self._memo[key] = True  # a value defined through itself: decided by its other parts
        result = self._value(expr, at)
        self._memo[key] = result
        return result

    def _value(self, expr: cst.BaseExpression, at: cst.CSTNode) -> bool:
        if mentions_rank(expr):
            return False
        if isinstance(expr, _LITERALS):
            return True
        if isinstance(expr, cst.Name):
            return self._name(expr.value, at)
        if isinstance(expr, cst.Attribute):
            return self._attribute(expr, at)
        if isinstance(expr, cst.Call):
            return self._call(expr, at)
        if isinstance(expr, _OPERATIONS):
            parts = [n for n in expr.children if isinstance(n, cst.BaseExpression)]
            return all(self.value(part, at) for part in parts + _operands(expr))
        return False

    def _attribute(self, expr: cst.Attribute, at: cst.CSTNode) -> bool:
        """`args.epochs`, `self.best`: the object is uniform and every assignment to that
        attribute anywhere in the module stores a uniform value under uniform conditions."""
        if not self.value(expr.value, at):
            return False
        program = self._program()
        if program is not None and program[0].attribute_assigned_elsewhere(
            program[1], expr.attr.value
        ):
            return False
        for statement, value in self._attribute_sets.get(expr.attr.value, []):
            if value is None or not self.value(value, statement):
                return False
            if self.rank_dependent_around(statement) is not None:
                return False
        return True

    def _call(self, call: cst.Call, at: cst.CSTNode) -> bool:
        func = call.func
        name = name_of(func)
        if name == "ddp_all_reduce_sum":
            return True  # summed over the ranks: the same everywhere
        args = all(self.value(a.value, at) for a in call.args)
        names = self.t.qualified_names(func)
        if names & _UNIFORM_CALLS or any(n.startswith(_UNIFORM_PREFIXES) for n in names):
            return args
        if isinstance(func, cst.Name) and func.value in self._functions:
            # Its parameters are judged at every call site (see _parameter).
            return all(self._returns_uniform(f) for f in self._functions[func.value])
        if self._external_call(func):
            return args
        if isinstance(func, cst.Attribute):
            if func.attr.value in _UNIFORM_METHODS:
                return args and self.value(func.value, at)
            if isinstance(func.value, cst.Name) and func.value.value == "self":
                defined = self._functions.get(func.attr.value, [])
                return bool(defined) and all(self._returns_uniform(f) for f in defined)
        return False

    def _returns_uniform(self, function: cst.FunctionDef) -> bool:
        key = ("returns", id(function))
        if key in self._memo:
            return self._memo[key]
        self._memo[key] = True
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
        self._memo[key] = result
        return result

    # -- names --------------------------------------------------------------------------------
    def _name(self, name: str, at: cst.CSTNode) -> bool:
        if name in _UNIFORM_GLOBALS:
            return True
        function = at if isinstance(at, cst.FunctionDef) else enclosing_function(at, self.t)
        if function is not None and self._declared_global(function, name):
            return self._global(name)
        statement = self._statement_of(at)
        if statement is None:
            return False
        return self._reaching(name, statement)

    def _reaching(self, name: str, statement: cst.CSTNode) -> bool:
        """The value `name` has when `statement` starts: from the last binding before it in
        its block, else in the blocks around it, else the parameters or the module."""
        key = ("reaching", name, id(statement))
        if key in self._memo:
            return self._memo[key]
        self._memo[key] = True
        result = self._reaching_uncached(name, statement)
        self._memo[key] = result
        return result

    def _reaching_uncached(self, name: str, statement: cst.CSTNode) -> bool:
        current = statement
        while True:
            block = self.t.parent(current)
            if not isinstance(block, _BLOCKS):
                return False
            body = list(block.body)
            at = next(i for i, s in enumerate(body) if s is current)
            last = self._last_binding(body[:at], name)
            if last is not None:
                return last
            owner = self.t.parent(block)
            if isinstance(block, cst.Module) or owner is None:
                return True  # not bound in the module: a builtin
            if isinstance(owner, cst.FunctionDef):
                return self._parameter(owner, name)
            if isinstance(owner, _LOOPS) and not self._bindings_uniform(name, owner.body):
                return False  # a value carried over from the previous iteration
            if isinstance(owner, cst.For) and _binds_name(owner.target, name):
                return self._counts_passes(owner, name) or self.value(owner.iter, owner)
            if isinstance(owner, cst.With):
                for item in owner.items:
                    if item.asname is not None and _binds_name(item.asname.name, name):
                        return self.value(item.item, owner)
            current = owner
            while not isinstance(self.t.parent(current), _BLOCKS):
                parent = self.t.parent(current)
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

    def _bound_names(self, statement: cst.CSTNode) -> frozenset[str]:
        """Every name `statement` may bind (a superset: a cheap test before the real one)."""
        key = id(statement)
        if key not in self._bound:
            names: set[str] = set()
            for node in walk(statement, skip_scopes=True):
                targets: list[cst.CSTNode] = []
                if isinstance(node, cst.Assign):
                    targets = [t.target for t in node.targets]
                elif isinstance(node, (cst.AnnAssign, cst.AugAssign, cst.For, cst.CompFor)):
                    targets = [node.target]
                elif isinstance(node, (cst.AsName, cst.NamedExpr)):
                    targets = [node.name if isinstance(node, cst.AsName) else node.target]
                elif isinstance(node, (cst.FunctionDef, cst.ClassDef)):
                    names.add(node.name.value)
                elif isinstance(node, (cst.Import, cst.ImportFrom)) and not isinstance(
                    node.names, cst.ImportStar
                ):
                    for alias in node.names:
                        bound = alias.asname.name if alias.asname is not None else alias.name
                        names.add(name_of(bound).split(".")[0])
                for target in targets:
                    names.update(n.value for n in walk(target) if isinstance(n, cst.Name))
            self._bound[key] = frozenset(names)
        return self._bound[key]

    def _binds(self, statement: cst.CSTNode, name: str) -> bool | None:
        """None when `statement` does not bind `name`; else whether every binding in it is
        uniform (each under uniform conditions)."""
        if name not in self._bound_names(statement):
            return None
        found = False
        for node in walk(statement, skip_scopes=True):
            if isinstance(node, (cst.FunctionDef, cst.ClassDef)) and node is not statement:
                continue
            if isinstance(node, (cst.FunctionDef, cst.ClassDef)) and node.name.value == name:
                return True
            if isinstance(node, (cst.Import, cst.ImportFrom)) and _imports(node, name):
                return True
            result = self._binding(node, name)
            if result is None:
                continue
            found = True
            if not result:
                return False
        return True if found else None

    def _binding(self, node: cst.CSTNode, name: str) -> bool | None:
        """None when `node` binds no `name`; else whether the bound value is uniform."""
        if isinstance(node, cst.Assign):
            if not any(_binds_name(t.target, name) for t in node.targets):
                return None
            value = self.value(node.value, node)
        elif isinstance(node, cst.AnnAssign):
            if not _binds_name(node.target, name):
                return None
            value = node.value is not None and self.value(node.value, node)
        elif isinstance(node, cst.AugAssign):
            if not _binds_name(node.target, name):
                return None
            statement = self._statement_of(node)
            value = (
                self.value(node.value, node)
                and statement is not None
                and self._reaching(name, statement)
            )
        elif isinstance(node, cst.For):
            if not _binds_name(node.target, name):
                return None
            # `i` of `for i, batch in enumerate(...)` counts the passes: the same on every
            # rank for as long as they loop (whether they loop alike is the loop's question).
            value = self._counts_passes(node, name) or self.value(node.iter, node)
        elif isinstance(node, cst.WithItem):
            if node.asname is None or not _binds_name(node.asname.name, name):
                return None
            value = self.value(node.item, node)
        elif isinstance(node, (cst.NamedExpr, cst.ExceptHandler, cst.CompFor)):
            target = node.target if not isinstance(node, cst.ExceptHandler) else node.name
            if target is None or not _binds_name(
                target.name if isinstance(target, cst.AsName) else target, name
            ):
                return None
            return False
        else:
            return None
        return value and self.rank_dependent_around(node) is None

    def _counts_passes(self, loop: cst.For, name: str) -> bool:
        target, iterated = loop.target, loop.iter
        return (
            isinstance(target, cst.Tuple)
            and bool(target.elements)
            and m.matches(target.elements[0].value, m.Name(name))
            and isinstance(iterated, cst.Call)
            and bool(self.t.qualified_names(iterated.func) & {"builtins.enumerate"})
            and all(a.keyword is None and not a.star for a in iterated.args[1:])
            and all(self.value(a.value, loop) for a in iterated.args[1:])
        )

    def _bindings_uniform(self, name: str, root: cst.CSTNode) -> bool:
        return self._binds(root, name) is not False

    def _parameter(self, function: cst.FunctionDef, name: str) -> bool:
        """A parameter: uniform when every call in the module passes a uniform value."""
        params = function.params
        positional = [*params.posonly_params, *params.params]
        every = [*positional, *params.kwonly_params]
        param = next((p for p in every if p.name.value == name), None)
        if param is None:
            star = [params.star_arg, params.star_kwarg]
            if any(isinstance(s, cst.Param) and s.name.value == name for s in star):
                return False
            return self._global(name)  # a free name: the module's
        if positional and param is positional[0] and name in ("self", "cls"):
            return True
        index = positional.index(param) if param in positional else None
        owner = self._top_level_class(function)
        if owner is not None and function.name.value == "__init__":
            return self._init_parameter(owner, None if index is None else index - 1, name)
        sites = list(self._call_sites(function))
        if not sites:
            return False  # called from elsewhere: unknown
        method = isinstance(self.t.parent(self.t.parent(function) or function), cst.ClassDef)
        if index is not None and method:
            index -= 1
        passed: set[str] = set()
        for site in sites:
            value = _argument(site, name, index)
            if value is None:
                if any(a.star for a in site.args):
                    return False
                if param.default is None or not self.value(param.default, function):
                    return False
                passed.add(code_of(param.default))
            elif not self.value(value, site):
                return False
            else:
                passed.add(code_of(value))
        # Each site passes a value every rank agrees on, but two sites may pass two values
        # (`f(True)` on rank 0, `f(False)` elsewhere): then which one a rank gets depends on
        # which site it reaches, so every site must be reached by every rank.
        if len(passed) == 1:
            return True
        key = (id(function), name)
        if key in self._judging_sites:
            return False  # a question that loops back on itself: not proven
        self._judging_sites.add(key)
        try:
            return all(self._reached_by_every_rank(site) for site in sites)
        finally:
            self._judging_sites.discard(key)

    def _reached_by_every_rank(self, call: cst.Call) -> bool:
        if self.rank_dependent_around(call) is not None:
            return False
        caller = enclosing_function(call, self.t)
        return caller is None or self.unreached_call(caller) is None

    # -- configuration objects: constructor arguments, other modules ------------------
    def _top_level_class(self, function: cst.FunctionDef) -> cst.ClassDef | None:
        """The class `function` is a method of, when that class is defined at top level."""
        block = self.t.parent(function)
        owner = self.t.parent(block) if block is not None else None
        if isinstance(owner, cst.ClassDef) and isinstance(self.t.parent(owner), cst.Module):
            return owner
        return None

    def _program(self) -> tuple[Uniformity, str] | None:
        """The program-wide facts and this module's path, in whole-program mode."""
        program = self.t.state.program
        filename = self.t.context.filename
        if program is None or program.uniform is None or filename is None:
            return None
        return program.uniform, filename

    def _init_parameter(self, owner: cst.ClassDef, index: int | None, name: str) -> bool:
        """`__init__`'s parameter `name`: uniform when the class is constructed at exactly
        one place in the program, by a direct call, which passes a uniform value (one
        place: two could pass different uniform values, and which one built the object
        could depend on the rank). In a single file the file is the program."""
        program = self._program()
        if program is not None:
            uniform, path = program
            return uniform.init_parameter(path, owner.name.value, index, name)
        if self.t.state.program is not None:
            return False  # a module of a program without the program's facts
        if direct_calls(ast.parse(self.module.code), owner.name.value) != 1:
            return False
        return self.construction_argument_uniform(owner.name.value, index, name)

    def construction_argument_uniform(self, class_name: str, index: int | None, name: str) -> bool:
        """The one call of `class_name` in this module passes a uniform value for its
        parameter `name` (positional `index`, `self` not counted)."""
        sites = [c for c in self._calls if _called_name(c) == class_name]
        if len(sites) != 1 or any(a.star for a in sites[0].args):
            return False
        value = _argument(sites[0], name, index)
        return value is not None and self.value(value, sites[0])

    def top_level_function_returns_uniform(self, name: str) -> bool:
        """This module's top-level function `name`, bound nowhere else, returns a uniform
        value."""
        binders = [s for s in self.module.body if name in self._bound_names(s)]
        if len(binders) != 1 or not isinstance(binders[0], cst.FunctionDef):
            return False
        if any(self._declared_global(f, name) for fs in self._functions.values() for f in fs):
            return False
        return self._returns_uniform(binders[0])

    def _external_call(self, func: cst.BaseExpression) -> bool:
        """A call of a top-level function of another program module (imported by name, or
        by a single `from module import *`) that returns a uniform value."""
        program = self._program()
        if program is None:
            return False
        uniform, path = program
        names = self.t.qualified_names(func)
        if len(names) == 1 and self._imported_only(name_of(func).split(".")[0]):
            (qualified,) = names
            module, _, function = qualified.rpartition(".")
            if module and uniform.returns_uniform(module, function):
                return True
        if not isinstance(func, cst.Name) or self._bound_anywhere(func.value):
            return False
        source = uniform.star_source(path, func.value)
        return source is not None and uniform.returns_uniform(source, func.value)

    def _imported_only(self, name: str) -> bool:
        """`name` is bound in this module only by top-level import statements."""
        binders = [s for s in self.module.body if name in self._bound_names(s)]
        return (
            bool(binders)
            and all(
                isinstance(s, cst.SimpleStatementLine)
                and all(isinstance(small, (cst.Import, cst.ImportFrom)) for small in s.body)
                for s in binders
            )
            and not self._bound_in_functions(name)
        )

    def _bound_in_functions(self, name: str) -> bool:
        return any(
            name in self._bound_names(f.body)
            or any(p.name.value == name for p in walk(f.params) if isinstance(p, cst.Param))
            for functions in self._functions.values()
            for f in functions
        )

    def _bound_anywhere(self, name: str) -> bool:
        """Some statement of this module, in any scope, may bind `name` (or it is a
        parameter)."""
        return any(
            name in self._bound_names(s) for s in self.module.body
        ) or self._bound_in_functions(name)

    def _global(self, name: str) -> bool:
        """A module-level name: every binding of it (at module level, or in a function that
        declares it global) is uniform."""
        key = ("global", name)
        if key in self._memo:
            return self._memo[key]
        self._memo[key] = True
        result = True
        bound = self._binds(self.module, name)
        if bound is False:
            result = False
        for functions in self._functions.values():
            for function in functions:
                if result and self._declared_global(function, name):
                    if self._binds(function.body, name) is False:
                        result = False
        self._memo[key] = result
        return result

    def _declared_global(self, function: cst.FunctionDef, name: str) -> bool:
        key = id(function)
        if key not in self._globals:
            self._globals[key] = frozenset(
                n.name.value
                for node in walk(function.body, skip_scopes=True)
                if isinstance(node, cst.Global)
                for n in node.names
            )
        return name in self._globals[key]

    def _statement_of(self, node: cst.CSTNode) -> cst.CSTNode | None:
        """The statement holding `node` that sits directly in a block."""
        current: cst.CSTNode | None = node
        while current is not None and not isinstance(self.t.parent(current), _BLOCKS):
            current = self.t.parent(current)
        return current


def _operands(expr: cst.CSTNode) -> list[cst.BaseExpression]:
    """The expressions inside an operation that are not its direct children (elements of a
    collection, subscript indices, f-string parts)."""
    found: list[cst.BaseExpression] = []
    for child in expr.children:
        if isinstance(child, (cst.Element, cst.DictElement, cst.StarredElement)):
            found += [v for v in (getattr(child, "key", None), child.value) if v is not None]
        elif isinstance(child, cst.SubscriptElement):
            if isinstance(child.slice, cst.Index):
                found.append(child.slice.value)
            elif isinstance(child.slice, cst.Slice):
                found += [
                    v
                    for v in (child.slice.lower, child.slice.upper, child.slice.step)
                    if v is not None
                ]
        elif isinstance(child, cst.FormattedStringExpression):
            found.append(child.expression)
        elif isinstance(child, cst.ComparisonTarget):
            found.append(child.comparator)
    return found


def _read_parts(expr: cst.CSTNode) -> Iterator[cst.Call | cst.Name | cst.Attribute]:
    """The calls, names read and `self.x` attributes in `expr` (not attribute or keyword
    names: `join` of `os.path.join` is no variable)."""
    stack: list[cst.CSTNode] = [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Call):
            yield node
        elif isinstance(node, cst.Name):
            yield node
            continue
        elif isinstance(node, cst.Attribute):
            if m.matches(node.value, m.Name("self")):
                yield node
                continue
            stack.append(node.value)
            continue
        elif isinstance(node, cst.Arg):
            stack.append(node.value)
            continue
        elif isinstance(node, (cst.Lambda, cst.FunctionDef, cst.ClassDef)):
            continue
        stack.extend(node.children)


def _bound_values(root: cst.CSTNode, name: str) -> list[cst.BaseExpression]:
    """The values assigned to `name` anywhere under `root` (`for name in xs`: xs)."""
    values: list[cst.BaseExpression] = []
    for node in walk(root):
        if isinstance(node, cst.Assign):
            if any(_binds_name(t.target, name) for t in node.targets):
                values.append(node.value)
        elif isinstance(node, (cst.AnnAssign, cst.AugAssign)):
            if node.value is not None and _binds_name(node.target, name):
                values.append(node.value)
        elif isinstance(node, cst.For) and _binds_name(node.target, name):
            values.append(node.iter)
    return values


def _binds_name(target: cst.CSTNode, name: str) -> bool:
    """`target` (a Name, or a tuple/list of them) binds `name`."""
    if isinstance(target, cst.Name):
        return target.value == name
    if isinstance(target, (cst.Tuple, cst.List)):
        return any(_binds_name(e.value, name) for e in target.elements)
    if isinstance(target, cst.StarredElement):
        return _binds_name(target.value, name)
    return False


def _imports(node: cst.Import | cst.ImportFrom, name: str) -> bool:
    if isinstance(node.names, cst.ImportStar):
        return False
    for alias in node.names:
        bound = alias.asname.name if alias.asname is not None else alias.name
        if isinstance(bound, cst.Name) and bound.value == name:
            return True
        if isinstance(bound, cst.Attribute) and name_of(bound).split(".")[0] == name:
            return True
    return False


def _set_by_name(call: cst.Call) -> str | None:
    """The attribute `setattr(x, "name", v)` / `delattr(x, "name")` writes, by literal name
    (a computed name is not followed)."""
    if not m.matches(call.func, m.Name("setattr") | m.Name("delattr")) or len(call.args) < 2:
        return None
    name = call.args[1].value
    if isinstance(name, cst.SimpleString):
        value = name.evaluated_value
        return value if isinstance(value, str) else None
    return None


def _called_name(call: cst.Call) -> str | None:
    """`f` of `f(...)` or `x.f(...)`."""
    if isinstance(call.func, cst.Name):
        return call.func.value
    if isinstance(call.func, cst.Attribute):
        return call.func.attr.value
    return None


def _ast_named(node: ast.AST, name: str) -> bool:
    return (isinstance(node, ast.Name) and node.id == name) or (
        isinstance(node, ast.Attribute) and node.attr == name
    )


def direct_calls(tree: ast.Module, name: str) -> int | None:
    """How many calls of something named `name` (`name(...)`, `x.name(...)`) `tree` holds;
    None when it also refers to `name` otherwise (a base class, a value passed on,
    `name.__init__`), or calls `x.__init__(...)` on anything but `super()` (a second
    initialisation with other arguments)."""
    calls = 0
    called: set[int] = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        if _ast_named(node.func, name):
            calls += 1
            called.add(id(node.func))
        elif (
            isinstance(node.func, ast.Attribute)
            and node.func.attr == "__init__"
            and not (
                isinstance(node.func.value, ast.Call)
                and isinstance(node.func.value.func, ast.Name)
                and node.func.value.func.id == "super"
            )
        ):
            return None
    for node in ast.walk(tree):
        if _ast_named(node, name) and id(node) not in called:
            return None
    return calls


def _argument(call: cst.Call, name: str, index: int | None) -> cst.BaseExpression | None:
    """What `call` passes for parameter `name` (at positional `index`), None if nothing."""
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == name:
            return arg.value
    positional = [a for a in call.args if a.keyword is None and not a.star]
    if index is not None and 0 <= index < len(positional):
        return positional[index].value
    return None
