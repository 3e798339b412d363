"""Lists of trainable leaf tensors the optimizer is handed (`extra = make_extra()`,
`ps = [nn.Parameter(...), ...]; return ps`, `extra.append(nn.Parameter(...))`): the proof
that every element of such a list is a tensor no DDP wrap holds (analysis/outside_tensors.py
syncs each, `list(map(ddp_sync_tensor, extra))`), and its program fact: the functions of a
module that return one, told to the program's other modules (ProgramFacts.tensor_lists).

Stop 49 (k1) proved a call of a plain function of the same module returning a list display
of such tensors. Stop 51 (s1): a function of another module of the program (`from params
import make_extra`), a returned name bound to a display first (`ps = [...]; return ps`) or
grown (`gains = []; for ...: gains.append(nn.Parameter(...))`), a name here grown after its
binding (`extra.append(...)`), and a comprehension of such tensors. A list name is proved
where every binding of it reaching the read builds such a list and every other read of it
(the def-use view's `uses`) grows it only by such tensors (`append`, `insert`, `extend` of a
proved list) or reads it without handing it on (an index, an operand, an iteration, a call
of torch's or of a builtin that does not keep it): no alias and no function of the program
adds anything else.

Stop 52 (s1): a function of another module returning a third module's call (`return
build()` in a.py, `build` of b.py returning such a list) and a class whose base is another
module's (`class Child(Base)`, b.Base binding `self.gain = nn.Parameter(...)`) are recorded
as pending by each module's one read ("via:b.build", "base:b.Base:<attributes it stores>")
and joined over the program by `resolved`, a bounded number of modules deep; and a list
written as a parameter group in an optimizer's call (`{"params": extra, "lr": 1e-3}`) is a
read that does not keep it (the optimizer copies the group's tensors).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence

import libcst as cst
from libcst.codemod import CodemodContext

from dp2ddp.flow import DefUse, view
from dp2ddp.options import MigrateOptions
from dp2ddp.transforms._support.base import MigrationState, MigrationTransform
from dp2ddp.transforms._support.nodes import name_of, nodes_of

PARAMETER = frozenset({"torch.nn.Parameter", "torch.nn.parameter.Parameter"})
PARAMETER_LIST = frozenset({"torch.nn.ParameterList", "torch.nn.modules.container.ParameterList"})
#: Methods that grow a list (or a ParameterList) in place.
GROWING = frozenset({"append", "extend", "insert", "__setitem__", "__iadd__"})
#: Builtins a list may be handed to without being kept or grown.
_READERS = frozenset({"list", "tuple", "len", "iter", "enumerate", "zip", "map", "print", "sum"})
#: How deep a list returned by a function returning another's call is followed.
DEPTH = 4


def leaf_tensor(value: cst.BaseExpression | None, t: MigrationTransform) -> bool:
    """`value` builds a trainable leaf tensor: `nn.Parameter(...)`, or a call of torch's
    with `requires_grad=True` (`torch.zeros(2, requires_grad=True)`)."""
    if not isinstance(value, cst.Call):
        return False
    names = t.qualified_names(value.func)
    if names & PARAMETER:
        return True
    return any(n.startswith("torch.") for n in names) and any(
        a.keyword is not None
        and a.keyword.value == "requires_grad"
        and isinstance(a.value, cst.Name)
        and a.value.value == "True"
        for a in value.args
    )


def leaf_list(
    value: cst.BaseExpression | None,
    module: cst.Module,
    t: MigrationTransform,
    told: Collection[str] = (),
    depth: int = 0,
) -> bool:
    """`value` builds a list (or tuple) of trainable leaf tensors: a display of them (empty
    only where `grown` says a name grows it), a comprehension of one, or a call of a plain
    function of this module each return of which is one, or of a function of the program's
    other modules told so (`told`: qualified names, ProgramFacts.tensor_lists)."""
    if isinstance(value, (cst.List, cst.Tuple)):
        return all(isinstance(e, cst.Element) and leaf_tensor(e.value, t) for e in value.elements)
    if isinstance(value, (cst.ListComp, cst.GeneratorExp)):
        return leaf_tensor(value.elt, t)
    if not isinstance(value, cst.Call) or depth > DEPTH:
        return False
    if t.matches(value.func, PARAMETER_LIST):  # `nn.ParameterList([...])`
        return (
            len(value.args) == 1
            and value.args[0].keyword is None
            and _returned_list(value.args[0].value, module, t, told, depth + 1)
        )
    if told and t.qualified_names(value.func) & set(told):
        return True
    if not isinstance(value.func, cst.Name):
        return False
    callees = view(module).callees(value)
    return bool(callees) and all(
        f.owner is None
        and isinstance(f.node, cst.FunctionDef)
        and f.returns
        and not f.yields
        and all(_returned_list(r, module, t, told, depth + 1) for r in f.returns)
        for f in callees
    )


def _returned_list(
    value: cst.BaseExpression,
    module: cst.Module,
    t: MigrationTransform,
    told: Collection[str],
    depth: int,
) -> bool:
    """A returned value that is a non-empty display, or a list name proved (`ps`)."""
    if isinstance(value, cst.Name):
        return leaf_list_name(value, module, t, told, depth)
    if isinstance(value, (cst.List, cst.Tuple)) and not value.elements:
        return False
    return leaf_list(value, module, t, told, depth)


def leaf_list_name(
    name: cst.Name,
    module: cst.Module,
    t: MigrationTransform,
    told: Collection[str] = (),
    depth: int = 0,
) -> bool:
    """Every binding of `name` reaching this read builds a list of trainable leaf tensors
    (`leaf_list`), and every read of the name in its scope grows it only by such tensors or
    reads it without keeping it (`_grown_by_leaves`)."""
    built, unproved = list_reads(name, module, t, told, depth)
    return built and unproved is None


def list_reads(
    name: cst.Name,
    module: cst.Module,
    t: MigrationTransform,
    told: Collection[str] = (),
    depth: int = 0,
) -> tuple[bool, cst.Name | None]:
    """Whether every binding of `name` reaching this read builds a list of trainable leaf
    tensors, and (where so) the first read of the name in its scope that may keep it or
    grow it by something else (None: none)."""
    definitions = view(module)
    reaching = definitions.reaching(name)
    if not reaching or not all(
        d.kind == "assign" and not d.element and leaf_list(d.value, module, t, told, depth)
        for d in reaching
    ):
        return False, None
    scopes = {definitions.scope_of(d.target) for d in reaching}
    for scope in scopes:
        for use in definitions.uses(scope, name.value):
            if not _grown_by_leaves(use, module, t, told, depth):
                return True, use
    return True, None


def _grown_by_leaves(
    use: cst.Name, module: cst.Module, t: MigrationTransform, told: Collection[str], depth: int
) -> bool:
    """A read of a list name that adds only trainable leaf tensors to it (`x.append(p)`,
    `x.insert(i, p)`, `x.extend(<proved list>)`) or does not keep or grow it."""
    definitions = view(module)
    parent = definitions.parent(use)
    if isinstance(parent, cst.Attribute) and parent.value is use:
        call = definitions.parent(parent)
        if not isinstance(call, cst.Call) or call.func is not parent or not call.args:
            return False
        added = call.args[-1].value
        method = parent.attr.value
        if method in ("append", "insert"):
            return leaf_tensor(added, t)
        return method == "extend" and _returned_list(added, module, t, told, depth + 1)
    if isinstance(parent, cst.Subscript):
        return parent.value is use and not _stored(parent, definitions.parent)
    if isinstance(parent, cst.Arg):
        call = definitions.parent(parent)
        return isinstance(call, cst.Call) and (
            name_of(call.func) in _READERS
            or any(n.startswith("torch.") for n in t.qualified_names(call.func))
        )
    if isinstance(parent, cst.DictElement):
        return parent.value is use and _handed_group(parent, definitions.parent, t)
    return isinstance(
        parent, (cst.BinaryOperation, cst.Return, cst.For, cst.CompFor, cst.Element, cst.Comparison)
    )


def _handed_group(
    entry: cst.DictElement,
    parent: Callable[[cst.CSTNode], cst.CSTNode | None],
    t: MigrationTransform,
) -> bool:
    """`{"params": x, ...}`, a parameter group written in an optimizer's call or an
    `add_param_group(...)` (alone or in a list or tuple display of groups): the optimizer
    copies the group's tensors into a list of its own (torch's `add_param_group`), so it
    neither keeps nor grows `x` (stop 52 s1)."""
    key = entry.key
    if not isinstance(key, cst.SimpleString) or key.evaluated_value != "params":
        return False
    node = parent(entry)
    above = parent(node) if isinstance(node, cst.Dict) else None
    if isinstance(above, cst.Element):
        display = parent(above)
        above = parent(display) if isinstance(display, (cst.List, cst.Tuple)) else None
    call = parent(above) if isinstance(above, cst.Arg) else None
    if not isinstance(call, cst.Call):
        return False
    if isinstance(call.func, cst.Attribute) and call.func.attr.value == "add_param_group":
        return True
    return any(n.startswith("torch.optim.") for n in t.qualified_names(call.func))


def _stored(node: cst.CSTNode, parent: Callable[[cst.CSTNode], cst.CSTNode | None]) -> bool:
    """`node` is stored at or deleted (`x[0] = v`, `del x[0]`)."""
    above = parent(node)
    return isinstance(above, (cst.AssignTarget, cst.Del)) or (
        isinstance(above, (cst.AugAssign, cst.AnnAssign)) and above.target is node
    )


class _ExportTensorLists(MigrationTransform):
    """Reads a module of the program: its top-level functions returning lists of trainable
    leaf tensors (changes nothing)."""

    NAME = "tensor_lists"
    DESCRIPTION = "Find the functions returning lists of trained tensors, for their syncs."

    def __init__(self, context: CodemodContext, state: MigrationState) -> None:
        super().__init__(context, state)
        self.found: list[str] = []
        #: "Class.attr" of the module's classes binding `self.attr` only to such tensors
        self.held: list[str] = []
        #: what only the program's other modules can prove (`resolved`): a function
        #: returning their calls ("via:b.build"), a class of a base of theirs ("base:...")
        self.pending: dict[str, str] = {}
        #: "Class.attr" binding `self.attr` only to lists of such tensors, grown by such only
        self.lists: list[str] = []

    def visit_Module(self, node: cst.Module) -> bool:
        flow = view(node)
        for statement in node.body:
            if isinstance(statement, cst.ClassDef):
                self.held += [f"{statement.name.value}.{a}" for a in _held(statement, flow, self)]
                self.lists += [
                    f"{statement.name.value}.{a}" for a in _held_lists(statement, node, flow, self)
                ]
                self._based(statement, flow)
            if not isinstance(statement, cst.FunctionDef):
                continue
            function = flow.functions.get(statement)
            if function is None or not function.returns or function.yields:
                continue
            outside: list[str] = []
            for r in function.returns:
                if _returned_list(r, node, self, (), 1):
                    continue
                names = self.qualified_names(r.func) if isinstance(r, cst.Call) else set()
                if not names or not isinstance(r, cst.Call) or flow.callees(r):
                    break
                outside.append(",".join(sorted(names)))  # `return build()` of another module
            else:
                name = statement.name.value
                if outside:
                    self.pending[name] = "via:" + ";".join(outside)
                else:
                    self.found.append(name)
        return False

    def _based(self, owner: cst.ClassDef, flow: DefUse) -> None:
        """A class with a base that is no class of this module (`class Child(Base)`, `Base`
        imported): its bases' qualified names and the attributes it stores itself, so that
        the program's facts tell it holds what the base of another module does."""
        bases = {
            q
            for b in owner.bases
            if not (isinstance(b.value, cst.Name) and b.value.value in flow.classes)
            for q in self.qualified_names(b.value)
        }
        if bases:
            own = {
                target.attr.value
                for target in nodes_of(owner, cst.Attribute)
                if isinstance(self.parent(target), (cst.AssignTarget, cst.AugAssign))
                or isinstance(self.parent(target), cst.AnnAssign)
            }
            self.pending[owner.name.value] = f"base:{','.join(sorted(bases))}:{','.join(own)}"


