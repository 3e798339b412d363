"""Migrate programs: every module of an entry's program, all or nothing.

`plan_programs` migrates in memory into a ProgramPlan (outcomes for every file, the helpers
module included, the bytes to write; write.py's `write_plan` writes it). A program with a
module that cannot be read, parsed or migrated fails whole: nothing of it is written.

How a program is migrated (dp2ddp/facts.py has the roles):
1. discovery (ast) and the program-wide gate (analysis), from the project model
   (project.py: what is known of each module, shared by the programs of one run);
2. every library module with role "library" (helpers imported from the generated module,
   never a setup call);
3. the entry: if no library changed and no module imports the generated module yet, the
   program is a single file and the entry is migrated exactly as `migrate_source` alone
   migrates it (its helpers imported from the generated module, or with inline_helpers
   the inline setup block); else with role "entry";
4. the generated module beside the entry, when a module imports it: the helpers the
   program's modules use, with those the file already holds (`_generated`; entries of one
   folder planned in one run share it, `_merge_generated`).
A module shared by several programs is migrated once (project.py: its migration is reused
when the next program tells it the same facts and answers its questions the same), and a
program that would migrate it differently fails with an error instead.
"""

from __future__ import annotations

import ast
import os
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import partial
from typing import TYPE_CHECKING

from dp2ddp.codes import title
from dp2ddp.errors import InputError
from dp2ddp.facts import ProgramFacts
from dp2ddp.migrate.deep import call_deep, nesting_error
from dp2ddp.migrate.files import for_file, migrate_decoded
from dp2ddp.migrate.line_length import DEFAULT as DEFAULT_WIDTH
from dp2ddp.migrate.markers import mark
from dp2ddp.migrate.suppress import filter_diagnostics
from dp2ddp.options import MigrateOptions
from dp2ddp.program.analysis import ProgramGate, program_gate
from dp2ddp.program.discovery import Program, ProgramModule, discover_program
from dp2ddp.program.feeds import epochs_set, loader_feeds, share_attributes
from dp2ddp.program.group_calls import group_calls
from dp2ddp.program.helpers_home import package_home, path_root
from dp2ddp.program.import_reach import run_at_import
from dp2ddp.program.loader_subclasses import subclass_notes
from dp2ddp.program.padded_batches import padded_batch_notes
from dp2ddp.program.plan import ProgramPlan, no_program
from dp2ddp.program.project import Project, RecordingUniformity
from dp2ddp.program.told import ProgramTeller
from dp2ddp.program.unreached import (
    dynamic_loader_notes,
    unreached_notes,
    unread_draw_notes,
    unread_member_notes,
)
from dp2ddp.result import Change, Diagnostic, FileOutcome, LoaderExport, MigrationResult
from dp2ddp.transforms._support.ast_nodes import from_import_base

Exports = tuple[LoaderExport, ...]
# The passes' program-wide analyses and the helpers module (libcst, jinja2) load inside
# the functions that need them: a program without DataParallel needs none of them.
if TYPE_CHECKING:
    import libcst as cst

    from dp2ddp.program.reexports import ProgramReexports
    from dp2ddp.transforms._support.runtime import Generated


@dataclass(frozen=True)
class _Migrated:
    outcome: FileOutcome
    data: bytes | None


def plan_programs(entries: Sequence[str], options: MigrateOptions) -> ProgramPlan:
    """Migrate the program of each entry, in memory (see the module docstring)."""
    plan = ProgramPlan()
    project = Project(options)
    for entry in entries:
        plan_one(plan, entry, project)
    return plan


def plan_one(
    plan: ProgramPlan,
    entry: str,
    project: Project,
    *,
    orphan: bool = False,
    named: frozenset[str] | None = None,
    walked: bool = False,
) -> Program | None:
    """Add the program of `entry` to `plan`; None when it failed (reported in the plan).

    orphan: `entry` is a module with DataParallel that no entry script of its folder
    imports: it is migrated as a library (no setup call), with DP025 saying what its
    importer must call.
    named: `entry` was named on the command line, with the files of `named` (real paths):
    DataParallel modules of its project that its program does not reach, other than those,
    are named (DP034; folder mode migrates them on its own).
    walked: `entry` is a script the folder walk found (not named): a program only where it
    trains (plan.no_program); else its file alone is migrated, as a single file.
    """
    return call_deep(
        partial(_plan_one, plan, entry, project, orphan=orphan, named=named, walked=walked)
    )


