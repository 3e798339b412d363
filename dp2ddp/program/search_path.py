"""The program's module search path, as a proof: which folders its imports resolve in,
which files that makes part of the program, and where that cannot be shown (DP076).

Discovery resolves the program's imports the way Python would run the entry (its folder,
the root, the installed sub-projects) and through the folders the program's modules put
on sys.path where sys_path.py can compute them. A folder such an edit reaches is code of the
program wherever it lies, so the root widens to cover it (`widened_root`): without a root
marker the root is the entry's folder, and `tools/_init_paths.py` inserting `tools/..` or
`tools/../lib` (bearpaw/pytorch-pose, HRNet) put the package the entry imports outside it;
its writes then ran on every rank with no warning (docs/real-world.md, class Y1). The root
widens only for an edit anchored in the project (built from `__file__`, or a relative
literal, relative to the working folder taken as the root), and never to the file system's
root or to the home folder or above it.

What the proof cannot cover is said (`incomplete`, DP076 at the edit):
- an import that resolves, through an edit, to a file outside the (widened) root: an
  absolute folder of one machine, or a widening the bound refuses; it is not migrated;
- a sys.path change discovery does not follow (a folder known at run time only,
  `sys.path = ...`, an edit in a function it does not follow), while an import of the
  program resolves to no file of it and a project module of that name lies nearby (under
  the root, or in the two folders above it and their sub-folders, not the system's folder
  for temporary files; a module an installed library answers, or a folder holding the
  program's own files, is no such module): if the import reaches that module, the program
  is incomplete and its writes may run on every rank.

A folder can also reach the search from outside the code: a shell script exporting
PYTHONPATH before `python src/bin/train.py` (kaituoxu/X-Punctuator's path.sh puts src/data,
src/model, src/solver on it). Those of its folders under the root or the working folder, as
migrate runs with them, are searched after the entry's folder, as Python searches them, the
root widened to cover them, never above the working folder (`environment_search`). Without
them, an import that resolves to no file of the program and to no installed module while a
project module of that name lies nearby is said at the import (`unreached`, DP076): the
loader module and the training loop were left unmigrated with no word (docs/real-world.md,
stop 34, class X1).
"""

from __future__ import annotations

import ast
import importlib.util
import os
import sys
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from dp2ddp.migrate.discovery import SKIPPED_DIRS
from dp2ddp.program.resolver import Resolver, absolute_names, may_widen, under
from dp2ddp.program.sys_path import PathEdit, resolve_edit, resolve_edits

if TYPE_CHECKING:  # discovery.py imports this module
    from dp2ddp.program.discovery import ImportGraph, ProgramModule

#: Folders above the root searched for a module an unfollowed edit may reach.
_LEVELS_ABOVE = 2
#: Entries of one folder above the root looked at, at most.
_ENTRIES_ABOVE = 500
#: Import names a warning names, at most (then a count).
_SHOWN = 3


@dataclass(frozen=True)
class Incomplete:
    """DP076: where a program may reach project code it does not hold."""

    #: Index of the module (in Program.modules) the warning is said in.
    module: int
    line: int
    col: int
    detail: str


def search_with_edits(base: list[str], modules: Sequence[ProgramModule], root: str) -> list[str]:
    """`base` (how the entry runs) with the folders `modules` put on sys.path: those
    inserted in front first (the last insert first, as Python searches them), appended
    ones last; each folder once. Relative folders are relative to `root`."""
    front: list[str] = []
    back: list[str] = []
    for module in modules:
        if module.path_edits:
            more_front, more_back = resolve_edits(module.path_edits, root)
            front += more_front
            back += more_back
    search = [*reversed(front), *base, *back]
    return [s for i, s in enumerate(search) if s not in search[:i]]


def environment_search(root: str) -> tuple[str, list[str]]:
    """The folders of the PYTHONPATH migrate runs with (relative ones against the working
    folder, as Python takes them) that exist under `root` or under the working folder,
    outside the folders dp2ddp does not walk: the program's own folders a shell script put
    there; and `root` widened to cover them, never above the working folder (a script in
    src/bin/ has its root there when no marker is found; src/data/ is then outside it)."""
    cwd = os.getcwd()
    found: list[str] = []
    for entry in os.environ.get("PYTHONPATH", "").split(os.pathsep):
        folder = os.path.abspath(entry) if entry else ""
        if not folder or not os.path.isdir(folder):
            continue
        if not under(folder, root):
            wider = os.path.commonpath([root, folder])
            if not under(folder, cwd) or not under(wider, cwd) or not may_widen(wider):
                continue
            root = wider
        if not any(part in SKIPPED_DIRS for part in os.path.relpath(folder, root).split(os.sep)):
            found.append(folder)
    return root, found


