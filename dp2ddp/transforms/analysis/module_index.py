"""What one module holds, indexed once: its functions, calls and attribute stores, the
names each statement may bind, and the syntax helpers the uniformity rules read with.

Purely syntactic (plus parents, through the view): no judgement of values here; that is
uniformity.py's.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass

import libcst as cst
import libcst.matchers as m

from dp2ddp.flow.signatures import may_bind
from dp2ddp.transforms._support import ast_nodes
from dp2ddp.transforms._support.ast_nodes import last_name
from dp2ddp.transforms._support.children import children_of
from dp2ddp.transforms._support.nodes import NodeView, bound_names, name_of, nodes_of, walk

#: Where statements sit.
BLOCKS = (cst.IndentedBlock, cst.Module)


class ModuleIndex:
    """One walk of `module`: where its functions, calls and attribute stores are."""

    def __init__(self, module: cst.Module, view: NodeView) -> None:
        self.module = module
        self.view = view
        #: Functions and methods by name (every scope).
        self.functions: dict[str, list[cst.FunctionDef]] = {}
        #: Every call, in tree order.
        self.calls: list[cst.Call] = []
        #: attribute name -> (statement or setattr call, value stored; None when unknown).
        self.attribute_sets: dict[str, list[tuple[cst.CSTNode, cst.BaseExpression | None]]] = {}
        kinds = (cst.FunctionDef, cst.Call, cst.Assign, cst.AugAssign, cst.AnnAssign)
        for node in nodes_of(module, kinds):
            if isinstance(node, cst.FunctionDef):
                self.functions.setdefault(node.name.value, []).append(node)
            elif isinstance(node, cst.Call):
                self.calls.append(node)
                written = _set_by_name(node)
                if written is not None:
                    self.attribute_sets.setdefault(written, []).append((node, None))
            elif isinstance(node, (cst.Assign, cst.AugAssign, cst.AnnAssign)):
                targets = node.targets if isinstance(node, cst.Assign) else [node]
                for target in targets:
                    for bound in nodes_of(target.target, cst.Attribute):
                        value = None if isinstance(node, cst.AugAssign) else node.value
                        self.attribute_sets.setdefault(bound.attr.value, []).append((node, value))
        self._bound: dict[int, frozenset[str]] = {}
        self._mutated: dict[int, frozenset[str]] = {}
        self._globals: dict[int, frozenset[str]] = {}

    def call_sites(self, function: cst.FunctionDef) -> Iterator[cst.Call]:
        """Calls in this module that may call `function`: by its name, or `x.name(...)` for
        a method."""
        name = function.name.value
        method = isinstance(self.view.parent(self.view.parent(function) or function), cst.ClassDef)
        for call in self.calls:
            func = call.func
            if isinstance(func, cst.Name) and func.value == name and not method:
                yield call
            elif (
                isinstance(func, cst.Attribute)
                and func.attr.value == name
                and method
                and may_bind(call, function)
            ):
                yield call

    def handed(
        self, function: cst.FunctionDef, param: str
    ) -> list[tuple[cst.Call, cst.BaseExpression | None]]:
        """Each call of `function` in this module (call_sites) with what it passes for its
        parameter `param` (None: nothing, the default; or after a `*args` it cannot place):
        where a value that parameter holds comes from, as the def-use view's callers read."""
        params = function.params
        positional = [p.name.value for p in (*params.posonly_params, *params.params)]
        if self.top_level_class(function) is not None:
            positional = positional[1:]  # the receiver
        found: list[tuple[cst.Call, cst.BaseExpression | None]] = []
        for call in self.call_sites(function):
            given: cst.BaseExpression | None = None
            for index, arg in enumerate(call.args):
                if arg.star:
                    break
                name = arg.keyword.value if arg.keyword else None
                if name is None and index < len(positional):
                    name = positional[index]
                if name == param:
                    given = arg.value
                    break
            found.append((call, given))
        return found

    def may_call(
        self, call: cst.Call, module_name: str, name: str, method: bool, attributes: bool = True
    ) -> bool:
        """`call` may call `name` of module `module_name` (a superset: a call of an
        imported library's function of that name, `torch.save`, is not one; with
        `attributes=False`, neither is `x.name(...)` that its qualified names do not name)."""
        func = call.func
        names = self.view.qualified_names(func)
        if f"{module_name}.{name}" in names or (
            method
            and any(
                n.startswith(f"{module_name}.") and n.endswith(f".{name}") and "<" not in n
                for n in names
            )
        ):
            return True  # `ckpt.save(...)` after `import pkg.ckpt as ckpt`, `Checkpoint.save`
        if isinstance(func, cst.Name):
            if method or func.value != name:
                return False
            return self.imported_only(name) or not self.bound_anywhere(name)
        if not isinstance(func, cst.Attribute) or func.attr.value != name or not attributes:
            return False
        if not method and self.own_method_call(call, func):
            return False  # `self.load_data(i)` in a class defining load_data: not the function
        head = func.value
        while isinstance(head, cst.Attribute):
            head = head.value
        # `torch.save(...)`: an attribute of an imported module that is not the helper's.
        return not (isinstance(head, cst.Name) and self.imported_only(head.value) and names)

    def own_method_call(self, call: cst.Call, func: cst.Attribute) -> bool:
        """`call` is `self.name(...)` in a method of a top-level class that defines `name`
        itself: that method (or an override), never a module's function of the same name
        (stop 46, v1-C: AbnerHqC/GaitSet's `DataSet.load_data`, called in a loop, was taken
        for data_loader.load_data, whose rank-0 write then got no barrier)."""
        if not isinstance(func.value, cst.Name):
            return False
        function = self.view.parent(call)
        while function is not None and not isinstance(function, cst.FunctionDef):
            function = self.view.parent(function)
        if function is None or not function.params.params:
            return False
        if function.params.params[0].name.value != func.value.value:
            return False
        owner = self.top_level_class(function)
        if owner is None or func.attr.value in self.attribute_sets:
            return False  # `self.load_data = load_data` somewhere: an instance's may shadow it
        return any(
            isinstance(n, cst.FunctionDef) and n.name.value == func.attr.value
            for n in owner.body.body
        )

    def top_level_class(self, function: cst.FunctionDef) -> cst.ClassDef | None:
        """The class `function` is a method of, when that class is defined at top level."""
        block = self.view.parent(function)
        owner = self.view.parent(block) if block is not None else None
        if isinstance(owner, cst.ClassDef) and isinstance(self.view.parent(owner), cst.Module):
            return owner
        return None

    def called_as(self, function: cst.FunctionDef) -> tuple[str, bool] | None:
        """How another module calls `function` (a name, and whether as a method): a
        top-level function by its name, a method of a top-level class as `x.name(...)`, its
        `__init__` as `Class(...)` (stop 45: f90/Wave-U-Net-Pytorch's Dataset was taken as
        built wherever any `__init__` is called, `super().__init__(...)` in a module that
        calls it under a condition); None for neither (a nested function)."""
        if isinstance(self.view.parent(function), cst.Module):
            return function.name.value, False
        owner, name = self.top_level_class(function), function.name.value
        if owner is None:
            return None
        return (owner.name.value, False) if name == "__init__" else (name, True)

    def bound_names(self, statement: cst.CSTNode) -> frozenset[str]:
        """Every name `statement` may bind (a superset: a cheap test before the real one)."""
        key = id(statement)
        if key not in self._bound:
            names: set[str] = set()
            for node in walk(statement, skip_scopes=True):
                targets: list[cst.CSTNode] = []
                if isinstance(node, cst.Assign):
                    targets = [t.target for t in node.targets]
                elif isinstance(node, (cst.AnnAssign, cst.AugAssign, cst.For, cst.CompFor)):
                    targets = [node.target]
                elif isinstance(node, (cst.AsName, cst.NamedExpr)):
                    targets = [node.name if isinstance(node, cst.AsName) else node.target]
                elif isinstance(node, (cst.FunctionDef, cst.ClassDef)):
                    names.add(node.name.value)
                elif isinstance(node, (cst.Import, cst.ImportFrom)) and not isinstance(
                    node.names, cst.ImportStar
                ):
                    for alias in node.names:
                        bound = alias.asname.name if alias.asname is not None else alias.name
                        names.add(name_of(bound).split(".")[0])
                for target in targets:
                    names.update(_target_names(target))
            self._bound[key] = frozenset(names)
        return self._bound[key]

    def mutated_names(self, statement: cst.CSTNode) -> frozenset[str]:
        """Every name whose container `statement` may change in place: a store into an item
        (`stats[k] = v`, `sums[i] += v`) or a call of a mutating method (`losses.append(v)`).
        Not a binding (the name keeps its object), but what the object holds is what was
        put in (uniformity.py: round 32's NewbobAdam decided its rate on a dict of this
        rank's losses, taken for alike because `stats = {}` was)."""
        key = id(statement)
        if key not in self._mutated:
            names: set[str] = set()
            for node in walk(statement, skip_scopes=True):
                root = mutation_root(node)
                if root is not None:
                    names.add(root)
            self._mutated[key] = frozenset(names)
        return self._mutated[key]

    def imported_only(self, name: str) -> bool:
        """`name` is bound in this module only by top-level import statements."""
        binders = [s for s in self.module.body if name in self.bound_names(s)]
        return (
            bool(binders)
            and all(
                isinstance(s, cst.SimpleStatementLine)
                and all(isinstance(small, (cst.Import, cst.ImportFrom)) for small in s.body)
                for s in binders
            )
            and not self.bound_in_functions(name)
        )

    def bound_in_functions(self, name: str) -> bool:
        return any(
            name in self.bound_names(f.body)
            or any(p.name.value == name for p in walk(f.params) if isinstance(p, cst.Param))
            for functions in self.functions.values()
            for f in functions
        )

    def bound_anywhere(self, name: str) -> bool:
        """Some statement of this module, in any scope, may bind `name` (or it is a
        parameter)."""
        return any(
            name in self.bound_names(s) for s in self.module.body
        ) or self.bound_in_functions(name)

    def declared_global(self, function: cst.FunctionDef, name: str) -> bool:
        key = id(function)
        if key not in self._globals:
            self._globals[key] = frozenset(
                n.name.value
                for node in walk(function.body, skip_scopes=True)
                if isinstance(node, cst.Global)
                for n in node.names
            )
        return name in self._globals[key]

    def statement_of(self, node: cst.CSTNode) -> cst.CSTNode | None:
        """The statement holding `node` that sits directly in a block."""
        current: cst.CSTNode | None = node
        while current is not None and not isinstance(self.view.parent(current), BLOCKS):
            current = self.view.parent(current)
        return current


