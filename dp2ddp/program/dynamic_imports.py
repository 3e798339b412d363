"""Imports made by a call: `importlib.import_module(name)` and `__import__(name)`.

Real training repositories pick their task, model or data module by name
(princeton-vl/pytorch_stacked_hourglass: `importlib.import_module('task.pose')`, then
`importlib.import_module(config['data_provider'])` with `'data_provider': 'data.MPII.dp'`
in the task's config dict). Program discovery (discovery.py) asks this module, for each
module it reads, which module names such calls import:

- **static names** are imports like any other: a literal, a module-level constant, a
  concatenation or f-string (or `'...'.format(...)`) of those, relative names with
  `package=` (a literal, `__package__` or `__name__`);
- **a computed name with a static package prefix** (`'models.' + args.model`,
  `f'models.{name}_model'`): the prefix's project package is where the module comes from,
  so each module of that package that wraps with DataParallel or builds a DataLoader joins
  the program, and so does each module the name can be (`models/<name><end>.py` or
  `models/<name><end>/__init__.py`, `<end>` the name's static end, stop 45's v2-D): what it
  does with a batch, a draw, a print or a file is the program's too (stop 46: before, a
  member that wrapped nothing and built no loader was left unread, its batch-size compare,
  its draws and its file writes not migrated, without a word). A name of more than one
  dotted part under the package, or with an end no identifier ends with, is read by its
  shape (`'models.' + a + '.' + a + '-train'`: `models/<x>/<y>-train.py`, a name importlib
  takes and `import` does not; static_strings.shaped_members, stop 63). A package with more
  such members than MEMBER_LIMIT keeps its DataParallel and DataLoader modules only, and
  the call is said (DP073, with the modules left unread);
- **an opaque name** (`import_module(config['data_provider'])`, a name from YAML): the
  dotted string constants of the program's modules that name a project module
  (`'data.MPII.dp'`, `'models.posenet.PoseNet'`: module `models.posenet`, whose top level
  defines `PoseNet`) join the program. A site no rule resolves is kept
  (`DynamicSite`): when the project root holds DataParallel modules the program does not
  reach, `dp2ddp migrate ENTRY` names each with DP034 at that site (unreached_dataparallel).

Everything here reads `ast` trees discovery already parsed; nothing is executed.
"""

from __future__ import annotations

import ast
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from dp2ddp.facts import GENERATED_MODULE
from dp2ddp.migrate.discovery import SKIPPED_DIRS
from dp2ddp.migrate.precheck import may_use_dataparallel
from dp2ddp.program.static_strings import (
    bounded_values,
    computed_parts,
    dotted_name_of,
    local_values,
    module_constants,
    name_pieces,
    name_shape,
    shaped_members,
    trailing_text,
)
from dp2ddp.transforms._support import ast_nodes
from dp2ddp.transforms._support.ast_nodes import import_binding, top_level_names, walk
from dp2ddp.transforms._support.identifiers import mentions

if TYPE_CHECKING:  # discovery imports this module
    from dp2ddp.program.discovery import ProgramModule
    from dp2ddp.program.resolver import Resolver

#: Files and folders the search for unreached DataParallel modules looks at, at most.
SCAN_LIMIT = 50_000
#: The most modules a computed name under a package can be that are read into the program
#: (more: DP073 at the call names those left unread).
MEMBER_LIMIT = 40
_DOTTED = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+")


