"""`dp2ddp migrate PATH...`: the programs behind the paths given on the command line.

A file named on the command line is an entry. In a folder, the entry scripts are the
files with a `__main__` guard or top-level training code (a loop, a `with`, a call
statement, or a DataParallel wrap at top level) that no other module of the folder
imports; each is migrated with its program, where it trains (plan.no_program: a data
module's demo that reaches no wrap is migrated alone). A module shared by two programs is
migrated once, the same way (the library role does not depend on the entry), so the result equals
migrating the entries one by one. A module with DataParallel that no entry reaches is
migrated as a library with a DP025 warning; every other file is migrated as a single file
exactly as before (and never parsed when it cannot use DataParallel).
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence

from dp2ddp.errors import InputError
from dp2ddp.facts import GENERATED_MODULE
from dp2ddp.migrate.discovery import Target, discover
from dp2ddp.migrate.files import Progress, Sink, migrate_decoded, migrate_files
from dp2ddp.migrate.precheck import may_use_dataparallel
from dp2ddp.options import MigrateOptions
from dp2ddp.program.analysis import MIGRATED_CALLS, module_verdict, program_gate
from dp2ddp.program.discovery import (
    ImportGraph,
    ProgramModule,
    Start,
    discover_program,
    dynamic_edges,
    in_skipped_dir,
)
from dp2ddp.program.dynamic_imports import DynamicImports
from dp2ddp.program.migrate import plan_one
from dp2ddp.program.plan import ProgramPlan
from dp2ddp.program.project import Project
from dp2ddp.result import FileOutcome
from dp2ddp.transforms._support.identifiers import mentions


def plan_paths(
    paths: Sequence[str],
    exclude: Sequence[str],
    options: MigrateOptions,
    *,
    jobs: int | None = None,
    sink: Sink | None = None,
    progress: Progress | None = None,
    marked: frozenset[str] = frozenset(),
) -> ProgramPlan:
    """Migrate (in memory) every program the paths name; outcomes in a stable order.

    Files of a folder that cannot belong to a DataParallel program (see `_relevant`) go
    through the per-file runner as before: `jobs` worker processes, `progress`, and `sink`
    writes each of them at once (they are single files); program files wait for write_plan.
    `marked`: folders taken as root markers (verify's copy of a project: ImportGraph).
    """
    plan = ProgramPlan()
    project = Project(options, ImportGraph(marked))
    targets = discover(paths, exclude)
    named = frozenset(os.path.realpath(t.path) for t in targets if t.explicit)
    for target in targets:
        if target.error is not None:
            plan.outcomes.append(FileOutcome(target.path, "failed", error=target.error))
        elif target.explicit:
            plan_one(plan, target.path, project, named=named)
    walked = [t for t in targets if t.error is None and not t.explicit]
    graph = project.graph
    relevant = _relevant([t for t in walked if not in_skipped_dir(t.path, graph)], project)
    single = _plan_folder(plan, relevant, project) if relevant else []
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


def _relevant(targets: list[Target], project: Project) -> list[Target]:
    """The files that may belong to a DataParallel program: those that mention DataParallel
    or the generated module or import modules by a call (`importlib.import_module`), and (to
    a fixed point) those whose import statements name one of their modules, as any import
    of them does. The rest is not parsed at all.

    None when no file wraps a model with DataParallel or has a DDP path of its own (the
    detector's verdicts) and none imports the generated module: then no program's gate
    can open or be shut by a DDP path, and every file is migrated on its own, as a program
    whose gate is shut migrates it (a project whose files only test for DataParallel)."""
    graph = project.graph
    texts: dict[Target, str] = {}
    for target in targets:
        data = graph.read_bytes(target.path)
        if data is None:
            continue  # reported by the per-file runner
        texts[target] = data.decode("utf-8", "replace")
    mention = [t for t, text in texts.items() if may_use_dataparallel(text)]
    # What a migrated program's wraps and entries hold (analysis.migrated_before), as pass 1
    # found its wraps: a module that only imports helpers (`from _dp2ddp import DEVICE`), and
    # the generated module itself, seed no program, or every script importing a migrated
    # config would become one on a second run (then migrated, or masking the warnings of
    # the shared modules with a shut gate's).
    generated = [
        t
        for t, text in texts.items()
        if GENERATED_MODULE in text
        and os.path.basename(t.path) != GENERATED_MODULE + ".py"
        and mentions(text, *MIGRATED_CALLS)
    ]
    if (
        not generated
        and not any(_opens_or_shuts(t, project) for t in mention)
        and not _opens_through_reexport(texts, mention, project)
    ):
        return []
    seeds = set(mention) | set(generated)
    found = [t for t, text in texts.items() if t in seeds or _imports_by_call(text)]
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


def _opens_or_shuts(target: Target, project: Project) -> bool:
    """The file wraps a model with DataParallel (what opens a program's gate) or has a DDP
    path of its own (what shuts it, leaving the program's isinstance checks as they are),
    or cannot be read or parsed (left to the program's error reporting, as before)."""
    try:
        module = project.graph.start(target.path).entry
        verdict = module_verdict(module, project)
    except InputError:
        return True
    return verdict.has_dataparallel or verdict.has_ddp_path


def _opens_through_reexport(
    texts: dict[Target, str], mention: list[Target], project: Project
) -> bool:
    """A file that imports one that mentions DataParallel but wraps nothing may wrap with
    the DataParallel that one re-exports (`from mymodels import DP`, program/reexports.py):
    its program's gate says. Asked only when no file opens a gate by itself."""
    names = {_module_word(t.path) for t in mention}
    for target, text in texts.items():
        if target in mention or names.isdisjoint(_import_words(text)):
            continue
        try:
            program = discover_program(target.path, project.graph)
            if program_gate(program, project).has_dataparallel:
                return True
        except InputError:
            return True  # left to the program's error reporting, as _opens_or_shuts does
    return False


def _imports_by_call(text: str) -> bool:
    """`importlib.import_module(...)` or `__import__(...)`: the modules it imports are not
    in its import statements (program/dynamic_imports.py follows them)."""
    return "import_module(" in text or "__import__(" in text


def _module_word(path: str) -> str:
    stem = os.path.splitext(os.path.basename(path))[0]
    return os.path.basename(os.path.dirname(os.path.abspath(path))) if stem == "__init__" else stem


def _plan_folder(plan: ProgramPlan, targets: list[Target], project: Project) -> list[Target]:
    """Plan the programs among `targets`; return the targets left to the per-file runner
    (files `ast` cannot parse that cannot use DataParallel, as before: never parsed).

    The entry scripts are the targets with top-level code that no other target's program
    imports (`_imported`: one walk of the import graph, not one discovery per target)."""
    graph = project.graph
    starts: dict[str, Start] = {}
    failed: dict[str, str] = {}
    single: list[Target] = []
    for target in targets:
        try:
            starts[target.path] = graph.start(target.path)
        except InputError as exc:
            if exc.path == target.path and not _may_wrap(target.path):
                single.append(target)
            else:
                failed[target.path] = exc.format()
    imported = _imported(starts, graph)
    entries = [
        path
        for path, start in starts.items()
        if start.entry.real not in imported and start.entry.entry_script
    ]
    for path in entries:
        plan_one(plan, path, project, walked=True)
    planned = set(plan._planned)
    for target in targets:
        if target in single:
            continue
        if target.path in failed:
            if not any(o.path == target.path for o in plan.outcomes):
                plan.outcomes.append(FileOutcome(target.path, "failed", error=failed[target.path]))
            continue
        module = starts[target.path].entry
        if module.real in planned:
            continue
        if project.may_use_dataparallel(module):  # a library if it wraps (facts decide)
            plan_one(plan, target.path, project, orphan=True)
            planned = set(plan._planned)
        else:  # no entry and no wrap: as a single file, exactly as before
            outcome, data = migrate_decoded(target.path, module.source, project.options)
            plan.add(outcome, data, module.real, module.stamp)
    return single


def _imported(starts: dict[str, Start], graph: ImportGraph) -> set[str]:
    """Real paths of the modules some target's program imports: those `discover_program`
    of another target (whose program reads and parses whole) reaches. The targets that run
    the same way share one walk of their import graph; where a file is reached under two
    names or paths in one such graph (the walk per target could then differ), each target
    is discovered on its own instead."""
    by_resolver: dict[int, dict[str, Start]] = {}
    for path, start in starts.items():
        by_resolver.setdefault(id(start.resolver), {})[path] = start
    imported: set[str] = set()
    for group in by_resolver.values():
        found = _walk(list(group.values()), graph)
        if found is None:
            for path in group:
                try:
                    program = discover_program(path, graph)
                except InputError:
                    continue
                imported.update(m.real for m in program.modules[1:])
        else:
            imported |= found
    return imported


def _walk(group: list[Start], graph: ImportGraph) -> set[str] | None:
    """`_imported` for targets that run the same way (one resolver), in one walk: each
    module's successors, the modules whose program fails to read (every module reaching a
    file that cannot be read or parsed), then which good target reaches which module (up
    to two targets a module: enough to tell "another target").

    A file can be reached under several names or paths (a package's `__init__.py` taken
    as an entry is `pkg.__init__`, its importers' `pkg`; its relative imports then name
    their targets differently too). Discovery names each file after the way it first
    reaches it, so the walk is exact when every way of reaching a file resolves its
    imports to the same files: each is checked, and None (discover each target on its
    own) when two do not, or when a module edits sys.path (discovery then walks again).
    Import calls are edges too (a trainer module imported by its name is no entry); one
    whose name is opaque sends each target to discovery (the name may be in the program's
    configuration, which is the program's own: config_names.py).
    """
    resolver = group[0].resolver
    dynamic = DynamicImports(resolver, memo=graph.dynamic_memo)
    successors: dict[str, frozenset[str]] = {}
    visited: set[tuple[str, str, str]] = set()
    broken: set[str] = set()
    stack: list[tuple[ProgramModule, str]] = [(s.entry, s.entry_abs) for s in group]
    while stack:
        module, path = stack.pop()
        variant = (module.real, module.name, path)
        if variant in visited:
            continue
        visited.add(variant)
        if module.path_edits:
            return None  # it may widen the import search: discovery re-walks with it
        edges = [*graph.imports(resolver, module, path), *dynamic_edges(dynamic, module, graph)]
        if dynamic.sites:
            return None  # a name only the program's own configuration gives (config_names.py)
        reals = frozenset(real for _, _, real, _ in edges)
        if successors.setdefault(module.real, reals) != reals:
            return None
        for file, name, real, shown in edges:
            absolute = os.path.abspath(file)
            if real in broken or (real, name, absolute) in visited:
                continue
            try:
                stack.append((graph.module(file, shown, name, real=real), absolute))
            except InputError:
                broken.add(real)
                successors[real] = frozenset()
    # Modules whose program cannot be read whole: those that reach a broken file.
    predecessors: dict[str, list[str]] = {}
    for real, nexts in successors.items():
        for following in nexts:
            predecessors.setdefault(following, []).append(real)
    failing = set(broken)
    queue = list(broken)
    while queue:
        for before in predecessors.get(queue.pop(), ()):
            if before not in failing:
                failing.add(before)
                queue.append(before)
    # Which good targets reach each module (one or more steps), two at most.
    reached: dict[str, list[str]] = {}
    work: list[str] = []
    for start in group:
        source = start.entry.real
        if source in failing:
            continue
        for following in successors[source]:
            labels = reached.setdefault(following, [])
            if source not in labels and len(labels) < 2:
                labels.append(source)
                work.append(following)
    while work:
        current = work.pop()
        labels = reached[current]
        for following in successors.get(current, ()):
            into = reached.setdefault(following, [])
            added = False
            for label in labels:
                if label not in into and len(into) < 2:
                    into.append(label)
                    added = True
            if added:
                work.append(following)
    return {real for real, labels in reached.items() if any(s != real for s in labels)}


def _may_wrap(path: str) -> bool:
    try:
        with open(path, "rb") as handle:
            return may_use_dataparallel(handle.read().decode("utf-8", "replace"))
    except OSError:
        return True  # let the error be reported
