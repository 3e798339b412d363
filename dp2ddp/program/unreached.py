"""DataParallel modules under the project root that a program does not reach: DP034, or DP056
when the program imports through a helper by a name known only at run time and migrates
nothing. `migrate ENTRY` never leaves DataParallel behind in silence (program/migrate.py
adds these to the module they are said at)."""

from __future__ import annotations

import ast
import os

from dp2ddp.codes import title
from dp2ddp.migrate.summary import NOT_IMPORTED, SHOWN_UNREACHED, UNREACHED, unreached_message
from dp2ddp.program.discovery import Program
from dp2ddp.program.dynamic_imports import DynamicSite, unreached_dataparallel, unreached_files
from dp2ddp.result import Diagnostic
from dp2ddp.transforms._support.ast_nodes import parse_python

#: An import through a helper by a run-time name, in a program that migrates nothing.
HELPER_IMPORT = "DP056"
#: An import by a computed name whose package's modules were too many to read.
UNREAD_MEMBERS = "DP073"
#: A loader of a program whose DataParallel may be reached only by a run-time name.
DYNAMIC_LOADER = "DP094"
#: An import by a run-time name of a module that may draw from a stream no rank seeds alike.
UNREAD_DRAWS = "DP131"
_STREAM_NAMES = {"torch": "torch's generator", "numpy": "numpy's stream", "random": "`random`"}


def unreached_notes(
    program: Program, named: frozenset[str], has_dataparallel: bool
) -> tuple[int, list[Diagnostic]] | None:
    """DP034 for each DataParallel module under the project root that the program does not
    reach (nor the command line names): at the first import call discovery could not name
    (the likely way in), else at the top of the entry. Asked for a DataParallel program or
    one that imports by names known only at run time: `migrate ENTRY` never leaves
    DataParallel behind in silence. A program with neither (a clean file checked by the
    pre-commit hook) has nothing to do with the project's other modules. Returns the index of
    the module they are said at and the diagnostics; None when there are none."""
    reached = {m.real for m in program.modules} | named
    files = unreached_dataparallel(program.root, reached)
    if not files:
        return None
    sites = program.dynamic_sites
    if sites:
        why = f"the program imports by names known only at run time: `{sites[0].code}`"
        if len(sites) > 1:
            why += f" (and {len(sites) - 1} more such calls)"
        at = next(i for i, m in enumerate(program.modules) if m.path == sites[0].path)
        line, col = sites[0].line, sites[0].col
    else:
        why = NOT_IMPORTED.format(it="it")
        at, line, col = 0, 1, 1
    base = os.getcwd() if not os.path.isabs(program.entry.path) else None
    shown_files = []
    for file in files:
        shown = os.path.relpath(file, base) if base is not None else file
        if shown.startswith(os.pardir):
            shown = file
        shown_files.append(shown)
    helper = next((s for s in sites if s.helper is not None), None)
    if helper is not None and not has_dataparallel:
        # Nothing of the program changes: one line that fails --check (DP056), not DP034.
        at = next(i for i, m in enumerate(program.modules) if m.path == helper.path)
        notes = [
            Diagnostic(helper.line, helper.col, HELPER_IMPORT, _helper_message(helper, shown_files))
        ]
    else:
        notes = [
            Diagnostic(line, col, UNREACHED, unreached_message(shown, why)) for shown in shown_files
        ]
    return at, notes


def unread_member_notes(program: Program) -> list[tuple[int, list[Diagnostic]]]:
    """DP073 at each import call by a computed name under a project package whose modules
    the name can be were too many to read (DynamicSite.unread): by module index, its notes."""
    found: dict[int, list[Diagnostic]] = {}
    reached = {m.real for m in program.modules}
    for site in program.dynamic_sites:
        # A member another import of the program reaches is read already.
        unread = [p for p in site.unread if os.path.realpath(p) not in reached]
        at = next((i for i, m in enumerate(program.modules) if m.path == site.path), None)
        if not unread or at is None:
            continue
        shown = ", ".join(os.path.relpath(p, program.root) for p in unread[:SHOWN_UNREACHED])
        if len(unread) > SHOWN_UNREACHED:
            shown += f" and {len(unread) - SHOWN_UNREACHED} more"
        message = (
            f"{title(UNREAD_MEMBERS)}: `{site.code}` imports a module of package "
            f"{site.prefix} by a name nothing bounds, and the package has more modules it can "
            f"be than are read for one call; those that neither wrap with DataParallel nor "
            f"build a DataLoader were left unread and are not migrated: {shown}"
        )
        found.setdefault(at, []).append(Diagnostic(site.line, site.col, UNREAD_MEMBERS, message))
    return sorted(found.items())


