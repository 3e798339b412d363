"""What a program's modules say about its functions: which are pure, which are unused.

Pure: safe to skip on ranks other than 0. A print guarded with `if ddp_is_main():` no
longer evaluates its arguments on the other ranks, so an argument calling a function that
may do work every rank needs (a forward pass, an all_reduce, a scheduler step, a random
draw) keeps the print on every rank (see side_effects.py). Project helpers are the common
case that is harmless: a learning-rate formula or an `h:m:s` split in a config module,
printed each epoch (`print('LR=%.4f' % cf.learning_rate(args.lr, epoch))`,
meliketoy/wide-resnet.pytorch@292b3ed).
Unknown, they kept that print on every rank.

A function is pure here when its body only binds local names (no attribute or subscript
stores, no global/nonlocal, no yield/await, no with, no nested def or class) and every call
in it is a pure builtin or library function (side_effects.pure_name), a reading method
(side_effects.pure_method) on a value that is not a module, or another pure project
function. Found with `ast` over every module of the program (cheap: discovery parsed them);
names are qualified as the rank-0 pass qualifies call targets: "config.learning_rate" for
a function of module `config`, and plain "get_hms" for the module being migrated. Methods a
top-level class defines itself (undecorated or static) are judged the same way, as
"module.Class.method"; a package's `from .x import C` makes "package.C.method" name it too
(re-exports), and the rank-0 pass gives `x.method` that name where every binding of `x` in
its function is `x = C(...)` (facts.instance_methods).

Unused: a top-level function of a library module no module of the program refers to
(kuangliu/pytorch-cifar@49b7aa9's demo `test()` in 18 model files: guarding its print edited
18 files for nothing). Referred to: imported by name, read as an attribute (`cf.f`), or as
a plain name in a module not binding it (a star import); its own module's references
outside its body, and a decoration, count too. Erring towards "used": a guard too many.
"""

from __future__ import annotations

import ast
import copy
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from dp2ddp.facts import ProgramHints
from dp2ddp.transforms._support import ast_nodes
from dp2ddp.transforms._support.ast_nodes import dotted, import_table, resolved_name
from dp2ddp.transforms._support.identifiers import mentions
from dp2ddp.transforms.analysis.batch_dims import scatter_dims
from dp2ddp.transforms.analysis.constructions import constructed, program_constructions
from dp2ddp.transforms.analysis.device_methods import own_device_classes, program_device_classes
from dp2ddp.transforms.analysis.device_moves import device_moves, program_moves
from dp2ddp.transforms.analysis.handed_wraps import handed_to, wrap_handoffs
from dp2ddp.transforms.analysis.home_classes import home_classes
from dp2ddp.transforms.analysis.inherited_wraps import wrapping_attributes
from dp2ddp.transforms.analysis.loader_builds import loader_calls, shards_loaders
from dp2ddp.transforms.analysis.object_returns import keeping_methods, object_functions
from dp2ddp.transforms.analysis.per_rank import batch_fetchers, per_rank_returns
from dp2ddp.transforms.analysis.printing import Printing, printer_names, printing_functions
from dp2ddp.transforms.analysis.sample_classes import SampleSummary, program_samples, sample_summary
from dp2ddp.transforms.analysis.seeded_streams import per_rank_classes
from dp2ddp.transforms.analysis.strided_buffers import registers_strided_buffer
from dp2ddp.transforms.rank_zero.file_calls import file_calls
from dp2ddp.transforms.rank_zero.handed_streams import program_streams, stream_writers
from dp2ddp.transforms.rank_zero.own_classes import class_methods
from dp2ddp.transforms.rank_zero.path_chains import chained
from dp2ddp.transforms.rank_zero.path_sinks import (
    attribute_flows,
    named_through,
    path_attributes,
    path_parameters,
    read_attributes,
)
from dp2ddp.transforms.rank_zero.reexported import (
    reexported_as,
    reexported_names,
    reexports_of,
)
from dp2ddp.transforms.rank_zero.saving_functions import saving_functions
from dp2ddp.transforms.rank_zero.script_modules import guard as _guard
from dp2ddp.transforms.rank_zero.script_modules import wraps_as_script
from dp2ddp.transforms.rank_zero.set_chains import program_set_returns
from dp2ddp.transforms.rank_zero.set_returns import set_returns
from dp2ddp.transforms.rank_zero.side_effects import (
    MUTATORS,
    PIL_IMAGES,
    fresh_containers,
    pure_method,
    pure_name,
)

