"""What `dp2ddp migrate` plans before it writes: ProgramPlan (outcomes, bytes, launch
targets), and which scripts a folder walk found are programs (`no_program`)."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from dp2ddp.program.analysis import ProgramGate, module_migrated
from dp2ddp.program.discovery import Program, Stamp
from dp2ddp.program.project import ModuleVerdict
from dp2ddp.result import FileOutcome


@dataclass
class ProgramPlan:
    """Outcomes in order (each program's modules, entry first, then its generated module),
    the new bytes of each changed file, and the torchrun targets of migrated programs."""

    outcomes: list[FileOutcome] = field(default_factory=list)
    data: dict[str, bytes] = field(default_factory=dict)
    stamps: dict[str, Stamp | None] = field(default_factory=dict)
    launch: list[str] = field(default_factory=list)
    #: The real path of each `launch` target's entry.
    launch_entries: list[str] = field(default_factory=list)
    #: DataParallel modules a DP094 program may import by a name known only at run time
    #: (real path -> that program's launch target): the launch hint names the importer.
    imported_by_name: dict[str, str] = field(default_factory=dict)
    #: Programs whose migration touches more than the entry (use the generated module).
    multi_module: int = 0
    #: Outcome index of each file already planned, by real path.
    _planned: dict[str, int] = field(default_factory=dict)

    def launch_targets(self) -> list[str]:
        """What follows `torchrun ...` for each migrated program, once each. A module that
        a program imports by a name known only at run time (DP094) runs under that
        program's entry, not as a script of its own, though its top-level code made it an
        entry of its own here (Wave-U-Net's trainer before stop 40's change): the hint
        names the importing entry, whose usual arguments give the name."""
        targets = [
            self.imported_by_name.get(real, target)
            for target, real in zip(self.launch, self.launch_entries, strict=True)
        ]
        return list(dict.fromkeys(targets))

    def changed_paths(self) -> list[str]:
        return [o.path for o in self.outcomes if o.status == "migrated"]

    def add(self, outcome: FileOutcome, data: bytes | None, real: str, stamp: Stamp | None) -> None:
        """Add one file's outcome (and its new bytes, if it changed)."""
        self._planned[real] = len(self.outcomes)
        self.outcomes.append(outcome)
        if data is not None:
            self.data[outcome.path] = data
            self.stamps[outcome.path] = stamp


def no_program(program: Program, gate: ProgramGate) -> bool:
    """A script the folder walk found is no program when it trains no wrapped model: no
    module of its program wraps one (nor has a DDP path of its own), or none of the wraps
    is reached from the script (`_wrap_reached`). A data module's `if __name__ ==
    "__main__":` demo that builds a dataset and prints a sample trains nothing. Taken for a
    program, it migrated the modules it shares with the real entry as its own program
    does; the real entry's program then failed on them ("shared by several programs that
    migrate it differently", rc 2) and was left unmigrated (VIPL-SLP/VAC_CSLR@71f3e03:
    dataset/dataloader_video.py's demo imports `utils`, whose device.py wraps a model in
    a method the demo never calls, beside main.py, which imports the data module by a
    configured name; round 13 v3-D). Such a script is migrated alone, as a file no entry
    reaches; its modules belong to the programs that import them, or are migrated on
    their own. A script that imports by a name known only at run time stays a program (the
    name may be its wrap's module: DP094), as does an entry migrated before
    (`module_migrated`, asked of the entry alone: a demo importing a module that a migrated
    entry shares is no program for that; the entry's deleted `_dp2ddp.py` is regenerated
    from what it imports). A file named on the command line is always one."""
    if program.dynamic_sites:  # it may import its wrap by a name known at run time (DP094)
        return False
    if module_migrated(program, program.entry):  # migrated before: its helpers regenerated
        return False
    if not gate.has_dataparallel:
        return gate.ddp_path_in is None
    return not _wrap_reached(program, gate)


_NONE = ModuleVerdict()
_WRAP_NAMES = frozenset({"DataParallel", "data_parallel"})
_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def _wrap_reached(program: Program, gate: ProgramGate) -> bool:
    """Whether the entry may reach a DataParallel wrap of its program, by names: the entry
    itself wraps, or a wrap stands in module-level code of a module (run on import), or in
    a top-level function, or a method of a top-level class, that the entry's code reaches
    by name (`_reached`). Over-approximated toward a program: True also where a wrapping
    module names no DataParallel itself (a wrap through a re-exported name)."""
    verdicts = gate.modules
    wrapping = [m for m in program.modules if verdicts.get(m.real, _NONE).has_dataparallel]
    if any(m.real == program.entry.real for m in wrapping):
        return True
    trees = {m.real: m.passing_tree() for m in program.modules}
    done = _reached(list(trees.values()), trees[program.entry.real])
    for module in wrapping:
        placed = False
        for stmt in trees[module.real].body:
            inner = stmt.body if isinstance(stmt, ast.ClassDef) else [stmt]
            for node in inner:
                if isinstance(node, ast.Import | ast.ImportFrom) or _WRAP_NAMES.isdisjoint(
                    _names(node)
                ):
                    continue
                placed = True
                where = node if isinstance(node, _FUNCTIONS) or node is stmt else stmt
                if not isinstance(where, _DEFS) or id(where) in done:
                    return True
        if not placed:
            return True  # its wrap is spelled through another name: not located here
    return False


_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


def _reached(trees: list[ast.Module], entry: ast.Module) -> set[int]:
    """The ids of the top-level functions and classes, and the methods of those classes,
    that the entry's code (all of it) and every module's module-level code reach by name,
    closed over their bodies: a class reached brings its class-level code and its dunder
    methods; another method is reached once its class is and its name is used."""
    top: dict[str, list[ast.stmt]] = {}
    methods: dict[str, list[tuple[str, ast.stmt]]] = {}
    pending = list(_names(entry))
    for tree in trees:
        for stmt in tree.body:
            if isinstance(stmt, _DEFS):
                top.setdefault(stmt.name, []).append(stmt)
            elif not isinstance(stmt, ast.Import | ast.ImportFrom):
                pending += _names(stmt)  # module-level code runs on import
            if isinstance(stmt, ast.ClassDef):
                for item in stmt.body:
                    if isinstance(item, _FUNCTIONS):
                        methods.setdefault(item.name, []).append((stmt.name, item))
    used: set[str] = set()
    classes: set[str] = set()
    done: set[int] = set()

    def visit(node: ast.stmt) -> None:
        if id(node) in done:
            return
        done.add(id(node))
        if not isinstance(node, ast.ClassDef):
            pending.extend(_names(node))
            return
        classes.add(node.name)
        for part in (*node.bases, *node.keywords, *node.decorator_list):
            pending.extend(_names(part))
        for item in node.body:
            if not isinstance(item, _FUNCTIONS):
                pending.extend(_names(item))
            elif item.name.startswith("__") or item.name in used:
                visit(item)

    while pending:
        name = pending.pop()
        if name in used:
            continue
        used.add(name)
        for node in top.get(name, ()):
            visit(node)
        for owner, method in methods.get(name, ()):
            if owner in classes:
                visit(method)
    return done


def _names(node: ast.AST) -> list[str]:
    """The names and attribute names `node` uses, outside import statements."""
    found: list[str] = []
    for child in ast.walk(node):
        if isinstance(child, ast.Name):
            found.append(child.id)
        elif isinstance(child, ast.Attribute):
            found.append(child.attr)
    return found
