"""From an entry script to the ordered list of project modules its program imports.

The project root is the nearest folder up from the entry holding pyproject.toml, setup.py or
.git, else the entry's folder; the program's files lie under it, widened to cover the folders
its sys.path edits reach (search_path.py; DP076 where that cannot be shown). Imports resolve
the way Python would run the entry:
- a script (`python train.py`): the entry's folder (sys.path[0]), PYTHONPATH, the root;
- a module of a package (`python -m pkg.train`, chosen when the entry's folder has an
  __init__.py): against the folder above the top package, then the root. Unless the entry
  imports a sibling by its bare name (`import dataset`), which only a script can: then it
  is a script (see _runs_as_script).
Only files under the root are followed, never a folder dp2ddp does not walk (site-packages,
virtual environments, build output). Every import statement counts, wherever it is (inside
functions, under `if __name__ == "__main__":`): `import a.b`, `from a import b` (b may be a
submodule), relative and star imports; a package brings its __init__.py files along.
Imports made by a call (`importlib.import_module`, `__import__`) are followed where their
name is known statically or names a project package (dynamic_imports.py, one hook in
discover_program); the calls it cannot name are kept for DP034.

Parsing uses `ast` (several times faster than libcst): discovery reads each file once, and
the bytes it read are the ones migrated, so a file cannot change between the two steps
unnoticed (the writer also checks its stamp).
"""

from __future__ import annotations

import ast
import os
from collections import deque
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property

from dp2ddp.errors import InputError
from dp2ddp.facts import GENERATED_MODULE
from dp2ddp.migrate.deep import nesting_error
from dp2ddp.migrate.discovery import SKIPPED_DIRS, describe_os_error
from dp2ddp.migrate.parse import python_syntax_error
from dp2ddp.migrate.sourcefile import SourceFile, decode
from dp2ddp.program.config_names import Configured, configured_imports
from dp2ddp.program.dynamic_imports import (
    DynamicImports,
    DynamicMemo,
    DynamicSite,
    dotted_constants,
)
from dp2ddp.program.entry_scripts import is_entry_script
from dp2ddp.program.resolver import (
    Resolver,
    module_base,
    package_chain,
    runs_as_script,
)
from dp2ddp.program.search_path import (
    Incomplete,
    environment_search,
    incomplete,
    own_package_bases,
    search_with_edits,
    unreached,
    widened_root,
    working_folder,
)
from dp2ddp.program.sys_path import PathEdit, UnfollowedEdit, path_facts
from dp2ddp.transforms._support.ast_nodes import is_script_guard, parse_python

ROOT_MARKERS = ("pyproject.toml", "setup.py", ".git")
#: What makes a child folder of the root an installable sub-project (installed_subprojects).
_SUBPROJECT_MARKERS = ("setup.py", "pyproject.toml")
#: Entries (files and folders) the search for unfollowed loader modules looks at, at most.
UNFOLLOWED_SCAN_LIMIT = 50_000
#: Walks of one program at most: each round may find modules that edit sys.path again.
_SYS_PATH_ROUNDS = 4

#: (inode, size, mtime) of a file when it was read.
Stamp = tuple[int, int, int]


#: An import statement of a module, anywhere in it.
ImportNode = ast.Import | ast.ImportFrom