def _plan_one(
    plan: ProgramPlan,
    entry: str,
    project: Project,
    *,
    orphan: bool,
    named: frozenset[str] | None,
    walked: bool = False,
) -> Program | None:
    """plan_one, with room for deep syntax (migrate/deep.py)."""
    try:
        program = discover_program(entry, project.graph)
        gate = _gate(program, project)
        if walked and no_program(program, gate):  # a demo, migrated alone (round 13 v3-D)
            alone = program.entry
            outcome, data = migrate_decoded(alone.path, alone.source, project.options)
            plan.add(outcome, data, alone.real, alone.stamp)
            return program
        migrated = _migrate(program, gate, project, orphan)
        if named is not None and (
            gate.has_dataparallel or program.dynamic_sites or program.incomplete
        ):
            noted = _unreached(program, migrated, named, gate.has_dataparallel)
            if noted is not migrated and not gate.has_dataparallel and program.incomplete:
                # a sys.path edit not followed, and DataParallel modules the program does
                # not reach: the DataParallel may be behind the edit (round 38, mks0601/
                # 3DMPPE_POSENET_RELEASE@dd025c5: `sys.path.insert(0, osp.join(cfg.root_dir,
                # 'common'))`, "2 files unchanged" and no word; each rank trained alone)
                noted = _incomplete(program, noted)
            migrated = noted
        if gate.has_dataparallel:
            for index, notes in unread_member_notes(program):  # DP073
                migrated = _noted(migrated, index, notes)
            if any(site.opaque for site in program.dynamic_sites):  # DP131
                alike = ProgramTeller(program, project).seeded_streams()
                for index, notes in unread_draw_notes(program, alike):
                    migrated = _noted(migrated, index, notes)
            migrated = _subclassed_loaders(program, migrated, project)
            results = [m.outcome.result for m in migrated]
            for index, notes in padded_batch_notes(program, project, results):  # DP127
                migrated = _noted(migrated, index, notes)
            migrated = _incomplete(program, migrated)
        elif not orphan:
            candidates, found = dynamic_loader_notes(program)  # DP094
            for index, notes in found:
                migrated = _noted(migrated, index, notes)
            for real in candidates:
                plan.imported_by_name.setdefault(real, program.launch_target)
    except InputError as exc:
        plan.outcomes.append(FileOutcome(exc.path or entry, "failed", error=exc.format()))
        return None
    except RecursionError:  # deeper than call_deep allows, outside a module's own migration
        error = nesting_error(_text(entry)).format(entry)
        plan.outcomes.append(FileOutcome(entry, "failed", error=error))
        return None
    failed = [m.outcome for m in migrated if m.outcome.status == "failed"]
    if failed:
        plan.outcomes.append(failed[0])
        return None
    generated = len(program.modules)  # the index of the generated module, if any
    for index, item in enumerate(migrated):
        real = _real(item.outcome.path, program, index)
        if real in plan._planned and index < generated:
            earlier = plan.outcomes[plan._planned[real]]
            if _code(earlier) != _code(item.outcome):
                message = (  # the program left out named (stop 65 v3: it was the trainer)
                    "shared by several programs that migrate it differently: the program "
                    f"of {program.entry.path} is left unmigrated"
                )
                error = InputError(message).format(item.outcome.path)
                plan.outcomes.append(FileOutcome(item.outcome.path, "failed", error=error))
                return None
    for index, item in enumerate(migrated):
        real = _real(item.outcome.path, program, index)
        if real in plan._planned:
            if index >= generated:  # entries of one folder share it: what each uses
                _merge_generated(plan, real, item)
            continue
        module = program.modules[index] if index < len(program.modules) else None
        plan.add(item.outcome, item.data, real, module.stamp if module is not None else None)
    if (
        not orphan
        and gate.has_dataparallel
        and any(m.outcome.status == "migrated" for m in migrated)
    ):
        plan.launch.append(program.launch_target)
        plan.launch_entries.append(program.entry.real)
        for module, item in zip(program.modules[1:], migrated[1:], strict=False):
            if item.outcome.status == "migrated" and _script_of_its_own(module):
                plan.launch.append(module.path)
                plan.launch_entries.append(module.real)
    if len(migrated) > len(program.modules):
        plan.multi_module += 1
    return program


