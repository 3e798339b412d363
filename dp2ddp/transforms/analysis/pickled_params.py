"""Which parameters a function pickles whole (class W2, stop 30: foamliu/Transformer's
`save_checkpoint(epoch, model, optimizer, ...)` in utils.py puts `model` in a dict and
`torch.save`s the dict).

A wrapped model handed to such a function is pickled as the wrapper object: the original's
file held a DataParallel (loadable in any process), the migrated one would hold the
DistributedDataParallel (loadable only in a process group). The hazards pass passes the
wrapper's `.module` instead where that is all the function does with it, else warns DP070
at the call (transforms/hazards/pickled.py). This module proves the function's side: a
parameter is pickled whole where it is the saved object of `torch.save`/`pickle.dump`, an
element or value of a container literal (or `dict(...)`, `list(...)`) that is saved, or of
a local container that is only filled (`state['model'] = model`) and saved. It is `only`
pickled where every other use is a `.state_dict()` read: no forward, no `.module`, no
training, no rebinding, no escape to another call or a return (then `.module` could change
what the function does, and DP070 says so instead).

Computed once per module: the hazards pass for its own functions, the program model
(ProgramFacts.pickling) for every other module's, keyed by the importer's qualified name.
"""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst
from libcst.codemod import CodemodContext

from dp2ddp.facts import PickledParam
from dp2ddp.options import MigrateOptions
from dp2ddp.transforms._support.base import MigrationState, MigrationTransform
from dp2ddp.transforms._support.nodes import parsed_or_none, walk

#: Calls that pickle their first argument (`obj`) whole.
PICKLERS = frozenset(
    {
        "torch.save",
        "pickle.dump",
        "dill.dump",
        "cloudpickle.dump",
        "joblib.dump",
    }
)
#: Calls that build a plain container of their arguments (pickled with it).
_CONTAINER_CALLS = frozenset(
    {"builtins.dict", "builtins.list", "builtins.tuple", "collections.OrderedDict"}
)
#: Modules built around their arguments (W1: `torch.save(nn.Sequential(model))`): a
#: parameter in one is pickled whole, but its readers may rely on the container's shape.
_MODULE_CONTAINERS = frozenset(
    {
        "torch.nn.Sequential",
        "torch.nn.ModuleList",
        "torch.nn.ModuleDict",
        "torch.nn.modules.container.Sequential",
    }
)
#: Reads of a module's state that `.module` answers the same (its weights).
_STATE_READS = frozenset({"state_dict"})

QualifiedNames = Callable[[cst.CSTNode], set[str]]
Parent = Callable[[cst.CSTNode], cst.CSTNode | None]


def saved_object(call: cst.Call) -> cst.BaseExpression | None:
    """The object a pickler call saves: its first positional argument or `obj=`."""
    for arg in call.args:
        if arg.star:
            return None
        if arg.keyword is None:
            return arg.value
        if arg.keyword.value == "obj":
            return arg.value
    return None


def whole_parts(
    expr: cst.BaseExpression, qualified_names: QualifiedNames
) -> list[cst.BaseExpression]:
    """`expr` and what a plain container literal or constructor in it holds as an element
    or value, recursively: each is pickled whole with `expr` (`nn.Sequential(m)` is not
    followed: its readers may rely on the container module's shape)."""
    found: list[cst.BaseExpression] = []
    stack = [expr]
    while stack:
        node = stack.pop()
        found.append(node)
        if isinstance(node, (cst.List, cst.Tuple, cst.Set)):
            stack.extend(e.value for e in node.elements if isinstance(e, cst.Element))
        elif isinstance(node, cst.Dict):
            stack.extend(e.value for e in node.elements if isinstance(e, cst.DictElement))
        elif isinstance(node, cst.Call) and qualified_names(node.func) & _CONTAINER_CALLS:
            stack.extend(a.value for a in node.args if not a.star)
    return found