def _held(owner: cst.ClassDef, flow: DefUse, t: MigrationTransform) -> list[str]:
    """The attributes `owner`'s methods bind on `self` whose every binding (its bases of the
    module too: the view's `attribute_definitions`) is a trainable leaf tensor."""
    names = {
        target.attr.value
        for assign in nodes_of(owner, cst.Assign)
        if leaf_tensor(assign.value, t)
        for target in (a.target for a in assign.targets)
        if isinstance(target, cst.Attribute)
    }
    return sorted(
        name
        for name in names
        if all(leaf_tensor(d.value, t) for d in flow.attribute_definitions(owner, name))
        and flow.attribute_definitions(owner, name)
    )


def _held_lists(
    owner: cst.ClassDef, module: cst.Module, flow: DefUse, t: MigrationTransform
) -> list[str]:
    """The attributes `owner`'s methods bind on `self` whose every binding is a list of
    trainable leaf tensors (`self.extra = nn.ParameterList([nn.Parameter(...), ...])`) and
    that the module grows only by such tensors (`grown_by_leaves`: the sync after the
    optimizer's statement iterates the list as it is there, stop 52 w2)."""
    names = {
        target.attr.value
        for assign in nodes_of(owner, cst.Assign)
        if isinstance(assign.value, cst.Call) and t.matches(assign.value.func, PARAMETER_LIST)
        for target in (a.target for a in assign.targets)
        if isinstance(target, cst.Attribute)
    }
    return sorted(
        name
        for name in names
        if flow.attribute_definitions(owner, name)
        and all(leaf_list(d.value, module, t) for d in flow.attribute_definitions(owner, name))
        and all(grown_by_leaves(site, module, t) for site in growth_sites(module, name, t))
    )