def operands(expr: cst.CSTNode) -> list[cst.BaseExpression]:
    """The expressions inside an operation that are not its direct children (elements of a
    collection, subscript indices, f-string parts)."""
    found: list[cst.BaseExpression] = []
    for child in children_of(expr):
        if isinstance(child, (cst.Element, cst.DictElement, cst.StarredElement)):
            found += [v for v in (getattr(child, "key", None), child.value) if v is not None]
        elif isinstance(child, cst.SubscriptElement):
            if isinstance(child.slice, cst.Index):
                found.append(child.slice.value)
            elif isinstance(child.slice, cst.Slice):
                found += [
                    v
                    for v in (child.slice.lower, child.slice.upper, child.slice.step)
                    if v is not None
                ]
        elif isinstance(child, cst.FormattedStringExpression):
            found.append(child.expression)
        elif isinstance(child, cst.ComparisonTarget):
            found.append(child.comparator)
    return found


def read_parts(expr: cst.CSTNode) -> Iterator[cst.Call | cst.Name | cst.Attribute]:
    """The calls, names read and `self.x` attributes in `expr` (not attribute or keyword
    names: `join` of `os.path.join` is no variable)."""
    stack: list[cst.CSTNode] = [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Call):
            yield node
        elif isinstance(node, cst.Name):
            yield node
            continue
        elif isinstance(node, cst.Attribute):
            if m.matches(node.value, m.Name("self")):
                yield node
                continue
            stack.append(node.value)
            continue
        elif isinstance(node, cst.Arg):
            stack.append(node.value)
            continue
        elif isinstance(node, (cst.Lambda, cst.FunctionDef, cst.ClassDef)):
            continue
        stack.extend(children_of(node))