def _in_module_containers(
    saved: cst.BaseExpression | None, qualified_names: QualifiedNames, parent: Parent
) -> list[cst.Name]:
    """Names `saved` holds as an argument of a module container (`nn.Sequential(net)`)."""
    if saved is None:
        return []
    found: list[cst.Name] = []
    for node in walk(saved):
        above = parent(node)
        call = parent(above) if isinstance(above, cst.Arg) else None
        if (
            isinstance(node, cst.Name)
            and isinstance(call, cst.Call)
            and qualified_names(call.func) & _MODULE_CONTAINERS
        ):
            found.append(node)
    return found


def _parameters(function: cst.FunctionDef) -> list[tuple[str, int | None]]:
    params = function.params
    positional = [*params.posonly_params, *params.params]
    found: list[tuple[str, int | None]] = [(p.name.value, i) for i, p in enumerate(positional)]
    found.extend((p.name.value, None) for p in params.kwonly_params)
    return found


def function_pickles(
    function: cst.FunctionDef,
    qualified_names: QualifiedNames,
    parent: Parent,
    line_of: Callable[[cst.CSTNode], int],
    path: str | None = None,
) -> tuple[PickledParam, ...]:
    """The parameters `function` pickles whole (see the module's docstring)."""
    params = _parameters(function)
    if not params:
        return ()
    names = {name for name, _ in params}
    saves = [
        node
        for node in walk(function.body)
        if isinstance(node, cst.Call) and qualified_names(node.func) & PICKLERS
    ]
    if not saves:
        return ()
    uses: dict[str, list[cst.Name]] = {}
    for node in walk(function.body):
        if isinstance(node, cst.Name) and _is_variable(node, parent):
            uses.setdefault(node.value, []).append(node)
    # what is pickled whole, each with the save that pickles it
    pickled: dict[cst.CSTNode, cst.Call] = {}
    #: pickled in a local container that is also used otherwise (returned, passed on)
    escaped: set[cst.CSTNode] = set()
    objects = {save: saved_object(save) for save in saves}
    parts = {
        save: whole_parts(saved, qualified_names)
        for save, saved in objects.items()
        if saved is not None
    }
    every: set[cst.CSTNode] = {part for held in parts.values() for part in held}
    for save, saved in objects.items():
        for inside in _in_module_containers(saved, qualified_names, parent):
            pickled.setdefault(inside, save)
            escaped.add(inside)  # pickled, but `.module` changes the saved module's shape
    for save, saved_parts in parts.items():
        for part in saved_parts:
            pickled.setdefault(part, save)
            if isinstance(part, cst.Name) and part.value not in names:
                values, escapes = _filled_container(part.value, uses, every, parent)
                for value in values:
                    for inner in whole_parts(value, qualified_names):
                        pickled.setdefault(inner, save)
                        if escapes:
                            escaped.add(inner)
    found: list[PickledParam] = []
    for name, position in params:
        held = uses.get(name, [])
        saved_at = [pickled[u] for u in held if u in pickled]
        if not saved_at:
            continue
        only = all((u in pickled and u not in escaped) or _reads_state(u, parent) for u in held)
        found.append(PickledParam(name, position, line_of(saved_at[0]), only, path))
    return tuple(found)


def _is_variable(node: cst.Name, parent: Parent) -> bool:
    """`node` names a variable (not an attribute's name, a keyword, a parameter)."""
    above = parent(node)
    if isinstance(above, cst.Attribute) and above.attr is node:
        return False
    if isinstance(above, (cst.Arg, cst.Param)) and getattr(above, "keyword", None) is node:
        return False
    if isinstance(above, cst.Param) and above.name is node:
        return False
    return not (isinstance(above, (cst.FunctionDef, cst.ClassDef)) and above.name is node)


def _reads_state(use: cst.Name, parent: Parent) -> bool:
    """`use.state_dict()`."""
    attribute = parent(use)
    if not (
        isinstance(attribute, cst.Attribute)
        and attribute.value is use
        and attribute.attr.value in _STATE_READS
    ):
        return False
    call = parent(attribute)
    return isinstance(call, cst.Call) and call.func is attribute


