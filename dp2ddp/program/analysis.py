"""Cross-module facts: is this program a DataParallel program (the program-wide gate)?

Today each transform acts only in a file that itself wraps with DataParallel. In a program,
a loader built in data.py or a print in utils.py belongs to the same training run as the
wrap in models.py, so the gate is the program's: it is open when some module wraps with
DataParallel (found by qualified name, as the per-file detector does), or when some module
that imports the generated helpers module holds what a migrated wrap or entry calls (a
program dp2ddp migrated before, so that migrating its entries one by one gives what
migrating them together gives, and a second run is a fixed point). Importing the helpers
alone is no such mark: a demo script without DataParallel that imports a migrated
`config.py` (`from _dp2ddp import DEVICE`) was left alone by the first run and must be
by the second. It stays shut when a module already has a DistributedDataParallel path of
its own (DP003).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from dp2ddp.migrate.deep import FileTimeout, nesting_error, time_limit, timeout_error
from dp2ddp.program.discovery import Program, ProgramModule
from dp2ddp.program.project import ModuleVerdict, Project
from dp2ddp.program.reexports import ProgramReexports, module_bindings
from dp2ddp.transforms._support.identifiers import mentions
from dp2ddp.transforms._support.names import DDP_WRAPS

if TYPE_CHECKING:
    import libcst as cst


@dataclass(frozen=True)
class ProgramGate:
    """The detector's verdict on each module (by ProgramModule.real) and the gate."""

    modules: dict[str, ModuleVerdict]
    #: The program-wide gate (see the module docstring).
    has_dataparallel: bool
    #: The module whose own DDP path shuts the gate, if any.
    ddp_path_in: ProgramModule | None
    #: The program's re-exports (reexports.py), for every module's facts.
    reexports: ProgramReexports | None = field(default=None, compare=False)


def module_verdict(
    module: ProgramModule, project: Project, reexports: ProgramReexports | None = None
) -> ModuleVerdict:
    """The per-file detector's verdict (once a module); files the text pre-check rules out
    are not parsed. With the program's re-exports, a wrap by a DataParallel imported
    through a project module (`from mymodels import DataParallel`) counts."""
    told = reexports.told(module) if reexports is not None else None
    if not project.may_use_dataparallel(module) and not (
        told is not None and told.mentions("DataParallel", "data_parallel")
    ):
        return ModuleVerdict()

    # The detector (libcst) loads only for a module the pre-check could not rule out.
    from libcst.codemod import CodemodContext

    from dp2ddp.facts import ProgramFacts
    from dp2ddp.transforms._support.base import MigrationState
    from dp2ddp.transforms._support.forwarding_classes import with_own_forwarding
    from dp2ddp.transforms.detect import DetectDataParallel

    def detect(tree: cst.Module) -> ModuleVerdict:
        facts = with_own_forwarding(
            ProgramFacts(reexports=told) if told is not None else ProgramFacts(),
            module.source.text,
        )
        state = MigrationState(options=project.options, text=module.source.text, facts=facts)
        try:
            with time_limit(project.options.file_timeout):
                detector = DetectDataParallel(CodemodContext(filename=module.path), state)
                detector.transform_module(tree)
        except RecursionError:  # deeper than call_deep allows (migrate/deep.py)
            raise nesting_error(module.source.text).with_path(module.path) from None
        except FileTimeout:
            raise timeout_error(project.options).with_path(module.path) from None
        # A module whose only uses are isinstance checks opens no gate: it trains nothing
        # with DataParallel (its checks are migrated all the same, as a single file's).
        wraps = state.has_dataparallel and not state.skip and not state.checks_only
        return ModuleVerdict(wraps, state.skip, state.checks_only)

    if told is not None and (told.names or told.forwarding or told.plain):
        # What the module is told decides the verdict: not the plain verdict's cache.
        return project.remembered(
            ("verdict_reexports", module.real, repr((told.names, told.forwarding, told.plain))),
            lambda: detect(project.tree(module)),
        )
    return project.verdict(module, detect)


def program_gate(program: Program, project: Project) -> ProgramGate:
    """Verdicts of every module and the gate. InputError when libcst cannot parse a module."""
    verdicts: dict[str, ModuleVerdict] = {}
    ddp_path_in = None
    reexports = program_reexports(program, project)
    # A wrap through a re-export needs a module that imports DataParallel by its name.
    named = any(mentions(m.source.text, "DataParallel", "data_parallel") for m in program.modules)
    for module in program.modules:
        found = module_verdict(module, project, reexports if named else None)
        verdicts[module.real] = found
        if found.has_ddp_path and ddp_path_in is None:
            ddp_path_in = module
    wraps = any(f.has_dataparallel for f in verdicts.values())
    gate = (wraps or migrated_before(program)) and ddp_path_in is None
    return ProgramGate(verdicts, gate, ddp_path_in, reexports)


#: What only a migrated DataParallel program calls: its wraps (DDP_WRAPS) and the entry's
#: process-group setup.
MIGRATED_CALLS = frozenset({*DDP_WRAPS, "ddp_setup"})


def migrated_before(program: Program) -> bool:
    """Some module importing the generated helpers calls a migrated wrap or ddp_setup: the
    program was a DataParallel program when dp2ddp migrated it. A module that only imports
    helpers (DEVICE, ddp_is_main) is shared with programs the first run left unchanged."""
    return any(module_migrated(program, module) for module in program.modules)


def module_migrated(program: Program, module: ProgramModule) -> bool:
    """`module` imports the generated helpers and calls a migrated wrap or ddp_setup."""
    if module.real not in program.uses_generated:
        return False
    if not mentions(module.source.text, *MIGRATED_CALLS):
        return False
    return any(
        isinstance(node, ast.Call) and _called_name(node.func) in MIGRATED_CALLS
        for node in ast.walk(module.passing_tree())
    )


def _called_name(func: ast.expr) -> str:
    """The last name of a call's function (`DistributedDataParallel`, `nn.parallel.X`)."""
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return ""


def program_reexports(program: Program, project: Project) -> ProgramReexports:
    """The program's re-exports; each module's import bindings read once a project."""
    from dp2ddp.transforms._support.forwarding_classes import forwarding_classes, plain_classes

    return ProgramReexports(
        program,
        lambda m: project.remembered(
            ("reexport_bindings", m.real, m.name), lambda: module_bindings(m)
        ),
        lambda m: project.remembered(
            ("forwarding_classes", m.real), lambda: forwarding_classes(m.source.text)
        ),
        lambda m: project.remembered(
            ("plain_classes", m.real), lambda: plain_classes(m.source.text)
        ),
    )
