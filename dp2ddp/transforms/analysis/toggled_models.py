"""Which wraps a `requires_grad` toggle may reach: the objects it toggles, tied to the
objects a wrap holds, once per program (DP041).

A toggle (`p.requires_grad = on`, module_parts.grad_toggles) switches off the gradients of
some model's parameters after the wrap; a wrap holding them needs
find_unused_parameters=True. Toggles used to give every wrap of the program the flag
(ajbrock/BigGAN-PyTorch@9845943: `utils.toggle_grad(D, False)` between a critic's and a
generator's steps also flagged the inception network's wrap, which the toggles never
reach). Here each object is named by the call that built it (its "site": `Disc(...)`,
`G_D(G, D)`, `inception_v3(...)`), in the scope where a name is bound to it: a name's
objects are those of all its bindings in its function (flow-insensitive), a parameter's
those of the arguments at every call of its function in the program, a free variable's
those of the enclosing function's binding. An object holds the objects its constructor
was given (its arguments, not `**config`) and those stored into it later (`x.d = D`,
`x.add_module(...)`, `x.append(...)`): the set of a site is closed over both. A toggle of
`M.parameters()` (or of `M.x.weight`) reaches the sites of M; a wrap of W holds the sites of
W; the toggle may reach the wrap when the two sets meet. A call of a program function is
also what it returns (a getter handing out one global is one object), a method call's
result may be its receiver, a method call keeps its arguments in its receiver
(`w.attach(D)`), a loop's item is part of what it walks, a module's global is one object
under every spelling. Anything not read so (a method's `self`, a callable held in a
variable, a decorated function's or a star-imported function's callers) is unknown: every
wrap keeps the flag, as before. Not followed (taken as holding no model): what `**kwargs`
hands a constructor, and a library module's attributes.
"""

from __future__ import annotations

import ast
import builtins
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field

from dp2ddp.transforms._support import ast_nodes
from dp2ddp.transforms._support.ast_nodes import import_table, resolved_name
from dp2ddp.transforms._support.nodes import MODULE_SELF_CALLS
from dp2ddp.transforms.analysis.module_parts import grad_toggles

#: Methods whose result holds the receiver's parameters (`for p in D.parameters()`).
_PARTS = frozenset({"parameters", "named_parameters", "modules", "children", "named_modules"})
#: Calls whose result is a new object holding copies of what they were given.
_COPIES = frozenset({"copy.deepcopy", "copy.copy"})
#: Sites of one program: (module index, "line:callee").
Sites = frozenset[tuple[int, str]]
_Scope = ast.FunctionDef | ast.AsyncFunctionDef | ast.Module


@dataclass
class _Module:
    tree: ast.Module
    table: dict[str, str]
    name: str
    #: node id -> the function (or module) whose scope it is in
    scope: dict[int, _Scope] = field(default_factory=dict)
    #: function (class) id -> the function, class or module it is in
    outer: dict[int, ast.AST] = field(default_factory=dict)
    #: scope id -> name -> the values bound to it (None: a binding not read)
    binds: dict[int, dict[str, list[_Bound]]] = field(default_factory=dict)
    #: it has a star import
    star: bool = False
    #: name -> its Name loads and attributes, each with the call it is the target of
    mentions: dict[str, list[tuple[ast.AST, ast.Call | None]]] = field(default_factory=dict)
    #: its DataParallel calls with a model
    wraps: list[ast.Call] = field(default_factory=list)
    #: id of a call's target -> the call
    calls: dict[int, ast.Call] = field(default_factory=dict)
    #: scope id -> name -> values stored into its object later
    stored: dict[int, dict[str, list[ast.expr]]] = field(default_factory=dict)