@dataclass(frozen=True)
class DynamicSite:
    """One import call: where it is (`path`, `line`, `col`, 1-based `col`), its source text,
    and what is statically known about the name it imports."""

    path: str
    line: int
    col: int
    code: str
    #: The whole dotted name (absolute: relative names already resolved), when static.
    name: str | None = None
    #: The dotted package a computed name starts with (`'models.' + x` -> "models").
    prefix: str | None = None
    #: The helper function the call is a call of, when it imports through one (_helpers).
    helper: str | None = None
    #: The module names the program's configuration gives an opaque call (config_names.py).
    configured: tuple[str, ...] = ()
    #: The static end of a computed name under `prefix` (`... + '_model'` -> "_model"):
    #: the package's modules whose names end so are what the call may import.
    suffix: str = ""
    #: The package's modules the computed name can be that were not read (more than
    #: MEMBER_LIMIT): DP073 names them at the call.
    unread: tuple[str, ...] = ()
    #: The values the computed part of the name can take, where the module bounds them
    #: (static_strings.bounded_values: argparse's `choices=`, a dict of names).
    names: tuple[str, ...] = ()
    #: The shape of the name under `prefix` where it is more than `<name><suffix>` (a
    #: dotted part more, or an end no identifier ends with: `'models.' + a + '.' + a +
    #: '-train'` -> (None, '.', None, '-train')): the package's files of that shape.
    shape: tuple[str | None, ...] = ()

    @property
    def opaque(self) -> bool:
        return self.name is None and self.prefix is None

    def where(self) -> str:
        return f"{self.path}:{self.line}"


@dataclass(frozen=True)
class FoundCalls:
    """The import calls of a module's tree, before its name is known: each call (the
    call as written, the call with a local variable's value put in for its first argument,
    its code, whether a relative name is allowed) and the module's constants. A file
    reached under several names (torch's, five on average) is parsed and walked once."""

    calls: tuple[tuple[ast.Call, ast.Call, str, bool], ...]
    constants: dict[str, str]
    #: The calls of a helper function that imports by its parameter (`import_class(...)`,
    #: see _helpers): id of the call -> the helper's name.
    via_helper: dict[int, str] = field(default_factory=dict)
    #: id of the call -> the values its name's one computed part can take (bounded_values).
    bounds: dict[int, tuple[str, ...]] = field(default_factory=dict)


def found_calls(tree: ast.Module) -> FoundCalls | None:
    """The import calls of a module's tree (see FoundCalls); None when it has none.

    One walk finds the calls that may import (`__import__(...)`, a name called with
    arguments, `X.import_module(...)`) and the import statements; the module's constants
    and the functions' local values are computed only when such a call needs them (torch
    has 150 files that mention import_module, mostly in comments or other objects'
    methods, and computing both for every function of a 5,000-line file was quadratic in
    its nesting)."""
    candidates: list[ast.Call] = []
    imports: list[ast.Import | ast.ImportFrom] = []
    for node in walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            if node.args and (
                isinstance(func, ast.Name)
                or (
                    isinstance(func, ast.Attribute)
                    and func.attr == "import_module"
                    and isinstance(func.value, ast.Name)
                )
            ):
                candidates.append(node)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            imports.append(node)
    if not candidates:
        return None
    importlib_names, import_module_names = _bindings(imports)
    calls: list[tuple[ast.Call, bool]] = []
    local: dict[int, dict[str, ast.expr]] | None = None
    for node in candidates:
        func = node.func
        if isinstance(func, ast.Name) and func.id in import_module_names:
            calls.append((node, True))
        elif isinstance(func, ast.Attribute):
            assert isinstance(func.value, ast.Name)
            if func.value.id in importlib_names:
                calls.append((node, True))
        elif isinstance(func, ast.Name) and func.id == "__import__":
            calls.append((node, False))
        elif isinstance(func, ast.Name) and func.id == "exec":
            statement = node.args[0]
            if isinstance(statement, ast.Name):  # `strCmd = "from " + ...; exec(strCmd)`
                local = local_values(tree) if local is None else local
                statement = local.get(id(node), {}).get(statement.id, statement)
            if _imports_in(statement):
                calls.append((node, False))  # `exec("from " + package + " import " + name)`
    if not calls:
        return None
    constants = module_constants(tree)
    found: list[tuple[ast.Call, ast.Call, str, bool]] = []
    bounds: dict[int, tuple[str, ...]] = {}
    for node, relative_ok in calls:
        code = ast.unparse(node)
        call = node
        if isinstance(node.func, ast.Name) and node.func.id == "exec":  # an opaque name
            opaque = ast.Call(ast.Name("__import__"), [ast.Name("<exec>")], [])  # no module's
            found.append((node, opaque, code, False))
            continue
        argument = node.args[0]
        if isinstance(argument, ast.Name) and argument.id not in constants:
            # `filename = "models." + name + "_model"; import_module(filename)`
            if local is None:
                local = local_values(tree)
            value = local.get(id(node), {}).get(argument.id)
            if value is not None:
                call = ast.Call(node.func, [value, *node.args[1:]], node.keywords)
        found.append((node, call, code, relative_ok))
        parts = computed_parts(call.args[0], constants)
        values = bounded_values(parts[0], tree) if len(parts) == 1 else None
        if values and all(v.isidentifier() for v in values):  # each names a member
            bounds[id(node)] = values
    via_helper: dict[int, str] = {}
    by_parameter = [node for node, _ in calls if isinstance(node.args[0], ast.Name)]
    helpers = _helpers(tree, by_parameter) if by_parameter else {}
    if helpers:
        inner = {id(c) for _, imported, _, called in helpers.values() if called for c in imported}
        found = [item for item in found if id(item[0]) not in inner]
        for name, (_, imported, _, called) in helpers.items():
            if not called:  # imported by other modules: its own call is the site, opaque
                via_helper.update((id(c), name) for c in imported)
        for node in candidates:
            func = node.func
            if not isinstance(func, ast.Name) or func.id not in helpers or not helpers[func.id][3]:
                continue
            _, _, parent, _ = helpers[func.id]
            argument = node.args[0]
            if parent:  # the helper imports the module its argument's last part is in
                argument = _parent_of(argument)
            call = ast.Call(ast.Name("__import__", ast.Load()), [argument], [])
            found.append((node, call, ast.unparse(node), False))
            via_helper[id(node)] = func.id
    return FoundCalls(tuple(found), constants, via_helper, bounds)