@dataclass(frozen=True)
class ProgramModule:
    """One project module: where it is, its import name, and what was read.

    The module's ast is not kept (a large project's trees take far more memory than its
    text): its import statements and whether it is an entry script are taken from it
    when the file is read, and `tree` parses it again for the few analyses that need
    more (the hints and uniformity of a program that reaches DataParallel)."""

    path: str  # as shown to the user (relative when the entry was given relative)
    real: str  # absolute, symbolic links resolved: the identity of the file
    name: str  # dotted import name ("lib.trainer"); a package's __init__ is the package
    source: SourceFile
    #: Every import statement, nested ones included, in source order.
    imports: tuple[ImportNode, ...]
    stamp: Stamp
    is_package: bool = False
    #: A `__main__` guard or training code at top level (see is_entry_script).
    entry_script: bool = False
    #: Folders the module puts on sys.path, where known statically (sys_path.py).
    path_edits: tuple[PathEdit, ...] = ()
    #: Its string constants shaped like dotted names (dynamic_imports.dotted_constants),
    #: taken from the ast parsed when the file was read.
    dotted: tuple[str, ...] = ()
    #: Its changes of sys.path that discovery does not follow (sys_path.py).
    unfollowed_edits: tuple[UnfollowedEdit, ...] = ()
    #: Indices of `imports` in its top-level `__main__` guard: they run only as a script.
    script_imports: tuple[int, ...] = ()

    @cached_property
    def tree(self) -> ast.Module:
        """The module's ast (parse_python's, discovery's own parse), and kept."""
        return parse_python(self.source.text)

    def passing_tree(self) -> ast.Module:
        """An ast for one read: `tree` if kept, else parse_python's (bounded), not kept."""
        kept = self.__dict__.get("tree")
        return kept if isinstance(kept, ast.Module) else parse_python(self.source.text)


@dataclass(frozen=True)
class Program:
    """An entry point and the project modules it imports, entry first, in import order."""

    entry: ProgramModule
    root: str
    modules: tuple[ProgramModule, ...]
    #: "pkg.train" when the entry is a module of a package, run as `python -m pkg.train`.
    module_entry: str | None = None
    #: The folder the generated helpers module goes into (the entry's folder).
    entry_dir: str = ""
    #: Modules that import the generated helpers module (a program dp2ddp migrated before).
    uses_generated: frozenset[str] = field(default_factory=frozenset)
    #: (import name, shown path) of project files that build a DataLoader and that program
    #: modules import by a name discovery cannot resolve the way the entry runs (found
    #: through a sys.path edit, say): not followed, so their loaders are not sharded.
    unfollowed: tuple[tuple[str, str], ...] = ()
    #: `importlib.import_module(...)`/`__import__(...)` calls whose module discovery could
    #: not name (dynamic_imports.py): DP034 points at them.
    dynamic_sites: tuple[DynamicSite, ...] = ()
    #: The folder every file of the program lies under: the root, widened to cover the
    #: folders the program's sys.path edits reach (search_path.py). Empty: the root.
    files_root: str = ""
    #: Where the program may reach project code it does not hold (DP076, search_path.py).
    incomplete: tuple[Incomplete, ...] = ()

    @property
    def libraries(self) -> tuple[ProgramModule, ...]:
        return self.modules[1:]

    @property
    def helpers_import(self) -> str:
        """How modules import the generated helpers module (see docs/programs.md)."""
        if self.module_entry is None:
            return GENERATED_MODULE
        package = self.module_entry.rsplit(".", 1)[0]
        return f"{package}.{GENERATED_MODULE}"

    @property
    def launch_target(self) -> str:
        """What follows `torchrun ...`: the entry's path, or `-m pkg.train`."""
        return f"-m {self.module_entry}" if self.module_entry else self.entry.path


def find_root(folder: str, marked: frozenset[str] = frozenset()) -> str:
    """The nearest folder up from `folder` with a project marker, else `folder` itself.
    `marked`: folders taken as marked (verify's copy of a project whose marker, .git, it
    does not copy: it migrates with the root `migrate` found in the original)."""
    current = os.path.abspath(folder)
    while True:
        if current in marked or any(os.path.exists(os.path.join(current, m)) for m in ROOT_MARKERS):
            return current
        parent = os.path.dirname(current)
        if parent == current:
            return os.path.abspath(folder)
        current = parent


