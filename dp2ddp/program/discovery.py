"""From an entry script to the ordered list of project modules its program imports.

The project root is the nearest folder up from the entry holding pyproject.toml, setup.py or
.git, else the entry's folder. Imports resolve the way Python would run the entry:
- a script (`python train.py`): against the entry's folder (sys.path[0]), then the root;
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
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace

from dp2ddp.errors import InputError
from dp2ddp.migrate.discovery import SKIPPED_DIRS, describe_os_error
from dp2ddp.migrate.migrate_source import python_syntax_error
from dp2ddp.migrate.sourcefile import SourceFile, decode
from dp2ddp.program.dynamic_imports import DynamicImports, DynamicSite

ROOT_MARKERS = ("pyproject.toml", "setup.py", ".git")
#: Entries (files and folders) the search for unfollowed loader modules looks at, at most.
UNFOLLOWED_SCAN_LIMIT = 50_000
#: The generated helpers module's name (dp2ddp/program/runtime.py); never a program module.
GENERATED_MODULE = "_dp2ddp"

#: (inode, size, mtime) of a file when it was read.
Stamp = tuple[int, int, int]


@dataclass(frozen=True)
class ProgramModule:
    """One project module: where it is, its import name, and what was read."""

    path: str  # as shown to the user (relative when the entry was given relative)
    real: str  # absolute, symbolic links resolved: the identity of the file
    name: str  # dotted import name ("lib.trainer"); a package's __init__ is the package
    source: SourceFile
    tree: ast.Module
    stamp: Stamp
    is_package: bool = False


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


def find_root(folder: str) -> str:
    """The nearest folder up from `folder` with a project marker, else `folder` itself."""
    current = os.path.abspath(folder)
    while True:
        if any(os.path.exists(os.path.join(current, m)) for m in ROOT_MARKERS):
            return current
        parent = os.path.dirname(current)
        if parent == current:
            return os.path.abspath(folder)
        current = parent


def read_module(path: str, shown: str, name: str) -> ProgramModule:
    """Read, decode and ast-parse one file; InputError (with the file's position) if not."""
    try:
        with open(path, "rb") as handle:
            data = handle.read()
            st = os.fstat(handle.fileno())
    except OSError as exc:
        raise InputError(f"cannot read: {describe_os_error(exc)}", path=shown) from None
    try:
        source = decode(data)
    except InputError as exc:
        raise exc.with_path(shown) from None
    tree = parse_tree(source.text, shown)
    real = os.path.realpath(path)
    is_package = os.path.basename(path) == "__init__.py"
    stamp = (st.st_ino, st.st_size, st.st_mtime_ns)
    return ProgramModule(shown, real, name, source, tree, stamp, is_package)


def parse_tree(text: str, shown: str) -> ast.Module:
    """The file's ast; a syntax error is reported as Python reports it (as migrate does)."""
    try:
        return ast.parse(text, filename=shown)
    except SyntaxError as exc:
        error = python_syntax_error(text) or InputError(exc.msg, exc.lineno or 1, exc.offset or 1)
        raise error.with_path(shown) from None
    except (RecursionError, MemoryError, ValueError) as exc:
        raise InputError(f"cannot parse: {type(exc).__name__}", path=shown) from None


class Resolver:
    """Map import statements of project modules to project files (never outside the root)."""

    def __init__(self, root: str, search: Sequence[str], shown_base: str | None) -> None:
        self.root = root
        self.search = [s for i, s in enumerate(search) if s not in search[:i]]
        #: Paths are shown relative to this folder (the working directory), else absolute.
        self._shown_base = shown_base

    def shown(self, path: str) -> str:
        if self._shown_base is None:
            return path
        relative = os.path.relpath(path, self._shown_base)
        return path if relative.startswith(os.pardir) else relative

    def inside(self, path: str) -> bool:
        """Under the root and not in a folder dp2ddp never walks (site-packages, venvs...)."""
        real = os.path.realpath(path)
        root = os.path.realpath(self.root)
        if os.path.commonpath([real, root]) != root:
            return False
        parts = os.path.relpath(real, root).split(os.sep)[:-1]
        return not any(p in SKIPPED_DIRS for p in parts)

    # -- one dotted name ------------------------------------------------------------------
    def absolute(self, dotted: str) -> list[tuple[str, str]]:
        """(file, module name) for `import dotted`: each package __init__ and the module."""
        for base in self.search:
            found = self._under(base, dotted.split("."))
            if found is not None:
                return found
        return []

    def _under(self, base: str, parts: list[str]) -> list[tuple[str, str]] | None:
        files: list[tuple[str, str]] = []
        folder = base
        for depth, part in enumerate(parts):
            name = ".".join(parts[: depth + 1])
            package = os.path.join(folder, part)
            module = package + ".py"
            if os.path.isdir(package) and not os.path.isfile(module):
                init = os.path.join(package, "__init__.py")
                if os.path.isfile(init):
                    files.append((init, name))
                folder = package
            elif os.path.isfile(module):
                if depth != len(parts) - 1:
                    return files or None  # `a.b` where a is a module: Python fails there
                files.append((module, name))
            else:
                return files or None
        return files

    def submodule(self, folder: str, package: str, name: str) -> tuple[str, str] | None:
        """`from package import name` where name is a module of the package's folder."""
        module = os.path.join(folder, name + ".py")
        init = os.path.join(folder, name, "__init__.py")
        dotted = f"{package}.{name}" if package else name
        if os.path.isfile(module):
            return module, dotted
        if os.path.isfile(init):
            return init, dotted
        return None

    def unresolved(self, module: ProgramModule) -> Iterator[str]:
        """First components of `module`'s absolute imports that resolve to no project file."""
        for node in _statements(module.tree.body):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                if not self.absolute(top):
                    yield top

    # -- import statements ---------------------------------------------------------------
    def imports(self, module: ProgramModule, path: str) -> Iterator[tuple[str, str]]:
        """(file, module name) of every project module `module` imports, in source order."""
        nodes = [n for n in _statements(module.tree.body) if isinstance(n, _IMPORTS)]
        nodes.sort(key=lambda n: (n.lineno, n.col_offset))
        for node in nodes:
            if isinstance(node, ast.Import):
                for alias in node.names:
                    yield from self.absolute(alias.name)
            else:
                yield from self._import_from(node, module, path)

    def _import_from(
        self, node: ast.ImportFrom, module: ProgramModule, path: str
    ) -> Iterator[tuple[str, str]]:
        if node.level == 0:
            if node.module is None:
                return
            found = self.absolute(node.module)
            yield from found
            if not found or not found[-1][0].endswith("__init__.py"):
                return
            folder, package = os.path.dirname(found[-1][0]), found[-1][1]
        else:
            resolved = self._relative_base(module, path, node.level)
            if resolved is None:
                return
            folder, package = resolved
            if node.module:
                for part in node.module.split("."):
                    hit = self.submodule(folder, package, part)
                    if hit is None:
                        return
                    yield hit
                    if not hit[0].endswith("__init__.py"):
                        return
                    folder, package = os.path.dirname(hit[0]), hit[1]
            else:
                init = os.path.join(folder, "__init__.py")
                if os.path.isfile(init) and package:
                    yield init, package
        for alias in node.names:
            if alias.name != "*":
                hit = self.submodule(folder, package, alias.name)
                if hit is not None:
                    yield hit

    def _relative_base(
        self, module: ProgramModule, path: str, level: int
    ) -> tuple[str, str] | None:
        """The folder and package name `from .` (level dots) refers to in `module`."""
        folder = os.path.dirname(path)
        parts = module.name.split(".")
        package = parts if module.is_package else parts[:-1]
        for _ in range(level - 1):
            if not package:
                return None
            folder = os.path.dirname(folder)
            package = package[:-1]
        return folder, ".".join(package)


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


def in_skipped_dir(path: str) -> bool:
    """The file lies in a folder dp2ddp never walks (site-packages, a venv...) under its own
    project root: none of its imports can resolve, so its program is the file alone."""
    folder = os.path.dirname(os.path.abspath(path))
    root = find_root(folder)
    parts = os.path.relpath(os.path.realpath(folder), os.path.realpath(root)).split(os.sep)
    return any(p in SKIPPED_DIRS for p in parts)


def _module_entry(entry_dir: str) -> tuple[str, list[str]] | None:
    """(folder above the top package, package names) when `entry_dir` is a package."""
    packages: list[str] = []
    folder = entry_dir
    while os.path.isfile(os.path.join(folder, "__init__.py")):
        packages.insert(0, os.path.basename(folder))
        parent = os.path.dirname(folder)
        if parent == folder:
            break
        folder = parent
    return (folder, packages) if packages else None


def _runs_as_script(tree: ast.Module, entry_dir: str, base: str, root: str) -> bool:
    """The entry lies in a package folder but imports a sibling by its bare name
    (`import dataset` beside dataset.py, Python 2's implicit relative import).

    Under `python -m pkg.train` that import fails: sys.path[0] is the working folder, not
    the package's. The program only runs as `python train.py` from its folder (or
    `python pkg/train.py`), so its modules resolve the way a script's do; taking it for a
    module of its package left dataset.py out of the program and its loaders unsharded
    in silence (real-world: aaron-xichen/pytorch-playground@5d47629, mnist/train.py).
    A name that also resolves against the package's parent or the root is no evidence.
    """
    beside = Resolver(root, [entry_dir], None)
    above = Resolver(root, [base, root], None)
    for node in _statements(tree.body):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        else:
            continue
        for name in names:
            top = name.split(".")[0]
            if beside.absolute(top) and not above.absolute(top):
                return True
    return False


#: Files already read, by (real path, module name): folder mode reads each file once.
ModuleCache = dict[tuple[str, str], ProgramModule]


def discover_program(entry: str, cache: ModuleCache | None = None) -> Program:
    """The program of `entry`. InputError (with the failing file's path) when a module
    cannot be read or parsed: a program is migrated whole or not at all."""
    cache = {} if cache is None else cache
    shown_base = None if os.path.isabs(entry) else os.getcwd()
    entry_abs = os.path.abspath(entry)
    entry_dir = os.path.dirname(entry_abs)
    root = find_root(entry_dir)
    stem = os.path.splitext(os.path.basename(entry_abs))[0]
    package = _module_entry(entry_dir)
    module_entry: str | None = None
    shown = entry if shown_base is None else Resolver(root, [], shown_base).shown(entry_abs)
    first = _cached(cache, entry, shown, stem)
    if package is not None and not _runs_as_script(first.tree, entry_dir, package[0], root):
        base, names = package
        module_entry = ".".join([*names, stem])
        if os.path.commonpath([base, root]) != root:
            root = base  # the package's parent is where `python -m` runs from
        search = [base, root]
        first = _cached(cache, entry, shown, module_entry, read=first)
    else:
        search = [entry_dir, root]
    resolver = Resolver(root, search, shown_base)
    modules = [first]
    seen = {first.real}
    uses_generated: set[str] = set()
    queue = [(first, entry_abs)]
    dynamic = DynamicImports(resolver)
    while queue:
        module, path = queue.pop(0)
        for file, name in [*resolver.imports(module, path), *dynamic.follow(module)]:
            if name.rsplit(".", 1)[-1] == GENERATED_MODULE:
                uses_generated.add(module.real)
                continue
            real = os.path.realpath(file)
            if real in seen or not resolver.inside(file):
                continue
            seen.add(real)
            found = _cached(cache, file, resolver.shown(os.path.abspath(file)), name)
            modules.append(found)
            queue.append((found, os.path.abspath(file)))
    unresolved = {name for module in modules for name in resolver.unresolved(module)}
    return Program(
        first,
        root,
        tuple(modules),
        module_entry,
        entry_dir,
        frozenset(uses_generated),
        _unfollowed(unresolved, root, resolver),
        tuple(dynamic.sites),
    )


def _unfollowed(names: set[str], root: str, resolver: Resolver) -> tuple[tuple[str, str], ...]:
    """Of the import names discovery could not resolve (torch, numpy, ... and project
    modules reached through a sys.path edit), those naming a project file that builds a
    DataLoader: its loaders reach the program unsharded, so the data pass warns where they
    are trained on (DP027). A name several files could be is reported with the first."""
    if not names:
        return ()
    found: dict[str, str] = {}
    seen = 0
    for folder, dirs, files in os.walk(root):
        seen += len(dirs) + len(files)
        if seen > UNFOLLOWED_SCAN_LIMIT:
            break  # a root without a project marker can be a home folder: bounded time
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS and not d.startswith("."))
        for name in sorted(names - found.keys()):
            for candidate in (
                os.path.join(folder, name + ".py"),
                os.path.join(folder, name, "__init__.py"),
            ):
                if (name + ".py" in files or name in dirs) and _builds_loader(candidate):
                    found[name] = resolver.shown(candidate)
                    break
        if found.keys() == names:
            break
    return tuple(sorted(found.items()))


def _builds_loader(path: str) -> bool:
    try:
        with open(path, "rb") as handle:
            return b"DataLoader" in handle.read()
    except OSError:
        return False


def _cached(
    cache: ModuleCache, path: str, shown: str, name: str, read: ProgramModule | None = None
) -> ProgramModule:
    """The module of `path` under import name `name`; `read`: the same file already read
    under another name (the entry, before discovery knows how it runs), renamed, not reread."""
    key = (os.path.realpath(path), name)
    found = cache.get(key)
    if found is None or found.path != shown:
        if read is not None:
            found = cache[key] = replace(read, name=name)
        else:
            found = cache[key] = read_module(path, shown, name)
    return found