def _merge_generated(plan: ProgramPlan, real: str, item: _Migrated) -> None:
    """The generated module a program shares with one planned before: the helpers of both."""
    from dp2ddp.transforms._support.runtime import Generated

    at = plan._planned[real]
    earlier, later = plan.outcomes[at].result, item.outcome.result
    if earlier is None or later is None or set(later.helpers) <= set(earlier.helpers):
        return
    path = plan.outcomes[at].path
    helpers = {*earlier.helpers, *later.helpers}
    merged = _generated_at(real, path, helpers, Generated(earlier.source))
    plan.outcomes[at] = merged.outcome
    if merged.data is not None:
        plan.data[path] = merged.data
        plan.stamps.setdefault(path, None)


def _script_of_its_own(module: ProgramModule) -> bool:
    """An imported module whose `__main__` block wraps a model (ProgramHints.script) is a
    training script too: the launch hint names it (v4-A of stop 57); not a package's."""
    if not module.entry_script or module.is_package or "." in module.name:
        return False
    from dp2ddp.transforms.rank_zero.script_modules import wraps_as_script

    return wraps_as_script(module.passing_tree())


def _unreached(
    program: Program, migrated: list[_Migrated], named: frozenset[str], has_dataparallel: bool
) -> list[_Migrated]:
    """DP034/DP056 (program/unreached.py) added to the module they are said at."""
    found = unreached_notes(program, named, has_dataparallel)
    if found is None:
        return migrated
    return _noted(migrated, *found)


def _incomplete(program: Program, migrated: list[_Migrated]) -> list[_Migrated]:
    """DP076 (program/search_path.py) at the sys.path edit each finding is about."""
    for gap in program.incomplete:
        note = Diagnostic(gap.line, gap.col, "DP076", f"{title('DP076')}: {gap.detail}")
        migrated = _noted(migrated, gap.module, [note])
    return migrated


def _noted(migrated: list[_Migrated], index: int, notes: Sequence[Diagnostic]) -> list[_Migrated]:
    """`migrated` with `notes` added to the diagnostics of its module `index`."""
    item = migrated[index]
    result = item.outcome.result
    if result is None:
        return migrated
    result = replace(result, diagnostics=(*result.diagnostics, *notes))
    migrated = list(migrated)
    migrated[index] = replace(item, outcome=replace(item.outcome, result=result))
    return migrated


def _subclassed_loaders(
    program: Program, migrated: list[_Migrated], project: Project
) -> list[_Migrated]:
    """DP035 / DP015 at loaders built from project subclasses of DataLoader
    (loader_subclasses.py)."""
    for index, notes in subclass_notes(program, project):
        migrated = _noted(migrated, index, notes)
    return migrated


def _orphan_helpers(program: Program) -> str:
    """The generated module's import name for a module no entry imports: seen from the
    project root, where the script importing it runs (`task/pose.py` -> `task._dp2ddp`)."""
    if program.module_entry is not None:
        return program.helpers_import
    folder = os.path.relpath(program.entry_dir, program.root)
    parts = [] if folder == os.curdir else folder.split(os.sep)
    if not all(p.isidentifier() for p in parts):
        return program.helpers_import
    return ".".join([*parts, program.helpers_import])


def _real(path: str, program: Program, index: int) -> str:
    if index < len(program.modules):
        return program.modules[index].real
    return os.path.realpath(path)


def _diagnostic(code: str, detail: str) -> Diagnostic:
    """A program-level warning, at the top of the module it is about."""
    return Diagnostic(1, 1, code, f"{title(code)}: {detail}")


