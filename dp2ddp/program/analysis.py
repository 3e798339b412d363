"""Cross-module facts: is this program a DataParallel program (the program-wide gate)?

Today each transform acts only in a file that itself wraps with DataParallel. In a program,
a loader built in data.py or a print in utils.py belongs to the same training run as the
wrap in models.py, so the gate is the program's: it is open when some module wraps with
DataParallel (found by qualified name, as the per-file detector does), or when some module
already imports the generated helpers module (a program dp2ddp migrated before, so that
migrating its entries one by one gives what migrating them together gives). It stays shut
when a module already has a DistributedDataParallel path of its own (DP003).
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst
from libcst.codemod import CodemodContext

from dp2ddp.migrate.migrate_source import parse
from dp2ddp.migrate.precheck import may_use_dataparallel
from dp2ddp.options import MigrateOptions
from dp2ddp.program.discovery import Program, ProgramModule, Stamp
from dp2ddp.transforms._support.base import MigrationState
from dp2ddp.transforms.detect import DetectDataParallel


@dataclass(frozen=True)
class ModuleFacts:
    has_dataparallel: bool = False
    #: The module already has a DDP path (DP003): the program is left as it is.
    has_ddp_path: bool = False


@dataclass(frozen=True)
class ProgramFacts:
    modules: dict[str, ModuleFacts]  # by ProgramModule.real
    #: The program-wide gate (see the module docstring).
    has_dataparallel: bool
    #: The module whose own DDP path shuts the gate, if any.
    ddp_path_in: ProgramModule | None


#: Facts by (real path, stamp, options): a module shared by programs, or asked about by
#: folder mode first, is parsed for them once.
_FACTS: dict[tuple[str, Stamp, MigrateOptions], ModuleFacts] = {}
#: The trees those parses made, until the module's migration takes them.
_PARSED: dict[tuple[str, Stamp], cst.Module] = {}


def module_facts(module: ProgramModule, options: MigrateOptions) -> ModuleFacts:
    """The per-file detector's verdict; files the text pre-check rules out are not parsed."""
    text = module.source.text
    if not may_use_dataparallel(text):
        return ModuleFacts()
    key = (module.real, module.stamp, options)
    found = _FACTS.get(key)
    if found is None:
        state = MigrationState(options=options)
        detect = DetectDataParallel(CodemodContext(filename=module.path), state)
        tree = parse(text)
        detect.transform_module(tree)
        found = _FACTS[key] = ModuleFacts(state.has_dataparallel and not state.skip, state.skip)
        _PARSED[(module.real, module.stamp)] = tree
    return found


def take_parsed(module: ProgramModule) -> cst.Module | None:
    """The libcst tree module_facts parsed for `module` (once: parsing is the costly step)."""
    return _PARSED.pop((module.real, module.stamp), None)


def program_facts(program: Program, options: MigrateOptions) -> ProgramFacts:
    """Facts of every module and the gate. InputError when libcst cannot parse a module."""
    facts: dict[str, ModuleFacts] = {}
    ddp_path_in = None
    for module in program.modules:
        found = module_facts(module, options)
        facts[module.real] = found
        if found.has_ddp_path and ddp_path_in is None:
            ddp_path_in = module
    wraps = any(f.has_dataparallel for f in facts.values())
    gate = (wraps or bool(program.uses_generated)) and ddp_path_in is None
    return ProgramFacts(facts, gate, ddp_path_in)
