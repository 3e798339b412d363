"""`dp2ddp migrate PATH...`: the programs behind the paths given on the command line.

A file named on the command line is an entry. In a folder, the entry scripts are the
files with a `__main__` guard or top-level training code (a loop, a `with`, a call
statement, or a DataParallel wrap at top level) that no other module of the folder
imports; each is migrated with its program. A module shared by two programs is migrated
once, the same way (the library role does not depend on the entry), so the result equals
migrating the entries one by one. A module with DataParallel that no entry reaches is
migrated as a library with a DP025 warning; every other file is migrated as a single file
exactly as before (and never parsed when it cannot use DataParallel).
"""

from __future__ import annotations

import ast
import os
import re
from collections.abc import Sequence

from dp2ddp.errors import InputError
from dp2ddp.migrate.discovery import Target, discover
from dp2ddp.migrate.files import Progress, Sink, migrate_decoded, migrate_files
from dp2ddp.migrate.precheck import may_use_dataparallel
from dp2ddp.options import MigrateOptions
from dp2ddp.program.discovery import (
    GENERATED_MODULE,
    ModuleCache,
    ProgramModule,
    discover_program,
    in_skipped_dir,
    read_module,
)
from dp2ddp.program.migrate import ProgramPlan, plan_one
from dp2ddp.result import FileOutcome

_TOP_LEVEL_CODE = (ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith)


def plan_paths(
    paths: Sequence[str],
    exclude: Sequence[str],
    options: MigrateOptions,
    *,
    jobs: int | None = None,
    sink: Sink | None = None,
    progress: Progress | None = None,
) -> ProgramPlan:
    """Migrate (in memory) every program the paths name; outcomes in a stable order.

    Files of a folder that cannot belong to a DataParallel program (see `_relevant`) go
    through the per-file runner as before: `jobs` worker processes, `progress`, and `sink`
    writes each of them at once (they are single files); program files wait for write_plan.
    """
    plan = ProgramPlan()
    cache: ModuleCache = {}
    targets = discover(paths, exclude)
    named = frozenset(os.path.realpath(t.path) for t in targets if t.explicit)
    for target in targets:
        if target.error is not None:
            plan.outcomes.append(FileOutcome(target.path, "failed", error=target.error))
        elif target.explicit:
            plan_one(plan, target.path, options, cache, named=named)
    walked = [t for t in targets if t.error is None and not t.explicit]
    relevant = _relevant([t for t in walked if not in_skipped_dir(t.path)])
    single = _plan_folder(plan, relevant, options, cache) if relevant else []
    planned = {os.path.realpath(o.path) for o in plan.outcomes}
    chosen = set(relevant) - set(single)
    rest = [t for t in walked if t not in chosen and os.path.realpath(t.path) not in planned]
    if rest:
        plan.outcomes += migrate_files(rest, options, jobs=jobs, sink=sink, progress=progress)
    return plan


_WORD = re.compile(r"\w+")
#: Import statements as text: `from X import names` (parenthesised over lines too), `import X`.
_IMPORT = re.compile(
    r"^[ \t]*(?:from[ \t]+([\w.]+)[ \t]+import[ \t]*(\([^)]*\)|[^\n]*)|import[ \t]+([^\n]*))",
    re.MULTILINE,
)


def _import_words(text: str) -> set[str]:
    """Every word of the file's import statements: a module it imports is one of them."""
    words: set[str] = set()
    for match in _IMPORT.finditer(text):
        for part in match.groups():
            if part:
                words.update(_WORD.findall(part))
    return words


def _relevant(targets: list[Target]) -> list[Target]:
    """The files that may belong to a DataParallel program: those that mention DataParallel
    or the generated module or import modules by a call (`importlib.import_module`), and (to
    a fixed point) those whose import statements name one of their modules, as any import
    of them does. The rest is not parsed at all."""
    texts: dict[Target, str] = {}
    for target in targets:
        try:
            with open(target.path, "rb") as handle:
                texts[target] = handle.read().decode("utf-8", "replace")
        except OSError:
            continue  # reported by the per-file runner
    found = [
        t
        for t, text in texts.items()
        if may_use_dataparallel(text) or GENERATED_MODULE in text or _imports_by_call(text)
    ]
    chosen = set(found)
    imports = {t: _import_words(text) for t, text in texts.items() if t not in chosen}
    names = {_module_word(t.path) for t in found}
    while names:
        added = [
            t for t, words in imports.items() if t not in chosen and not names.isdisjoint(words)
        ]
        chosen.update(added)
        names = {_module_word(t.path) for t in added}
    return [t for t in targets if t in chosen]


def _imports_by_call(text: str) -> bool:
    """`importlib.import_module(...)` or `__import__(...)`: the modules it imports are not
    in its import statements (program/dynamic_imports.py follows them)."""
    return "import_module(" in text or "__import__(" in text


def _module_word(path: str) -> str:
    stem = os.path.splitext(os.path.basename(path))[0]
    return os.path.basename(os.path.dirname(os.path.abspath(path))) if stem == "__init__" else stem


def _plan_folder(
    plan: ProgramPlan, targets: list[Target], options: MigrateOptions, cache: ModuleCache
) -> list[Target]:
    """Plan the programs among `targets`; return the targets left to the per-file runner
    (files `ast` cannot parse that cannot use DataParallel, as before: never parsed)."""
    programs: dict[str, list[ProgramModule]] = {}
    failed: dict[str, str] = {}
    single: list[Target] = []
    for target in targets:
        try:
            programs[target.path] = list(discover_program(target.path, cache).modules)
        except InputError as exc:
            try:  # an imported module failed: that one is reported where it is migrated
                programs[target.path] = [read_module(target.path, target.path, "__main__")]
            except InputError:
                if exc.path == target.path and not _may_wrap(target.path):
                    single.append(target)
                else:
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
        if target in single:
            continue
        if target.path in failed:
            if not any(o.path == target.path for o in plan.outcomes):
                plan.outcomes.append(FileOutcome(target.path, "failed", error=failed[target.path]))
            continue
        module = programs[target.path][0]
        if module.real in planned:
            continue
        if may_use_dataparallel(module.source.text):  # a library if it wraps (facts decide)
            plan_one(plan, target.path, options, cache, orphan=True)
            planned = set(plan._planned)
        else:  # no entry and no wrap: as a single file, exactly as before
            outcome, data = migrate_decoded(target.path, module.source, options)
            plan.add(outcome, data, module.real, module.stamp)
    return single


def _may_wrap(path: str) -> bool:
    try:
        with open(path, "rb") as handle:
            return may_use_dataparallel(handle.read().decode("utf-8", "replace"))
    except OSError:
        return True  # let the error be reported


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