def widened_root(root: str, modules: Sequence[ProgramModule], base: str) -> str:
    """`root` widened to cover each existing folder an anchored edit of `modules` puts on
    sys.path (relative ones against `base`, the root before widening), as far as `may_widen`
    allows."""
    for module in modules:
        for edit in module.path_edits:
            folder = resolve_edit(edit, base) if edit.anchored else None
            if folder is None or under(folder, root):
                continue
            wider = os.path.commonpath([root, folder])
            if may_widen(wider):
                root = wider
    return root


def own_package_bases(
    entry_dir: str, root: str, imports: Sequence[ast.Import | ast.ImportFrom]
) -> tuple[str, list[str]]:
    """(the root widened to cover them, folders the program's own packages import from
    when it is installed or run with them on PYTHONPATH), searched after the others: a src
    layout's `src/` beside the root's setup.py or pyproject.toml (`pip install -e .`), and
    the folder above each folder around the entry that the entry imports by name (`from
    reppkg.util import log` in src/reppkg/train/main.py: the program runs with src/ on
    PYTHONPATH, or that import fails), as far as `may_widen` allows. Round 37
    (abenechehab/rlft4rl@60f3c94, src/rlft4rl/ without __init__.py): its logging helper
    was neither migrated nor said, and every rank wrote each line to one log file."""
    found: list[str] = []
    if any(os.path.isfile(os.path.join(root, m)) for m in ("setup.py", "pyproject.toml")):
        src = os.path.join(root, "src")
        if os.path.isdir(src):
            found.append(src)
    tops = {name.split(".")[0] for node in imports for name in absolute_names(node)}
    folder = os.path.abspath(entry_dir)
    while may_widen(os.path.dirname(folder)):
        parent = os.path.dirname(folder)
        if os.path.basename(folder) in tops and parent not in found:
            found.append(parent)
            if not under(parent, root):
                root = os.path.commonpath([root, parent])
        folder = parent
    return root, found


def working_folder(root: str, marked: bool) -> str:
    """The folder a relative sys.path literal is taken against: the project root; where no
    marker makes it one (`marked`), the folder migrate runs in when the root lies under it,
    as Python takes `sys.path.insert(0, ".")` against the folder the run starts in and such
    a project runs from where it is migrated (round 33, huanghoujing/AlignedReID-Re-
    Production-Pytorch@2e2d454: `script/experiment/train.py` run from the repository's
    top inserting "." for its package; taken against script/experiment/, the package was
    no file of the program, its loader unsharded, no DP076)."""
    cwd = os.getcwd()
    if marked or root == cwd or not under(root, cwd) or not may_widen(cwd):
        return root
    return cwd


def incomplete(
    graph: ImportGraph,
    resolver: Resolver,
    modules: Sequence[tuple[ProgramModule, str]],
    base: str,
) -> tuple[Incomplete, ...]:
    """DP076 findings of a program whose modules edit sys.path (see the module docstring).
    `modules`: each module with its absolute path; `base`: the root before widening."""
    found = list(_outside(graph, resolver, modules, base))
    hidden = _hidden(graph, resolver, modules, base)
    if hidden is not None:
        found.append(hidden)
    return tuple(found)


def _outside(
    graph: ImportGraph,
    resolver: Resolver,
    modules: Sequence[tuple[ProgramModule, str]],
    base: str,
) -> Iterator[Incomplete]:
    """Imports an edit resolves outside the root, one finding per edit."""
    edits: list[tuple[int, PathEdit, str]] = []
    for index, (module, _) in enumerate(modules):
        for edit in module.path_edits:
            folder = resolve_edit(edit, base)
            if folder is not None and not under(folder, resolver.root):
                edits.append((index, edit, folder))
    if not edits:
        return
    reached: dict[int, list[tuple[str, str, str]]] = {}
    for module, path in modules:
        for file, name in graph.outside(resolver, module, path):
            if any(part in SKIPPED_DIRS for part in file.split(os.sep)):
                continue  # an installed package, not the project's code
            at = next((i for i, (_, _, f) in enumerate(edits) if under(file, f)), None)
            if at is not None:
                reached.setdefault(at, []).append((name, module.path, file))
    for at, names in sorted(reached.items()):
        index, edit, folder = edits[at]
        name, importer, file = names[0]
        more = f" (and {len(names) - 1} more)" if len(names) > 1 else ""
        yield Incomplete(
            index,
            edit.line,
            edit.col,
            f"`import {name}` in {importer} reaches {resolver.shown(file)}{more} through "
            f"this sys.path edit, outside the program's root {resolver.root}: not migrated, "
            "its writes, prints and loaders run on every rank",
        )