def installed_subprojects(root: str) -> list[str]:
    """The folders of the root's in-tree installable sub-projects, as their installed
    packages import: a child folder of the root holding setup.py or pyproject.toml is a
    library the project's README has you `pip install` (yysijie/st-gcn@221c0e1:
    `torchlight/setup.py` beside `torchlight/torchlight/__init__.py`, and `main.py`'s
    `from torchlight import import_class`). Its packages are then importable from
    site-packages: searched after the entry's folder and the root (`src/` for a src
    layout). Sorted, so each run resolves the same way."""
    try:
        children = sorted(os.scandir(root), key=lambda e: e.name)
    except OSError:
        return []
    found: list[str] = []
    for child in children:
        if child.name in SKIPPED_DIRS or child.name.startswith("."):
            continue
        try:
            if not child.is_dir(follow_symlinks=False):
                continue
        except OSError:
            continue
        if not any(os.path.isfile(os.path.join(child.path, m)) for m in _SUBPROJECT_MARKERS):
            continue
        src = os.path.join(child.path, "src")
        found.append(src if os.path.isdir(src) else child.path)
    return found


def read_module(path: str, shown: str, name: str) -> ProgramModule:
    """Read, decode and ast-parse one file; InputError (with the file's position) if not."""
    return _module_of(path, shown, name, _load(path))


#: What reading a file gave: its text, import statements, whether it is an entry script
#: and its stamp, or the error (without a path).
_Loaded = (
    tuple[
        SourceFile,
        tuple[ImportNode, ...],
        bool,
        Stamp,
        tuple[PathEdit, ...],
        tuple[str, ...],
        tuple[UnfollowedEdit, ...],
        tuple[int, ...],
    ]
    | InputError
)


def _load(path: str, read: _Read | None = None) -> _Loaded:
    read = _read(path) if read is None else read
    if isinstance(read, OSError):
        return InputError(f"cannot read: {describe_os_error(read)}")
    data, stamp = read
    try:
        source = decode(data)
        tree = parse_tree(source.text, path)
    except InputError as exc:
        return exc
    imports = [n for n in _statements(tree.body) if isinstance(n, _IMPORTS)]
    imports.sort(key=lambda n: (n.lineno, n.col_offset))
    entry_script = is_entry_script(tree)
    edits: tuple[PathEdit, ...] = ()
    unfollowed: tuple[UnfollowedEdit, ...] = ()
    if "sys.path" in source.text or "addsitedir" in source.text:
        edits, unfollowed = path_facts(tree, path, entry_script)
    dotted = tuple(dotted_constants(tree))
    guarded = {
        id(n)
        for s in tree.body
        if isinstance(s, ast.If) and is_script_guard(s.test)
        for n in _statements(s.body)
    }
    script = tuple(i for i, n in enumerate(imports) if id(n) in guarded)
    return source, tuple(imports), entry_script, stamp, edits, dotted, unfollowed, script


#: A file's bytes and stamp, or why it could not be read.
_Read = tuple[bytes, Stamp] | OSError


def _read(path: str) -> _Read:
    try:
        with open(path, "rb") as handle:
            data = handle.read()
            st = os.fstat(handle.fileno())
    except OSError as exc:
        return exc
    return data, (st.st_ino, st.st_size, st.st_mtime_ns)


def _module_of(path: str, shown: str, name: str, loaded: _Loaded) -> ProgramModule:
    if isinstance(loaded, InputError):
        raise loaded.with_path(shown)
    source, imports, entry_script, stamp, edits, dotted, unfollowed, script = loaded
    real = os.path.realpath(path)
    package = os.path.basename(path) == "__init__.py"
    read = (source, imports, stamp, package, entry_script, edits, dotted, unfollowed, script)
    return ProgramModule(shown, real, name, *read)


def parse_tree(text: str, shown: str) -> ast.Module:
    """The file's ast; a syntax error is reported as Python reports it (as migrate does)."""
    try:
        tree = ast.parse(text, filename=shown)
    except SyntaxError as exc:
        error = python_syntax_error(text) or InputError(exc.msg, exc.lineno or 1, exc.offset or 1)
        raise error.with_path(shown) from None
    except RecursionError:  # Python's own parser, at this thread's recursion limit
        raise nesting_error(text).with_path(shown) from None
    except (MemoryError, ValueError) as exc:
        raise InputError(f"cannot parse: {type(exc).__name__}", path=shown) from None
    parse_python.keep(text, tree)  # the facts and passes read the same text's ast
    return tree


_IMPORTS = (ast.Import, ast.ImportFrom)
_BLOCKS = ("body", "orelse", "finalbody", "handlers", "cases")