#: A text that may call exec() (the ast is parsed for its import calls only then).
_EXEC_CALL = re.compile(r"\bexec\s*\(")


def _imports_in(statement: ast.expr) -> bool:
    """`exec()`'s text is an import statement (pytorch_GAN_zoo's `loadmodule`, round 20)."""
    return any(
        isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and (node.value.lstrip().startswith("from ") or " import " in f" {node.value} ")
        for node in ast.walk(statement)
    )


def _parent_of(node: ast.expr) -> ast.expr:
    """`node.rpartition('.')[0]`: the dotted name without its last part."""
    split = ast.Call(ast.Attribute(node, "rpartition", ast.Load()), [ast.Constant(".")], [])
    return ast.Subscript(split, ast.Constant(0), ast.Load())


def _helpers(
    tree: ast.Module, calls: list[ast.Call]
) -> dict[str, tuple[ast.FunctionDef, list[ast.Call], bool, bool]]:
    """Module-level functions whose first parameter flows into an import call's name
    (yysijie/st-gcn's `import_class(name)`: `mod, _, cls = name.rpartition('.')`, then
    `__import__(mod)`): by name -> (the function, its import calls, whether they import
    the name's parent: `'processor.io.IO'` -> `processor.io`, whether the module calls it).
    Such a call with a literal (`import_class('processor.recognition.REC_Processor')`) is
    an import of that module like any other; with a name known only at run time it is the
    import call DP034/DP056 point at (the helper's own call says nothing of where). A
    helper only other modules call keeps its own import call as the site."""
    ids = {id(c) for c in calls}
    found: dict[str, tuple[ast.FunctionDef, list[ast.Call], bool, bool]] = {}
    for function in tree.body:
        if not isinstance(function, ast.FunctionDef) or not function.args.args:
            continue
        parameter = function.args.args[0].arg
        parent: set[str] = set()
        for node in ast_nodes.walk(function):
            if not isinstance(node, ast.Assign) or len(node.targets) != 1:
                continue
            target, value = node.targets[0], node.value
            if (
                isinstance(target, ast.Tuple)
                and target.elts
                and isinstance(target.elts[0], ast.Name)
                and _splits(value, parameter)
            ):
                parent.add(target.elts[0].id)  # mod, _, cls = name.rpartition('.')
            elif (
                isinstance(target, ast.Name)
                and isinstance(value, ast.Subscript)
                and isinstance(value.slice, ast.Constant)
                and value.slice.value == 0
                and _splits(value.value, parameter)
            ):
                parent.add(target.id)  # mod = name.rpartition('.')[0]
        imported: list[ast.Call] = []
        kinds: set[bool] = set()
        for node in ast_nodes.walk(function):
            if isinstance(node, ast.Call) and id(node) in ids:
                argument = node.args[0]
                if isinstance(argument, ast.Name) and argument.id == parameter:
                    imported.append(node)
                    kinds.add(False)
                elif isinstance(argument, ast.Name) and argument.id in parent:
                    imported.append(node)
                    kinds.add(True)
        if imported and len(kinds) == 1:
            found[function.name] = (function, imported, kinds.pop(), False)
    if not found:
        return found
    called = {
        node.func.id
        for node in walk(tree)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.args
    }
    return {name: (*value[:3], name in called) for name, value in found.items()}