if TYPE_CHECKING:  # discovery imports the migration pipeline, which imports this module
    from dp2ddp.program.discovery import Program

#: Statements and expressions that may change state outside the function's locals.
_IMPURE_NODES = (
    ast.Global,
    ast.Nonlocal,
    ast.Yield,
    ast.YieldFrom,
    ast.Await,
    ast.With,
    ast.AsyncWith,
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.ClassDef,
    ast.Lambda,
    ast.NamedExpr,
    ast.Import,
    ast.ImportFrom,
)


def program_hints(
    program: Program, summaries: dict[tuple[str, str, bool], ModuleNames] | None = None
) -> dict[str, ProgramHints]:
    """ProgramHints for each module of `program`, by its real path. The entry's (or an
    orphan's) functions are never "unused", nor is its `__main__` block: the program is
    what it runs. `summaries`: each module's one-pass summary, kept across programs (the
    project model shares it between the entries of a folder)."""
    summaries = {} if summaries is None else summaries
    modules = program.modules
    names = []
    for module in modules:
        key = (module.real, module.name, module.is_package)
        found = summaries.get(key)
        if found is None:
            found = ModuleNames.of(module.name, module.passing_tree(), module.is_package)
            summaries[key] = found
        names.append(found)
    pure = _pure_of(names, entry_methods=False)
    unused = _unused_of(names)
    home = home_classes([(n.classes, *_refers(i, n)) for i, n in enumerate(names)])
    logs = any(n.logs for n in names)
    printers = frozenset().union(*(n.printers for n in names)) | _qualified_printers(
        [m.name for m in modules], names
    )
    images = frozenset().union(*(n.images for n in names)) | _qualified_printers(
        [m.name for m in modules], names, "images"
    )
    keepers = frozenset().union(*(n.keepers for n in names))
    methods = frozenset(
        _through_reexports(
            class_methods(
                (m.name, m.source.text, [q for q, _ in n.methods])
                for m, n in zip(modules[1:], names[1:], strict=True)
            ),
            names,
        )
    )
    # Only a module whose text names DataParallel can call it (each such tree parsed once).
    wrapping = {
        i: m.passing_tree()
        for i, m in enumerate(modules)
        if mentions(m.source.text, "DataParallel")
    }
    dims = scatter_dims(wrapping.values())
    hints: dict[str, ProgramHints] = {}
    savers = _by_module([n.savers for n in names])
    loaders = _by_module([n.loaders for n in names])
    per_rank = _by_module([n.per_rank for n in names])
    forwards = [n.file_forwards for n in names]  # chains of the program's functions
    readers = _by_module(chained([n.file_readers for n in names], forwards))
    handers = _by_module(chained([n.file_handers for n in names], forwards))
    writers = _by_module(chained([n.file_writers for n in names], forwards))
    handed = _by_module([n.path_parameters for n in names])
    path_named = named_through(
        frozenset().union(*(n.path_attributes for n in names)),
        frozenset().union(*(n.attribute_flows for n in names)),
        frozenset().union(*(n.path_parameters for n in names)),
    )
    own_device = program_device_classes(n.own_device for n in names)
    moves = program_moves([n.device_moves for n in names])
    drawing = frozenset().union(*(n.per_rank_classes for n in names))
    # not the entry's (its loop asks its own module): one hint for the entries of a folder
    fetchers = frozenset().union(*(n.fetchers for n in names[1:]))
    batch_attributes = frozenset().union(*(n.batch_attributes for n in names))
    builds = shards_loaders(n.builds_loader for n in names)
    strided = any(n.strided_buffers for n in names)
    sets = frozenset(
        _through_reexports(set(program_set_returns(modules, [n.set_returns for n in names])), names)
    )
    streams = program_streams(modules, [n.stream_writers for n in names])
    samples = program_samples(n.samples for n in names)
    every = program_constructions(
        [
            (
                m.name,
                n.classes,
                mentions(m.source.text, "DataParallel", ".module"),
                n.as_entry.names,
            )
            for m, n in zip(modules, names, strict=True)
        ],
        lambda i: _tree_table(modules[i].name, modules[i].passing_tree(), modules[i].is_package),
        lambda targets: reexported_as(targets, [(n.reexports, n.bound) for n in names]),
    )
    # the wraps a module that names DataParallel hands another module's functions
    handoffs, reach = zip(
        *(
            wrap_handoffs(*_tree_table(m.name, wrapping[i], m.is_package))
            if i in wrapping
            else (frozenset[str](), frozenset[str]())
            for i, m in enumerate(modules)
        ),
        strict=True,
    )
    aliases = {a: f for n in names for a, f in n.reexports if not a.endswith(".*")}
    for index, module in enumerate(modules):
        built = constructed(module.name, every, {m.name for m in modules if m.name})
        wraps_to = handed_to(module.name, (h for i, h in enumerate(handoffs) if i != index))
        reached = handed_to(module.name, (h for i, h in enumerate(reach) if i != index), aliases)
        saved_by = savers(index)
        loaded_by = loaders(index)
        returns = per_rank(index)  # _by_module: empty where no module names one
        read_by = readers(index) | names[index].file_readers  # own too: round 32 GuidedMixup
        read_attrs = frozenset().union(
            *(n.read_attributes for i, n in enumerate(names) if i != index)
        )
        paths_of = handed(index)
        shared = ProgramHints(
            pure,
            logs=logs,
            scatter_dims=dims,
            saved_by=saved_by,
            loaded_by=loaded_by,
            printers=printers,
            per_rank_returns=returns,
            path_attributes=path_named,
            printing=names[index].printing,
            file_read_by=read_by,
            read_attributes=read_attrs,
            own_device=own_device,
            per_rank_classes=drawing,
            image_makers=images,
            keepers=keepers,
            class_methods=methods,
            file_written_by=writers(index),
            batch_fetchers=fetchers,
            loader_batch_attributes=batch_attributes,
            builds_loaders=builds,
            constructed=built,
            path_parameters=paths_of,
            wrap_parameters=wraps_to,
            wrap_reaches=reached,
            file_handed_by=handers(index),
            device_moves=moves,
            set_returns=sets,
            stream_parameters=streams.get(module.name, frozenset()),
            per_sample=samples,
            home_classes=home[index],
            strided_buffers=strided,
            wrapped_attributes=frozenset(
                entry for i, n in enumerate(names) if i != index for entry in n.wrapping
            ),
        )
        if not index:
            hints[module.real] = shared
            continue
        script = names[index].script  # a script of its own too: its block is an entry's
        hints[module.real] = replace(
            shared, unused=unused[index], imported=not script, script=script
        )
    return hints