def _imports_helpers(migrated: _Migrated, helpers: str) -> bool:
    result = migrated.outcome.result
    return result is not None and result.changed and f"from {helpers} import" in result.code


def _text(path: str) -> str:
    """The text of `path` as far as it decodes (only to say where it nests too deeply)."""
    try:
        with open(path, "rb") as handle:
            return handle.read().decode("utf-8", "replace")
    except OSError:
        return ""


def _code(outcome: FileOutcome) -> str | None:
    return outcome.result.code if outcome.result is not None else None


def _gate(program: Program, project: Project) -> ProgramGate:
    try:
        return program_gate(program, project)
    except InputError as exc:
        raise exc if exc.path else exc.with_path(program.entry.path) from None


def _migrate(
    program: Program, gate: ProgramGate, project: Project, orphan: bool = False
) -> list[_Migrated]:
    told = ProgramTeller(
        program, project, _orphan_helpers(program) if orphan else None, gate.reexports
    )
    helpers = told.helpers
    if orphan and gate.has_dataparallel:
        library = [told.facts(m, "library", draws=False) for m in program.modules]
        migrated = [
            _module(m, f, gate, project) for m, f in zip(program.modules, library, strict=True)
        ]
        if not any(_imports_helpers(m, helpers) for m in migrated):
            # e.g. only an isinstance check changed: no helper is used, no setup is needed
            # (and no helpers module is written for DP025 to name).
            return migrated
        first = migrated[0].outcome
        if first.result is not None:
            add = f"from {helpers} import ddp_setup"
            note = _diagnostic("DP025", f"its importer must call ddp_setup() first: `{add}`")
            result = replace(first.result, diagnostics=(note, *first.result.diagnostics))
            data = migrated[0].data
            ignore = project.options.ignore
            if result.changed and filter_diagnostics((note,), result.source, ignore):
                # a program-level warning: kept as a marker, as the passes' are
                width = for_file(project.options, first.path).line_length or DEFAULT_WIDTH
                code = mark(result.source, result.code, [(note.line, note.code)], width)
                result = replace(result, code=code)
                data = program.modules[0].source.encode(code)
            migrated[0] = _Migrated(replace(first, result=result), data)
        return [*migrated, *_generated(program, migrated, told)]
    if not gate.has_dataparallel:  # libraries first: their loaders' exports told (fixed point)
        shut: dict[str, _Migrated] = {}
        exports: Exports = ()
        for m in [*_dependencies_first(program.libraries), program.modules[0]]:
            if project.may_use_dataparallel(m):
                shut[m.real] = _module(m, _shut(m, gate, told, exports), gate, project)
                exports += _exports(m, shut[m.real], gate.reexports)
            else:
                shut[m.real] = project.remembered(
                    ("unchanged", m.real, m.path), partial(_unchanged, m)
                )
        migrated = [shut[m.real] for m in program.modules]
        if any(_imports_helpers(m, helpers) for m in migrated):
            return [*migrated, *_generated(program, migrated, told)]
        return migrated
    # Imported modules before their importers (discovery lists them after), so a module
    # that iterates another's loader in its epoch loop is told about it (set_epoch there).
    exported: Exports = ()
    done: dict[str, _Migrated] = {}
    before: dict[str, Exports] = {}
    for module in _dependencies_first(program.libraries):
        before[module.real] = exported
        done[module.real] = _module(module, told.facts(module, "library", exported), gate, project)
        exported += _exports(module, done[module.real], gate.reexports)
    libraries = [done[m.real] for m in program.libraries]
    multi = bool(program.uses_generated) or any(m.outcome.status == "migrated" for m in libraries)
    entry = _entry(program, done, exported, told, gate, project, multi)
    if not multi:
        # An entry migrated alone still records the loaders it hands its libraries'
        # functions and methods (data/handoffs.py): a library told so that changes (its
        # loop's figures summed over the ranks or said, DP030) makes it a program of several
        # modules, and the entry is migrated again in that form (stop 46 class v3-A when
        # the callee needs no other change: `learner.train_one_epoch(train_loader=...)`).
        fed = loader_feeds(program.libraries, [*done.values(), entry], gate.reexports)
        for module in program.libraries:
            if module.name in fed:
                facts = told.facts(module, "library", before[module.real], (), fed[module.name])
                if _module(module, facts, gate, project).outcome.status == "migrated":
                    multi = True
        if multi:
            entry = _entry(program, done, exported, told, gate, project, multi)
    # A factory another module calls for an evaluation loader (ddp_shard=False there, see
    # data/imported.py) takes that parameter: its module is migrated again, told so.
    split: dict[str, list[str]] = {}
    modules = {m.name for m in program.libraries}
    for each in (*done.values(), entry):
        outcome = each.outcome.result
        for name in outcome.evaluation_factories if outcome is not None else ():
            module_name, _, function = name.rpartition(".")
            if module_name not in modules:  # a method: `module.Class.method`
                module_name, _, owner = module_name.rpartition(".")
                function = f"{owner}.{function}"
            split.setdefault(module_name, []).append(function)
    # A loader another module passes to one of a library's functions (data/handoffs.py):
    # its batches there are this rank's share where it is sharded, so the library is
    # migrated again, told so (its batch pass splits only whole data at the model call).
    # A loader whose importers placed set_epoch around every loop over it: its module is
    # migrated again, told so (no DP011 "no loop in this module" there; stop 55 s2).
    fed = loader_feeds(program.libraries, [*done.values(), entry], gate.reexports)
    epochs = epochs_set(program.libraries, done, [*done.values(), entry])
    for module in program.libraries:
        if module.name in split or module.name in fed or module.name in epochs:
            told_split = tuple(dict.fromkeys(split.get(module.name, [])))
            feeds, placed = fed.get(module.name, ()), epochs.get(module.name, ())
            facts = told.facts(
                module, "library", before[module.real], told_split, feeds, epochs_set=placed
            )
            done[module.real] = _module(module, facts, gate, project)
    # Counters a library's loop over a sharded loader sums on an instance of its class
    # (data/attribute_counts.py): the entry reading one off such an instance is told them.
    shares = share_attributes(program.libraries, done, gate.reexports)
    if shares:
        entry = _entry(program, done, exported, told, gate, project, multi, shares)
    libraries = [done[m.real] for m in program.libraries]
    migrated = [entry, *libraries]
    if not multi and not any(_imports_helpers(m, helpers) for m in migrated):
        return migrated  # the inline form, or nothing to migrate
    return [*migrated, *_generated(program, migrated, told)]


