"""Insert the process-group setup rendered from templates/ and call it at the entry point."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import libcst as cst
from libcst.codemod.visitors import AddImportsVisitor
from libcst.helpers import get_full_name_for_node

from dp2ddp.facts import GENERATED_MODULE
from dp2ddp.templating import Statement, render_statements
from dp2ddp.transforms._support.base import MigrationTransform
from dp2ddp.transforms._support.names import SETUP_FUNCTION
from dp2ddp.transforms._support.nodes import (
    after_imports,
    is_docstring,
    is_script_guard,
    name_of,
    walk,
)
from dp2ddp.transforms._support.runtime import HELPER_IMPORTS, helper_closure

#: What an inline helper subclasses (the generated module imports it itself).
_HELPER_FROM_IMPORTS: dict[str, tuple[tuple[str, str], ...]] = {
    "distributed_sampler": (("torch.utils.data.distributed", "DistributedSampler"),),
}


class InsertProcessGroup(MigrationTransform):
    """Import LOCAL_RANK/RANK/WORLD_SIZE/DEVICE, ddp_setup() and the helpers the rewrites
    use from the generated module (or, with inline_helpers, insert them) and call setup.

    Setup runs first thing in main() when the script has one and wraps no model at module
    level; otherwise right after the imports (the inline form: after the setup block), at
    import time.
    """

    NAME = "process_group"
    DESCRIPTION = "Set up and tear down the torchrun process group."

    def leave_Module(self, original_node: cst.Module, updated_node: cst.Module) -> cst.Module:
        if self.state.already_migrated:
            return updated_node
        program = self.state.program
        if program is not None:
            return self._leave_program_module(
                original_node, updated_node, program.role, program.helpers_module
            )
        if not self.state.options.inline_helpers:
            # A file on its own, the helpers apart: migrated as the entry of its program.
            helpers = self.state.facts.helpers_module or GENERATED_MODULE
            return self._leave_program_module(original_node, updated_node, "entry", helpers)
        body: list[cst.SimpleStatementLine | cst.BaseCompoundStatement] = list(updated_node.body)
        for module, obj, alias in (
            ("os", None, None),
            ("atexit", None, None),
            ("torch", None, None),
            ("torch.distributed", None, "dist"),
        ):
            AddImportsVisitor.add_needed_import(self.context, module, obj, alias)
        # With the helpers those call (ddp_rank0_value's ddp_call_key), as the module form.
        closure = helper_closure(self.state.helpers)
        for helper in closure:
            for module in HELPER_IMPORTS.get(helper, ()):
                AddImportsVisitor.add_needed_import(self.context, module)
            for module, name in _HELPER_FROM_IMPORTS.get(helper, ()):
                AddImportsVisitor.add_needed_import(self.context, module, name)

        self._check_collisions(original_node, updated_node)
        script = (self.context.filename or "train.py").replace("\\", "/").rsplit("/", 1)[-1]
        header = render_statements("ddp_header.py.j2", helpers=list(closure), script=script)
        at = after_imports(body)
        main_index = _main_function(body)
        setup_call = render_statements("setup_call.py.j2")
        needed = group_needed_at_import(body) if main_index is not None else None
        if main_index is None or self.state.module_level_wrap or needed is not None:
            setup_call[0] = _two_blank_lines_before(setup_call[0])
            header = [*header, *setup_call]
            where = "at import time, after the setup block"
            if needed is not None and not self.state.module_level_wrap:
                where += f" ({needed}, run at import, needs the process group)"
        else:
            body[main_index] = _prepend_to_function(body[main_index], setup_call)  # type: ignore[arg-type]
            where = "first thing in main()"
            if _setup_before_main_call(body):
                where += " and before the statement calling main() (" + _BEFORE_WHY + ")"
        header[0] = header[0].with_changes(
            leading_lines=[cst.EmptyLine(), *header[0].leading_lines]
        )
        if at < len(body):
            body[at] = _two_blank_lines_before(body[at])
        body[at:at] = header
        node = original_node.body[at - 1] if at else original_node
        self.record(node, f"inserted the DDP process-group setup; ddp_setup() runs {where}")
        return updated_node.with_changes(body=body)

    # -- program mode (dp2ddp/program/): helpers imported, setup only at the entry ---------
    def _leave_program_module(
        self, original: cst.Module, updated: cst.Module, role: str | None, helpers: str
    ) -> cst.Module:
        """A module whose helpers are apart: import those it uses from the generated
        module (import name `helpers`); the entry also calls ddp_setup() (a library never
        does: importing it must not start a process group)."""
        from dp2ddp.transforms._support.runtime import used_exports

        self._check_collisions(original, updated)
        body: list[cst.SimpleStatementLine | cst.BaseCompoundStatement] = list(updated.body)
        facts = self.state.facts
        # A module whose import runs code that may log, where the program logs: the setup
        # block's ddp_quiet_logging() runs before it (when the helpers are imported, stop 61)
        logged = facts.run_at_import if self.state.hints.logs else ()
        early = _first_import_of(body, (*facts.group_at_import, *logged), helpers)
        if role == "entry" and not any(_calls(s, SETUP_FUNCTION) for s in body) and early:
            index, module = early
            statements: list[cst.BaseStatement] = [
                cst.parse_statement(f"from {helpers} import {SETUP_FUNCTION}\n"),
                *render_statements("setup_call.py.j2"),
            ]
            statements[0] = statements[0].with_changes(leading_lines=body[index].leading_lines)
            body[index] = body[index].with_changes(leading_lines=())
            body[index:index] = statements  # type: ignore[assignment]
            why = "needs the process group"
            if module not in facts.group_at_import:
                why = "may log: importing the helpers drops the records of ranks other than 0"
            self.record(
                original,
                f"ddp_setup() runs at import time of the entry, before its import of {module}: "
                f"importing it runs code that {why}",
            )
        elif role == "entry" and not any(_calls(s, SETUP_FUNCTION) for s in body):
            main_index = _main_function(body)
            calls = frozenset(self.state.facts.group_calls)
            needed = group_needed_at_import(body, calls=calls) if main_index is not None else None
            if main_index is None or self.state.module_level_wrap or needed is not None:
                at = after_imports(body)
                setup_call = render_statements("setup_call.py.j2")
                setup_call[0] = _two_blank_lines_before(setup_call[0])
                if at < len(body):
                    body[at] = _two_blank_lines_before(body[at])
                body[at:at] = setup_call
                node = original.body[at - 1] if at else original
                why = f" ({needed}, run at import, needs the process group)" if needed else ""
                self.record(
                    node, f"ddp_setup() runs at import time of the entry, after its imports{why}"
                )
            else:
                statements = list(render_statements("setup_call.py.j2"))
                main = body[main_index]
                assert isinstance(main, cst.FunctionDef)
                body[main_index] = _prepend_to_function(main, statements)
                self.record(original.body[main_index], "ddp_setup() runs first thing in main()")
                if _setup_before_main_call(body):
                    self.record(
                        original.body[main_index],
                        "ddp_setup() also runs before the statement calling main() ("
                        + _BEFORE_WHY
                        + ")",
                    )
        if role == "library" and self.state.hints.script:
            self._setup_in_script_block(original, body)
        migrated = updated.with_changes(body=body)
        names = used_exports(migrated)
        self.state.helper_imports = tuple(names)
        after = _after_path_edits(body, names) if "." in helpers else None
        if after is not None:
            # `from tools._dp2ddp import ...` resolves only once the root is on sys.path,
            # which `python tools/train.py` gets from the module's own sys.path edit.
            statement = cst.parse_statement(
                f"from {helpers} import {', '.join(names)}  # noqa: E402\n"
            )
            body.insert(after, statement)
            migrated = updated.with_changes(body=body)
            self.record(
                original,
                f"imports {', '.join(names)} from {helpers}, after the module's own sys.path edit",
            )
            return migrated
        for name in names:
            AddImportsVisitor.add_needed_import(self.context, helpers, name)
        if names:
            self.record(original, f"imports {', '.join(names)} from {helpers}")
        return migrated

    def _setup_in_script_block(
        self,
        original: cst.Module,
        body: list[cst.SimpleStatementLine | cst.BaseCompoundStatement],
    ) -> None:
        """A library that is also a script (ProgramHints.script): ddp_setup() first thing in
        its `__main__` block, which runs only when the file is the script, so importing it
        still starts no process group."""
        for index, stmt in enumerate(body):
            if not (
                isinstance(stmt, cst.If)
                and is_script_guard(stmt.test)
                and isinstance(stmt.body, cst.IndentedBlock)
            ):
                continue
            inner = list(stmt.body.body)
            if any(_calls(s, SETUP_FUNCTION) for s in inner):
                return
            inner[0:0] = render_statements("setup_call.py.j2")
            body[index] = stmt.with_changes(body=stmt.body.with_changes(body=inner))
            self.record(
                original.body[index],
                "ddp_setup() runs first thing in the `__main__` block: the module is also a "
                "script of its own",
            )
            return

    def _check_collisions(self, module: cst.Module, migrated: cst.Module) -> None:
        """DP014 for the module's own top-level binding of a name the setup binds (a def
        of a helper's name the migration calls here says that its calls reach that def:
        round 28, xiezheng-cs/PyTorch_DDP@faf2ede's `ddp_print(ouput, logger, local_rank)`
        took the rewritten prints, a TypeError on every rank); not for one the migration
        dropped (devices: `DEVICE = DEVICE`, the program's DEVICE now the
        setup's), which `migrated` no longer binds."""
        from dp2ddp.transforms._support.names import SETUP_NAMES
        from dp2ddp.transforms._support.runtime import top_level_bindings

        still = top_level_bindings(migrated)

        for stmt in module.body:
            targets: list[cst.BaseExpression] = []
            if isinstance(stmt, cst.SimpleStatementLine):
                for small in stmt.body:
                    if isinstance(small, cst.Assign):
                        targets += [t.target for t in small.targets]
                    elif isinstance(small, cst.AnnAssign):
                        targets.append(small.target)
            elif isinstance(stmt, cst.FunctionDef) and stmt.name.value.startswith("ddp_"):
                name = stmt.name.value
                used = name in {f"ddp_{helper}" for helper in self.state.helpers}
                self.warn(
                    stmt,
                    "DP014",
                    f"{name}: the calls of {name}() the migration writes in this module "
                    "would reach this function, not dp2ddp's helper: rename yours and "
                    "migrate again"
                    if used
                    else name,
                )
            for target in targets:
                if (
                    isinstance(target, cst.Name)
                    and target.value in SETUP_NAMES
                    and target.value in still
                ):
                    self.warn(target, "DP014", target.value)


#: What the migration inserts that needs the process group when it runs: DDP's classes
#: (a DistributedSampler asks the group for the world size) and the helpers that run a
#: collective (templates/helpers/).
NEEDS_GROUP = frozenset(
    {
        "DistributedSampler",
        "DdpDistributedSampler",
        "DistributedDataParallel",
        "ddp_all_reduce_mean",
        "ddp_all_reduce_sum",
        "ddp_any_rank",
        "ddp_average_gradients",
        "ddp_barrier",
        "ddp_broadcast_module",
        "ddp_count_share",
        "ddp_gather_items",
        "ddp_gather_rows",
        "ddp_global_count",
        "ddp_rank0_first",
        "ddp_rewrap",
        "ddp_sync_frozen",
        "ddp_sync_module",
        "ddp_sync_tensor",
        "ddp_whole_table",
        "ddp_wrap_trainable",
    }
)


def group_needed_at_import(
    body: Sequence[cst.BaseStatement],
    library: bool = False,
    calls: frozenset[str] = frozenset(),
) -> str | None:
    """The first call that needs the process group (NEEDS_GROUP) among what the module
    runs at import before main() is called: its top-level statements before the first
    that calls main() or is its `if __name__ == "__main__":` block, that block's statements
    before the one calling main(), and the module's functions those call by name
    (transitively; main() itself aside). Found there, ddp_setup() must run at
    import too: first thing in main() is too late (L1, stop 31: a module-level loader's
    inserted DistributedSampler, "Default process group has not been initialized" on
    every rank). None when nothing does. library: the module is imported, not run, so its
    `__main__` block never runs at import (program/migrate.py asks so of a library).
    calls: names of other program modules' functions and classes whose call needs the
    group (group_functions over their migrated code): a module-level
    `dataset.retrieve_dataloaders(args)` builds its loaders' DistributedSampler then
    (v3-A, stop 44: e3_diffusion's main_qm9.py, "Default process group has not been
    initialized" on every rank). Matched by name whatever the call's module: ddp_setup()
    earlier than needed costs nothing."""
    functions = {s.name.value: s for s in body if isinstance(s, cst.FunctionDef)}
    todo: list[cst.CSTNode] = []
    for statement in body:
        if isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
            continue
        if isinstance(statement, cst.If) and is_script_guard(statement.test):
            if library:
                continue
            inner = statement.body.body
            todo += inner[: next((i for i, s in enumerate(inner) if _runs_main(s)), len(inner))]
            break
        if _runs_main(statement):
            break
        todo.append(statement)
    seen: set[str] = {"main"}
    while todo:
        for node in walk(todo.pop(0), skip_scopes=True):
            if not isinstance(node, cst.Call):
                continue
            func = node.func
            name = func.attr.value if isinstance(func, cst.Attribute) else ""
            name = func.value if isinstance(func, cst.Name) else name
            if name in NEEDS_GROUP or name in calls:
                return f"{name}(...)"
            if isinstance(func, cst.Name) and name in functions and name not in seen:
                seen.add(name)
                todo.append(functions[name].body)
    return None


def group_functions(body: Sequence[cst.BaseStatement], names: frozenset[str]) -> set[str]:
    """The module's top-level functions and classes whose call runs a call of `names`
    (NEEDS_GROUP and other modules' such functions), directly or through the module's
    own such functions: calling one before ddp_setup() fails. A class counts by any of
    its methods (its constructor may build the loader)."""
    defs = {s.name.value: s for s in body if isinstance(s, (cst.FunctionDef, cst.ClassDef))}
    called = {
        name: {_call_name(node) for node in walk(definition.body) if isinstance(node, cst.Call)}
        for name, definition in defs.items()
    }
    needing: set[str] = set()
    grown = True
    while grown:
        grown = False
        for name, inner in called.items():
            if name not in needing and (inner & names or inner & needing):
                needing.add(name)
                grown = True
    return needing


def _call_name(call: cst.Call) -> str:
    """The name a call calls: `f(...)` f, `a.b.f(...)` f, else ''."""
    func = call.func
    if isinstance(func, cst.Attribute):
        return func.attr.value
    return func.value if isinstance(func, cst.Name) else ""


def _first_import_of(
    body: Sequence[cst.BaseStatement], modules: Sequence[str], helpers: str
) -> tuple[int, str] | None:
    """The first top-level statement of the entry that imports one of `modules` (the
    program modules whose import needs the process group, ProgramFacts.group_at_import),
    with that module's name: ddp_setup() must run before it. None when none does, or when
    the helpers module is a package's (`pkg._dp2ddp`), importable only after the entry's
    own sys.path edit, which may come later."""
    if not modules or "." in helpers:
        return None
    wanted = set(modules)
    for index, statement in enumerate(body):
        if not isinstance(statement, cst.SimpleStatementLine):
            continue
        for small in statement.body:
            for name in _imported_modules(small):
                if name in wanted:
                    return index, name
    return None


def _imports_from(statement: cst.CSTNode, module: str) -> bool:
    """A top-level `from <module> import ...` statement."""
    return isinstance(statement, cst.SimpleStatementLine) and any(
        isinstance(s, cst.ImportFrom)
        and s.module is not None
        and get_full_name_for_node(s.module) == module
        for s in statement.body
    )


def _imported_modules(small: cst.BaseSmallStatement) -> list[str]:
    """The modules an absolute import statement imports (a `from a.b import c` may import
    a.b and a.b.c; `import a.b` imports a and a.b); a relative import: none (the entry is
    a script)."""
    if isinstance(small, cst.Import):
        names: list[str] = []
        for alias in small.names:
            parts = (get_full_name_for_node(alias.name) or "").split(".")
            names += [".".join(parts[: i + 1]) for i in range(len(parts))]
        return names
    if not isinstance(small, cst.ImportFrom) or small.relative or small.module is None:
        return []
    base = get_full_name_for_node(small.module) or ""
    if isinstance(small.names, cst.ImportStar):
        return [base]
    return [base, *(f"{base}.{get_full_name_for_node(a.name)}" for a in small.names)]


def _runs_main(statement: cst.CSTNode) -> bool:
    """`statement` calls main() (`main()`, `E2E_DIGEST = main()`): ddp_setup() in main()
    runs before what follows it."""
    return any(
        isinstance(n, cst.Call) and isinstance(n.func, cst.Name) and n.func.value == "main"
        for n in walk(statement, skip_scopes=True)
    )


def _setup_before_main_call(
    body: list[cst.SimpleStatementLine | cst.BaseCompoundStatement],
) -> bool:
    """ddp_setup() before the module-level statement (or the `__main__` block's) that
    calls main() with arguments that call code (`main(get_args())`): Python evaluates
    the arguments before main's body, so a line they log or print came from every rank
    before the setup in main() quieted the other ranks (fresh6 class Z4: subword-qac's
    "device: cpu, n_gpu: 2" twice). ddp_setup() returns at once when the group exists, so
    the call in main() stays for callers that import it. True when one was inserted."""
    for index, stmt in enumerate(body):
        if (
            isinstance(stmt, cst.If)
            and is_script_guard(stmt.test)
            and isinstance(stmt.body, cst.IndentedBlock)
        ):
            inner = list(stmt.body.body)
            if _insert_before_main_call(inner):
                body[index] = stmt.with_changes(body=stmt.body.with_changes(body=inner))
                return True
    return _insert_before_main_call(body)


def _insert_before_main_call(statements: list[Any]) -> bool:
    for index, stmt in enumerate(statements):
        if index and _calls(statements[index - 1], SETUP_FUNCTION):
            return False
        if _routes_around_main(stmt):
            setup = render_statements("setup_call.py.j2")[0]
            statements.insert(index, setup.with_changes(leading_lines=stmt.leading_lines))
            statements[index + 1] = stmt.with_changes(leading_lines=())
            return True
        if not isinstance(stmt, cst.SimpleStatementLine):
            continue
        calls = [
            n
            for n in walk(stmt, skip_scopes=True)
            if isinstance(n, cst.Call) and isinstance(n.func, cst.Name) and n.func.value == "main"
        ]
        if any(
            isinstance(inner, cst.Call)
            for call in calls
            for a in call.args
            for inner in walk(a.value)
        ):
            setup = render_statements("setup_call.py.j2")[0]
            statements.insert(index, setup.with_changes(leading_lines=stmt.leading_lines))
            statements[index + 1] = stmt.with_changes(leading_lines=())
            return True
    return False


def _routes_around_main(statement: cst.CSTNode) -> bool:
    """A compound statement that runs main() in one branch and calls other code in another
    (`if args.search: main(args)` / `else: main_once(args)`, a try whose handler runs a
    function of its own): the other branch may reach a wrap, a DistributedSampler or a
    collective without passing through main(), where ddp_setup() is first thing (v4-B,
    stop 54: TabSurvey's train.py, "Default process group has not been initialized" on
    every rank of main_once()). ddp_setup() then runs before the statement too."""
    if not isinstance(statement, cst.BaseCompoundStatement) or isinstance(
        statement, (cst.FunctionDef, cst.ClassDef)
    ):
        return False
    if isinstance(statement, cst.If) and is_script_guard(statement.test):
        return False  # the `__main__` block itself: its statements are asked one by one
    if not _runs_main(statement):
        return False
    mains = [
        n
        for n in walk(statement, skip_scopes=True)
        if isinstance(n, cst.Call) and isinstance(n.func, cst.Name) and n.func.value == "main"
    ]
    inside = {id(inner) for call in mains for inner in walk(call)}
    return any(
        isinstance(n, cst.Call) and id(n) not in inside and name_of(n.func) not in _NO_GROUP
        for n in walk(statement, skip_scopes=True)
    )


#: Why ddp_setup() runs before the statement that calls main() as well.
_BEFORE_WHY = "its arguments call code, or a branch of it runs other code"

#: Calls a branch beside main() may make that never need the process group.
_NO_GROUP = frozenset({"print", "exit", "quit"})


def _main_function(body: Sequence[cst.CSTNode]) -> int | None:
    for index, stmt in enumerate(body):
        if isinstance(stmt, cst.FunctionDef) and stmt.name.value == "main":
            return index
    return None


def _prepend_to_function(
    func: cst.FunctionDef, statements: list[cst.BaseStatement]
) -> cst.FunctionDef:
    if not isinstance(func.body, cst.IndentedBlock):
        return func
    inner = list(func.body.body)
    at = 1 if inner and is_docstring(inner[0]) else 0
    for stmt in inner:
        if _calls(stmt, SETUP_FUNCTION):
            return func
    inner[at:at] = statements
    return func.with_changes(body=func.body.with_changes(body=inner))


def _calls(stmt: cst.CSTNode, name: str) -> bool:
    return (
        isinstance(stmt, cst.SimpleStatementLine)
        and len(stmt.body) == 1
        and isinstance(stmt.body[0], cst.Expr)
        and isinstance(stmt.body[0].value, cst.Call)
        and isinstance(stmt.body[0].value.func, cst.Name)
        and stmt.body[0].value.func.value == name
    )


def _two_blank_lines_before(stmt: Statement) -> Statement:
    """PEP 8 spacing after the inserted functions; existing comments are kept."""
    lines = list(stmt.leading_lines)
    blanks = 0
    while blanks < len(lines) and lines[blanks].comment is None:
        blanks += 1
    if blanks >= 2:
        return stmt
    return stmt.with_changes(leading_lines=[cst.EmptyLine()] * (2 - blanks) + lines)


def _after_path_edits(body: Sequence[cst.BaseStatement], names: Sequence[str]) -> int | None:
    """Where the helpers import goes in a module that edits sys.path at its top level
    (`sys.path.append('.')`, `sys.path.insert(0, root)`) before it uses a helper: right
    after the last such edit. None: no such edit, or no helper to import."""
    if not names:
        return None
    wanted, at = set(names), None
    for index, stmt in enumerate(body):
        if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)) or any(
            isinstance(n, cst.Name) and n.value in wanted for n in walk(stmt)
        ):
            break
        if any(_is_sys_path(n) for n in walk(stmt)):
            at = index + 1
    return at


def _is_sys_path(node: cst.CSTNode) -> bool:
    """`sys.path` itself, written to: `sys.path.append(...)`, `sys.path[0:0] = ...`,
    `sys.path = ...`, `sys.path += ...` (what the statement does with it is not asked:
    reading sys.path at the top level before any helper is used is as good a place)."""
    return (
        isinstance(node, cst.Attribute)
        and node.attr.value == "path"
        and isinstance(node.value, cst.Name)
        and node.value.value == "sys"
    )