def _tree_table(name: str, tree: ast.Module, is_package: bool) -> tuple[ast.Module, dict[str, str]]:
    return tree, import_table(tree, name, is_package)


def _qualified_printers(
    modules: list[str], names: list[ModuleNames], field: str = "printers"
) -> frozenset[str]:
    """The printing functions as another module's call through the module spells them
    (`log_utils.log_values(...)` after `import log_utils`; "utils.log_values" where package
    `utils` re-exports it, by name or by a star): a running figure handed to one is shown
    as by print (DP030), as it is through `from log_utils import log_values`."""
    # Not the entry's (modules[0]): no module calls them through it, and named in the
    # hints they would make each entry's hints differ, so that a library shared by the
    # entries of a folder were migrated once per entry (the monorepo benchmark: 4.6 -> 11 s).
    found = {
        f"{module}.{p}"
        for module, n in zip(modules[1:], names[1:], strict=True)
        if module
        for p in getattr(n, field)
    }
    return frozenset(_through_reexports(found, names))


def _through_reexports(found: set[str], modules: list[ModuleNames]) -> set[str]:
    """`found` and the names the packages' re-exports give its names (twice: a re-export of
    a re-export)."""
    for _ in range(2):
        for names in modules:
            found |= reexported_names(found, names.reexports, names.bound)
    return found