class ToggledModels:
    """The program's modules `(dotted name, tree, is_package, source text)`, each read
    (one walk) only when the answer needs it: a module whose text does not name a
    function is not searched for its calls."""

    def __init__(self, modules: Sequence[tuple[str, Callable[[], ast.Module], bool, str]]) -> None:
        self.inputs = modules
        self._modules: dict[int, _Module] = {}
        self.by_name = {name: i for i, (name, _, _, _) in enumerate(modules) if name}
        self._memo: dict[tuple[int, int, str], Sites | None] = {}
        self._busy: set[tuple[int, int, str]] = set()

    def module(self, index: int) -> _Module:
        found = self._modules.get(index)
        if found is None:
            name, tree, is_package, _ = self.inputs[index]
            found = self._modules[index] = _index(name, tree(), is_package)
        return found

    def toggles(self, index: int) -> Iterator[tuple[int, Sites | None]]:
        """(line, the sites it reaches, None: unknown) of each toggle of module `index`."""
        if "requires_grad" not in self.inputs[index][3]:
            return
        module = self.module(index)
        for toggle in grad_toggles(module.tree):
            node = _statement_at(module.tree, toggle.line)
            yield toggle.line, None if node is None else self._toggled(index, node)

    def wraps(self, index: int) -> Iterator[tuple[int, Sites | None]]:
        """(line, the sites its model holds, None: unknown) of each DataParallel call."""
        if "DataParallel" not in self.inputs[index][3]:
            return
        for node in self.module(index).wraps:
            yield node.args[0].lineno, self.sites(index, node.args[0])

    def _mentions(self, name: str) -> Iterator[tuple[int, ast.AST, ast.Call | None]]:
        """Every Name load and attribute spelled `name` in the program, with the call it
        is the target of: in the modules whose text holds the name."""
        for index, (_, _, _, text) in enumerate(self.inputs):
            if name in text:
                for node, call in self.module(index).mentions.get(name, []):
                    yield index, node, call

    def _toggled(self, index: int, statement: ast.AST) -> Sites | None:
        """The sites the toggle `statement` switches: `M` of `for p in M.parameters():
        p.requires_grad = v`, of `M.requires_grad_(v)`, of `M.w.requires_grad = v`."""
        if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call):
            func = statement.value.func
            target = func.value if isinstance(func, ast.Attribute) else None
        elif isinstance(statement, (ast.Assign, ast.AnnAssign)):
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            found = [t for t in targets if isinstance(t, ast.Attribute)]
            target = found[0].value if len(found) == 1 else None
        else:
            target = None
        if target is None:
            return None
        if isinstance(target, ast.Name):
            loop = self._loop_over(index, statement, target.id)
            if loop is not None:
                return self.sites(index, loop)
        return self.sites(index, target)

    def _loop_over(self, index: int, statement: ast.AST, name: str) -> ast.expr | None:
        """`M` where `name` is the item of `for ... in M.parameters()` around `statement`."""
        module = self.module(index)
        scope = module.scope.get(id(statement), module.tree)
        for node in ast_nodes.walk(scope):
            if not isinstance(node, (ast.For, ast.AsyncFor)):
                continue
            if not any(inner is statement for inner in ast_nodes.walk(node)):
                continue  # the toggle is not in this loop
            names = {n.id for n in ast_nodes.walk(node.target) if isinstance(n, ast.Name)}
            it = node.iter
            if isinstance(it, ast.Call) and _callee(it.func) in ("list", "tuple") and it.args:
                it = it.args[0]
            if (
                name in names
                and isinstance(it, ast.Call)
                and isinstance(it.func, ast.Attribute)
                and it.func.attr in _PARTS
            ):
                return it.func.value
        return None

    def sites(self, index: int, node: ast.expr) -> Sites | None:
        """The sites of the objects `node` (in module `index`) may hold; None: unknown."""
        module = self.module(index)
        scope = module.scope.get(id(node), module.tree)
        return self._sites(index, scope, node)

    def _sites(self, index: int, scope: _Scope, node: ast.expr) -> Sites | None:
        if isinstance(node, (ast.Constant, ast.JoinedStr, ast.Lambda, ast.Compare)):
            return frozenset()
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            bound = self._bindings(index, scope, node.value.id)
            if (
                bound is not None
                and bound[1]
                and all(isinstance(v, _Imported) and v.module for v in bound[1])
            ):  # `models.netD`: a module's global, one object
                names = {v.name for v in bound[1] if isinstance(v, _Imported)}
                return self._union_bound(index, scope, names, node.attr)
        if isinstance(node, (ast.Attribute, ast.Subscript, ast.Starred)):
            return self._sites(index, scope, node.value)
        if isinstance(node, ast.Name):
            return self._name(index, scope, node.id)
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            return self._union(index, scope, node.elts)
        if isinstance(node, ast.Dict):
            return self._union(index, scope, [*(k for k in node.keys if k), *node.values])
        if isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp)):
            return self._sites(index, scope, node.elt)
        if isinstance(node, ast.BoolOp):
            return self._union(index, scope, node.values)
        if isinstance(node, ast.IfExp):
            return self._union(index, scope, [node.body, node.orelse])
        if isinstance(node, ast.BinOp):
            return self._union(index, scope, [node.left, node.right])
        if isinstance(node, ast.UnaryOp):
            return self._sites(index, scope, node.operand)
        if isinstance(node, ast.Call):
            return self._call(index, scope, node)
        return None

    def _call(self, index: int, scope: _Scope, node: ast.Call) -> Sites | None:
        """A call's result: a new object (its site) holding its arguments (not `**config`);
        a method's may be (part of) its receiver; a program function's, what it returns."""
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr in MODULE_SELF_CALLS:
            return self._sites(index, scope, func.value)
        if self._copies(index, scope, func):  # a new object: a toggle of it spares the original
            return frozenset({(index, f"{node.lineno}:{_callee(func)}")})
        given = list(node.args)
        given += [k.value for k in node.keywords if k.arg is not None]
        inner = self._union(index, scope, given)
        if inner is None:
            return None
        found = inner | {(index, f"{node.lineno}:{_callee(func)}")}
        function = self._function(index, scope, func)
        if function is not None:
            if _returns_own_parameter(function[1]):
                return found  # this call's argument, not every caller's (v2-C, stop 46)
            returned = self._returns(*function)
            return None if returned is None else found | returned
        if isinstance(func, ast.Name):
            bound = self._bindings(index, scope, func.id)
            if bound is not None and not all(isinstance(v, (_Def, _Imported)) for v in bound[1]):
                return None  # a callable held in a variable (a parameter): unknown
            return found
        if isinstance(func, ast.Attribute):
            resolved = resolved_name(func, self.module(index).table)
            if resolved and self._program_name(resolved) is None:
                return found  # a library's function or class: a new object
            receiver = self._sites(index, scope, func.value)
            return None if receiver is None else found | receiver
        return found

    def _copies(self, index: int, scope: _Scope, func: ast.expr) -> bool:
        """`copy.deepcopy` / `copy.copy` (also imported by name): its result holds copies,
        not the objects it was given (an EMA or teacher copy of the student)."""
        if isinstance(func, ast.Attribute):
            return resolved_name(func, self.module(index).table) in _COPIES
        if isinstance(func, ast.Name):
            bound = self._bindings(index, scope, func.id)
            return bound is not None and all(
                isinstance(v, _Imported) and v.name in _COPIES for v in bound[1]
            )
        return False

    def _program_name(self, qualified: str) -> tuple[int, str] | None:
        """(module index, name) of "module.name" when module is one of the program's."""
        head, _, name = qualified.rpartition(".")
        index = self.by_name.get(head)
        return None if index is None else (index, name)

    def _function(
        self, index: int, scope: _Scope, func: ast.expr
    ) -> tuple[int, ast.FunctionDef | ast.AsyncFunctionDef] | None:
        """The program's function a call's target names (not a class, not a method)."""
        module = self.module(index)
        if isinstance(func, ast.Name):
            bound = self._bindings(index, scope, func.id)
            if bound is None:
                return None
            values = bound[1]
            if len(values) == 1 and isinstance(values[0], _Def) and values[0].node:
                return index, values[0].node
            if len(values) == 1 and isinstance(values[0], _Imported):
                named = self._program_name(values[0].name)
                if named is not None:
                    return self._top_function(*named)
            return None
        resolved = resolved_name(func, module.table)
        named = self._program_name(resolved) if resolved else None
        return None if named is None else self._top_function(*named)

    def _top_function(
        self, index: int, name: str
    ) -> tuple[int, ast.FunctionDef | ast.AsyncFunctionDef] | None:
        module = self.module(index)
        values = module.binds.get(id(module.tree), {}).get(name, [])
        if len(values) == 1 and isinstance(values[0], _Def) and values[0].node:
            return index, values[0].node
        return None

    def _returns(
        self, index: int, function: ast.FunctionDef | ast.AsyncFunctionDef
    ) -> Sites | None:
        """What a function of the program returns (a global, an argument, a new object)."""
        key = (index, id(function), "<return>")
        if key in self._memo:
            return self._memo[key]
        if key in self._busy:
            return frozenset()
        self._busy.add(key)
        found: set[tuple[int, str]] | None = set()
        for node in _own_nodes(function):
            if isinstance(node, (ast.Yield, ast.YieldFrom)):
                found = None
                break
            if isinstance(node, ast.Return) and node.value is not None:
                sites = self._sites(index, function, node.value)
                if sites is None or found is None:
                    found = None
                    break
                found |= sites
        self._busy.discard(key)
        result = None if found is None else frozenset(found)
        self._memo[key] = result
        return result

    def _bindings(self, index: int, scope: _Scope, name: str) -> tuple[_Scope, list[_Bound]] | None:
        """The scope binding `name` as read in `scope`, and its values; None: unbound."""
        module = self.module(index)
        while name not in module.binds.get(id(scope), {}):
            if isinstance(scope, ast.Module):
                return None
            outer = module.outer[id(scope)]
            while isinstance(outer, ast.ClassDef):  # a class's names are not a method's
                outer = module.outer[id(outer)]
            assert isinstance(outer, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Module))
            scope = outer
        return scope, module.binds[id(scope)][name]

    def _union(self, index: int, scope: _Scope, nodes: Sequence[ast.expr]) -> Sites | None:
        found: set[tuple[int, str]] = set()
        for node in nodes:
            sites = self._sites(index, scope, node)
            if sites is None:
                return None
            found |= sites
        return frozenset(found)

    def _name(self, index: int, scope: _Scope, name: str) -> Sites | None:
        """The sites of `name` read in `scope`: its bindings there, or in the functions
        around it, or at module level; a parameter's through the calls of its function."""
        module = self.module(index)
        bound = self._bindings(index, scope, name)
        if bound is None:
            return frozenset() if name in _BUILTINS else None
        scope = bound[0]
        key = (index, id(scope), name)
        if key in self._memo:
            return self._memo[key]
        if key in self._busy:
            return frozenset()  # a cycle adds nothing the other bindings do not
        self._busy.add(key)
        found: set[tuple[int, str]] | None = set()
        values: list[_Bound] = list(bound[1])
        if not all(isinstance(v, _Imported) for v in values):  # no store into a module
            values += module.stored.get(id(scope), {}).get(name, [])
        for value in values:
            sites = self._bound(index, scope, name, value)
            if sites is None or found is None:
                found = None
                break
            found |= sites
        self._busy.discard(key)
        result = None if found is None else frozenset(found)
        self._memo[key] = result
        return result

    def _union_bound(self, index: int, scope: _Scope, modules: set[str], attr: str) -> Sites | None:
        """`module.attr`: a program module's global as bound there; a library module's
        attribute holds no object of the program (a function, a class, a constant)."""
        found: set[tuple[int, str]] = set()
        for module in modules:
            named = self._program_name(f"{module}.{attr}")
            if named is None:
                continue
            sites = self._bound(index, scope, attr, _Imported(f"{module}.{attr}"))
            if sites is None:
                return None
            found |= sites
        return frozenset(found)

    def _bound(self, index: int, scope: _Scope, name: str, value: _Bound) -> Sites | None:
        if value is _PARAMETER:
            return self._parameter(index, scope, name)
        if isinstance(value, _Def):
            return frozenset()
        if isinstance(value, _Imported) and value.module:
            return frozenset()
        if isinstance(value, _Imported):
            named = self._program_name(value.name)
            # A package whose __init__.py binds nothing has no entry (hzxie/Pix2Vox@0596d5e:
            # `encoder.apply(utils.network_utils.init_weights)` with an empty utils/__init__.py).
            tree = None if named is None else self.module(named[0]).tree
            top = {} if named is None else self.module(named[0]).binds.get(id(tree), {})
            if named is not None and named[1] in top:
                return self._name(named[0], self.module(named[0]).tree, named[1])
            return frozenset({(-1, value.name)})  # one object under one name everywhere
        if value is None:
            return None
        return self._sites(index, scope, value)

    def _parameter(self, index: int, scope: _Scope, name: str) -> Sites | None:
        """A parameter's sites: the arguments of every call of its function in the
        program; unknown for a method, or a function also named other than by a call."""
        module = self.module(index)
        if isinstance(scope, ast.Module) or isinstance(module.outer[id(scope)], ast.ClassDef):
            return None
        args = scope.args
        if scope.decorator_list:
            return None  # registered somewhere: called by what is not read here
        if args.vararg or args.kwarg or args.posonlyargs:
            return None
        positions = [a.arg for a in args.args]
        position = positions.index(name) if name in positions else None
        with_default = positions[len(positions) - len(args.defaults) :]
        defaults = dict(zip(with_default, args.defaults, strict=True))
        defaults |= {a.arg: d for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True) if d}
        outer = module.outer[id(scope)]
        nested = not isinstance(outer, ast.Module)
        wanted = f"{module.name}.{scope.name}" if module.name else scope.name
        found: set[tuple[int, str]] = set()
        for where, node, call in self._mentions(scope.name):
            caller = self.module(where)
            if where == index and isinstance(node, ast.Name):
                pass
            elif nested:
                continue  # a nested function is named in its module alone, by its name
            elif isinstance(node, ast.Name):
                if caller.table.get(node.id) != wanted:
                    if node.id not in caller.table and caller.star:
                        return None  # it may come from a star import
                    continue
            elif not isinstance(node, ast.expr) or resolved_name(node, caller.table) != wanted:
                continue  # another object's attribute of that name
            if call is None:
                return None  # named, not called: a callback, a re-export
            if any(isinstance(a, ast.Starred) for a in call.args) or any(
                k.arg is None for k in call.keywords
            ):
                return None
            value: ast.expr | None = next((k.value for k in call.keywords if k.arg == name), None)
            if value is None and position is not None and position < len(call.args):
                value = call.args[position]
            if value is None:
                value = defaults.get(name)
                if value is None:
                    continue
                sites = self.sites(index, value)
            else:
                sites = self.sites(where, value)
            if sites is None:
                return None
            found |= sites
        return frozenset(found)


