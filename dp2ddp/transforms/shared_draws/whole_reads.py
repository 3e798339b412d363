"""Where a sharded training loader is read and nothing trains (class G4, issue 28).

GAN_stability's `get_nsamples(loader, n)` gathers a fixed batch for its sample grids by
`next(iter(loader))` until it has n samples; other programs take the first batches of a
`for` loop and `break`. DataParallel's program read the global batches of the whole dataset
there. From the sharded loader each rank reads its own shard, and restarting it repeats the
same sampler epoch: the fixed batch holds each sample twice (`[17, 17, 35, 35, ...]`),
silently. The proof is what the reading code does (analysis/batch_noise.gathers_only), not
its shape; such a read becomes `ddp_whole_loader(loader, B)` in `with ddp_same_random():`.

The scope questions the shared_draws pass asks (the function or class of a node, whether a
size expression means the same at a place, the training loops around it) live here too.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

import libcst as cst
from libcst.codemod import CodemodContext

from dp2ddp.options import MigrateOptions
from dp2ddp.transforms._support import ast_nodes
from dp2ddp.transforms._support.ast_nodes import parse_python
from dp2ddp.transforms._support.base import MigrationState, MigrationTransform
from dp2ddp.transforms._support.nodes import (
    call_named,
    code_of,
    name_of,
    nodes_of,
    parsed_or_none,
    walk,
)
from dp2ddp.transforms.analysis.batch_noise import (
    GATHER_METHODS,
    UNSHARDED_LOADER,
    WHOLE_LOADER,
    BatchSizes,
    ends_with_break,
    gathers_only,
    iterated_argument,
    iterated_in,
    reads_only_samples,
)
from dp2ddp.transforms.analysis.fixed_fetch import fixed_fetches


class WholeReads(MigrationTransform):
    """Reads of a sharded loader that train nothing, read whole; the scope questions."""

    def __init__(self, context: CodemodContext, state: MigrationState) -> None:
        super().__init__(context, state)
        #: statement to wrap in `with ddp_same_random():` -> what it draws (for the record)
        self._wrap: dict[cst.CSTNode, str] = {}
        #: a sharded loader read where nothing trains (a fixed batch gathered from it) ->
        #: its global batch size: read whole (ddp_whole_loader)
        self._whole: dict[cst.CSTNode, str] = {}
        #: a constructor argument of a fetcher whose fixed sample batch is fetched whole
        #: (class S7, analysis/fixed_fetch.py): handed the unsharded loader
        self._unsharded: set[cst.Arg] = set()

    def _find_fixed_fetches(self, module: cst.Module) -> None:
        """A sample batch fetched once through an iterator object whose `__next__` is
        proved to draw from the loaders its constructor is handed (class S7,
        analysis/fixed_fetch.py): the constructor is handed the unsharded loaders
        (ddp_unsharded_loader) and the fetch runs in `with ddp_same_random():`, so the
        batch is the whole one DataParallel's program fetched, in rank 0's order (the
        original's). Where not proved the hazards pass says so (DP091)."""
        if "next(" not in (self.state.text or module.code):  # the pass's input text
            return
        told = dict(self.state.loaders.fetchers)
        for fetch in fixed_fetches(
            module, self.qualified_names, told, self.state.loaders.no_grad_functions
        ):
            if not fetch.loaders:
                continue
            self._unsharded.update(fetch.loaders)
            self._wrap[fetch.statement] = ""
            loaders = ", ".join(code_of(a.value) for a in fetch.loaders)
            self.record(
                fetch.call,
                f"next({fetch.source}) fetches a sample batch once from a {fetch.made} "
                f"object, whose __next__ draws from {loaders}: fetched from the unsharded "
                f"loader in rank 0's order, the whole batch the original fetched "
                f"({UNSHARDED_LOADER})",
            )
        if self._unsharded:
            self.state.helpers.update(
                {"unsharded_loader", "whole_loader", "same_random", "rank0_value"}
            )

    def leave_Arg(self, original_node: cst.Arg, updated_node: cst.Arg) -> cst.Arg:
        if original_node not in self._unsharded:
            return updated_node
        return updated_node.with_changes(
            value=call_named(UNSHARDED_LOADER, cst.Arg(updated_node.value))
        )

    def _find_whole_reads(self, module: cst.Module, sizes: BatchSizes) -> None:
        """A sharded loader read where nothing trains, to gather a fixed batch (class G4,
        GAN_stability's `get_nsamples`): the original read the global batches of the whole
        dataset there; from the sharded loader each rank reads its shard, and re-reading
        it (`next(iter(loader))` again) restarts the same sampler epoch, so the batch
        repeats samples. Proved by what the reading code does, not by its shape: a loop
        that only gathers (batch_noise.gathers_only: no model, no loss, no optimizer, no
        generator) and either stops with `break` (`for x, _ in loader: ...; break`) or
        restarts the loader (`iter(loader)` inside it); or a call of a module function
        that only reads samples from the loader it is given (reads_only_samples). Wherever
        they are (a debug batch fetched in the epoch loop too), what they read is what the
        original read there. The loader becomes `ddp_whole_loader(loader, B)` (the whole
        dataset in global batches) and the reading statement runs in `with
        ddp_same_random():` (every rank reads rank 0's order, the original's). Where the
        global batch size cannot be named at the read: DP050; also where a loop that does
        not visibly train restarts the loader for one batch (`next(iter(loader))`) and is
        not shown to only gather: each restart reads this rank's same first batch (the
        original's RandomSampler reshuffled at each)."""
        if not sizes.sharded:
            return
        readers = module_readers(module, self.qualified_names)
        elsewhere = self.state.facts.readers  # another module's (`utils.get_nsamples`)
        for node in nodes_of(module, (cst.Call, cst.For)):
            if isinstance(node, cst.Call):
                if isinstance(node.func, cst.Name) and node.func.value in readers:
                    self._reader_call(node, readers[node.func.value], sizes)
                    continue
                if elsewhere and isinstance(node.func, (cst.Name, cst.Attribute)):
                    names = self.qualified_names(node.func)
                    found = [elsewhere[n] for n in sorted(names) if n in elsewhere]
                    if found:
                        self._reader_call(node, found[0], sizes)
                        continue
                loader = iterated_argument(node)
                loop = self._enclosing_loop(node)
                if loader is not None and loop is not None:
                    if not self._whole_read(loader, loop, sizes) and self._restarts(node):
                        self._unproved_restart(loader, loop, sizes)
            elif isinstance(node, cst.For) and ends_with_break(node):
                self._whole_read(iterated_in(node), node, sizes)
        if self._whole:
            self.state.helpers.update({"whole_loader", "same_random", "rank0_value"})

    def _whole_read(
        self, loader: cst.BaseExpression, loop: cst.For | cst.While, sizes: BatchSizes
    ) -> bool:
        """`loader` read in `loop`: read whole where it is a sharded loader and the loop
        only gathers (_find_whole_reads). False where it is a sharded loader and the loop
        is not shown to only gather."""
        size = self._sharded_size(loader, sizes)
        if size is None or loader in self._whole:
            return True
        if not gathers_only(loop.body, self.qualified_names):
            return False
        self._read_whole(
            loader, size, loop, sizes, f"a loop that only gathers from {code_of(loader)}"
        )
        return True

    def _restarts(self, call: cst.Call) -> bool:
        """`iter(loader)` read once for one batch: `next(iter(loader))`."""
        owner = self.parent(call)
        if isinstance(owner, cst.Arg):
            owner = self.parent(owner)
        return isinstance(owner, cst.Call) and name_of(owner.func) == "next"

    def _unproved_restart(
        self, loader: cst.BaseExpression, loop: cst.For | cst.While, sizes: BatchSizes
    ) -> None:
        """DP050 at `next(iter(loader))` of a sharded loader in a loop that trains nothing
        visibly and is not shown to only gather."""
        if self.is_training(loop) or self.in_training_loop(loop):
            return
        size = self._sharded_size(loader, sizes)
        self.warn(
            loader,
            "DP050",
            f"next(iter({code_of(loader)})) restarts the loader in a loop dp2ddp cannot show "
            f"to only gather samples: each restart reads this rank's same share of a batch "
            f"of {size}, where the original reshuffled the whole dataset",
        )

    def is_training(self, loop: cst.For | cst.While) -> bool:
        """The loop trains (the pass answers: hazards' view of a training loop)."""
        raise NotImplementedError

    def in_training_loop(self, node: cst.CSTNode) -> bool:
        """Inside a loop that trains, within its function (the pass answers)."""
        raise NotImplementedError

    def _reader_call(self, call: cst.Call, params: dict[int, str], sizes: BatchSizes) -> None:
        """`get_nsamples(loader, 8)`: a function that only reads samples from what it is
        given, given a sharded loader outside the training loops."""
        if any(a.star for a in call.args):
            return
        for index, arg in enumerate(call.args):
            if arg.keyword is None and index not in params:
                continue
            if arg.keyword is not None and arg.keyword.value not in params.values():
                continue
            size = self._sharded_size(arg.value, sizes)
            if size is None or arg.value in self._whole:
                continue
            statement = self._statement_of(call)
            if statement is not None:
                what = f"{code_of(call.func)}() only reads samples from {code_of(arg.value)}"
                self._read_whole(arg.value, size, statement, sizes, what)

    def _read_whole(
        self,
        loader: cst.BaseExpression,
        size: str,
        statement: cst.CSTNode,
        sizes: BatchSizes,
        what: str,
    ) -> None:
        site = sizes.sites[code_of(loader)]
        if not self._visible((loader, size, site), loader):
            self.warn(
                loader,
                "DP050",
                f"{what}: it gathers this rank's shard of batches of {size}, which does not "
                "name the same value here",
            )
            return
        self._whole[loader] = size
        self._wrap[statement] = ""
        self.record(
            loader,
            f"{what} and trains nothing: it reads the whole dataset in global batches of "
            f"{size}, in rank 0's order, as the original read it (ddp_whole_loader)",
        )

    def _sharded_size(self, loader: cst.BaseExpression, sizes: BatchSizes) -> str | None:
        """The global batch size of the sharded loader `loader` names: its binding is one
        the data pass sharded, and `loader` reads that binding (a module-level loader
        read in a function that binds no name of its own for it; `self.loader` in a
        method of the class that builds it)."""
        if not isinstance(loader, (cst.Name, cst.Attribute)):
            return None
        key = code_of(loader)
        size = sizes.sharded.get(key)
        if size is None:
            return None
        used = self._function_of(loader)
        built = self._function_of(sizes.sites[key])
        if isinstance(loader, cst.Name) and used is not None and used is not built:
            if built is not None or _binds(used, loader.value):
                return None
        return size

    def _enclosing_loop(self, node: cst.CSTNode) -> cst.For | cst.While | None:
        """The innermost loop around `node` within its function."""
        current = self.parent(node)
        while current is not None and not isinstance(current, (cst.FunctionDef, cst.Lambda)):
            if isinstance(current, (cst.For, cst.While)):
                return current
            current = self.parent(current)
        return None

    def _statement_of(self, node: cst.CSTNode) -> cst.CSTNode | None:
        """The statement of a block (a function's, a loop's, the module's) `node` is in."""
        current: cst.CSTNode | None = node
        while current is not None:
            owner = self.parent(current)
            if isinstance(owner, (cst.IndentedBlock, cst.Module)):
                return current
            current = owner
        return None

    def leave_Name(self, original_node: cst.Name, updated_node: cst.Name) -> cst.BaseExpression:
        return self._whole_loader(original_node, updated_node)

    def leave_Attribute(
        self, original_node: cst.Attribute, updated_node: cst.Attribute
    ) -> cst.BaseExpression:
        return self._whole_loader(original_node, updated_node)

    def _whole_loader(
        self, original: cst.BaseExpression, updated: cst.BaseExpression
    ) -> cst.BaseExpression:
        size = self._whole.get(original)
        if size is None:
            return updated
        return call_named(WHOLE_LOADER, cst.Arg(updated), cst.Arg(cst.parse_expression(size)))

    def _visible(
        self, fixed: tuple[cst.BaseExpression, str, cst.Assign], call: cst.CSTNode
    ) -> bool:
        """The loader's size expression means the same at `call`: both in one function, the
        loader built at module level, or `self.` sizes in methods of one class."""
        _, size, site = fixed
        built, used = self._function_of(site), self._function_of(call)
        if built is used or built is None:
            return True
        if size.startswith("self.") and used is not None:
            return self._class_of(built) is self._class_of(used) is not None
        return False

    def _function_of(self, node: cst.CSTNode) -> cst.FunctionDef | None:
        current = self.parent(node)
        while current is not None and not isinstance(current, cst.FunctionDef):
            current = self.parent(current)
        return current

    def _class_of(self, function: cst.FunctionDef) -> cst.ClassDef | None:
        block = self.parent(function)
        owner = self.parent(block) if block is not None else None
        return owner if isinstance(owner, cst.ClassDef) else None

    def _in_loop(self, node: cst.CSTNode) -> bool:
        """Inside a loop or a comprehension of its function (run more than once)."""
        current = self.parent(node)
        while current is not None and not isinstance(current, (cst.FunctionDef, cst.Lambda)):
            if isinstance(current, (cst.For, cst.While, cst.CompFor)):
                return True
            current = self.parent(current)
        return False


def _binds(function: cst.FunctionDef, name: str) -> bool:
    """`function` binds `name` itself: a parameter, or a target of its own statements."""
    if any(p.name.value == name for p in _all_params(function.params)):
        return True
    for node in walk(function.body):
        if isinstance(node, (cst.AssignTarget, cst.AugAssign, cst.AnnAssign, cst.For)):
            target = node.target
            if name in {n.value for n in walk(target) if isinstance(n, cst.Name)}:
                return True
    return False


def _all_params(params: cst.Parameters) -> list[cst.Param]:
    found = [*params.posonly_params, *params.params, *params.kwonly_params]
    for star in (params.star_arg, params.star_kwarg):
        if isinstance(star, cst.Param):
            found.append(star)
    return found


def module_readers(
    module: cst.Module, qualified_names: Callable[[cst.CSTNode], set[str]]
) -> dict[str, dict[int, str]]:
    """The module's top-level functions that only read samples from a parameter
    (batch_noise.reads_only_samples), by name: position -> parameter name."""
    readers: dict[str, dict[int, str]] = {}
    for statement in module.body:
        if isinstance(statement, cst.FunctionDef):
            params = reads_only_samples(statement, qualified_names)
            if params:
                readers[statement.name.value] = params
    return readers


class _ReadReaders(MigrationTransform):
    """Reads a module of the program: which of its functions only read samples (changes
    nothing)."""

    NAME = "sample_readers"
    DESCRIPTION = "Find the module's functions that only read samples from a loader."

    def __init__(self, context: CodemodContext, state: MigrationState) -> None:
        super().__init__(context, state)
        self.found: dict[str, dict[int, str]] = {}

    def visit_Module(self, node: cst.Module) -> bool:
        self.found = module_readers(node, self.qualified_names)
        return False


def module_sample_readers(
    import_name: str, source: str, tree: Callable[[], ast.Module] | None = None
) -> dict[str, tuple[tuple[int, str], ...]]:
    """The functions of another module of the program that only read samples from a
    loader they are given (GAN_stability's `get_nsamples(loader, n)` in utils.py), by the
    qualified name an importer resolves (`utils.get_nsamples`), each with the parameters
    (position, name) it reads. The same proof as for the module's own (reads_only_samples:
    what the function does, not its name). A module that does not parse has none here (its
    own migration reports the error). `tree`: the module's `ast` tree where the caller
    has it (the project model's), else it is parsed here."""
    if "iter(" not in source and "for " not in source or not _may_read(source, tree):
        return {}
    module = parsed_or_none(source)
    if module is None:
        return {}
    reader = _ReadReaders(CodemodContext(), MigrationState(MigrateOptions()))
    reader.transform_module(module)
    return {
        f"{import_name}.{name}": tuple(sorted(params.items()))
        for name, params in reader.found.items()
    }


def _may_read(source: str, parsed: Callable[[], ast.Module] | None) -> bool:
    """Some undecorated top-level function may only read samples from a parameter, by
    Python's own parser (much cheaper than libcst's parse and metadata, so only such a
    module is read with them): it iterates the parameter (`iter(p)`, `for ... in p`, `for
    ... in enumerate(p)`), and every call in it may be one gathers_only accepts (a method
    of GATHER_METHODS, a GATHER_BUILTINS name or any other plain name, an attribute of a
    name the module imports from torch); no yield, lambda, nested def or class. A superset
    of what reads_only_samples finds: a training function (`opt.step()`) is not read."""
    try:
        tree = parsed() if parsed is not None else parse_python(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    torch_names = _torch_names(tree)
    for statement in tree.body:
        if not isinstance(statement, ast.FunctionDef) or statement.decorator_list:
            continue
        params = {a.arg for a in (*statement.args.posonlyargs, *statement.args.args)}
        params |= {a.arg for a in statement.args.kwonlyargs}
        iterated: set[str] = set()
        for node in ast_nodes.walk(statement):
            if node is not statement and isinstance(node, _NOT_GATHERING):
                iterated = set()
                break
            if isinstance(node, ast.Call) and not _may_gather(node.func, torch_names):
                iterated = set()
                break
            source_of = None
            if isinstance(node, ast.Call) and _named(node.func, "iter") and node.args:
                source_of = node.args[0]
            elif isinstance(node, ast.For):
                source_of = node.iter
                if isinstance(source_of, ast.Call) and _named(source_of.func, "enumerate"):
                    source_of = source_of.args[0] if source_of.args else None
            if isinstance(source_of, ast.Name):
                iterated.add(source_of.id)
        if iterated & params:
            return True
    return False


#: What gathers_only never accepts inside a reading function.
_NOT_GATHERING = (
    ast.Yield,
    ast.YieldFrom,
    ast.Lambda,
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.ClassDef,
)


def _may_gather(func: ast.expr, torch_names: set[str]) -> bool:
    """A call of `func` may be one gathers_only accepts (see _may_read)."""
    if isinstance(func, ast.Name):
        return True  # a builtin, or a name from torch (`from torch import cat`)
    if isinstance(func, ast.Attribute) and func.attr in GATHER_METHODS:
        return True
    root = func
    while isinstance(root, ast.Attribute):
        root = root.value
    return isinstance(root, ast.Name) and root.id in torch_names


def _torch_names(tree: ast.Module) -> set[str]:
    """Names the module's imports bind to torch or a torch module (`torch`, `nn` of `import
    torch.nn as nn` or `from torch import nn`, `F`)."""
    names: set[str] = set()
    for node in ast_nodes.listed(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "torch":
                    names.add(alias.asname or "torch")
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "torch":
            names.update(alias.asname or alias.name for alias in node.names)
    return names


def _named(func: ast.expr, name: str) -> bool:
    return isinstance(func, ast.Name) and func.id == name