def _by_module(named: list[frozenset[str]]) -> Callable[[int], frozenset[str]]:
    """For module i: the names of the other modules (a function of i, linear in the
    program: torch's tree has programs of 1,700 modules)."""
    owners: dict[str, set[int]] = {}
    for index, names in enumerate(named):
        for name in names:
            owners.setdefault(name, set()).add(index)
    every = frozenset(owners)

    def others(index: int) -> frozenset[str]:
        if not named[index]:
            return every
        return frozenset(n for n, at in owners.items() if at - {index})

    return others


@dataclass(frozen=True)
class _Reads:
    """Names a module refers to: imported by name, read as an attribute or named by a
    string (`everywhere`), and read as plain names (`plain`)."""

    everywhere: frozenset[str]
    plain: frozenset[str]

    @property
    def names(self) -> frozenset[str]:
        return self.everywhere | self.plain

    @classmethod
    def of(cls, nodes: Iterable[ast.AST]) -> _Reads:
        everywhere: set[str] = set()
        plain: set[str] = set()
        for node in nodes:
            if isinstance(node, ast.Attribute):
                everywhere.add(node.attr)
            elif isinstance(node, ast.ImportFrom):
                everywhere.update(alias.name for alias in node.names)
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                everywhere.add(node.value)  # __all__, getattr(module, "name")
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                plain.add(node.id)
        return cls(frozenset(everywhere), frozenset(plain))


#: How a function's purity is decided, in the order its body is walked: False (an impure
#: statement or call), or a qualified name whose purity decides (a project function).
_Step = bool | str


