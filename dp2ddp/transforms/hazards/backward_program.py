"""DP026 over a module and across the program's modules (hazards/backward.py's finder).

Each module's functions and methods are read once into summaries (the finder's, see
hazards/backward.py) and kept in a portable form, facts.BackwardSummary: forwards and
backward calls as (line, code, model) sites of the module's path, the function's inputs as
negative numbers. The program model computes them once per module (program/told.py) and
hands every module the others' (ProgramFacts.backward_summaries); a call there that
resolves by qualified name to one (a function imported, a method of `v = C(...)` or
`self.v = C(...)` for another module's class C) applies it as a call of the module's own
function is applied: no body is read again, each module is read once for the program.
Not followed: a summary of one module through a call of a third module's function (each
module's summaries see its own functions only), inherited methods.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Collection
from functools import cached_property

import libcst as cst
from libcst.codemod import CodemodContext

from dp2ddp.facts import BackwardSummary
from dp2ddp.options import MigrateOptions
from dp2ddp.transforms._support import ast_nodes
from dp2ddp.transforms._support.ast_nodes import parse_python
from dp2ddp.transforms._support.base import MigrationState, MigrationTransform
from dp2ddp.transforms._support.names import DATAPARALLEL
from dp2ddp.transforms._support.nodes import code_of, nodes_of, wrap_target
from dp2ddp.transforms._support.qualified import told_matches
from dp2ddp.transforms.hazards.backward import SecondBackwards
from dp2ddp.transforms.hazards.backward_binding import takes_self
from dp2ddp.transforms.hazards.backward_state import (
    ForeignSite,
    Matches,
    SecondBackward,
    Site,
    _Summary,
)

QualifiedNames = Callable[[cst.CSTNode], set[str]]


def read_through_module(root: cst.CSTNode) -> set[str]:
    """What `.module` is read from (`model` of `model.module.optimizer_G`): a wrapper, by
    the DataParallel idiom, also where it was built in another module (create_model)."""
    return {
        code_of(node.value) for node in nodes_of(root, cst.Attribute) if node.attr.value == "module"
    }


def _registered(module: cst.Module, wrapped: set[str]) -> set[str]:
    """`self.n` for a wrapped model kept as a submodule under another name in a method:
    `self.add_module("n", d)`, `setattr(self, "n", d)`, `self.n = d` (edge-connect's
    `discriminator = nn.DataParallel(discriminator); self.add_module(...)`)."""
    names: set[str] = set()
    for node in nodes_of(module, (cst.Assign, cst.Call)):
        if isinstance(node, cst.Assign) and code_of(node.value) in wrapped:
            for target in node.targets:
                spelled = code_of(target.target)
                if spelled.startswith("self."):
                    names.add(spelled)
        if not isinstance(node, cst.Call):
            continue
        func, args = code_of(node.func), node.args
        if func == "self.add_module" and len(args) == 2:
            name, value = args
        elif func == "setattr" and len(args) == 3 and code_of(args[0].value) == "self":
            name, value = args[1], args[2]
        else:
            continue
        if isinstance(name.value, cst.SimpleString) and code_of(value.value) in wrapped:
            names.add("self." + str(name.value.evaluated_value))
    return names


class ProgramForeign:
    """The other modules' summaries (ProgramFacts.backward_summaries) as this module's
    calls name them: by qualified name, a relative one (`.models.InpaintingModel`, as
    `from .models import InpaintingModel` spells it) by the one program name ending so."""

    def __init__(
        self, summaries: tuple[tuple[str, BackwardSummary], ...], names: QualifiedNames
    ) -> None:
        self._table = dict(summaries)
        self._names = names

    @cached_property
    def _classes(self) -> frozenset[str]:
        return frozenset(k.rpartition(".")[0] for k, s in self._table.items() if s.method)

    @cached_property
    def _by_last(self) -> dict[str, list[str]]:
        """Keys and class names by their last part (a relative name's candidates)."""
        found: dict[str, list[str]] = {}
        for key in sorted({*self._table, *self._classes}):
            found.setdefault(key.rpartition(".")[2], []).append(key)
        return found

    def _find(self, names: set[str], known: Collection[str]) -> str | None:
        """The summary a call names (qualified.told_matches); of several relative matches
        none: a summary of another function would assert a backward it does not run."""
        found = told_matches(names, known, self._by_last)
        return found[0] if len(found) == 1 or (found and found[0] in names) else None

    def function(self, func: cst.BaseExpression) -> BackwardSummary | None:
        if not isinstance(func, (cst.Name, cst.Attribute)):
            return None
        key = self._find(self._names(func), self._table)
        found = self._table.get(key) if key is not None else None
        return found if found is not None and not found.method else None

    def cls(self, func: cst.BaseExpression) -> str | None:
        if not isinstance(func, (cst.Name, cst.Attribute)):
            return None
        return self._find(self._names(func), self._classes)

    def method(self, cls: str, name: str) -> BackwardSummary | None:
        return self._table.get(f"{cls}.{name}")


def _finder(
    module: cst.Module, matches: Matches, wrapped: set[str], foreign: ProgramForeign | None
) -> tuple[SecondBackwards, list[tuple[cst.FunctionDef, str | None]], dict[str, object]]:
    """The module's finder and its functions, callees first; the names of its top-level
    functions and methods by id (`f`, `C.m`)."""
    functions: dict[str, cst.FunctionDef] = {}
    classes: dict[str, dict[str, cst.FunctionDef]] = {}
    for statement in module.body:
        if isinstance(statement, cst.FunctionDef):
            functions[statement.name.value] = statement
        elif isinstance(statement, cst.ClassDef) and isinstance(statement.body, cst.IndentedBlock):
            classes[statement.name.value] = {
                s.name.value: s for s in statement.body.body if isinstance(s, cst.FunctionDef)
            }
    known = wrapped | read_through_module(module)
    finder = SecondBackwards(
        matches, known | _registered(module, known), functions, classes, foreign
    )
    owners = {id(f): cls for cls, methods in classes.items() for f in methods.values()}
    tops: dict[str, object] = {str(id(f)): name for name, f in functions.items()}
    for cls, methods in classes.items():
        tops.update({str(id(f)): f"{cls}.{name}" for name, f in methods.items()})
    defs = nodes_of(module, cst.FunctionDef)
    # callees first (a post-order without recursion): a call chain as deep as the module
    # is long reads each function once, never nested deeper than one call
    return finder, finder.callees_first([(f, owners.get(id(f))) for f in defs]), tops


def second_backwards(
    module: cst.Module,
    matches: Matches,
    wrapped: set[str],
    foreign: ProgramForeign | None = None,
) -> list[SecondBackward]:
    """DP026 sites of `module`: its top-level code and each function, each read once; a
    call of the module's own function (or, with `foreign`, another module's) applies that
    function's summary."""
    finder, order, _ = _finder(module, matches, wrapped, foreign)
    if not finder.wrapped and foreign is None:
        return []
    for function, cls in order:
        finder.run_function(function, cls)
    finder.run(module.body)
    return finder.found


def module_summaries(
    module: cst.Module,
    matches: Matches,
    wrapped: set[str],
    line_of: Callable[[cst.CSTNode], int],
    path: str,
) -> dict[str, BackwardSummary]:
    """The portable summaries of the module's top-level functions and its top-level
    classes' methods (`f`, `C.m`), those that forward, backward or carry a forward."""
    finder, order, tops = _finder(module, matches, wrapped, None)
    found: dict[str, BackwardSummary] = {}
    for function, cls in order:
        summary = finder.run_function(function, cls)
        name = tops.get(str(id(function)))
        if isinstance(name, str):
            portable = _portable(finder, summary, function, cls, line_of, path)
            if portable is not None:
                found[name] = portable
    return found


def _portable(
    finder: SecondBackwards,
    summary: _Summary,
    function: cst.FunctionDef,
    cls: str | None,
    line_of: Callable[[cst.CSTNode], int],
    path: str,
) -> BackwardSummary | None:
    """`summary` with its forwards and backward calls as sites of `path`; None where a
    call of it does nothing DP026 counts (no forward, no backward, no forward carried)."""
    carried = summary.returns.union(*summary.attributes.values())
    if not summary.forwards and not summary.input_backwards and all(f < 0 for f in carried):
        return None
    sites: list[tuple[int, str, str]] = []
    index: dict[int, int] = {p: p for p in summary.inputs}

    def site(node: Site, model: str) -> int:
        if isinstance(node, ForeignSite):
            sites.append((node.line, node.text, model))
        else:
            sites.append((line_of(node), code_of(node.func), model))
        return len(sites) - 1

    made = {f for _, first, latest in summary.forwards.values() for f in (first, latest)}
    made |= carried.union(*summary.items or (), *(c for c, _ in summary.input_backwards))
    made |= {*summary.backwards}
    for forward in sorted((f for f in made - {*index} if f >= 0), key=finder.read_order):
        node, model = finder.forward_site(forward)  # in the order they were read
        index[forward] = site(node, model)

    def one(forward: int) -> int:
        if forward not in index:
            node, model = finder.forward_site(forward)
            index[forward] = site(node, model)
        return index[forward]

    def of(forwards: frozenset[int]) -> tuple[int, ...]:  # (an input of another: none)
        return tuple(sorted(one(f) for f in forwards if f >= 0 or f in index))

    forwards = tuple(
        (model, count, one(first), one(latest))
        for model, (count, first, latest) in summary.forwards.items()
    )
    input_backwards = tuple(
        (of(carried), site(node, "")) for carried, node in summary.input_backwards
    )
    returns = of(summary.returns)
    items = tuple(of(i) for i in summary.items) if summary.items is not None else None
    attributes = tuple((name, of(c)) for name, c in sorted(summary.attributes.items()))
    backwards = tuple(sorted((one(f), n) for f, n in summary.backwards.items()))
    params = function.params
    positional = [p.name.value for p in (*params.posonly_params, *params.params)]
    method = takes_self(function, cls)
    return BackwardSummary(
        path=path,
        params=tuple(positional[1:] if method else positional),
        method=method,
        sites=tuple(sites),
        inputs=tuple(sorted(summary.inputs.items())),
        forwards=forwards,
        input_backwards=input_backwards,
        returns=returns,
        items=items,
        attributes=attributes,
        backwards=backwards,
    )


class _ExportSummaries(MigrationTransform):
    """Reads a module of the program: the portable summaries of its functions (changes
    nothing)."""

    NAME = "backward_summaries"
    DESCRIPTION = "Summarise the module's functions for DP026 across modules."

    def __init__(self, context: CodemodContext, state: MigrationState, path: str) -> None:
        super().__init__(context, state)
        self.path = path
        self.found: dict[str, BackwardSummary] = {}

    def visit_Module(self, node: cst.Module) -> bool:
        wrapped: set[str] = set()
        if "DataParallel" in self.state.text or not self.state.text:
            for call in nodes_of(node, cst.Call):
                if self.qualified_names(call.func) & DATAPARALLEL:
                    target = wrap_target(call, self)
                    if target is not None:
                        wrapped.add(target)
        self.found = module_summaries(
            node, self.matches, wrapped, lambda n: self._position(n)[0], self.path
        )
        return False


def module_backward_summaries(
    import_name: str,
    path: str,
    source: str,
    parsed: Callable[[], cst.Module | None] | None = None,
) -> dict[str, BackwardSummary]:
    """Another module's summaries, by the qualified name an importer resolves
    (`models.InpaintingModel.process`), located at `path`. Read only where the text can
    make a forward or a backward that counts (a torch module with functions); a module
    that does not parse has none here (its own migration reports the error)."""
    if "def " not in source or "torch" not in source:
        return {}
    if not any(word in source for word in ("backward", "DataParallel", ".module")):
        if not _calls_a_parameter(source):
            return {}
    try:
        module = parsed() if parsed is not None else cst.parse_module(source)
    except (cst.ParserSyntaxError, RecursionError):
        return {}
    if module is None:
        return {}
    state = MigrationState(MigrateOptions())
    state.text = source
    reader = _ExportSummaries(CodemodContext(filename=path), state, path)
    reader.transform_module(module)
    return {f"{import_name}.{name}": summary for name, summary in reader.found.items()}


def _calls_a_parameter(source: str) -> bool:
    """Some function calls one of its own parameters (`def loss_of(D, x): D(x)`: a
    forward of the model a caller passes), by Python's own parser (cheaper than libcst's
    metadata). Without a backward, a wrap or a `.module`, only such a function makes a
    forward DP026 counts; a text that does not parse is left to libcst."""
    try:
        tree = parse_python(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return True
    for node in ast_nodes.listed(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            args = node.args
            params = {a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)}
            if any(
                isinstance(call, ast.Call)
                and isinstance(call.func, ast.Name)
                and call.func.id in params
                for call in ast_nodes.walk(node)
            ):
                return True
    return False


def dp026_message(
    site: SecondBackward,
    code: Callable[[cst.CSTNode], str],
    line_of: Callable[[cst.CSTNode], int],
) -> str:
    """DP026's text for `site`: lines of this module as `line N`, another's as `path:N`."""

    def where(node: Site) -> str:
        if isinstance(node, ForeignSite):
            return f"{node.path}:{node.line}"
        return f"line {line_of(node)}"

    def text(node: Site) -> str:
        return node.text if isinstance(node, ForeignSite) else code(node.func)

    called, forward = code(site.backward.func), site.forward
    model = site.model or text(forward)
    if site.inner is not None and site.earlier is not None:
        return (
            f"{called}(...) runs {text(site.inner)}() ({where(site.inner)}), the second "
            f"backward through forwards of {model} ({where(forward)}) since its latest "
            f"forward (the first went through {where(site.earlier)}): DDP all-reduces only "
            "the first, these gradients stay per rank (backward the sum once, or one "
            "forward per backward)"
        )
    if site.inner is not None:
        return (
            f"{called}(...) runs {text(site.inner)}() ({where(site.inner)}), the second "
            f"backward through the outputs of {text(forward)}(...) at {where(forward)}: its "
            "gradients are not all-reduced"
        )
    if site.earlier is not None:
        return (
            f"{called}() is the second backward through forwards of {model} "
            f"({where(forward)}) since its latest forward (the first went through "
            f"{where(site.earlier)}): DDP all-reduces only the first, these gradients stay "
            "per rank (backward the sum once, or one forward per backward)"
        )
    return (
        f"{called}() is the second backward through the outputs of {text(forward)}(...) at "
        f"{where(forward)}: its gradients are not all-reduced"
    )