def bound_values(root: cst.CSTNode, name: str) -> list[cst.BaseExpression]:
    """The values assigned to `name` anywhere under `root` (`for name in xs`: xs)."""
    values: list[cst.BaseExpression] = []
    for node in nodes_of(root, (cst.Assign, cst.AnnAssign, cst.AugAssign, cst.For)):
        if isinstance(node, cst.Assign):
            if any(binds_name(t.target, name) for t in node.targets):
                values.append(node.value)
        elif isinstance(node, (cst.AnnAssign, cst.AugAssign)):
            if node.value is not None and binds_name(node.target, name):
                values.append(node.value)
        elif isinstance(node, cst.For) and binds_name(node.target, name):
            values.append(node.iter)
    return values


def binds_name(target: cst.CSTNode, name: str) -> bool:
    """`target` (a Name, or a tuple/list of them) binds `name`."""
    return any(n.value == name for n in bound_names(target))


def imports_name(node: cst.Import | cst.ImportFrom, name: str) -> bool:
    if isinstance(node.names, cst.ImportStar):
        return False
    for alias in node.names:
        bound = alias.asname.name if alias.asname is not None else alias.name
        if isinstance(bound, cst.Name) and bound.value == name:
            return True
        if isinstance(bound, cst.Attribute) and name_of(bound).split(".")[0] == name:
            return True
    return False