@dataclass(frozen=True)
class ModuleNames:
    """What one walk of a module's ast tells the program hints (computed once a module).

    as_entry / as_library: the names it refers to when it is the program's entry (its
    `__main__` block runs) or a module the program imports (it does not); bound: names it
    binds at top level; candidates: its top-level functions (undecorated) that it does not
    read itself outside their own body; functions: for each of its top-level functions, by
    qualified name, the steps that decide whether it is pure; logs: it imports logging;
    script: its `__main__` block wraps a model (wraps_as_script): imported, it is still a
    script of its own, whose block runs when it is the script.
    savers, loaders: its functions and methods that save (load) a checkpoint
    (saving_functions).
    """

    as_entry: _Reads
    as_library: _Reads
    bound: frozenset[str]
    candidates: tuple[str, ...]
    functions: tuple[tuple[str, tuple[_Step, ...]], ...]
    logs: bool
    script: bool = False
    savers: frozenset[str] = frozenset()
    loaders: frozenset[str] = frozenset()
    #: (the name a `from .x import C` binds, as its importers spell it: "metrics.C"; the
    #: name it stands for: "metrics.stream_metrics.C"): a package's re-exports.
    reexports: tuple[tuple[str, str], ...] = ()
    #: The methods its top-level classes define, as `functions` (see _function_steps).
    methods: tuple[tuple[str, tuple[_Step, ...]], ...] = ()
    #: Its functions and its classes' methods that print or write a file (printing_functions).
    printers: frozenset[str] = frozenset()
    #: Top-level functions returning a value computed from a per-process read.
    per_rank: frozenset[str] = frozenset()
    #: Attribute names its paths made or written read (path_sinks.py).
    path_attributes: frozenset[str] = frozenset()
    #: Its own printing functions and methods, (class or "", name) (analysis/printing.py).
    printing: Printing = frozenset()
    #: Its top-level functions that read a file at a parameter (file_calls.file_calls).
    file_readers: frozenset[str] = frozenset()
    #: Its classes with a `cuda()` of their own (device_methods.py).
    own_device: frozenset[str] = frozenset()
    #: `Class:stream` of its classes keeping a random draw in an attribute (per_rank_classes).
    per_rank_classes: frozenset[str] = frozenset()
    #: Its functions returning a PIL image; its classes' methods keeping what they are
    #: given, "Class.method" (analysis/object_returns.py).
    images: frozenset[str] = frozenset()
    keepers: frozenset[str] = frozenset()
    #: Its top-level functions that write a file at a parameter (file_calls.file_calls).
    file_writers: frozenset[str] = frozenset()
    #: Its functions and methods returning a batch taken by `next()` (per_rank.py).
    fetchers: frozenset[str] = frozenset()
    #: Attribute names its DataLoaders take their batch_size from (`opt.batch_size`).
    batch_attributes: frozenset[str] = frozenset()
    #: The loader classes it calls, "-Name" its subclasses left whole (loader_calls).
    builds_loader: frozenset[str] = frozenset()
    #: Its top-level classes (analysis/constructions.py).
    classes: frozenset[str] = frozenset()
    #: Its functions' parameters that a path they make, write or read holds
    #: (path_sinks.path_parameters).
    path_parameters: frozenset[str] = frozenset()
    #: Its top-level functions handing a parameter to a library's function that may read
    #: a file there (file_calls.file_calls).
    file_handers: frozenset[str] = frozenset()
    #: Its top-level functions returning their first parameter moved, `-name` the others
    #: (device_moves.py).
    device_moves: frozenset[str] = frozenset()
    #: Its functions and methods returning a set of strings, "f" / "Class.f" (set_returns.py).
    set_returns: frozenset[str] = frozenset()
    #: Its top-level functions writing to a parameter (handed_streams.stream_writers).
    stream_writers: frozenset[str] = frozenset()
    #: Its top-level functions handing a parameter on to a function (file_calls.file_calls).
    file_forwards: frozenset[str] = frozenset()
    #: What it says of the program's Datasets and their transforms (sample_classes.py).
    samples: SampleSummary = SampleSummary()
    #: How it hands attribute values on (path_sinks.attribute_flows).
    attribute_flows: frozenset[str] = frozenset()
    strided_buffers: bool = False  #: it may register a strided view (strided_buffers.py)
    #: `Class.attr` of its classes storing a DataParallel wrap (analysis/inherited_wraps.py).
    wrapping: frozenset[str] = frozenset()
    read_attributes: frozenset[str] = frozenset()  #: path_sinks.read_attributes

    @classmethod
    def of(cls, name: str, tree: ast.Module, is_package: bool) -> ModuleNames:
        imported = _walk_imported(tree)
        as_library = _Reads.of(imported)
        guarded = any(_guard(s) for s in tree.body)
        as_entry = _Reads.of(ast_nodes.listed(tree)) if guarded else as_library
        script = guarded and wraps_as_script(tree)
        table = import_table(tree, name, is_package)

        def resolved(func: ast.expr) -> str:
            return resolved_name(func, table) or getattr(func, "id", "")

        reads, writes, hands, forwards = file_calls(tree, resolved)  # one walk (stop 52 w7)

        return cls(
            as_entry,
            as_library,
            frozenset(ast_nodes.top_level_names(tree, every_binding=True)),
            _unread_functions(tree, list(ast_nodes.listed(tree)) if script else imported),
            _function_steps(name, tree, is_package),
            _imports_logging(tree),
            script,
            saving_functions(tree, table),
            saving_functions(tree, table, "torch.load"),
            reexports_of(name, tree, is_package, table),
            _method_steps(name, tree, is_package),
            printer_names(tree, printing := printing_functions(tree, table)),
            per_rank_returns(tree, table),
            path_attributes(tree, resolved),
            printing,
            reads,
            own_device_classes(name, tree, table),
            per_rank_classes(tree),
            object_functions(tree, table, PIL_IMAGES),
            keeping_methods(tree, printing),
            writes,
            batch_fetchers(tree),
            *loader_calls(tree),
            frozenset(s.name for s in tree.body if isinstance(s, ast.ClassDef)),
            path_parameters(tree, resolved),
            hands,
            device_moves(tree),
            set_returns(tree),
            stream_writers(tree),
            forwards,
            sample_summary(name, tree, is_package),
            attribute_flows(tree),
            registers_strided_buffer(tree, imported),
            wrapping_attributes(tree, resolved),
            read_attributes(tree, resolved),
        )