def untouched(
    modules: Sequence[tuple[str, Callable[[], ast.Module], bool, str]], keys: Sequence[str]
) -> tuple[tuple[int, tuple[tuple[int, str], ...]], ...]:
    """For each module of the program (by position): (wrap line, toggle) pairs the toggle is
    proved not to reach, the toggle named as the passes name it: f"line {line}" in the
    wrap's own module, f"{keys[j]}:{line}" in module j (module_grad_toggles's "path:line");
    (0, toggle) for each toggle whose objects were read. `modules`: (dotted name, its tree,
    is a package, its text)."""
    toggled = ToggledModels(modules)
    toggles = [
        (j, line, sites)
        for j in range(len(modules))
        for line, sites in toggled.toggles(j)
        if sites is not None
    ]
    found: list[tuple[int, tuple[tuple[int, str], ...]]] = []
    for index in range(len(modules)):
        read = [
            (0, f"line {line}" if j == index else f"{keys[j]}:{line}") for j, line, _ in toggles
        ]
        pairs = read + [
            (wrap, f"line {line}" if j == index else f"{keys[j]}:{line}")
            for wrap, held in (toggled.wraps(index) if toggles else ())
            if held is not None
            for j, line, sites in toggles
            if not held & sites
        ]
        found.append((index, tuple(pairs)))
    return tuple(found)