def _hidden(
    graph: ImportGraph,
    resolver: Resolver,
    modules: Sequence[tuple[ProgramModule, str]],
    base: str,
) -> Incomplete | None:
    """An unfollowed sys.path change (or an edit whose folder does not exist where it was
    computed: the working folder may not be the one taken) and imports of names no file of
    the program has while a project module of that name lies nearby: one finding, at the
    first such change."""
    first = None
    for index, (module, _) in enumerate(modules):
        missing = [
            (e.line, e.col, f"the folder this line puts on sys.path, {e.folder!r}, does not "
             "exist" + ("" if os.path.isabs(e.folder) else f" in {base} (the working folder "
                        "taken: the project root)"))
            for e in module.path_edits
            if resolve_edit(e, base) is None
        ]  # fmt: skip
        unfollowed = [
            (u.line, u.col, f"`{u.code}` changes sys.path in a way dp2ddp does not follow")
            for u in module.unfollowed_edits
        ]
        changes = sorted((*unfollowed, *missing))
        if changes:
            first = (index, changes[0])
            break
    if first is None:
        return None
    names: list[tuple[str, str, str]] = []  # (name, where it is imported, what lies nearby)
    region: list[_Folder] | None = None
    paths = [path for _, path in modules]
    for module, _ in modules:
        for name in sorted(graph.unresolved(resolver, module)):
            if name in sys.stdlib_module_names or any(n == name for n, _, _ in names):
                continue
            if region is None:
                region = neighbourhood(graph, resolver.root)
            candidate = nearby(region, name)
            # the program's own namespace package (`model/` holding the program's files, no
            # __init__.py), or a library that imports here (`torch`), is not the hidden code
            # (v1-E of stop 42: both were named)
            if candidate is None or _own(paths, candidate, resolver.root, name):
                continue
            if not _installed(name, resolver.root):
                names.append((name, f"{module.path}:{_import_line(module, name)}", candidate))
    if not names:
        return None
    index, (line, col, lead) = first
    shown = "; ".join(
        f"`import {n}` ({at}), while {resolver.shown(c)} exists" for n, at, c in names[:_SHOWN]
    )
    if len(names) > _SHOWN:
        shown += f" (and {len(names) - _SHOWN} more)"
    return Incomplete(
        index,
        line,
        col,
        f"{lead}, and no file of the program answers {shown}: if the program imports that "
        "code, it is not migrated: its writes, prints and loaders run on every rank",
    )


def unreached(
    graph: ImportGraph,
    resolver: Resolver,
    modules: Sequence[ProgramModule],
    paths: Sequence[str],
) -> tuple[Incomplete, ...]:
    """DP076 for a program that edits no sys.path: at the first import that resolves to no
    file of the program and to no installed module while a project module of that name lies
    nearby (`neighbourhood`: a folder on a PYTHONPATH migrate did not run with) and holds
    none of the program's files (`paths`: a namespace package such as `utils/` holding
    the `utils.misc` the program imports is the program's)."""
    names: list[tuple[int, str, str]] = []  # (importing module, name, the project module)
    region: list[_Folder] | None = None
    for index, module in enumerate(modules):
        for name in sorted(graph.unresolved(resolver, module)):
            if name in sys.stdlib_module_names or any(n == name for _, n, _ in names):
                continue
            if region is None:
                region = neighbourhood(graph, resolver.root)
            candidate = nearby(region, name)
            if candidate is None or _own(paths, candidate, resolver.root, name):
                continue
            if not _installed(name, resolver.root):
                names.append((index, name, candidate))
    if not names:
        return ()
    index, first, _ = names[0]
    module = modules[index]
    shown = "; ".join(
        f"`import {n}` ({modules[i].path}:{_import_line(modules[i], n)}), while "
        f"{resolver.shown(c)} exists"
        for i, n, c in names[:_SHOWN]
    )
    if len(names) > _SHOWN:
        shown += f" (and {len(names) - _SHOWN} more)"
    return (
        Incomplete(
            index,
            _import_line(module, first),
            _import_col(module, first),
            f"no file of the program answers {shown}, and the program puts no folder on "
            "sys.path: if it runs with that code's folder on PYTHONPATH (a shell script), "
            "that code is not migrated: its writes, prints and loaders run on every rank; "
            "run `dp2ddp migrate` with the PYTHONPATH the program runs with",
        ),
    )