def growth_sites(module: cst.Module, attr: str, t: MigrationTransform) -> list[cst.Attribute]:
    """Each `x.<attr>` of the module grown or stored into in place (`x.extra.append(w)`,
    `x.extra[0] = w`, `x.extra += [w]`)."""
    found: list[cst.Attribute] = []
    for node in nodes_of(module, cst.Attribute):
        if node.attr.value != attr:
            continue
        parent = t.parent(node)
        if (
            (isinstance(parent, cst.Attribute) and parent.attr.value in GROWING)
            or (isinstance(parent, cst.Subscript) and _stored(parent, t.parent))
            or (isinstance(parent, cst.AugAssign) and parent.target is node)
        ):
            found.append(node)
    return found


def grown_by_leaves(site: cst.Attribute, module: cst.Module, t: MigrationTransform) -> bool:
    """`x.shift.append(nn.Parameter(...))`, `.insert(i, <such a tensor>)`, `.extend(<a
    proved list>)`, `x.shift += <a proved list>`: the list grown only by trainable leaf
    tensors (stop 52 w2)."""
    parent = t.parent(site)
    if isinstance(parent, cst.AugAssign):
        return isinstance(parent.operator, cst.AddAssign) and leaf_list(parent.value, module, t)
    call = t.parent(parent) if isinstance(parent, cst.Attribute) else None
    if not isinstance(call, cst.Call) or call.func is not parent or not call.args:
        return False
    assert isinstance(parent, cst.Attribute)
    added = call.args[-1].value
    if parent.attr.value in ("append", "insert"):
        return leaf_tensor(added, t)
    return parent.attr.value == "extend" and _returned_list(added, module, t, (), 1)