@dataclass(frozen=True)
class _Def:
    """A name bound by a def (or a class: node None)."""

    node: ast.FunctionDef | ast.AsyncFunctionDef | None


@dataclass(frozen=True)
class _Imported:
    """A name bound by an import, to the dotted name it stands for."""

    name: str
    #: `import x`: a module, no model; an attribute of it is read as "x.attr"
    module: bool = False


#: Marks a parameter among a name's bindings.
_PARAMETER = ast.Constant(value=None)
_Bound = ast.expr | _Def | _Imported | None


def _returns_own_parameter(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Every return of `function` gives back one of its parameters, never rebound in it
    (`def load_dict(net, state): ...; return net`): at a call, the result is that call's
    argument (held in `found`, with the others), not what every caller passes there, which
    _returns reads (zhaoyuzhi/deepfillv2@84a13c0: the generator and the frozen perceptual
    net both go through `load_dict`, and the perceptual net's toggle reached the generator's
    wrap: DP041, find_unused_parameters=True, for nothing; class v2-C, stop 46)."""
    args = function.args
    params = {a.arg for a in args.posonlyargs + args.args + args.kwonlyargs}
    returns = [n for n in _own_nodes(function) if isinstance(n, ast.Return)]
    if not returns or any(isinstance(n, (ast.Yield, ast.YieldFrom)) for n in _own_nodes(function)):
        return False
    for node in returns:
        if not isinstance(node.value, ast.Name) or node.value.id not in params:
            return False
    rebound = {
        n.id
        for n in _own_nodes(function)
        if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del))
    }
    return not any(isinstance(n.value, ast.Name) and n.value.id in rebound for n in returns)


def _own_nodes(function: ast.AST) -> Iterator[ast.AST]:
    """The nodes of a function's body, not those of functions or classes in it."""
    todo = list(ast.iter_child_nodes(function))
    while todo:
        node = todo.pop()
        yield node
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            todo.extend(ast.iter_child_nodes(node))


#: Builtins hold no model (`type=str` handed to argparse).
_BUILTINS = frozenset(dir(builtins))


def _callee(func: ast.expr) -> str:
    if isinstance(func, ast.Name):
        return func.id
    return func.attr if isinstance(func, ast.Attribute) else ""


def _statement_at(tree: ast.Module, line: int) -> ast.AST | None:
    """The toggle statement at `line` (its Assign, or the Expr of its call)."""
    for node in ast_nodes.listed(tree):
        if getattr(node, "lineno", 0) != line:
            continue
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Attribute) and t.attr == "requires_grad" for t in targets):
                return node
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
            func = node.value.func
            if isinstance(func, ast.Attribute) and func.attr == "requires_grad_":
                return node
    return None