def _filled_container(
    name: str, uses: dict[str, list[cst.Name]], saved: set[cst.CSTNode], parent: Parent
) -> tuple[list[cst.BaseExpression], bool]:
    """What local container `name` (pickled as one of `saved`) is filled with: its one binding's
    value and `name[key] = value` stores; and whether it is also used otherwise (read,
    passed, returned, bound again): what it holds may then escape the save."""
    values: list[cst.BaseExpression] = []
    bound = 0
    escapes = False
    for use in uses.get(name, []):
        if use in saved:
            continue
        above = parent(use)
        if isinstance(above, cst.AssignTarget) and above.target is use:
            assign = parent(above)
            if isinstance(assign, cst.Assign) and len(assign.targets) == 1:
                values.append(assign.value)
            bound += 1
            continue
        if isinstance(above, cst.Subscript) and above.value is use:
            target = parent(above)
            assign = parent(target) if isinstance(target, cst.AssignTarget) else None
            if isinstance(assign, cst.Assign) and len(assign.targets) == 1:
                values.append(assign.value)
                continue
        escapes = True
    return values, escapes or bound != 1


class _ReadPicklers(MigrationTransform):
    """Reads a module of the program: which of its functions pickle a parameter whole
    (changes nothing)."""

    NAME = "pickling_functions"
    DESCRIPTION = "Find the module's functions that pickle a parameter whole."

    def __init__(self, context: CodemodContext, state: MigrationState, path: str) -> None:
        super().__init__(context, state)
        self.path = path
        self.found: dict[str, tuple[PickledParam, ...]] = {}

    def visit_Module(self, node: cst.Module) -> bool:
        self.found = module_picklers(
            node, self.qualified_names, self.parent, lambda n: self._position(n)[0], self.path
        )
        return False


def module_picklers(
    module: cst.Module,
    qualified_names: QualifiedNames,
    parent: Parent,
    line_of: Callable[[cst.CSTNode], int],
    path: str | None = None,
) -> dict[str, tuple[PickledParam, ...]]:
    """The module's top-level functions that pickle a parameter whole, by name."""
    found: dict[str, tuple[PickledParam, ...]] = {}
    for statement in module.body:
        if isinstance(statement, cst.FunctionDef):
            params = function_pickles(statement, qualified_names, parent, line_of, path)
            if params:
                found[statement.name.value] = params
    return found


def module_pickled_params(
    import_name: str,
    path: str,
    source: str,
    parsed: Callable[[], cst.Module | None] | None = None,
) -> dict[str, tuple[PickledParam, ...]]:
    """Another module's functions that pickle a parameter whole, by the qualified name an
    importer resolves (`utils.save_checkpoint`), located at `path`. Read only where the
    text can pickle (`save(`/`dump(`); a module that does not parse has none here (its own
    migration reports the error). `parsed`: the module's tree as the program model keeps
    it, so that the module is parsed once for this and its own migration."""
    if ("save(" not in source and "dump(" not in source) or "def " not in source:
        return {}
    module = parsed_or_none(source, parsed)
    if module is None:
        return {}
    reader = _ReadPicklers(CodemodContext(filename=path), MigrationState(MigrateOptions()), path)
    reader.transform_module(module)
    return {f"{import_name}.{name}": params for name, params in reader.found.items()}


def held_values(value: cst.BaseExpression) -> list[cst.BaseExpression]:
    """`value`, or the items of the dict, list or tuple literal it is: what an argument
    hands a pickling function to save whole."""
    if isinstance(value, cst.Dict):
        return [e.value for e in value.elements if isinstance(e, cst.DictElement)]
    if isinstance(value, (cst.List, cst.Tuple)):
        return [e.value for e in value.elements if not isinstance(e, cst.StarredElement)]
    return [value]