def _statements(body: list[ast.stmt]) -> Iterator[ast.AST]:
    """Every statement, nested ones included (an import is a statement: expressions, the
    bulk of a tree, need not be walked)."""
    stack: list[ast.AST] = list(reversed(body))
    while stack:
        node = stack.pop()
        yield node
        for block in _BLOCKS:
            children = getattr(node, block, None)
            if children:
                stack.extend(reversed(children))


def in_skipped_dir(path: str, graph: ImportGraph | None = None) -> bool:
    """The file lies in a folder dp2ddp never walks (site-packages, a venv...) under its own
    project root: none of its imports can resolve, so its program is the file alone."""
    folder = os.path.dirname(os.path.abspath(path))
    root = graph.root(folder) if graph is not None else find_root(folder)
    parts = os.path.relpath(os.path.realpath(folder), os.path.realpath(root)).split(os.sep)
    return any(p in SKIPPED_DIRS for p in parts)


def _inside(path: str, folder: str) -> bool:
    """`path` is `folder` or below it."""
    return os.path.commonpath([os.path.abspath(path), os.path.abspath(folder)]) == os.path.abspath(
        folder
    )


def _names_generated(imports: Sequence[ImportNode]) -> bool:
    """An import statement names the generated helpers module (`from _dp2ddp import ...`,
    `from pkg._dp2ddp import ...`, `import _dp2ddp`)."""
    for node in imports:
        if isinstance(node, ast.ImportFrom):
            names = [node.module or ""]
        else:
            names = [alias.name for alias in node.names]
        if any(name.rsplit(".", 1)[-1] == GENERATED_MODULE for name in names):
            return True
    return False


#: One resolved import of a module: (file, module name, real path, path as shown).
Edge = tuple[str, str, str, str]


@dataclass(frozen=True)
class Start:
    """How an entry runs: its module, how its imports resolve, and its program's root."""

    entry: ProgramModule
    entry_abs: str
    entry_dir: str
    root: str
    resolver: Resolver
    module_entry: str | None