def module_tensor_lists(
    import_name: str, path: str, source: str, parsed: Callable[[], cst.Module | None]
) -> dict[str, str]:
    """Another module's functions returning lists of trainable leaf tensors ("list"), by
    the qualified name an importer resolves (`params.make_extra`), and the attributes its
    classes hold such tensors at ("held": `heads.Scaler.scale`), and what only the other
    modules can prove ("via:...", "base:...": `resolved` joins them). Read where the text
    can build such a tensor (`can_build`), or names what a module that can returns or
    holds (program/told.py decides, `named`)."""
    if "return" not in source and "class " not in source:
        return {}
    module = parsed()
    if module is None:
        return {}
    state = MigrationState(MigrateOptions())
    state.text = source
    reader = _ExportTensorLists(CodemodContext(filename=path), state)
    reader.transform_module(module)
    found = {f"{import_name}.{name}": "list" for name in reader.found}
    found |= {f"{import_name}.{name}": kind for name, kind in reader.pending.items()}
    found |= {f"{import_name}.{name}": "heldlist" for name in reader.lists}
    return found | {f"{import_name}.{name}": "held" for name in reader.held}


def can_build(source: str) -> bool:
    """The text may build a trainable leaf tensor (a cheap first filter of the modules)."""
    return "Parameter" in source or "requires_grad" in source


def named(items: Sequence[tuple[str, str]]) -> set[str]:
    """The names a module reaching these facts spells: `build` of a function returning a
    list ("b.build"), `Base` of a class holding tensors ("b.Base.gain")."""
    return {n.split(".")[-1 if k == "list" else -2] for n, k in items}


def resolved(items: Sequence[tuple[str, str]]) -> tuple[tuple[str, str], ...]:
    """The program's facts of `module_tensor_lists`, each module's read once, joined: a
    function returning another module's calls (`return build()`) returns a list of trained
    tensors where each call's function does; a class with a base of another module
    (`class Child(Base)`) holds the base's trained tensors at the attributes it does not
    store itself. Followed `DEPTH` modules deep (stop 52 s1)."""
    proved = ("list", "held", "heldlist")
    known = {name: kind for name, kind in items if kind in proved}
    pending = [(name, kind) for name, kind in items if kind not in proved]
    for _ in range(DEPTH):
        grown = dict[str, str]()
        for name, kind in pending:
            if kind.startswith("via:") and name not in known:
                calls = [set(c.split(",")) for c in kind[4:].split(";")]
                if all(any(known.get(c) == "list" for c in call) for call in calls):
                    grown[name] = "list"
            elif kind.startswith("base:"):
                bases, own = (set(part.split(",")) for part in kind.split(":")[1:])
                for held, k in known.items():
                    owner, _, attr = held.rpartition(".")
                    if k in ("held", "heldlist") and owner in bases and attr not in own:
                        grown.setdefault(f"{name}.{attr}", k)
        grown = {n: k for n, k in grown.items() if n not in known}
        if not grown:
            break
        known |= grown
    return tuple(sorted(known.items()))
