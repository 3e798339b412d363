"""Tensors the optimizer trains that no module holds (`scale = nn.Parameter(torch.ones(1));
opt = SGD(list(model.parameters()) + [scale])`, `opt.add_param_group({"params": [scale]})`,
`log_vars = torch.zeros(2, requires_grad=True)` handed to an optimizer).

DataParallel trained its one copy of such a tensor on the gathered batch's gradient. Migrated,
DDP averages the wrapped model's gradients only: each rank's backward gives the tensor the
gradient of its own share, the optimizer steps on it, and the ranks' copies drift apart,
silently. So `ddp_sync_tensor(X)` (templates/helpers/sync_tensor.py.j2: rank 0's values now,
the gradient averaged as backward accumulates it) follows the statement that hands X to an
optimizer: the optimizer's call, an `add_param_group(...)`, or a statement binding or growing a
name the call reads (`params = list(model.parameters()) + [scale]`).

Which X: a name read there whose every binding reaching the read (the def-use view's
`reaching`) builds a trainable leaf tensor: a `torch.nn.Parameter(...)` call, or a torch call
with `requires_grad=True`; a name bound otherwise (a function's parameter, a module's
`.weight`) is not proved one, and a model's parameters reach DDP through its wrap. The call is
a collective: it goes only where every rank reaches it (outside_parameters.py's `_unreached`);
elsewhere DP118 says it (the tensor, and why the sync was not placed).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING

import libcst as cst

from dp2ddp.flow import view
from dp2ddp.transforms._support.nodes import name_of, nodes_of, unmoved, walk
from dp2ddp.transforms.analysis.tensor_lists import PARAMETER as _PARAMETER
from dp2ddp.transforms.analysis.tensor_lists import (
    grown_by_leaves,
    growth_sites,
    leaf_list,
    list_reads,
)
from dp2ddp.transforms.analysis.tensor_lists import leaf_tensor as _leaf_tensor

if TYPE_CHECKING:
    from dp2ddp.transforms._support.base import MigrationTransform

HELPER = "ddp_sync_tensor"
_VALUED = (cst.Assign, cst.AugAssign, cst.AnnAssign, cst.Expr)


def trained_tensors(
    module: cst.Module,
    t: MigrationTransform,
    optimizers: Sequence[cst.Call],
    line_of: Callable[[cst.CSTNode], cst.SimpleStatementLine | None],
    feeds: Callable[[cst.SimpleStatementLine, set[str]], bool],
) -> Iterator[tuple[cst.Name | cst.Attribute, cst.SimpleStatementLine | None, bool]]:
    """Each read of a name proved a trainable leaf tensor (or a list of them: True) that
    reaches an optimizer, with the statement line after which its sync goes (None: the read
    stands in no block of statements). Once per (line, name)."""
    candidates, stored = _candidates(module)
    held = _held_attributes(module, t)
    told = t.state.facts.tensor_lists  # other modules' (analysis/tensor_lists.py)
    makers = _tensor_lists(module, t, told)
    holders = (*t.state.facts.tensor_holders, *t.state.facts.tensor_list_holders)
    stored |= {name.rpartition(".")[2] for name in holders}
    if not candidates and not held and not makers and not _reads_any(module, stored):
        return  # no name bound to a tensor's construction, no attribute that may hold one
    givers = [
        n
        for n in nodes_of(module, cst.Call)
        if isinstance(n.func, cst.Attribute) and n.func.attr.value == "add_param_group"
    ]
    calls = [*optimizers, *givers]
    if not calls:
        return
    read = read_names(a.value for c in calls for a in c.args)
    places: list[tuple[cst.CSTNode, cst.SimpleStatementLine | None]] = [
        (a.value, line_of(c)) for c in calls for a in c.args
    ]
    for fed in nodes_of(module, cst.SimpleStatementLine):
        if feeds(fed, read):
            places += [(s.value, fed) for s in fed.body if isinstance(s, _VALUED) and s.value]
    definitions = view(module)
    done: set[tuple[int, str]] = set()
    said: set[str] = set()  # held lists grown by what is not proved such a tensor (DP146)
    for root, line in places:
        for node in walk(root):
            if (
                isinstance(node, cst.Attribute)
                and isinstance(node.value, cst.Name)
                and (id(line), t.code(node)) not in done
            ):
                if node.attr.value in held or _unwrapped_part(node, module, t):
                    many: bool | None = False  # `self.scale` of a plain class, `head.bias`
                elif _unwrapped_part(node, module, t, lists=True):
                    many = True  # `head.extra`, an nn.ParameterList of them (stop 52 s1)
                    late = _unproved_growth(node, module, t)
                    if late is not None:  # grown by what is not proved such (stop 52 w2)
                        many = None
                        done.add((id(line), t.code(node)))
                        if t.code(node) not in said:
                            said.add(t.code(node))
                            _said_grown(node, late, t)
                else:
                    many = None
                if many is not None:
                    done.add((id(line), t.code(node)))
                    yield node, line, many
                    continue
            if not isinstance(node, cst.Name) or node.value not in candidates | makers:
                continue
            if (id(line), node.value) in done:
                continue
            parent = t.parent(node)
            if (
                isinstance(parent, cst.Attribute)
                or (isinstance(parent, cst.Call) and parent.func is node)
                or (isinstance(parent, cst.Arg) and parent.keyword is node)
            ):
                continue  # `m.parameters`, a callee, a keyword's name
            reaching = definitions.reaching(node)
            if reaching and all(
                d.kind in ("assign", "annassign") and not d.element and _leaf_tensor(d.value, t)
                for d in reaching
            ):
                done.add((id(line), node.value))
                yield node, line, False
            elif node.value in makers:
                built, unproved = list_reads(node, module, t, told)
                if built:
                    done.add((id(line), node.value))
                if built and unproved is None:
                    yield node, line, True  # `extra = make_params()`
                elif built and unproved is not None:
                    _said(node, unproved, t)


def _unproved_growth(
    node: cst.Attribute, module: cst.Module, t: MigrationTransform
) -> cst.Attribute | None:
    """The first place the module grows the held list `node` reads by something not proved
    a trainable leaf tensor (`grown_by_leaves`: `head.shift.append(nn.Parameter(...))`,
    `.extend(<a proved list>)` are). Where every growth is proved, the sync after the
    optimizer's statement (`list(map(ddp_sync_tensor, head.shift))`) iterates the list as
    it is there, so it holds every tensor the optimizer took from it: one added before is
    synced, one added after was not taken (a later `add_param_group` reading it is a place
    of its own, synced after it). Stop 52 w2."""
    for site in growth_sites(module, node.attr.value, t):
        if not grown_by_leaves(site, module, t):
            return site
    return None


def _said_grown(node: cst.Attribute, site: cst.Attribute, t: MigrationTransform) -> None:
    """DP146: a held list grown by something `_unproved_growth` cannot prove such a tensor."""
    above = t.parent(site)
    grown = t.parent(above) if isinstance(above, cst.Attribute) else above
    read = t.code(grown or site).splitlines()[0][:60]
    t.warn(
        node,
        "DP146",
        f"{t.code(node)} holds tensors trained outside DistributedDataParallel, but `{read}` "
        f"(line {t.input_position(site)[0]}) adds to it or stores into it what is not "
        "proved such a tensor: not synced, each rank trains its own copies on its share",
    )


def _said(node: cst.Name, unproved: cst.Name, t: MigrationTransform) -> None:
    """DP146: a list of trained tensors no DDP wrap holds, read where it may be kept or grown
    by something not proved such a tensor (`extra.append(w)`, `register(extra)`)."""
    at = t.input_position(unproved)[0]
    holder = t.parent(unproved)
    if isinstance(holder, cst.Arg):
        holder = t.parent(holder)  # `register(extra)`
    elif isinstance(holder, cst.Attribute):
        holder = t.parent(holder)  # `extra.append(w)`
    read = t.code(holder).splitlines()[0][:60] if holder is not None else node.value
    t.warn(
        node,
        "DP146",
        f"{node.value} holds tensors trained outside DistributedDataParallel, but "
        f"`{read}` (line {at}) may keep it or add to it what is not proved such a tensor: "
        "not synced, each rank trains its own copies on its share",
    )


def _reads_any(module: cst.Module, stored: set[str]) -> bool:
    """Some `x.a` of the module reads an attribute a module of torch's holds a parameter at
    (`weight`, `bias`) or one an assignment stores such a construction at (`stored`): a
    cheap filter for `_unwrapped_part`, one pass over the module's index of attributes."""
    names = _OWN_PARAMETERS | stored
    for node in nodes_of(module, cst.Attribute):
        if node.attr.value in names:
            return True
    return False


