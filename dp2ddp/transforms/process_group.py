"""Insert the process-group setup rendered from templates/ and call it at the entry point."""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst
from libcst.codemod.visitors import AddImportsVisitor

from dp2ddp.templating import Statement, render_statements
from dp2ddp.transforms._support.base import MigrationTransform
from dp2ddp.transforms._support.names import SETUP_FUNCTION
from dp2ddp.transforms._support.nodes import (
    after_imports,
    is_docstring,
    is_script_guard,
    walk,
)

#: Helpers that need an extra module import.
_HELPER_IMPORTS: dict[str, tuple[str, ...]] = {
    "per_rank_batch": ("warnings",),
    "shard_batch": ("warnings",),
    "eval_sampler": ("warnings",),
    "distributed_sampler": ("itertools",),
    "mkdir": ("warnings",),
    "rank0_value": ("warnings",),
    "stdin": ("warnings",),
    "quiet_logging": ("logging",),
}


class InsertProcessGroup(MigrationTransform):
    """Add LOCAL_RANK/RANK/WORLD_SIZE/DEVICE, ddp_setup()/ddp_cleanup() and call setup.

    Setup runs first thing in main() when the script has one and wraps no model at module
    level; otherwise right after the setup block, at import time.
    """

    NAME = "process_group"
    DESCRIPTION = "Set up and tear down the torchrun process group."

    def leave_Module(self, original_node: cst.Module, updated_node: cst.Module) -> cst.Module:
        if self.state.already_migrated:
            return updated_node
        if self.state.program is not None:
            return self._leave_program_module(original_node, updated_node)
        body: list[cst.SimpleStatementLine | cst.BaseCompoundStatement] = list(updated_node.body)
        for module, obj, alias in (
            ("os", None, None),
            ("atexit", None, None),
            ("torch", None, None),
            ("torch.distributed", None, "dist"),
        ):
            AddImportsVisitor.add_needed_import(self.context, module, obj, alias)
        for helper in sorted(self.state.helpers):
            for module in _HELPER_IMPORTS.get(helper, ()):
                AddImportsVisitor.add_needed_import(self.context, module)

        self._check_collisions(original_node)
        script = (self.context.filename or "train.py").replace("\\", "/").rsplit("/", 1)[-1]
        header = render_statements(
            "ddp_header.py.j2", helpers=sorted(self.state.helpers), script=script
        )
        at = after_imports(body)
        main_index = _main_function(body)
        setup_call = render_statements("setup_call.py.j2")
        if main_index is None or self.state.module_level_wrap:
            setup_call[0] = _two_blank_lines_before(setup_call[0])
            header = [*header, *setup_call]
            where = "at import time, after the setup block"
        else:
            body[main_index] = _prepend_to_function(body[main_index], setup_call)  # type: ignore[arg-type]
            where = "first thing in main()"
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
    def _leave_program_module(self, original: cst.Module, updated: cst.Module) -> cst.Module:
        """A module of a multi-module program: import the helpers it uses from the generated
        module; the entry also calls ddp_setup() (a library never does: importing it must
        not start a process group)."""
        from dp2ddp.transforms._support.runtime import used_exports

        program = self.state.program
        assert program is not None
        self._check_collisions(original)
        body: list[cst.SimpleStatementLine | cst.BaseCompoundStatement] = list(updated.body)
        if program.role == "entry" and not any(_calls(s, SETUP_FUNCTION) for s in body):
            main_index = _main_function(body)
            if main_index is None or self.state.module_level_wrap:
                at = after_imports(body)
                setup_call = render_statements("setup_call.py.j2")
                setup_call[0] = _two_blank_lines_before(setup_call[0])
                if at < len(body):
                    body[at] = _two_blank_lines_before(body[at])
                body[at:at] = setup_call
                node = original.body[at - 1] if at else original
                self.record(node, "ddp_setup() runs at import time of the entry, after its imports")
            else:
                statements: list[cst.BaseStatement] = list(render_statements("setup_call.py.j2"))
                main = body[main_index]
                assert isinstance(main, cst.FunctionDef)
                body[main_index] = _prepend_to_function(main, statements)
                self.record(original.body[main_index], "ddp_setup() runs first thing in main()")
        if program.role == "library" and self.state.hints.script:
            self._setup_in_script_block(original, body)
        migrated = updated.with_changes(body=body)
        names = used_exports(migrated)
        after = _after_path_edits(body, names) if "." in program.helpers_module else None
        if after is not None:
            # `from tools._dp2ddp import ...` resolves only once the root is on sys.path,
            # which `python tools/train.py` gets from the module's own sys.path edit.
            statement = cst.parse_statement(
                f"from {program.helpers_module} import {', '.join(names)}  # noqa: E402\n"
            )
            body.insert(after, statement)
            migrated = updated.with_changes(body=body)
            self.record(
                original,
                f"imports {', '.join(names)} from {program.helpers_module}, after the "
                "module's own sys.path edit",
            )
            return migrated
        for name in names:
            AddImportsVisitor.add_needed_import(self.context, program.helpers_module, name)
        if names:
            self.record(original, f"imports {', '.join(names)} from {program.helpers_module}")
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

    def _check_collisions(self, module: cst.Module) -> None:
        from dp2ddp.transforms._support.names import SETUP_NAMES

        for stmt in module.body:
            targets: list[cst.BaseExpression] = []
            if isinstance(stmt, cst.SimpleStatementLine):
                for small in stmt.body:
                    if isinstance(small, cst.Assign):
                        targets += [t.target for t in small.targets]
                    elif isinstance(small, cst.AnnAssign):
                        targets.append(small.target)
            elif isinstance(stmt, cst.FunctionDef) and stmt.name.value.startswith("ddp_"):
                self.warn(stmt, "DP014", stmt.name.value)
            for target in targets:
                if isinstance(target, cst.Name) and target.value in SETUP_NAMES:
                    self.warn(target, "DP014", target.value)


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