def _unread_functions(tree: ast.Module, imported: list[ast.AST]) -> tuple[str, ...]:
    """Top-level undecorated functions whose name the module does not read outside their
    own body (one count of the module's reads, less each function's own)."""
    reads: dict[str, int] = {}
    for node in imported:
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            reads[node.id] = reads.get(node.id, 0) + 1
    found: list[str] = []
    for statement in tree.body:
        if not isinstance(statement, ast.FunctionDef) or statement.decorator_list:
            continue
        name = statement.name
        inside = sum(
            1
            for node in ast_nodes.walk(statement)
            if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load)
        )
        if reads.get(name, 0) - inside <= 0:
            found.append(name)
    return tuple(found)


def _refers(index: int, names: ModuleNames) -> tuple[frozenset[str], frozenset[str]]:
    """The names a module refers to (as the program runs it) and those it reads free."""
    reads = names.as_entry if index == 0 or names.script else names.as_library
    return reads.names, reads.plain - names.bound


def _unused_of(modules: list[ModuleNames]) -> list[frozenset[str]]:
    """For each module, its top-level functions no module refers to (modules[0] is the
    entry: its `__main__` block runs, the others' never do)."""
    everywhere: set[str] = set()
    free: dict[str, int] = {}  # in how many modules a name is read but not bound
    for index, names in enumerate(modules):
        reads = names.as_entry if index == 0 or names.script else names.as_library
        everywhere |= reads.everywhere
        for name in reads.plain - names.bound:
            free[name] = free.get(name, 0) + 1
    result: list[frozenset[str]] = []
    for index, names in enumerate(modules):
        reads = names.as_entry if index == 0 or names.script else names.as_library
        unused: set[str] = set()
        for name in names.candidates:
            if name in everywhere:
                continue
            own = 1 if name in reads.plain and name not in names.bound else 0
            if free.get(name, 0) - own > 0:
                continue  # read in another module that does not bind it (a star import)
            unused.add(name)
        result.append(frozenset(unused))
    return result


def unused_functions(trees: list[ast.Module]) -> list[frozenset[str]]:
    """For each module, its top-level functions no module refers to (see the docstring).
    trees[0] is the entry: its `__main__` block runs (the others' never do)."""
    return _unused_of([ModuleNames.of("", tree, False) for tree in trees])