def _entry(
    program: Program,
    done: dict[str, _Migrated],
    exported: tuple[LoaderExport, ...],
    told: ProgramTeller,
    gate: ProgramGate,
    project: Project,
    multi: bool,
    shares: tuple[tuple[str, str, str], ...] = (),
) -> _Migrated:
    """The entry migrated alone (step 3: no library changed), or with role "entry", told
    what of its libraries needs the process group (and their share_attributes)."""
    entry_facts = told.facts(program.entry, "entry" if multi else None, exported)
    if shares:
        loaders = replace(entry_facts.loaders, share_attributes=shares)
        entry_facts = replace(entry_facts, loaders=loaders)
    calls = group_calls(program.libraries, done) if multi else frozenset()
    needing = _group_at_import(program.libraries, done, calls) if multi else ()
    running = run_at_import(program)
    if needing or calls or running:
        entry_facts = replace(entry_facts, group_at_import=needing, run_at_import=running)
        entry_facts = replace(entry_facts, group_calls=tuple(sorted(calls)))
    return _module(program.entry, entry_facts, gate, project)


def _group_at_import(
    libraries: Sequence[ProgramModule],
    done: dict[str, _Migrated],
    calls: frozenset[str] = frozenset(),
) -> tuple[str, ...]:
    """The libraries whose import runs what their migration made need the process group
    (process_group.group_needed_at_import over the migrated module: a module-level loader's
    DistributedSampler), or imports such a library (any import of it counts: ddp_setup()
    earlier than needed costs nothing). The entry calls ddp_setup() before its first
    import of one: after its imports is too late (S1, stop 34, zhilin007/FFA-Net's
    data_utils.py builds its loaders at import; "Default process group has not been
    initialized" on every rank at `from data_utils import *`)."""
    import libcst as cst

    from dp2ddp.transforms.process_group import NEEDS_GROUP, group_needed_at_import

    needing: set[str] = set()
    for module in libraries:
        result = done[module.real].outcome.result
        if result is None or not result.changed:
            continue
        if not any(name in result.code for name in NEEDS_GROUP | calls):
            continue  # the parse below only where a name that needs the group is written
        tree = cst.parse_module(result.code)
        if group_needed_at_import(tree.body, library=True, calls=calls) is not None:
            needing.add(module.name)
    grown = bool(needing)
    while grown:
        grown = False
        for module in libraries:
            if module.name not in needing and needing.intersection(_imported_names(module)):
                needing.add(module.name)
                grown = True
    return tuple(sorted(needing))