def _splits(node: ast.expr, parameter: str) -> bool:
    """`parameter.rpartition('.')` or `parameter.rsplit('.', 1)`."""
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in ("rpartition", "rsplit")
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id == parameter
        and bool(node.args)
        and isinstance(node.args[0], ast.Constant)
        and node.args[0].value == "."
    )


def call_sites(
    found: FoundCalls | None, module: str, is_package: bool, path: str
) -> list[DynamicSite]:
    """The import calls `found` in the module named `module`, at `path`, in source order."""
    if found is None:
        return []
    package = module if is_package else module.rpartition(".")[0]
    # A package's `__init__` runs only imported: its `__name__` is the package's name
    # (`import_module(f"{__name__}.{info.name}")` over `pkgutil.iter_modules(__path__)`,
    # the registry a `getattr(models, name)` picks from: stop 47)
    constants = {**found.constants, "__name__": module} if is_package else found.constants
    sites: list[DynamicSite] = []
    for node, call, code, relative_ok in found.calls:
        name, prefix = dotted_name_of(call, constants, package, module, relative_ok)
        helper = found.via_helper.get(id(node))
        suffix = trailing_text(call.args[0], constants) if prefix is not None else ""
        shape: tuple[str | None, ...] = ()
        if prefix is not None and not suffix.isidentifier():
            shape = name_shape(name_pieces(call.args[0], constants), prefix)
        if not suffix.isidentifier():  # `_model` names modules; `.train` or '' does not
            suffix = ""
        names = found.bounds.get(id(node), ()) if prefix is not None else ()
        sites.append(
            DynamicSite(
                path,
                node.lineno,
                node.col_offset + 1,
                code,
                name,
                prefix,
                helper,
                suffix=suffix,
                names=names,
                shape=shape,
            )
        )
    sites.sort(key=lambda s: (s.line, s.col))
    return sites


def dotted_constants(tree: ast.Module) -> Iterator[str]:
    """String constants shaped like dotted names (`'data.MPII.dp'`), in `ast.walk`'s order
    (every file of a project is walked for them once, when it is read)."""
    for node in walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            if len(node.value) < 200 and _DOTTED.fullmatch(node.value):
                yield node.value


def foreign_string_calls(tree: ast.Module) -> tuple[tuple[str, str], ...]:
    """(module, literal) for each call of a name an absolute import binds whose first
    argument is a dotted string literal: `import_class('processor.recognition.Trainer')`
    after `from torchlight import import_class` (yysijie/st-gcn@221c0e1 with torchlight
    installed from PyPI rather than from the repository), `hydra.utils.get_class('...')`.
    A library's helper that imports by a dotted name is invisible to discovery; the
    literal is what names the project module it imports (DynamicImports.follow)."""
    bound: dict[str, str] = {}
    calls: list[ast.Call] = []
    for node in walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            for alias in node.names:
                bound[alias.asname or alias.name] = node.module
        elif isinstance(node, ast.Import):
            bound.update(import_binding(alias) for alias in node.names)
        elif isinstance(node, ast.Call) and node.args:
            calls.append(node)
    found: list[tuple[str, str]] = []
    for call in calls:
        argument = call.args[0]
        if not (
            isinstance(argument, ast.Constant)
            and isinstance(argument.value, str)
            and _DOTTED.fullmatch(argument.value)
        ):
            continue
        func = call.func
        while isinstance(func, ast.Attribute):
            func = func.value
        if isinstance(func, ast.Name) and func.id in bound:
            found.append((bound[func.id], argument.value))
    return tuple(found)