def _set_by_name(call: cst.Call) -> str | None:
    """The attribute `setattr(x, "name", v)` / `delattr(x, "name")` writes, by literal name
    (a computed name is not followed)."""
    func = call.func  # tested by type: asked of every call of the module
    if not isinstance(func, cst.Name) or func.value not in ("setattr", "delattr"):
        return None
    if len(call.args) < 2:
        return None
    name = call.args[1].value
    if isinstance(name, cst.SimpleString):
        value = name.evaluated_value
        return value if isinstance(value, str) else None
    return None


def called_name(call: cst.Call) -> str | None:
    """`f` of `f(...)` or `x.f(...)`."""
    if isinstance(call.func, cst.Name):
        return call.func.value
    if isinstance(call.func, cst.Attribute):
        return call.func.attr.value
    return None


def direct_calls(tree: ast.Module, name: str) -> int | None:
    """How many calls of something named `name` (`name(...)`, `x.name(...)`) `tree` holds;
    None when it also refers to `name` otherwise (a base class, a value passed on,
    `name.__init__`), or calls `x.__init__(...)` on anything but `super()` (a second
    initialisation with other arguments). One name's question; NameUses answers it for
    every name from one walk."""
    return NameUses.of(tree).direct_calls(name)


@dataclass(frozen=True)
class NameUses:
    """`direct_calls` for every name at once, from one walk of a module (the project model
    asks it of every module of a program, for each class it looks at: torch's programs
    hold 1,700 modules, whose trees must not all be kept for it)."""

    #: Calls by the name called (`name(...)`, `x.name(...)`).
    calls: dict[str, int]
    #: Names referred to otherwise than as what a call calls.
    other: frozenset[str]
    #: Some `x.__init__(...)` on anything but `super()`.
    reinit: bool

    @classmethod
    def of(cls, tree: ast.Module) -> NameUses:
        calls: dict[str, int] = {}
        called: set[int] = set()
        reinit = False
        for node in ast_nodes.listed(tree):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            name = last_name(func)
            if name:
                calls[name] = calls.get(name, 0) + 1
                called.add(id(func))
            if (
                isinstance(func, ast.Attribute)
                and func.attr == "__init__"
                and not (
                    isinstance(func.value, ast.Call)
                    and isinstance(func.value.func, ast.Name)
                    and func.value.func.id == "super"
                )
            ):
                reinit = True
        other = frozenset(
            last_name(node)
            for node in ast_nodes.listed(tree)
            if isinstance(node, (ast.Name, ast.Attribute)) and id(node) not in called
        )
        return cls(calls, other, reinit)

    def direct_calls(self, name: str) -> int | None:
        """direct_calls(tree, name) of the module read (`name` a class name)."""
        if self.reinit or name in self.other:
            return None
        return self.calls.get(name, 0)


def argument(call: cst.Call, name: str, index: int | None) -> cst.BaseExpression | None:
    """What `call` passes for parameter `name` (at positional `index`), None if nothing."""
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == name:
            return arg.value
    positional = [a for a in call.args if a.keyword is None and not a.star]
    if index is not None and 0 <= index < len(positional):
        return positional[index].value
    return None


def _target_names(target: cst.CSTNode) -> list[str]:
    """The names an assignment target binds: a store into an attribute or an item binds
    none (`torch.backends.cudnn.benchmark = False` leaves `torch` the imported module:
    EifelTing/Generous-Teacher@b78440d train_kd.py, where `torch.save(...)` was taken for
    a call of the program's never-called `Params.save`, stop 57 v3-D)."""
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [n for element in target.elements for n in _target_names(element.value)]
    if isinstance(target, cst.StarredElement):
        return _target_names(target.value)
    if isinstance(target, (cst.Attribute, cst.Subscript)):
        return []
    return [n.value for n in walk(target) if isinstance(n, cst.Name)]


#: Methods that put what they are given into the container they are called on.
MUTATORS = frozenset(
    {"append", "extend", "insert", "update", "add", "setdefault", "appendleft", "__setitem__"}
)


def mutation_root(node: cst.CSTNode) -> str | None:
    """The name whose container `node` changes in place: `d` of `d[k] = v`, `d[k][j] += v`
    (an Assign or AugAssign into an item) and of the statement `d.append(v)`; else None."""
    targets: list[cst.BaseExpression] = []
    if isinstance(node, cst.Assign):
        targets = [t.target for t in node.targets]
    elif isinstance(node, cst.AugAssign):
        targets = [node.target]
    elif (
        isinstance(node, cst.Expr)
        and isinstance(node.value, cst.Call)
        and isinstance(node.value.func, cst.Attribute)
        and node.value.func.attr.value in MUTATORS
        and isinstance(node.value.func.value, cst.Name)
    ):
        return node.value.func.value.value
    for target in targets:
        if isinstance(target, cst.Subscript):
            while isinstance(target, cst.Subscript):
                target = target.value
            if isinstance(target, cst.Name):
                return target.value
    return None
