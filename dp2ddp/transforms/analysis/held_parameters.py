"""Parameters an optimizer reaches through a plain object (round 22 (misc),
yining043/TSP-improve@e979677: `class Baseline: def __init__(self, critic): self.critic =
critic` and `def get_learnable_parameters(self): return self.critic.parameters()`, handed to
`optim.Adam([{'params': actor.parameters()}, {'params':
baseline.get_learnable_parameters()}])` beside the DataParallel actor).

DataParallel's one process trained that critic on every whole batch. Migrated, no DDP holds
it: each rank steps it on its own share's gradient and the ranks' critics drift apart, with
no warning, since analysis/outside_parameters.py read only `X.parameters()` spelled where the
optimizer takes it, and an `obj.critic` whose class stores a constructor's argument on it.
Here the optimizer's parameters (its first argument or `params=`, a group's "params" value,
a line binding or growing a name it reads) are read through an object of one of this
module's plain classes (no base but `object` or such a class, so no nn.Module: the object
holds modules, it is not one): a method called on it (`baseline.get_learnable_parameters()`:
what its returns give, through its locals, `self.attr` bindings and the class's other
methods called on `self`), an attribute of it (`baseline.params`, bound to `list(self.critic.
parameters())`), or `obj.critic.parameters()`. Each `self.attr...parameters()` found is named
at the optimizer as the object's attribute (`baseline.critic`), and what it holds is read
with the def-use view (analysis/held_objects.py: `self.critic = critic` followed to what
every construction of the class hands it). Every binding a construction that does not wrap:
`ddp_sync_module(baseline.critic)`, as for a local module. Every binding a wrap: DDP averages
it, nothing to do. A binding that wraps the attribute where it stands (`self.net =
DataParallel(self.net)`) makes it a wrap (DP012 says where that is conditional). Anything
else (a binding not read to a construction, some wraps and some not, parameters of a module
no attribute of the object names): DP218, nothing placed. What the class holds is per class,
not per object: two holders of one class, one handed a wrap, are DP218 both. Objects of
classes from other modules are not read (their methods are not in the view)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

import libcst as cst

from dp2ddp.flow import Definition, DefUse, Function, view
from dp2ddp.transforms._support.nodes import code_of, name_of, unmoved, walk
from dp2ddp.transforms.analysis.held_objects import HeldObjects, held

if TYPE_CHECKING:
    from dp2ddp.transforms._support.base import MigrationTransform

_PARAMETERS = frozenset({"parameters", "named_parameters"})
#: How deep methods, locals and attributes are followed from the optimizer's read.
_DEPTH = 6


@dataclass(frozen=True)
class HeldModule:
    """A module whose parameters reach an optimizer through a plain object: `node` the read
    at the optimizer (where to report and place), `x` its spelling there (`baseline.critic`;
    the read itself where none names it), `reasons` why it is not proved a construction
    (empty: sync it)."""

    node: cst.CSTNode
    x: str
    reasons: tuple[str, ...]


@dataclass(frozen=True)
class _Source:
    """A `P.parameters()` read inside a plain class: `chain` the attributes from `self` to
    P (None: P is no attribute chain of `self`), `owner` the class `self` is."""

    receiver: cst.BaseExpression
    chain: tuple[str, ...] | None
    owner: cst.ClassDef


class HeldParameters:
    """Asked once per optimizer plan by analysis/outside_parameters.py."""

    def __init__(
        self,
        t: MigrationTransform,
        module: cst.Module,
        is_wrap: Callable[[cst.CSTNode], bool],
        wrappers: frozenset[str],
    ) -> None:
        self.t = t
        self.defs: DefUse = view(module)
        self.held: HeldObjects = held(module)
        self._is_wrap = is_wrap
        self._wrappers = wrappers

    def found(
        self, optimizers: list[cst.Call], feeds: Callable[[cst.CSTNode], bool]
    ) -> Iterator[HeldModule]:
        """The modules reached through a plain object by the optimizers' parameters, or by a
        read on a line `feeds` says binds or grows a name an optimizer reads."""
        inside = {id(n) for call in optimizers for part in _params(call) for n in walk(part)}
        for node in walk(self.defs.module):
            if not isinstance(node, (cst.Call, cst.Attribute)):
                continue
            read = self._read(node)
            if read is None and id(node) in inside and (other := self._other_holder(node)):
                yield HeldModule(node, code_of(node), (other,))
            if read is None or not (id(node) in inside or feeds(node)):
                continue
            receiver, owner, sources = read
            for source in sources:
                found = self._module(node, receiver, source)
                if found is not None:
                    yield found

    def _read(
        self, node: cst.Call | cst.Attribute
    ) -> tuple[cst.BaseExpression, cst.ClassDef, list[_Source]] | None:
        """`obj.method(...)`, `obj.attr` or `obj.attr.parameters()` with `obj` an object
        of a plain class of the module: the object, its class and the parameter reads."""
        if isinstance(node, cst.Call):
            func = node.func
            if not isinstance(func, cst.Attribute):
                return None
            if func.attr.value in _PARAMETERS:
                if node.args or not isinstance(func.value, cst.Attribute):
                    return None
                receiver, attr = func.value.value, func.value.attr.value
                owner = self._plain_class(receiver)
                if owner is None:
                    return None
                return receiver, owner, [_Source(func.value, (attr,), owner)]
            owner = self._plain_class(func.value)
            method = self.defs.method(owner, func.attr.value) if owner is not None else None
            if owner is None or method is None:
                return None
            seen: set[int] = set()  # one walk for every return: each binding read once
            found = [s for r in method.returns for s in self._sources(r, method, seen, 0)]
            return func.value, owner, found
        parent = self.defs.parent(node)
        if isinstance(parent, cst.Attribute) or (
            isinstance(parent, cst.Call) and parent.func is node
        ):
            return None  # part of a longer chain, or a method called
        owner = self._plain_class(node.value)
        if owner is None:
            return None
        # one walk for every binding (`self.h = self.h * 2 + ...` rebound n times: a walk
        # per binding re-read the others, n^3 and more in the bindings, stop 74)
        read: set[int] = set()
        found = [
            s
            for d in self.defs.attribute_definitions(owner, node.attr.value)
            if d.value is not None and d.kind in ("assign", "annassign", "augassign")
            for s in self._sources(d.value, self.defs.function_around(d.value), read, 0)
        ]
        return node.value, owner, found

    def _other_holder(self, node: cst.CSTNode) -> str:
        """Why `obj.method()` handed to an optimizer is not proved: `obj` an object of a
        class of another module of the program that is no nn.Module of it (TSP-improve's
        own layout: CriticBaseline in nets/reinforce_baselines.py), whose methods are not
        read here; "" for anything else (a library's object, a program's model)."""
        if not isinstance(node, cst.Call) or not isinstance(node.func, cst.Attribute):
            return ""
        if node.func.attr.value in _PARAMETERS or not isinstance(node.func.value, cst.Name):
            return ""
        answer = self.held(node.func.value)
        calls = [c for c in answer.calls if self.defs.class_called(c) is None]
        names = {q for c in calls for q in self.t.qualified_names(c.func)}
        facts = self.t.state.facts
        models = {m.name.rpartition(".")[2] for m in facts.models}
        roots = {m.name.split(".")[0] for m in facts.models if "." in m.name}
        if len(calls) != 1 or not names or not answer.complete:
            return ""
        if any(n.rpartition(".")[2] in models or n.split(".")[0] not in roots for n in names):
            return ""  # a model of the program, a library's or the wraps' own object
        return (
            f"{code_of(node.func.value)} is an object of {sorted(names)[0]}, a class of "
            "another module whose methods are not read here"
        )

    def _plain_class(self, expr: cst.BaseExpression) -> cst.ClassDef | None:
        """The plain class of this module whose object `expr` (a name or attribute chain)
        holds: `self` in its methods, else what every binding constructs."""
        if not isinstance(expr, (cst.Name, cst.Attribute)):
            return None
        function = self.defs.function_around(expr)
        if isinstance(expr, cst.Name) and function is not None and function.owner is not None:
            if expr.value == function.self_name:
                return function.owner if self._plain(function.owner) else None
        answer = self.held(expr)
        owners = {self.defs.class_called(c) for c in answer.calls}
        if not answer.complete or len(answer.calls) != len(answer.sources) or len(owners) != 1:
            return None
        owner = owners.pop()
        return owner if owner is not None and self._plain(owner) else None

    def _plain(self, owner: cst.ClassDef, seen: frozenset[int] = frozenset()) -> bool:
        """No base but `object` or plain classes of the module, no metaclass: no module."""
        if owner.keywords or id(owner) in seen:
            return False
        for base in owner.bases:
            value = base.value
            if not isinstance(value, cst.Name):
                return False
            if value.value == "object":
                continue
            parents = self.defs.classes.get(value.value, [])
            if len(parents) != 1 or not self._plain(parents[0], seen | {id(owner)}):
                return False
        return True

    def _sources(
        self, expr: cst.BaseExpression, function: Function | None, seen: set[int], depth: int
    ) -> Iterator[_Source]:
        """The `P.parameters()` reads `expr` (in `function`, a method of a plain class) may
        give: its own, and those of the locals it reads, the `self.attr` bindings, and the
        class's methods it calls on `self`."""
        if function is None or function.owner is None or depth > _DEPTH or id(expr) in seen:
            return
        seen.add(id(expr))
        me, owner = function.self_name, function.owner
        skipped = {id(n.attr) for n in walk(expr) if isinstance(n, cst.Attribute)}
        for node in walk(expr):
            if id(node) in skipped:
                continue
            if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
                name = node.func.attr.value
                if name in _PARAMETERS and not node.args:
                    yield _Source(node.func.value, _self_chain(node.func.value, me), owner)
                    continue
                if _self_chain(node.func.value, me) == ():  # `self.other_method()`
                    method = self.defs.method(owner, name)
                    for returned in method.returns if method is not None else ():
                        yield from self._sources(returned, method, seen, depth + 1)
            elif isinstance(node, cst.Attribute) and _self_chain(node, me) is not None:
                chain = _self_chain(node, me) or ()
                parent = self.defs.parent(node)
                if len(chain) != 1 or isinstance(parent, (cst.Attribute, cst.Call)):
                    continue  # a longer chain, `self.x.parameters()`, a method's callee
                for d in self.defs.attribute_definitions(owner, chain[0]):
                    if d.value is not None and d.kind in ("assign", "annassign", "augassign"):
                        around = self.defs.function_around(d.value)
                        yield from self._sources(d.value, around, seen, depth + 1)
            elif isinstance(node, cst.Name) and node.value != me:
                for d in self.defs.reaching(node):
                    if d.value is not None and d.kind in ("assign", "annassign", "augassign"):
                        yield from self._sources(d.value, function, seen, depth + 1)

    def _module(
        self, node: cst.CSTNode, receiver: cst.BaseExpression, s: _Source
    ) -> HeldModule | None:
        """What `s` names at `node` (the optimizer's read through `receiver`), proved or
        not; None where every binding is a wrap."""
        cls = s.owner.name.value
        if not s.chain:
            x = code_of(s.receiver)
            why = f"{x} in class {cls} is no attribute of the object, so it has no name here"
            return HeldModule(node, x, (why,))
        x = ".".join((code_of(receiver), *s.chain))
        owner: cst.ClassDef | None = s.owner
        for attr in s.chain[:-1]:
            owner = self._attribute_class(owner, attr) if owner is not None else None
        attr = "self." + ".".join(s.chain)
        if owner is None:
            return HeldModule(node, x, (f"{attr} in class {cls} is read to no one class",))
        sources: list[cst.Call | cst.Dict] = []
        found = self.defs.attribute_definitions(owner, s.chain[-1])
        if any(self._in_place(d) for d in found):
            return None  # `self.net = DataParallel(self.net)`: a wrap once it runs (DP012)
        for d in found:
            answer = self.held(d.value) if d.value is not None else None
            if d.kind not in ("assign", "annassign") or answer is None or not answer.complete:
                why = f"not every binding of {attr} in class {cls} is read to a construction"
                return HeldModule(node, x, (why,))
            sources += answer.sources
        wraps = [s for s in sources if isinstance(s, cst.Call) and self._wraps(s)]
        if sources and len(wraps) == len(sources):
            return None  # every binding a wrap: DDP averages it
        if not found:
            return HeldModule(node, x, (f"{attr} is bound nowhere in class {cls}",))
        if wraps or len(sources) != len([c for c in sources if isinstance(c, cst.Call)]):
            why = f"the bindings of {attr} in class {cls} are not all constructions or all wraps"
            return HeldModule(node, x, (why,))
        return HeldModule(node, x, ())

    def _in_place(self, d: Definition) -> bool:
        """`self.x = DataParallel(self.x)`: the attribute wrapped where it stands, as
        analysis/outside_parameters.py's `members` reads it by name."""
        value = unmoved(d.value) if d.value is not None else None
        if not isinstance(value, cst.Call) or not self._wraps(value) or not value.args:
            return False
        return code_of(unmoved(value.args[0].value)) == code_of(d.target)

    def _wraps(self, call: cst.Call) -> bool:
        return self._is_wrap(call) or name_of(call.func, through=(cst.Call,)) in self._wrappers

    def _attribute_class(self, owner: cst.ClassDef, attr: str) -> cst.ClassDef | None:
        """The one class every binding of `self.attr` in `owner` constructs."""
        found: set[cst.ClassDef | None] = set()
        for d in self.defs.attribute_definitions(owner, attr):
            answer = self.held(d.value) if d.value is not None else None
            if answer is None or not answer.complete or len(answer.calls) != len(answer.sources):
                return None
            found |= {self.defs.class_called(c) for c in answer.calls}
        return found.pop() if len(found) == 1 else None