class ImportGraph:
    """The project's files and their imports, each file read once and each module's imports
    resolved once per way of running (folder mode asks for many programs of one project).

    Holds every file read (text and ast), by real path, and each module's resolved imports;
    `discover_program` walks it from an entry.
    """

    def __init__(self, marked: frozenset[str] = frozenset()) -> None:
        #: Folders taken as root markers (find_root).
        self.marked = frozenset(os.path.abspath(m) for m in marked)
        self._bytes: dict[str, _Read] = {}
        self._loaded: dict[str, _Loaded] = {}
        self._modules: dict[tuple[str, str], ProgramModule] = {}
        self._resolvers: dict[tuple[str, tuple[str, ...], str | None], Resolver] = {}
        self._edges: dict[tuple[int, str, str], tuple[tuple[Edge, ...], bool]] = {}
        self._unresolved: dict[tuple[int, str, str], frozenset[str]] = {}
        self._outside: dict[tuple[int, str, str], tuple[tuple[str, str], ...]] = {}
        self._roots: dict[str, str] = {}
        self._subprojects: dict[str, list[str]] = {}
        self._walks: dict[str, list[tuple[str, frozenset[str], frozenset[str]]]] = {}
        self._loader_modules: dict[tuple[str, str], str | None] = {}
        self._real: dict[str, str] = {}
        #: Each module's import calls, scanned once (DynamicImports.memo).
        self.dynamic_memo = DynamicMemo()
        #: The folders near each root (search_path.neighbourhood), listed once a root.
        self.near: dict[str, list[tuple[str, frozenset[str], frozenset[str]]]] = {}

    # -- files --------------------------------------------------------------------------
    def realpath(self, path: str) -> str:
        """os.path.realpath, once a path (a torch program asks for the same files' real
        paths 200,000 times: one lstat per folder of each)."""
        found = self._real.get(path)
        if found is None:
            found = self._real[path] = os.path.realpath(path)
        return found

    def module(
        self,
        path: str,
        shown: str,
        name: str,
        read: ProgramModule | None = None,
        real: str | None = None,
    ) -> ProgramModule:
        """The module of `path` under import name `name` (the file is read once); `read`:
        the same file already read under another name (the entry, before discovery knows
        how it runs), renamed, not reread; `real`: the path's real path, when known."""
        key = (os.path.realpath(path) if real is None else real, name)
        found = self._modules.get(key)
        if found is None or found.path != shown:
            if read is not None:
                found = replace(read, name=name)
            else:
                loaded = self._loaded.get(key[0])
                if loaded is None:
                    loaded = self._loaded[key[0]] = _load(path, self._bytes.pop(key[0], None))
                found = _module_of(path, shown, name, loaded)
            self._modules[key] = found
        return found

    def read_bytes(self, path: str) -> bytes | None:
        """The file's bytes (None if it cannot be read); discovery reads them from here
        rather than from the disk again."""
        real = os.path.realpath(path)
        found = self._bytes.get(real)
        if found is None:
            found = self._bytes[real] = _read(path)
        return None if isinstance(found, OSError) else found[0]

    def root(self, folder: str) -> str:
        """find_root(folder), asked once per folder."""
        found = self._roots.get(folder)
        if found is None:
            found = self._roots[folder] = find_root(folder, self.marked)
        return found

    def subprojects(self, root: str) -> list[str]:
        """installed_subprojects(root), once a root."""
        found = self._subprojects.get(root)
        if found is None:
            found = self._subprojects[root] = installed_subprojects(root)
        return found

    def resolver(self, root: str, search: Sequence[str], shown_base: str | None) -> Resolver:
        key = (root, tuple(search), shown_base)
        found = self._resolvers.get(key)
        if found is None:
            found = self._resolvers[key] = Resolver(root, search, shown_base)
        return found

    # -- imports ------------------------------------------------------------------------
    def imports(self, resolver: Resolver, module: ProgramModule, path: str) -> tuple[Edge, ...]:
        """The project modules `module` (at `path`) imports, in source order, inside the
        root (see Resolver.imports); memoized."""
        return self._resolved(resolver, module, path)[0]

    def uses_generated(self, resolver: Resolver, module: ProgramModule, path: str) -> bool:
        """`module` imports the generated helpers module (a program migrated before)."""
        return self._resolved(resolver, module, path)[1]

    def _resolved(
        self, resolver: Resolver, module: ProgramModule, path: str
    ) -> tuple[tuple[Edge, ...], bool]:
        key = (id(resolver), path, module.name)
        found = self._edges.get(key)
        if found is None:
            edges: list[Edge] = []
            outside: list[tuple[str, str]] = []
            generated = False
            for file, name in resolver.imports(module, path):
                if name.rsplit(".", 1)[-1] == GENERATED_MODULE:
                    generated = True
                    continue
                if not resolver.inside(file):
                    outside.append((file, name))
                    continue
                edges.append(self.edge(resolver, file, name))
            self._outside[key] = tuple(outside)
            # Also when the module is missing (deleted to be regenerated): the import says it.
            generated = generated or _names_generated(module.imports)
            found = self._edges[key] = (tuple(edges), generated)
        return found

    def edge(self, resolver: Resolver, file: str, name: str) -> Edge:
        """An import of `file` as `name`: with its real path and the path shown for it."""
        return (file, name, self.realpath(file), resolver.shown(os.path.abspath(file)))

    def outside(
        self, resolver: Resolver, module: ProgramModule, path: str
    ) -> tuple[tuple[str, str], ...]:
        """(file, module name) of what `module` imports that `resolver` finds outside its
        root (through a sys.path edit): not followed."""
        self._resolved(resolver, module, path)
        return self._outside[(id(resolver), path, module.name)]

    def unresolved(self, resolver: Resolver, module: ProgramModule) -> frozenset[str]:
        key = (id(resolver), module.real, module.name)
        found = self._unresolved.get(key)
        if found is None:
            found = self._unresolved[key] = frozenset(resolver.unresolved(module))
        return found

    # -- project modules discovery cannot follow ----------------------------------------
    def unfollowed(
        self, names: set[str], root: str, resolver: Resolver
    ) -> tuple[tuple[str, str], ...]:
        """Of the import names discovery could not resolve (torch, numpy, ... and project
        modules reached through a sys.path edit), those naming a project file that builds a
        DataLoader: its loaders reach the program unsharded, so the data pass warns where
        they are trained on (DP027). A name several files could be is reported with the
        first, in the order of a sorted walk of the root."""
        found = []
        for name in sorted(names):
            key = (root, name)
            if key not in self._loader_modules:
                self._loader_modules[key] = self._loader_module(root, name)
            candidate = self._loader_modules[key]
            if candidate is not None:
                found.append((name, resolver.shown(candidate)))
        return tuple(found)

    def _loader_module(self, root: str, name: str) -> str | None:
        """The first file of the walk that is `name.py` or `name/__init__.py` and builds a
        DataLoader."""
        for folder, files, dirs in self._walk(root):
            if name + ".py" in files or name in dirs:
                for candidate in (
                    os.path.join(folder, name + ".py"),
                    os.path.join(folder, name, "__init__.py"),
                ):
                    if _builds_loader(candidate):
                        return candidate
        return None

    def folders(self, root: str) -> list[tuple[str, frozenset[str], frozenset[str]]]:
        """The bounded walk of `root` (see _walk), shared with search_path.py."""
        return self._walk(root)

    def _walk(self, root: str) -> list[tuple[str, frozenset[str], frozenset[str]]]:
        """The folders of `root` (sorted, skipped folders left out), their files and
        sub-folders, up to UNFOLLOWED_SCAN_LIMIT entries: a root without a project marker
        can be a home folder, so the walk is bounded. Walked once per root."""
        found = self._walks.get(root)
        if found is None:
            found = self._walks[root] = []
            seen = 0
            for folder, dirs, files in os.walk(root):
                seen += len(dirs) + len(files)
                if seen > UNFOLLOWED_SCAN_LIMIT:
                    break
                dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS and not d.startswith("."))
                found.append((folder, frozenset(files), frozenset(dirs)))
        return found

    # -- entries ------------------------------------------------------------------------
    def start(self, entry: str) -> Start:
        """How `entry` runs (see the module docstring). InputError when it cannot be read."""
        shown_base = None if os.path.isabs(entry) else os.getcwd()
        entry_abs = os.path.abspath(entry)
        entry_dir = os.path.dirname(entry_abs)
        root = self.root(entry_dir)
        stem = os.path.splitext(os.path.basename(entry_abs))[0]
        package = package_chain(entry_dir)
        module_entry: str | None = None
        shown = entry if shown_base is None else Resolver(root, [], shown_base).shown(entry_abs)
        first = self.module(entry, shown, stem)
        # The root counts as "above" only outside the package: a repository whose root
        # folder is itself a package (an `__init__.py` beside main.py, .git there:
        # ShichenLiu/CondenseNet@833a91d) resolves `import models` against the root as a
        # script does, which is no evidence for `python -m`.
        above = [package[0]] if package is not None else []
        if package is not None and not _inside(root, os.path.join(package[0], package[1][0])):
            above.append(root)
        if package is not None and not runs_as_script(
            first.imports,
            self.resolver(root, [entry_dir], None),
            self.resolver(root, above, None),
        ):
            base, names = module_base(
                package, first.imports, lambda folder: self.resolver(root, [folder], None)
            )
            module_entry = ".".join([*names, stem])
            if os.path.commonpath([base, root]) != root:
                root = base  # the package's parent is where `python -m` runs from
            search = [base, root]
            first = self.module(entry, shown, module_entry, read=first)
        else:
            search = [entry_dir, root]
        searched_root, search[1:1] = environment_search(root)  # a shell's PYTHONPATH (X1)
        searched_root, own = own_package_bases(entry_dir, searched_root, first.imports)
        search += self.subprojects(root) + own
        resolver = self.resolver(searched_root, search, shown_base)
        return Start(first, entry_abs, entry_dir, root, resolver, module_entry)