def unread_draw_notes(
    program: Program, alike: frozenset[str]
) -> list[tuple[int, list[Diagnostic]]]:
    """DP131 at each import call by a name neither the code nor a configuration gives
    (`importlib.import_module(args.dataset)`) in a DataParallel program, where modules of
    the project the program does not read draw from a process-wide stream that the program
    does not seed alike on every rank (`alike`: ProgramFacts.seeded_streams) and the module
    does not seed itself: the module imported may be one of them, its draws (a Dataset's
    split in `__init__`) were not read, and each rank draws its own there (each builds a
    different dataset, and the sampler shards different data). Found writing stop 61 s3's
    fixture (`import_class(sys.argv[1])` of a Feeder drawing `torch.randn`), no warning
    then. By module index, its notes."""
    sites = [s for s in program.dynamic_sites if s.opaque and not s.configured]
    if not sites:
        return []
    # here, not at import: a run with nothing to migrate loads no pass (test_noop_imports)
    from dp2ddp.transforms.analysis.random_draws import RANDOM_DRAWS
    from dp2ddp.transforms.analysis.seeded_streams import module_draws

    # the last names of RANDOM_DRAWS: a file naming none of them draws nothing (no parse)
    draw_tails = frozenset(name.rpartition(".")[2] for name in RANDOM_DRAWS)
    reached = {m.real for m in program.modules}
    drawing: list[str] = []
    for path, text in unreached_files(program.root, reached):
        if not any(tail in text for tail in draw_tails):
            continue
        try:
            draws = [d for d in module_draws(parse_python(text)) if d[2] not in alike]
        except (SyntaxError, RecursionError, ValueError):
            continue
        if draws:
            line, name, stream = draws[0]
            shown = os.path.relpath(path, program.root)
            drawing.append(f"{shown}:{line} `{name}` ({_STREAM_NAMES.get(stream, stream)})")
    if not drawing:
        return []
    shown = ", ".join(drawing[:SHOWN_UNREACHED])
    if len(drawing) > SHOWN_UNREACHED:
        shown += f" and {len(drawing) - SHOWN_UNREACHED} more"
    found: dict[int, list[Diagnostic]] = {}
    for site in sites:
        at = next((i for i, m in enumerate(program.modules) if m.path == site.path), None)
        if at is None:
            continue
        message = (
            f"{title(UNREAD_DRAWS)}: `{site.code}` imports a module by a name neither the code "
            f"nor a configuration file gives, so dp2ddp did not read it; the project's modules "
            f"the program does not read that draw from a stream it is not proved to seed alike "
            f"on every rank: {shown}. If it imports one of them, each rank draws its own "
            f"numbers there (a dataset it builds then differs between the ranks)"
        )
        found.setdefault(at, []).append(Diagnostic(site.line, site.col, UNREAD_DRAWS, message))
    return sorted(found.items())


def _helper_message(site: DynamicSite, files: list[str]) -> str:
    """DP056's message: the helper call and the first SHOWN_UNREACHED modules, then a count."""
    shown = ", ".join(files[:SHOWN_UNREACHED])
    if len(files) > SHOWN_UNREACHED:
        shown += f" and {len(files) - SHOWN_UNREACHED} more"
    return (
        f"{title(HELPER_IMPORT)}: `{site.code}` imports through `{site.helper}()` by a name "
        f"known only at run time, and the program migrates nothing; the DataParallel "
        f"modules it may reach: {shown}"
    )


def dynamic_loader_notes(
    program: Program,
) -> tuple[list[str], list[tuple[int, list[Diagnostic]]]]:
    """DP094 at each DataLoader of a program that wraps no model itself, imports by a name
    neither its code nor its configuration gives (config_names.py), and leaves DataParallel
    modules of the project unreached: the wrap may be one of them, run on every rank over a
    loader left whole (v4-G). The real paths of those modules (the launch hint names this
    program's entry for them, not their own), and by module index each module's notes."""
    sites = [s for s in program.dynamic_sites if s.opaque and not s.configured]
    if not sites:
        return [], []
    reached = {m.real for m in program.modules}
    files = unreached_dataparallel(program.root, reached, migrated=True)
    if not files:
        return [], []
    site = sites[0]
    shown = ", ".join(os.path.relpath(f, program.root) for f in files[:SHOWN_UNREACHED])
    if len(files) > SHOWN_UNREACHED:
        shown += f" and {len(files) - SHOWN_UNREACHED} more"
    message = (
        f"{title(DYNAMIC_LOADER)}: every rank goes through all of it; "
        f"`{site.code}` ({site.where()}) imports a module by a name neither the code nor a "
        f"configuration file gives at the keys it reads, and the project's DataParallel "
        f"module(s) {shown} may be it"
    )
    found: list[tuple[int, list[Diagnostic]]] = []
    for index, module in enumerate(program.modules):
        if "DataLoader" not in module.source.text:
            continue
        notes = [
            Diagnostic(node.lineno, node.col_offset + 1, DYNAMIC_LOADER, message)
            for node in ast.walk(module.passing_tree())
            if isinstance(node, ast.Call) and _names_loader(node.func)
        ]
        if notes:
            found.append((index, sorted(notes, key=lambda d: (d.line, d.col))))
    return [os.path.realpath(f) for f in files], found


def _names_loader(func: ast.expr) -> bool:
    """`DataLoader(...)` or `data.DataLoader(...)`."""
    if isinstance(func, ast.Attribute):
        return func.attr == "DataLoader"
    return isinstance(func, ast.Name) and func.id == "DataLoader"