def _dependencies_first(libraries: Sequence[ProgramModule]) -> list[ProgramModule]:
    """The libraries, each after the program modules it imports (discovery's order reversed
    where the imports do not decide; an import cycle keeps that order). Discovery lists a
    package's modules as its `__init__` names them: thunlp/OpenNRE's framework/__init__.py
    imports data_loader, then sentence_re, which imports data_loader too; reversed, the
    loader factory's importer came first and was told nothing about its loaders."""
    by_name = {m.name: m for m in libraries}
    order: list[ProgramModule] = []
    state: dict[str, bool] = {}  # False: being visited, True: done

    def visit(module: ProgramModule) -> None:
        if module.name in state:
            return
        state[module.name] = False
        for name in _imported_names(module):
            found = by_name.get(name)
            if found is not None and found is not module:
                visit(found)
        state[module.name] = True
        order.append(module)

    for module in reversed(libraries):
        visit(module)
    return order


def _imported_names(module: ProgramModule) -> list[str]:
    """Module names `module`'s imports may name (absolute, and relative ones resolved)."""
    package = module.name if module.is_package else module.name.rpartition(".")[0]
    names: list[str] = []  # not its `__main__` block's (run only as a script)
    for node in (n for i, n in enumerate(module.imports) if i not in module.script_imports):
        if isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                names += [".".join(parts[: i + 1]) for i in range(len(parts))]
            continue
        base = from_import_base(package, node)
        if base is None:
            continue
        if base:
            names.append(base)
        names += [f"{base}.{alias.name}" if base else alias.name for alias in node.names]
    return names


def _exports(
    module: ProgramModule, migrated: _Migrated, reexports: ProgramReexports | None
) -> tuple[LoaderExport, ...]:
    """The training loaders `module` sharded for its importers' epoch loops, by its import
    name (unknown to the data pass) and the names modules re-export them by (aliases)."""
    result = migrated.outcome.result
    if result is None:
        return ()
    return tuple(
        replace(
            export,
            module=module.name,
            aliases=reexports.aliases(f"{module.name}.{export.name}") if reexports else (),
        )
        for export in result.exports
    )


def _shut(
    m: ProgramModule, gate: ProgramGate, told: ProgramTeller, exported: Exports
) -> ProgramFacts:
    """Gate shut by another module's DDP path: a module that wraps, or only tests for
    DataParallel, stays as it is too (role library, gate shut: a DDP program's unwrap
    helper must not start unwrapping its DDP model); else migrated as a single file."""
    module = m
    verdict = gate.modules[module.real]
    if (verdict.has_dataparallel or verdict.checks_only) and gate.ddp_path_in is not None:
        return told.facts(module, "library", hints=False, draws=False, uniform=False, gate=False)
    facts = told.facts(module, None, exported, hints=False, draws=False, models=False)
    if gate.ddp_path_in is not None and module.real == gate.ddp_path_in.real:
        # DP003's way out names the program's `--local_rank`, parsed in another module
        facts = replace(facts, command_line=told.command_line())
    return facts