def discover_program(entry: str, graph: ImportGraph | None = None) -> Program:
    """The program of `entry`. InputError (with the failing file's path) when a module
    cannot be read or parsed: a program is migrated whole or not at all. `graph`: the
    project's files and imports already read (folder mode shares one across entries).

    Imports resolve against the folders the program's modules put on sys.path too
    (sys_path.py): when the walk finds such an edit, it walks again with those folders
    searched (a few rounds at most; each file is still read once)."""
    graph = ImportGraph() if graph is None else graph
    start = graph.start(entry)
    resolver = start.resolver
    base = list(resolver.search)
    marked = any(os.path.exists(os.path.join(start.root, m)) for m in ROOT_MARKERS)
    working = working_folder(start.root, marked)
    for _ in range(_SYS_PATH_ROUNDS):
        modules, paths, uses_generated, dynamic = _walk_imports(graph, start, resolver)
        search = search_with_edits(base, modules, working)
        root = widened_root(resolver.root, modules, working)
        if search == resolver.search and root == resolver.root:
            break
        resolver = graph.resolver(root, search, resolver.shown_base)
    else:  # still widening after the last round: the program as the widest search finds it
        modules, paths, uses_generated, dynamic = _walk_imports(graph, start, resolver)
    configured = configured_imports(dynamic, modules)  # names the configuration gives
    if configured:
        modules, paths, uses_generated, dynamic = _walk_imports(graph, start, resolver, configured)
    unresolved: set[str] = set()
    for module in modules:
        unresolved |= graph.unresolved(resolver, module)
    gaps: tuple[Incomplete, ...] = ()
    if any(m.path_edits or m.unfollowed_edits for m in modules):
        gaps = incomplete(graph, resolver, list(zip(modules, paths, strict=True)), working)
    else:  # no sys.path edit: a folder on a PYTHONPATH migrate did not run with
        gaps = unreached(graph, resolver, modules, paths)
    return Program(
        start.entry,
        start.root,
        tuple(modules),
        start.module_entry,
        start.entry_dir,
        frozenset(uses_generated),
        graph.unfollowed(unresolved, resolver.root, resolver) if unresolved else (),
        tuple(dynamic.sites),
        resolver.root,
        gaps,
    )


