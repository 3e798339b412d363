"""`dp2ddp migrate PATH...`: the programs behind the paths given on the command line.

A file named on the command line is an entry. In a folder, the entry scripts are the
files with a `__main__` guard or top-level training code (a loop, a `with`, a call
statement, or a DataParallel wrap at top level) that no other module of the folder
imports; each is migrated with its program. A module shared by two programs is migrated
once, the same way (the library role does not depend on the entry), so the result equals
migrating the entries one by one. A module with DataParallel that no entry reaches is
migrated as a library with a DP023 warning; every other file is migrated as a single file
exactly as before (and never parsed when it cannot use DataParallel).
"""

from __future__ import annotations

import ast
from collections.abc import Sequence

from dp2ddp.errors import InputError
from dp2ddp.migrate.discovery import Target, discover
from dp2ddp.migrate.files import migrate_decoded
from dp2ddp.migrate.precheck import may_use_dataparallel
from dp2ddp.options import MigrateOptions
from dp2ddp.program.analysis import module_facts
from dp2ddp.program.discovery import ModuleCache, ProgramModule, discover_program, read_module
from dp2ddp.program.migrate import ProgramPlan, plan_one
from dp2ddp.result import FileOutcome

_TOP_LEVEL_CODE = (ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith)


def plan_paths(
    paths: Sequence[str], exclude: Sequence[str], options: MigrateOptions
) -> ProgramPlan:
    """Migrate (in memory) every program the paths name; outcomes in a stable order."""
    plan = ProgramPlan()
    cache: ModuleCache = {}
    targets = discover(paths, exclude)
    for target in targets:
        if target.error is not None:
            plan.outcomes.append(FileOutcome(target.path, "failed", error=target.error))
        elif target.explicit:
            plan_one(plan, target.path, options, cache)
    walked = [t for t in targets if t.error is None and not t.explicit]
    if walked:
        _plan_folder(plan, walked, options, cache)
    return plan


def _plan_folder(
    plan: ProgramPlan, targets: list[Target], options: MigrateOptions, cache: ModuleCache
) -> None:
    programs: dict[str, list[ProgramModule]] = {}
    failed: dict[str, str] = {}
    for target in targets:
        try:
            programs[target.path] = list(discover_program(target.path, cache).modules)
        except InputError as exc:
            try:  # an imported module failed: that one is reported where it is migrated
                programs[target.path] = [read_module(target.path, target.path, "__main__")]
            except InputError:
                failed[target.path] = exc.format()
    imported = {m.real for modules in programs.values() for m in modules[1:]}
    entries = [
        path
        for path, modules in programs.items()
        if modules[0].real not in imported and is_entry_script(modules[0].tree)
    ]
    for path in entries:
        plan_one(plan, path, options, cache)
    planned = set(plan._planned)
    for target in targets:
        if target.path in failed:
            if not any(o.path == target.path for o in plan.outcomes):
                plan.outcomes.append(FileOutcome(target.path, "failed", error=failed[target.path]))
            continue
        module = programs[target.path][0]
        if module.real in planned:
            continue
        if _wraps(module, options):
            plan_one(plan, target.path, options, cache, orphan=True)
            planned = set(plan._planned)
        else:  # no entry and no wrap: as a single file, exactly as before
            outcome, data = migrate_decoded(target.path, module.source, options)
            plan.add(outcome, data, module.real, module.stamp)


def _wraps(module: ProgramModule, options: MigrateOptions) -> bool:
    if not may_use_dataparallel(module.source.text):
        return False
    try:
        return module_facts(module, options).has_dataparallel
    except InputError:
        return False  # reported when it is migrated


def is_entry_script(tree: ast.Module) -> bool:
    """A `__main__` guard, or training code at the top level (also under a top-level
    `if` or `try`): a loop, a `with`, a call statement, a DataParallel wrap."""
    return _has_top_level_code(tree.body)


def _has_top_level_code(body: list[ast.stmt]) -> bool:
    for stmt in body:
        if isinstance(stmt, ast.If) and _is_main_guard(stmt.test):
            return True
        if isinstance(stmt, _TOP_LEVEL_CODE):
            return True
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
            return True
        if isinstance(stmt, ast.If) and _has_top_level_code(stmt.body + stmt.orelse):
            return True
        if isinstance(stmt, ast.Try) and _has_top_level_code(stmt.body):
            return True
        if isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)) and any(
            isinstance(n, ast.Attribute | ast.Name)
            and (n.attr if isinstance(n, ast.Attribute) else n.id) == "DataParallel"
            for n in ast.walk(stmt)
        ):
            return True
    return False


def _is_main_guard(test: ast.expr) -> bool:
    return (
        isinstance(test, ast.Compare)
        and isinstance(test.left, ast.Name)
        and test.left.id == "__name__"
        and len(test.comparators) == 1
        and isinstance(test.comparators[0], ast.Constant)
        and test.comparators[0].value == "__main__"
    )