def _unchanged(module: ProgramModule) -> _Migrated:
    """A module the gate leaves alone and that cannot use DataParallel: not parsed."""
    text = module.source.text
    return _Migrated(FileOutcome(module.path, "unchanged", MigrationResult(text, text)), None)


def _module(
    module: ProgramModule, facts: ProgramFacts, gate: ProgramGate, project: Project
) -> _Migrated:
    if not facts.has_dataparallel and not project.may_use_dataparallel(module):
        return _unchanged(module)
    found = project.migrated(module, facts)
    if found is None:
        recorder = RecordingUniformity(facts.uniform) if facts.uniform is not None else None
        told = replace(facts, uniform=recorder) if recorder is not None else facts
        try:
            parsed: cst.Module | None = project.tree(module)
        except InputError:
            parsed = None  # migrate_decoded reports it, as for a single file
        found = migrate_decoded(module.path, module.source, project.options, told, parsed)
        project.remember(module, facts, recorder.asked if recorder else [], *found)
    outcome, data = found
    if facts.role is not None and not facts.has_dataparallel and outcome.result is not None:
        other = gate.ddp_path_in
        assert other is not None
        note = _diagnostic("DP003", f"in {other.path}")
        result = replace(outcome.result, diagnostics=(note, *outcome.result.diagnostics))
        outcome = replace(outcome, result=result)
    return _Migrated(outcome, data)


def _generated(
    program: Program, migrated: Sequence[_Migrated], told: ProgramTeller
) -> list[_Migrated]:
    """The helpers module beside the entry, with the helpers the program's modules use
    (an error if the project owns that name, or if the module was edited by hand), and
    the one in each package whose modules import theirs from it (program/helpers_home.py)."""
    from dp2ddp.transforms._support.runtime import (
        generated_path,
        helpers_defining,
        imported_helper_names,
    )

    name = os.path.basename(generated_path(program.entry_dir))
    entry, beside = program.entry_dir, os.path.dirname(program.entry.real)
    shown = {entry: os.path.dirname(program.entry.path)}  # folder -> as shown
    used: dict[str, set[str]] = {entry: set()}
    roots: dict[str, str] = {}  # folders put on sys.path -> as shown (helpers_home.py)
    for index, item in enumerate(migrated):
        result = item.outcome.result
        module = program.modules[index] if index < len(program.modules) else None
        helpers = told.helpers_of(module) if module is not None else told.helpers
        home = package_home(program, module) if module and helpers != told.helpers else None
        folder = entry if home is None or home[1] == beside else home[1]
        names = imported_helper_names(result.code, helpers) if result is not None else []
        if result is not None and (names or folder == entry):
            shown.setdefault(folder, home[2] if home is not None else shown[entry])
            found = used.setdefault(folder, set())
            found.update(result.helpers)
            found.update(helpers_defining(names))
            on_path = path_root(program, module) if module and names and folder == entry else None
            roots.update([on_path] if on_path is not None else [])
    for root, root_shown in roots.items():
        used.setdefault(root, set()).update(used[entry])
        shown.setdefault(root, root_shown)
    return [
        _generated_at(generated_path(folder), os.path.join(shown[folder], name), helpers)
        for folder, helpers in used.items()
    ]


def _generated_at(
    path: str, shown: str, helpers: set[str], existing: Generated | None = None
) -> _Migrated:
    """The generated module at `path` (shown as `shown`) holding `helpers` and those the
    file there already holds (`existing`: read if not given)."""
    from dp2ddp.transforms._support.runtime import helper_closure, module_for, read_generated

    existing = existing if existing is not None else read_generated(path, shown)
    chosen = helper_closure({*helpers, *existing.helpers})
    new, old = module_for(chosen, existing), existing.text
    if old == new:
        result = MigrationResult(old, new, helpers=chosen, generated=True)
        return _Migrated(FileOutcome(shown, "unchanged", result), None)
    change = Change("program", 1, "generated the DDP helpers module this program imports")
    result = MigrationResult(old, new, (), (change,), helpers=chosen, generated=True)
    return _Migrated(FileOutcome(shown, "migrated", result), new.encode("utf-8"))