def _candidates(module: cst.Module) -> tuple[set[str], set[str]]:
    """The names some assignment binds to a call spelled as a tensor's construction may be
    (`...Parameter(...)`, a `requires_grad=` keyword), and the attribute names it stores
    one at (`self.scale = nn.Parameter(...)`): a cheap first filter, read from the module's
    index of assignments; `_leaf_tensor` proves each reaching binding."""
    found: set[str] = set()
    stored: set[str] = set()
    for node in nodes_of(module, (cst.Assign, cst.AnnAssign)):
        value = node.value
        if not isinstance(value, cst.Call) or not (
            name_of(value.func) in ("Parameter", "ParameterList")
            or any(a.keyword is not None and a.keyword.value == "requires_grad" for a in value.args)
        ):
            continue
        targets = node.targets if isinstance(node, cst.Assign) else [node]
        found.update(t.target.value for t in targets if isinstance(t.target, cst.Name))
        stored.update(t.target.attr.value for t in targets if isinstance(t.target, cst.Attribute))
    return found, stored


def _tensor_lists(module: cst.Module, t: MigrationTransform, told: tuple[str, ...]) -> set[str]:
    """The names some assignment binds to a call of a function of this module that returns
    a list or tuple display or a name, of one of the program's other modules told to return
    a list of trained tensors (`told`, by its last name), or to a display or comprehension
    spelling a tensor's construction (a cheap filter; `leaf_list_name` proves each read)."""
    returning = {
        f.name
        for f in view(module).functions.values()
        if f.returns
        and all(isinstance(r, (cst.List, cst.Tuple, cst.ListComp, cst.Name)) for r in f.returns)
    }
    returning |= {name.rpartition(".")[2] for name in told}
    found: set[str] = set()
    for node in nodes_of(module, cst.Assign):
        value = node.value
        if isinstance(value, cst.Call):
            hit = name_of(value.func) in returning or name_of(value.func) == "ParameterList"
        elif isinstance(value, (cst.List, cst.Tuple)):  # its elements only, as leaf_list
            hit = any(_spelled_tensor(e.value) for e in value.elements)
        elif isinstance(value, cst.ListComp):
            hit = _spelled_tensor(value.elt)
        else:
            continue
        if hit:
            found.update(a.target.value for a in node.targets if isinstance(a.target, cst.Name))
    return found