def _index(name: str, tree: ast.Module, is_package: bool) -> _Module:
    """Each node's scope, and each scope's bindings and stores, in one walk."""
    module = _Module(tree, import_table(tree, name, is_package), name)

    def bind(scope: _Scope, target: ast.expr, value: ast.expr | None) -> None:
        names = module.binds.setdefault(id(scope), {})
        if isinstance(target, ast.Name):
            names.setdefault(target.id, []).append(value)
            return
        if isinstance(target, (ast.Attribute, ast.Subscript)):
            root: ast.expr = target
            while isinstance(root, (ast.Attribute, ast.Subscript)):
                root = root.value
            if isinstance(root, ast.Name) and value is not None:
                module.stored.setdefault(id(scope), {}).setdefault(root.id, []).append(value)
            return
        for inner in ast_nodes.walk(target):  # unpacked: each name may be any part of it
            if isinstance(inner, ast.Name):
                names.setdefault(inner.id, []).append(value)

    def visit(node: ast.AST, scope: _Scope, owner: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            module.scope[id(child)] = scope
            if isinstance(child, ast.Call):
                module.calls[id(child.func)] = child
                if (
                    _callee(child.func) == "DataParallel"
                    and child.args
                    and not isinstance(child.args[0], ast.Starred)
                ):
                    module.wraps.append(child)
            elif isinstance(child, ast.Name) and isinstance(child.ctx, ast.Load):
                module.mentions.setdefault(child.id, []).append(
                    (child, module.calls.get(id(child)))
                )
            elif isinstance(child, ast.Attribute):
                module.mentions.setdefault(child.attr, []).append(
                    (child, module.calls.get(id(child)))
                )
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                if not isinstance(owner, ast.ClassDef):  # a method is no name of the scope
                    module.binds.setdefault(id(scope), {}).setdefault(child.name, []).append(
                        _Def(child)
                    )
                module.outer[id(child)] = owner if isinstance(owner, ast.ClassDef) else scope
                params = module.binds.setdefault(id(child), {})
                every = [*child.args.posonlyargs, *child.args.args, *child.args.kwonlyargs]
                for extra in (child.args.vararg, child.args.kwarg):
                    if extra is not None:
                        every.append(extra)
                for arg in every:
                    params.setdefault(arg.arg, []).append(_PARAMETER)
                visit(child, child, child)
                continue
            if isinstance(child, ast.ClassDef):
                module.outer[id(child)] = owner if isinstance(owner, ast.ClassDef) else scope
                module.binds.setdefault(id(scope), {}).setdefault(child.name, []).append(_Def(None))
                visit(child, scope, child)
                continue
            if isinstance(child, ast.Assign):
                for target in child.targets:
                    bind(scope, target, child.value)
            elif isinstance(child, (ast.AnnAssign, ast.AugAssign)):
                bind(scope, child.target, child.value if isinstance(child, ast.AnnAssign) else None)
            elif isinstance(child, (ast.For, ast.AsyncFor, ast.comprehension)):
                bind(scope, child.target, child.iter)  # an item is part of what is walked
            elif isinstance(child, ast.withitem) and child.optional_vars is not None:
                bind(scope, child.optional_vars, child.context_expr)
            elif isinstance(child, ast.NamedExpr):
                bind(scope, child.target, None)
            elif isinstance(child, (ast.Import, ast.ImportFrom)):
                for alias in child.names:
                    if alias.name == "*":
                        module.star = True
                        continue
                    bound = (alias.asname or alias.name).partition(".")[0]
                    if isinstance(child, ast.Import):
                        full = alias.name if alias.asname else bound
                    else:
                        full = f"{'.' * child.level}{child.module or ''}.{alias.name}"
                    if scope is tree:
                        full = module.table.get(bound, full)
                    names = module.binds.setdefault(id(scope), {})
                    plain = isinstance(child, ast.Import)
                    names.setdefault(bound, []).append(_Imported(full, plain))
            elif isinstance(child, (ast.Global, ast.Nonlocal)):
                for name in child.names:
                    module.binds.setdefault(id(scope), {}).setdefault(name, []).append(None)
            elif isinstance(child, ast.ExceptHandler) and child.name:
                module.binds.setdefault(id(scope), {}).setdefault(child.name, []).append(None)
            elif isinstance(child, ast.Call) and isinstance(child.func, ast.Attribute):
                receiver = child.func.value
                # any method may keep what it is given (`w.attach(D)`), not a move's
                if child.func.attr not in MODULE_SELF_CALLS and isinstance(receiver, ast.Name):
                    stores = module.stored.setdefault(id(scope), {}).setdefault(receiver.id, [])
                    stores += [a for a in child.args if not isinstance(a, ast.Starred)]
                    stores += [k.value for k in child.keywords]
            elif isinstance(child, ast.Call) and _callee(child.func) == "setattr" and child.args:
                if isinstance(child.args[0], ast.Name) and len(child.args) == 3:
                    stored = module.stored.setdefault(id(scope), {})
                    stored.setdefault(child.args[0].id, []).append(child.args[2])
            visit(child, scope, owner)

    visit(tree, tree, tree)
    return module