def _walk_imports(
    graph: ImportGraph, start: Start, resolver: Resolver, configured: Configured | None = None
) -> tuple[list[ProgramModule], list[str], set[str], DynamicImports]:
    """The entry and the project modules it imports, breadth first, the way `resolver`
    resolves them, and their absolute paths; the modules that import the generated
    helpers; the import calls (with what the configuration names at them: `configured`)."""
    modules = [start.entry]
    paths = [start.entry_abs]
    seen = {start.entry.real}
    uses_generated: set[str] = set()
    queue = deque([(start.entry, start.entry_abs)])
    dynamic = DynamicImports(resolver, memo=graph.dynamic_memo, configured=configured or {})
    while queue:
        module, path = queue.popleft()
        if graph.uses_generated(resolver, module, path):
            uses_generated.add(module.real)
        edges = [*graph.imports(resolver, module, path), *dynamic_edges(dynamic, module, graph)]
        for file, name, real, shown in edges:
            if real in seen:
                continue
            seen.add(real)
            found = graph.module(file, shown, name, real=real)
            modules.append(found)
            paths.append(os.path.abspath(file))
            queue.append((found, paths[-1]))
    return modules, paths, uses_generated, dynamic


def dynamic_edges(dynamic: DynamicImports, module: ProgramModule, graph: ImportGraph) -> list[Edge]:
    """The project modules `module` imports by import calls (dynamic_imports.py)."""
    resolver = dynamic.resolver
    edges: list[Edge] = []
    for file, name in dynamic.follow(module):
        if name.rsplit(".", 1)[-1] == GENERATED_MODULE or not resolver.inside(file):
            continue
        edges.append(graph.edge(resolver, file, name))
    return edges


def _builds_loader(path: str) -> bool:
    try:
        with open(path, "rb") as handle:
            return b"DataLoader" in handle.read()
    except OSError:
        return False