def _spelled_tensor(call: cst.BaseExpression) -> bool:
    """`call` is spelled as a tensor's construction (`...Parameter(...)`, `requires_grad=`)."""
    if not isinstance(call, cst.Call):
        return False
    return name_of(call.func) == "Parameter" or any(
        a.keyword is not None and a.keyword.value == "requires_grad" for a in call.args
    )


#: The tensors an nn.Module of torch's own holds as parameters, read straight off it.
_OWN_PARAMETERS = frozenset({"weight", "bias"})


def _unwrapped_part(
    node: cst.Attribute, module: cst.Module, t: MigrationTransform, lists: bool = False
) -> bool:
    """`head.bias` (`.weight`) of a name every construction of which reaching it builds a
    torch.nn module (`head = nn.Linear(1, 1)`), or `head.scale` where it builds one of this
    module's classes binding `self.scale` only to trainable leaf tensors (`nn.Parameter`),
    through moves of the name onto itself (`head = head.to(DEVICE)`: the def-use view's
    reaching definitions of the moved name), and that the module reads nowhere but as
    `head(...)` or `head.<attribute>`: no wrap and no container holds it, so DDP averages
    none of its gradients (stop 49 k1; moves and the program's classes: stop 50 s4). With
    `lists`: where it holds a list of such tensors (stop 52 s1)."""
    held = node.value
    if not isinstance(held, cst.Name) or not _built_holding(
        held, node.attr.value, module, t, lists
    ):
        return False
    for other in nodes_of(module, cst.Name):
        if other.value != held.value:
            continue
        parent = t.parent(other)
        if isinstance(parent, cst.AssignTarget) or (
            isinstance(parent, cst.Attribute) and parent.value is other
        ):
            continue
        if isinstance(parent, cst.Call) and parent.func is other:
            continue
        return False
    return True