def _self_chain(expr: cst.BaseExpression, me: str | None) -> tuple[str, ...] | None:
    """The attributes from `me` to `expr` (`self.a.b`: ("a", "b"); `self`: ()); None where
    `expr` is no attribute chain of `me`."""
    chain: list[str] = []
    while isinstance(expr, cst.Attribute):
        chain.insert(0, expr.attr.value)
        expr = expr.value
    if me is None or not isinstance(expr, cst.Name) or expr.value != me:
        return None
    return tuple(chain)


def _params(call: cst.Call) -> Iterator[cst.BaseExpression]:
    """The parts of an optimizer's call that hold parameters: its first argument (or
    `params=`), less a group's other entries (`'lr': sched.lr()`)."""
    arg = next((a for a in call.args if a.keyword is None and not a.star), None)
    arg = arg or next((a for a in call.args if a.keyword and a.keyword.value == "params"), None)
    if arg is None:
        return
    todo: list[cst.CSTNode] = [arg.value]
    while todo:
        node = todo.pop()
        if isinstance(node, cst.Dict):
            for element in node.elements:
                if isinstance(element, cst.StarredDictElement):
                    todo.append(element.value)
                elif isinstance(element, cst.DictElement) and isinstance(
                    element.key, cst.SimpleString
                ):
                    if element.key.evaluated_value == "params":
                        todo.append(element.value)
            continue
        if isinstance(node, (cst.List, cst.Tuple, cst.Set)):
            todo += [e.value for e in node.elements]
            continue
        yield node  # type: ignore[misc]