def _imports_logging(tree: ast.Module) -> bool:
    for node in ast_nodes.listed(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            names = [node.module]
        else:
            continue
        if any(name == "logging" or name.startswith("logging.") for name in names):
            return True
    return False


def _walk_imported(tree: ast.Module) -> list[ast.AST]:
    """The module's nodes that run when it is imported: not its `__main__` block (the demo
    that calls `test()` when the file is run as a script)."""
    body = [s for s in tree.body if not _guard(s)]
    return list(ast_nodes.walk(ast.Module(body=body, type_ignores=[])))


def pure_functions(modules: Iterable[tuple[str, ast.Module, bool]]) -> frozenset[str]:
    """Qualified names of the pure module-level functions of `modules`.

    modules: (dotted module name, tree, is a package's __init__) for each module; the
    name "" stands for the module being migrated (its functions are named plainly)."""
    return _pure_of([ModuleNames.of(name, tree, is_package) for name, tree, is_package in modules])


def _function_steps(
    module: str, tree: ast.Module, is_package: bool
) -> tuple[tuple[str, tuple[_Step, ...]], ...]:
    """Each top-level function's qualified name and the steps deciding its purity."""
    table = import_table(tree, module, is_package)
    return tuple(
        (f"{module}.{statement.name}" if module else statement.name, _steps(statement, table))
        for statement in tree.body
        if isinstance(statement, ast.FunctionDef)
    )


def _method_steps(
    module: str, tree: ast.Module, is_package: bool
) -> tuple[tuple[str, tuple[_Step, ...]], ...]:
    """Each method a top-level class defines itself, undecorated or a staticmethod, as
    "module.Class.method", and the steps deciding its purity (VainF/DeepLabV3Plus-Pytorch's
    `StreamSegMetrics.to_str(results)`, printed each validation): `self` is a parameter
    like any other, so a method that only reads it and builds a value is pure; one that
    calls another method of `self` is not (`pure_method` knows reading methods of values,
    not the class's own)."""
    table = import_table(tree, module, is_package)
    prefix = f"{module}." if module else ""
    found: list[tuple[str, tuple[_Step, ...]]] = []
    for statement in tree.body:
        if isinstance(statement, ast.ClassDef):
            for method in statement.body:
                if not isinstance(method, ast.FunctionDef):
                    continue
                static = [d for d in method.decorator_list if _is_name(d, "staticmethod")]
                if len(static) != len(method.decorator_list):
                    continue  # a property, a classmethod, a registered method: unjudged
                plain = copy.copy(method)
                plain.decorator_list = []
                qualified = f"{prefix}{statement.name}.{method.name}"
                found.append((qualified, _steps(plain, table)))
    return tuple(found)


def _is_name(node: ast.expr, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name


def _pure_of(modules: list[ModuleNames], entry_methods: bool = True) -> frozenset[str]:
    """The pure functions of a program's modules: a function's steps in order, a project
    function's verdict found when first asked (a call back into a function being decided
    counts as impure: unproven). entry_methods=False: not the methods of modules[0], the
    entry (no other module calls them, and its own migration judges them itself; named in
    the program's hints, they would make each entry's hints differ, and a library shared
    by several entries be migrated once per entry)."""
    functions: dict[str, tuple[_Step, ...]] = {}
    for index, names in enumerate(modules):
        functions.update(names.functions)
        if index or entry_methods:
            functions.update(names.methods)
    verdicts: dict[str, bool] = {}

    def pure(qualified: str) -> bool:
        if qualified not in verdicts:
            verdicts[qualified] = False  # recursion: unproven, so impure
            verdicts[qualified] = all(
                pure_or_known(step) if isinstance(step, str) else step
                for step in functions[qualified]
            )
        return verdicts[qualified]

    def pure_or_known(qualified: str) -> bool:
        return pure(qualified) if qualified in functions else pure_name(qualified)

    return frozenset(_through_reexports({q for q in functions if pure(q)}, modules))


def _steps(function: ast.FunctionDef, table: dict[str, str]) -> tuple[_Step, ...]:
    """What decides whether `function` is pure, in the order its body is walked, up to the
    first impure node (False): the project functions it calls, by qualified name."""
    if function.decorator_list:
        return (False,)
    nodes = list(ast_nodes.walk(ast.Module(body=function.body, type_ignores=[])))
    local = {a.arg for a in ast_nodes.walk(function.args) if isinstance(a, ast.arg)}
    local |= {n.id for n in nodes if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}
    fresh = fresh_containers(
        nodes, {a.arg for a in ast_nodes.walk(function.args) if isinstance(a, ast.arg)}
    )
    steps: list[_Step] = []
    for node in nodes:
        if isinstance(node, _IMPURE_NODES):
            return (*steps, False)
        if isinstance(node, (ast.Attribute, ast.Subscript)) and not isinstance(node.ctx, ast.Load):
            if isinstance(node, ast.Subscript) and _names(node.value, fresh):
                continue  # `summary[k] = v` into the function's own dict
            return (*steps, False)  # a store into an object that may be shared (param_groups)
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Attribute) and func.attr in MUTATORS:
                if _names(func.value, fresh):
                    continue  # `parts.append(x)` on the function's own list
            step = _pure_target(node.func, table, local)
            if step is False:
                return (*steps, False)
            if step is not True:
                steps.append(step)
    return tuple(steps)


def _names(node: ast.expr, names: set[str]) -> bool:
    return isinstance(node, ast.Name) and node.id in names


def _pure_target(func: ast.expr, table: dict[str, str], local: set[str]) -> _Step:
    """True or False when the call's target decides; else the qualified name whose
    purity does (pure_name's or a project function's verdict)."""
    parts = dotted(func)
    if parts is not None and parts[0] not in local:
        head = table.get(parts[0])
        if head is not None:
            return ".".join([head, *parts[1:]])
        if len(parts) == 1:
            return pure_name(f"builtins.{parts[0]}")
    # A method on a value: a local, a parameter, a literal, the result of a call.
    return isinstance(func, ast.Attribute) and pure_method(func.attr)