def _built_holding(
    held: cst.Name, attr: str, module: cst.Module, t: MigrationTransform, lists: bool = False
) -> bool:
    """Every definition of `held` reaching it, through moves onto itself (`head =
    head.to(d)`, `head = head.cuda()`), constructs a module holding `attr` as a trainable
    tensor: a torch.nn module class's `weight` / `bias`, or one of this module's classes
    every binding of whose `self.<attr>` is a trainable leaf tensor, or a class of another
    module of the program told so (ProgramFacts.tensor_holders, stop 51 s1), or one of this
    module's classes storing no `self.<attr>` with a base so told (stop 52 s1). With
    `lists`: a list of such tensors (`nn.ParameterList([...])`, ProgramFacts.
    tensor_list_holders; where this module grows it: `_unproved_growth`)."""
    facts = t.state.facts
    holders = set(facts.tensor_list_holders if lists else facts.tensor_holders)
    definitions = view(module)
    pending, seen, built = [held], set[int](), False
    while pending:
        name = pending.pop()
        reaching = definitions.reaching(name)
        if not reaching:
            return False
        for d in reaching:
            if id(d.target) in seen:
                continue
            seen.add(id(d.target))
            if d.kind != "assign" or d.element or d.value is None:
                return False
            value = unmoved(d.value)
            if isinstance(value, cst.Name) and value is not d.value and value.value == held.value:
                pending.append(value)  # `head = head.to(DEVICE)`: what head held
                continue
            if not isinstance(value, cst.Call) or t.qualified_names(value.func) & _PARAMETER:
                return False
            owner = definitions.class_called(value)
            told = {f"{n}.{attr}" for n in t.qualified_names(value.func)}
            if told & holders:
                pass  # a class of another module of the program (stop 51 s1)
            elif owner is not None:
                stores = definitions.attribute_definitions(owner, attr)
                if not stores and _told_base(owner, attr, t, holders):
                    pass  # `class Child(Base)`, Base of another module holding it (stop 52 s1)
                elif not stores or not all(
                    leaf_list(s.value, module, t) if lists else _leaf_tensor(s.value, t)
                    for s in stores
                ):
                    return False
            elif (
                lists
                or attr not in _OWN_PARAMETERS
                or not any(
                    q.startswith("torch.nn.") and q.count(".") == 2 and q[9:10].isupper()
                    for q in t.qualified_names(value.func)
                )
            ):
                return False
            built = True
    return built