def package_members(folder: str) -> Iterator[str]:
    """The .py files under a package folder (sorted, skipping folders dp2ddp never walks)
    that wrap with DataParallel or build a DataLoader: what a computed name under that
    package may import that a data-parallel program must migrate."""
    seen = 0
    for current, dirs, files in os.walk(folder):
        seen += len(dirs) + len(files)
        if seen > SCAN_LIMIT:
            return
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS and not d.startswith("."))
        for name in sorted(files):
            if name.endswith(".py"):
                path = os.path.join(current, name)
                text = _read(path)
                if "DataLoader" in text or may_use_dataparallel(text):
                    yield path


def unreached_dataparallel(root: str, reached: set[str], *, migrated: bool = False) -> list[str]:
    """Files under `root` (real paths not in `reached`) that wrap with DataParallel, sorted:
    `migrate ENTRY` names each one its program leaves as it is (DP034). `migrated`: also
    those dp2ddp migrated (a DDP wrap and the generated helpers), so that `--check` finds a
    warning about them again (DP094)."""
    return [
        path
        for path, text in unreached_files(root, reached)
        if "DataParallel" in text
        and (
            may_use_dataparallel(text)
            or (migrated and "DistributedDataParallel" in text and GENERATED_MODULE in text)
        )
    ]


def unreached_files(root: str, reached: set[str]) -> Iterator[tuple[str, str]]:
    """(path, text) of the .py files under `root` whose real paths are not in `reached`
    (sorted, skipping folders dp2ddp never walks and the generated helpers)."""
    seen = 0
    for current, dirs, files in os.walk(root):
        seen += len(dirs) + len(files)
        if seen > SCAN_LIMIT:
            break
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS and not d.startswith("."))
        for name in sorted(files):
            if not name.endswith(".py") or name == f"{GENERATED_MODULE}.py":
                continue
            path = os.path.join(current, name)
            if os.path.realpath(path) not in reached:
                yield path, _read(path)


def _named_members(folder: str, suffix: str, names: tuple[str, ...] = ()) -> list[str]:
    """The modules `<name><suffix>.py` and packages `<name><suffix>/__init__.py` directly in
    `folder` (sorted): what `'<package>.' + name + suffix` can import; only those of `names`
    where they are given."""
    try:
        entries = sorted(os.listdir(folder))
    except OSError:
        return []
    found: list[str] = []
    for entry in entries:
        path = os.path.join(folder, entry)
        stem = entry[: -len(".py")] if entry.endswith(".py") else entry
        if not stem.isidentifier() or stem == "__init__" or not stem.endswith(suffix):
            continue
        if names and stem not in {n + suffix for n in names}:
            continue
        if entry.endswith(".py") and os.path.isfile(path):
            found.append(path)
        elif entry not in SKIPPED_DIRS and os.path.isfile(os.path.join(path, "__init__.py")):
            found.append(os.path.join(path, "__init__.py"))
    return found


def _read(path: str) -> str:
    try:
        with open(path, "rb") as handle:
            return handle.read().decode("utf-8", "replace")
    except OSError:
        return ""