def _own(paths: Sequence[str], candidate: str, root: str, name: str) -> bool:
    """The program's files lie under `candidate`, or under the root's own folder `name`:
    a namespace package holding only sub-packages (`src/modeling/...` without a `.py` in
    `src/`) that `nearby` passes by for another project's `src/` (UTU-Health-Research/
    dl-ecg-classifier@822fcd8 beside other checkouts: stop 63 v2-C)."""
    own = os.path.join(root, name)
    return any(under(p, candidate) or under(p, own) for p in paths)


def _installed(name: str, root: str) -> bool:
    """`name` imports, here, a module outside `root` (a library), or a built-in one."""
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return False
    if spec is None:
        return False
    origin = spec.origin
    if origin is None and spec.submodule_search_locations:
        origin = next(iter(spec.submodule_search_locations), None)
    if origin is None or not os.path.isabs(origin):
        return origin is not None  # "built-in", "frozen"
    return not under(os.path.abspath(origin), root)


def _import_line(module: ProgramModule, name: str) -> int:
    for node in module.imports:
        if any(n.split(".")[0] == name for n in absolute_names(node)):
            return node.lineno
    return 1


def _import_col(module: ProgramModule, name: str) -> int:
    for node in module.imports:
        if any(n.split(".")[0] == name for n in absolute_names(node)):
            return node.col_offset + 1
    return 1


#: A folder, its files and its sub-folders.
_Folder = tuple[str, frozenset[str], frozenset[str]]


def neighbourhood(graph: ImportGraph, root: str) -> list[_Folder]:
    """The folders a module the program imports may lie in, nearby: those under `root`
    (the bounded walk discovery shares), then the folders up to _LEVELS_ABOVE above it and
    their sub-folders; each listed once, and once a run (the graph keeps them)."""
    found = graph.near.get(root)
    if found is None:
        found = graph.near[root] = [
            *graph.folders(root),
            *((f, *_entries(f)) for f in _above(root)),
        ]
    return found


def nearby(region: list[_Folder], name: str) -> str | None:
    """The first module or package `name` (holding Python code) of `region`'s folders."""
    for folder, files, dirs in region:
        found = _module_in(folder, name, files, dirs)
        if found is not None:
            return found
    return None


def _above(root: str) -> Iterator[str]:
    """The folders up to _LEVELS_ABOVE above `root` (below the home folder) and each of
    their sub-folders (not `root`'s own tree, walked already). Never the system's folder
    for temporary files: its sub-folders are other programs' (a root in /tmp/tmp.x/ named
    `/tmp/b_torch/torch` and another copy's `utils/` as the program's code: v1-E of stop
    42)."""
    folder = root
    temporary = os.path.abspath(tempfile.gettempdir())
    for _ in range(_LEVELS_ABOVE):
        parent = os.path.dirname(folder)
        if parent == folder or not may_widen(parent) or parent == temporary:
            return
        yield parent
        _, dirs = _entries(parent)
        for child in sorted(dirs):
            path = os.path.join(parent, child)
            if not under(root, path):
                yield path
        folder = parent


def _entries(folder: str) -> tuple[frozenset[str], frozenset[str]]:
    """(files, sub-folders) of `folder`, at most _ENTRIES_ABOVE entries; skipped folders
    and hidden ones left out."""
    files: set[str] = set()
    dirs: set[str] = set()
    try:
        with os.scandir(folder) as entries:
            for count, entry in enumerate(entries):
                if count >= _ENTRIES_ABOVE:
                    break
                if entry.name.startswith(".") or entry.name in SKIPPED_DIRS:
                    continue
                (dirs if entry.is_dir(follow_symlinks=False) else files).add(entry.name)
    except OSError:
        pass
    return frozenset(files), frozenset(dirs)


def _module_in(folder: str, name: str, files: frozenset[str], dirs: frozenset[str]) -> str | None:
    """`folder/name.py`, or `folder/name/` holding Python code."""
    if name + ".py" in files:
        return os.path.join(folder, name + ".py")
    if name in dirs:
        package = os.path.join(folder, name)
        try:
            if any(entry.endswith(".py") for entry in os.listdir(package)):
                return package
        except OSError:
            return None
    return None