def _told_base(owner: cst.ClassDef, attr: str, t: MigrationTransform, told: set[str]) -> bool:
    """A base of `owner` is a class of another module of the program told to hold `attr`
    (`told`: ProgramFacts.tensor_holders or .tensor_list_holders); `owner` stores no
    `self.attr` (asked where the view found no binding)."""
    return bool(told) and any(
        f"{q}.{attr}" in told for b in owner.bases for q in t.qualified_names(b.value)
    )


def _held_attributes(module: cst.Module, t: MigrationTransform) -> set[str]:
    """The attributes a plain class (no base, or `object`: no module registers them) binds
    to a trainable leaf tensor in its methods, `self.scale = nn.Parameter(torch.ones(1))`,
    and the module binds to nothing else anywhere (every store of that attribute name, on
    any object, builds one): read on an object (`holder.scale`, `self.scale`) where an
    optimizer takes its parameters, it is such a tensor no DDP wrap holds (stop 49 f1)."""
    proved: set[str] = set()
    other: set[str] = set()
    for node in nodes_of(module, (cst.Assign, cst.AnnAssign, cst.AugAssign)):
        if isinstance(node, cst.Assign):
            targets = [a.target for a in node.targets]
        elif isinstance(node, (cst.AnnAssign, cst.AugAssign)):
            targets = [node.target]
        else:
            continue
        for target in targets:
            for store in walk(target):
                if not isinstance(store, cst.Attribute):
                    continue
                name = store.attr.value
                if (
                    store is target
                    and isinstance(node, cst.Assign)
                    and _leaf_tensor(node.value, t)
                    and _in_plain_class(node, t)
                ):
                    proved.add(name)
                else:
                    other.add(name)
    return proved - other


def _in_plain_class(node: cst.CSTNode, t: MigrationTransform) -> bool:
    """`node` stands in a method of a class with no base but `object`."""
    parent = t.parent(node)
    while parent is not None and not isinstance(parent, cst.ClassDef):
        parent = t.parent(parent)
    return parent is not None and all(
        isinstance(base.value, cst.Name) and base.value.value == "object" for base in parent.bases
    )


def place_tensor_sync(
    t: MigrationTransform,
    after: dict[int, list[str]],
    name: cst.Name | cst.Attribute,
    line: cst.SimpleStatementLine | None,
    where: str | None,
    many: bool = False,
) -> None:
    """`ddp_sync_tensor(X)` after `line`, which hands the tensor X to an optimizer, where
    every rank reaches it (`where` is None: outside_parameters.py's `_unreached`); else DP118,
    with `where` saying why not."""
    x = t.code(name)
    if line is not None and where is None:
        # a list of tensors (`extra = make_params()`): each synced, no loop name needed
        after.setdefault(id(line), []).append(
            f"list(map({HELPER}, {x}))" if many else f"{HELPER}({x})"
        )
        t.state.helpers.add("sync_tensor")
        t.record(
            name,
            f"{x} is a tensor trained outside DistributedDataParallel: "
            f"{HELPER}({x}) after it reaches the optimizer (rank 0's values, its "
            "gradient averaged over the ranks)",
        )
    else:
        t.warn(
            name,
            "DP118",
            f"{x} reaches the optimizer {where}, so {HELPER}({x}) could not be "
            "placed where every rank reaches it: each rank trains its own copy on its share",
        )


def read_names(values: Iterable[cst.BaseExpression]) -> set[str]:
    """The names `values` read: not an attribute's own name (`shift` of `head.shift`) nor a
    keyword's (stop 53 s4: a loop's `shift = head.shift[0] + ...` was taken for a line that
    binds a name the optimizer reads, and DP118 said "head.shift reaches the optimizer under
    a condition or loop", false)."""
    found: set[str] = set()
    for value in values:
        nodes = list(walk(value))
        skipped = {id(n.attr) for n in nodes if isinstance(n, cst.Attribute)}
        skipped |= {id(n.keyword) for n in nodes if isinstance(n, cst.Arg) and n.keyword}
        found |= {n.value for n in nodes if isinstance(n, cst.Name) and id(n) not in skipped}
    return found