@dataclass
class DynamicImports:
    """What discovery follows through import calls, module by module (see the docstring).

    `follow(module)` returns the (file, module name) pairs to add for one module, as
    Resolver.imports does for import statements; `sites` keeps the calls it could not
    resolve, for DP034."""

    resolver: Resolver
    sites: list[DynamicSite] = field(default_factory=list)
    #: Dotted constants seen so far, kept until some module imports by an opaque name.
    _constants: list[str] = field(default_factory=list)
    _opaque: bool = False
    #: Dotted constants already looked at (a large program holds thousands of dotted
    #: strings: `'blocks.0.attn'`...).
    _looked: set[str] = field(default_factory=set)
    #: What is the same for every program of a project (ImportGraph shares one).
    memo: DynamicMemo = field(default_factory=lambda: DynamicMemo())
    #: What the program's configuration names at an opaque call, by (real path, line,
    #: column): imported there as a static name is (config_names.py).
    configured: dict[tuple[str, int, int], list[tuple[str, str]]] = field(default_factory=dict)

    def _scan(self, module: ProgramModule) -> tuple[tuple[DynamicSite, ...], tuple[str, ...]]:
        key = (module.real, module.name, module.is_package)
        found = self.memo.scans.get(key)
        if found is None:
            text = module.source.text
            # An import call names import_module or __import__ (`mentions`). The ast is
            # parsed again only then, once a file, and dropped (not module.tree, which is
            # kept: a large project's trees take far more memory than its text); the
            # dotted constants were taken when the file was read.
            calls: tuple[DynamicSite, ...] = ()
            if mentions(text, "import_module", "__import__") or _EXEC_CALL.search(text):
                if module.real not in self.memo.calls:
                    self.memo.calls[module.real] = found_calls(ast.parse(text))
                found_here = self.memo.calls[module.real]
                calls = tuple(call_sites(found_here, module.name, module.is_package, module.path))
            found = self.memo.scans[key] = (calls, module.dotted)
        calls, dotted = found
        if calls and calls[0].path != module.path:  # the same file shown another way
            calls = tuple(replace(site, path=module.path) for site in calls)
        return calls, dotted

    def follow(self, module: ProgramModule) -> list[tuple[str, str]]:
        found: list[tuple[str, str]] = []
        calls, dotted_strings = self._scan(module)
        for site in calls:
            if site.name is not None:
                found += self.resolver.absolute(site.name)
            elif site.prefix is not None:
                members = self._members(site.prefix, site.suffix, site.names, site.shape)
                if members is None:
                    continue  # a package outside the project (torchvision.models...)
                found += members[0]
                if members[1]:
                    self.sites.append(replace(site, unread=members[1]))
            else:
                given = self.configured.get((module.real, site.line, site.col), [])
                found += given
                self._opaque = True
                self.sites.append(replace(site, configured=tuple(n for _, n in given)))
        for dotted in dotted_strings:
            if dotted not in self._looked:
                self._looked.add(dotted)
                self._constants.append(dotted)
        if self._opaque:
            for dotted in self._constants:
                found += self.named(dotted)
            self._constants = []
        if dotted_strings:
            found += self._foreign(module, dotted_strings)
        return found

    def _foreign(self, module: ProgramModule, dotted: tuple[str, ...]) -> list[tuple[str, str]]:
        """The project modules whose classes or functions the dotted literals of `module`
        name (`'tasks.classify.Trainer'`) when a function from outside the project is
        called with them (foreign_string_calls): imports by a name that no import call of
        the project shows. The module is parsed again only when one of its dotted strings
        names a project module's top-level name."""
        # `module.Name` only (a class or function the module defines): a module's own
        # name is what `logging.getLogger('tasks.classify')` is called with too.
        named = {
            d: modules
            for d in dict.fromkeys(dotted)
            if (modules := self.named(d)) and modules[-1][1] != d
        }
        if not named:
            return []
        calls = self.memo.foreign.get(module.real)
        if calls is None:
            calls = self.memo.foreign[module.real] = foreign_string_calls(module.passing_tree())
        found: list[tuple[str, str]] = []
        for source, literal in calls:
            if literal in named and not self._absolute(source):
                found += named[literal]
        return found

    def _members(
        self,
        prefix: str,
        suffix: str = "",
        names: tuple[str, ...] = (),
        shape: tuple[str | None, ...] = (),
    ) -> tuple[list[tuple[str, str]], tuple[str, ...]] | None:
        """The package `prefix`'s modules that a data-parallel program migrates, and each
        module a computed name under it can be (`'models.' + name + suffix`: the package's
        modules and subpackages whose names end with `suffix`, any name when there is no
        static end): the call imports one of them, and what it does with its batch, its
        draws, its prints and files is part of the program (junyanz/BicycleGAN's model
        module compares its batch with the global batch size, and wraps nothing). Returns
        (what to read, the members left unread: more than MEMBER_LIMIT of them); None when
        `prefix` is no package of the project."""
        for base in self.resolver.search:
            folder = os.path.join(base, *prefix.split("."))
            if not os.path.isdir(folder) or not self.resolver.inside(folder + os.sep + "x"):
                continue
            wanted = self._package_members(folder)
            named = _named_members(folder, suffix, names)
            shaped = shaped_members(folder, shape) if shape and not names else []
            named += [p for p in shaped if p not in named]
            unread: tuple[str, ...] = ()
            if len(named) > MEMBER_LIMIT and not names:
                unread = tuple(p for p in named if p not in wanted)
                named = []
            found: list[tuple[str, str]] = []
            for path in dict.fromkeys([*wanted, *named]):
                parts = os.path.relpath(path, folder)[: -len(".py")].split(os.sep)
                if parts[-1] == "__init__":
                    parts = parts[:-1]
                if all(p.isidentifier() or path in shaped for p in parts):
                    found += self.resolver.absolute(".".join([prefix, *parts]))
            return found, unread
        return None

    def _package_members(self, folder: str) -> list[str]:
        """package_members(folder), once a project: torch's programs ask for the same
        package folders hundreds of times (1,890 walks reading every file below them)."""
        found = self.memo.members.get(folder)
        if found is None:
            found = self.memo.members[folder] = list(package_members(folder))
        return found

    def named(self, dotted: str) -> list[tuple[str, str]]:
        """The project module a dotted string names: `a.b` itself, or `a` when the string
        is `a.Name` and module `a` defines Name at its top level."""
        parts = dotted.split(".")
        for count in range(len(parts), 0, -1):
            name = ".".join(parts[:count])
            found = self._absolute(name)
            if not found or found[-1][1] != name:
                continue
            if count == len(parts):
                return found
            if count == len(parts) - 1 and parts[-1] in self._defined(found[-1][0]):
                return found
            return []
        return []

    def _absolute(self, name: str) -> list[tuple[str, str]]:
        key = (id(self.resolver), name)
        found = self.memo.resolved.get(key)
        if found is None:
            found = self.memo.resolved[key] = self.resolver.absolute(name)
        return found

    def _defined(self, path: str) -> set[str]:
        names = self.memo.defined.get(path)
        if names is None:
            names = self.memo.defined[path] = _defined(path)
        return names


@dataclass
class DynamicMemo:
    """What DynamicImports learns that holds for every program of a project: each module's
    import calls and dotted constants, by (real path, import name, is a package); what a
    dotted name resolves to, by (resolver, name): resolvers live as long as the project's
    ImportGraph, which keeps them; the top-level names of a file, and the members of a
    package folder, by path."""

    scans: dict[tuple[str, str, bool], tuple[tuple[DynamicSite, ...], tuple[str, ...]]] = field(
        default_factory=dict
    )
    resolved: dict[tuple[int, str], list[tuple[str, str]]] = field(default_factory=dict)
    defined: dict[str, set[str]] = field(default_factory=dict)
    #: package_members of a folder, by its path.
    members: dict[str, list[str]] = field(default_factory=dict)
    #: The import calls found in a file's tree, by its real path (any name it has).
    calls: dict[str, FoundCalls | None] = field(default_factory=dict)
    #: foreign_string_calls of a file's tree, by its real path.
    foreign: dict[str, tuple[tuple[str, str], ...]] = field(default_factory=dict)
    #: The configuration documents under a root, by its path (config_names.py).
    configs: dict[str, tuple[object, ...]] = field(default_factory=dict)


def _defined(path: str) -> set[str]:
    try:
        return top_level_names(ast.parse(_read(path)))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return set()


# -- static evaluation --------------------------------------------------------------------
def _bindings(imports: list[ast.Import | ast.ImportFrom]) -> tuple[set[str], set[str]]:
    """Names the import statements bind to the importlib module and to
    importlib.import_module, anywhere in the module."""
    modules: set[str] = set()
    functions: set[str] = set()
    for node in imports:
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == "importlib":
                    modules.add(alias.asname or "importlib")
        elif node.module == "importlib" and not node.level:
            for alias in node.names:
                if alias.name == "import_module":
                    functions.add(alias.asname or "import_module")
    return modules, functions
