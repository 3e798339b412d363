"""Which methods of an nn.Module class run its layers, read once per module with the
program's model classes (program/told.py, ModelClass.runs / .quiet): a call of one through
a wrapped model's `.module` in a step that backpropagates runs those layers past DDP, whose
forward alone arms the averaging of their gradients over the ranks (DP108,
hazards/module_bypass.py; stop 47's v2-A, raahii/infogan-pytorch@3729f48: `x_fake =
gen.module.infer(zs)`, each rank stepped the generator on its own gradient).

A method (not forward()) runs the layers when its body calls `self(...)`, `self.forward`,
an attribute of `self` that is no method of the class (`self.main(x)`, a submodule), a
method of the class that does (followed), something reached from `self` by attributes or
items unless the last step is a container's or a tensor's own method (`self.vars.items()`,
`self.buf.size()`), or a local name bound from `self` (`for layer in self.layers:
layer(x)`); or when it hands a parameter it creates itself (`nn.Parameter`) to a call.
Anything else (drawing latents, reading a device or a config) is proved to run none: such a
method called through `.module` is no bypass. Nor is a method decorated `@torch.no_grad()`
or `@torch.inference_mode()` (stop 52 w3: a sampling method, `model.module.sample(n)`, was
said to run "in a step that backpropagates"): its layers compute no gradient, so none is
left unaveraged; it counts as running none. Nor does a call inside a `with torch.no_grad():`
block of a method count (stop 53 s4), unless a block within turns gradients back on.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping, Sequence, Set
from dataclasses import dataclass

from dp2ddp.transforms._support.ast_nodes import parse_python, walk
from dp2ddp.transforms.analysis.layer_names import module_imports

#: The last attribute of a call reached from `self` that runs no layer: a container's, a
#: tensor's or a string's own method, and nn.Module's that compute nothing of the forward.
#: A string's: `if self.rnn_type.lower() == "gru":` in an `init_hidden` that builds zeros
#: (JojoFisherman/Neural-Machine-Translation-with-Attention@bd34650's Encoder, stop 61 v2-B:
#: `model.module.init_hidden(n)` in the loop got DP108, "those layers' gradients are not
#: averaged", of a method that runs none); only names no layer of a model is likely to
#: have (not `split`, `encode`, `format`).
_NO_LAYER = frozenset(
    "lower upper strip lstrip rstrip startswith endswith casefold capitalize isdigit isalpha "
    "isalnum isspace islower isupper ".split()
) | frozenset(
    "items keys values get pop append extend insert update copy index count size dim numel "
    "item tolist detach clone cpu cuda to float double half long int bool type view reshape "
    "unsqueeze squeeze expand repeat permute transpose contiguous fill_ zero_ normal_ uniform_ "
    "copy_ parameters named_parameters buffers named_buffers children named_children modules "
    "named_modules state_dict load_state_dict train eval zero_grad requires_grad_ apply "
    "register_buffer register_parameter register_module add_module sample rsample log_prob".split()
)


Methods = dict[str, ast.FunctionDef | ast.AsyncFunctionDef]


def layer_methods(
    import_name: str, source: str
) -> dict[str, tuple[frozenset[str], frozenset[str]]]:
    """Per class that defines forward(), or subclasses nn.Module without one (by qualified
    name: `import_name.Class`, the bare name when `import_name` is empty): (its methods
    that run its layers, those proved to run none); forward() and dunder methods in
    neither. A module trained only through its own methods (`model.encode(x)`,
    `model.decode(z)`; bpowell122/tomodrgn@e19eae9's TiltSeriesHetOnlyVAE defines no
    forward()) runs its layers there all the same: DP190 names such a call on its wrap
    (stop 60 s1's leftover: not classified, not named)."""
    return classified(layer_classes(import_name, source))


def layer_classes(import_name: str, source: str) -> dict[str, Methods]:
    """The classes `layer_methods` judges, by qualified name, with their methods."""
    if "forward" not in source and "Module" not in source:
        return {}
    try:
        tree = parse_python(source)
    except (SyntaxError, ValueError, RecursionError):
        return {}
    prefix = f"{import_name}." if import_name else ""
    classes: dict[str, Methods] = {}
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            methods = {
                n.name: n
                for n in node.body
                if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
            }
            if "forward" in methods or _module_subclass(node):
                classes[prefix + node.name] = methods
    return classes


def classified(classes: Mapping[str, Methods]) -> dict[str, tuple[frozenset[str], frozenset[str]]]:
    """`layer_methods` of `classes` judged together: one module's (`layer_methods`), or a
    program's whose class names clash (`program_classified`)."""
    return _found(classes, _fixpoint(classes))


def _fixpoint(
    classes: Mapping[str, Methods],
    open_quiet: Set[str] | None = None,
    closed_quiet: Set[str] = frozenset(),
    fixed: Set[str] = frozenset(),
) -> dict[str, set[str]]:
    """Per class, the methods that run layers, `classes` judged together (by default all
    of them alone: every method name they define may be quiet).

    A method of a submodule (`self.layer_dict[k].restore_backup_stats()`) runs no layer
    where every model class defining that name runs none in it (stop 57 v4-D,
    AntreasAntoniou/HowToTrainYourMAMLPytorch@8696470: DP190 said restoring BatchNorm
    buffers "runs its layers"; round 14 v4-C, shirleyzhu233/PyTorch-MAML@eee3fe3's
    `reset_classifier()` calling `self.classifier.reset_parameters()` of a class of
    another module): the greatest such set, shrunk until stable. `open_quiet`: the names
    still to judge (by default every name `classes` define but forward); `closed_quiet`:
    names judged quiet beforehand; `fixed`: names a class judged beforehand runs."""
    quiet = set(
        {m for methods in classes.values() for m in methods if m != "forward"}
        if open_quiet is None
        else open_quiet
    )
    quiet -= fixed
    while True:
        known = quiet | closed_quiet if closed_quiet else quiet
        running = {
            name: _running(methods, quiet_methods=known) for name, methods in classes.items()
        }
        still = quiet - set().union(*running.values())
        if still == quiet:
            return running
        quiet = still


def _found(
    classes: Mapping[str, Methods], running: Mapping[str, Set[str]]
) -> dict[str, tuple[frozenset[str], frozenset[str]]]:
    """Per class: (its judged methods that run layers, those that run none)."""
    found: dict[str, tuple[frozenset[str], frozenset[str]]] = {}
    for name, methods in classes.items():
        runs = running[name]
        judged = {m for m in methods if m != "forward" and not m.startswith("__")}
        found[name] = (frozenset(judged & runs), frozenset(judged - runs))
    return found


@dataclass(frozen=True)
class Alone:
    """One module's classes (`layer_classes`) judged alone, remembered per module across
    the programs that share it (told.py): per class, the methods that run layers, and the
    names of the methods it calls on something reached from `self` (`self.cls.reset()`),
    the only calls whose judgement another class's quiet method changes."""

    running: dict[str, frozenset[str]]
    reached: dict[str, frozenset[str]]


def judged_alone(classes: Mapping[str, Methods]) -> Alone:
    """`classes` (one module's) judged with no other module's (see Alone)."""
    running = _fixpoint(classes)
    return Alone(
        {name: frozenset(runs) for name, runs in running.items()},
        {name: _reached_names(methods) for name, methods in classes.items()},
    )


def program_classified(
    modules: Sequence[tuple[Mapping[str, Methods], Alone]],
) -> dict[str, tuple[frozenset[str], frozenset[str]]]:
    """`classified` of the program's classes together (a submodule's method defined in
    another module is read there, v4-C), from each module's judged alone: a class is
    judged again only where a method name it calls on something reached from `self` is
    defined in another module, or by such a class, or by classes of two modules (open
    names); every other class's methods, and every other name, read as they were judged
    alone (the same greatest set: a part of the names closed under what decides them).
    Two modules' classes of one qualified name: all judged together, as before."""
    classes: dict[str, Methods] = {}
    home: dict[str, int] = {}
    running: dict[str, Set[str]] = {}
    reached: dict[str, frozenset[str]] = {}
    for index, (own, alone) in enumerate(modules):
        classes.update(own)
        home.update(dict.fromkeys(own, index))
        running.update(alone.running)
        reached.update(alone.reached)
    if len(classes) < sum(len(own) for own, _ in modules):
        return classified(classes)
    definers: dict[str, set[int]] = {}
    by_name: dict[str, list[str]] = {}
    for name, methods in classes.items():
        for method in methods:
            if method != "forward":
                definers.setdefault(method, set()).add(home[name])
                by_name.setdefault(method, []).append(name)
    callers: dict[str, list[str]] = {}
    todo: list[str] = []  # classes to judge again, not yet followed to their names
    again: set[str] = set()
    for name, names in reached.items():
        for method in names & definers.keys():
            callers.setdefault(method, []).append(name)
            if name not in again and definers[method] != {home[name]}:
                again.add(name)
                todo.append(name)
    open_names = {m for m, where in definers.items() if len(where) > 1}
    names_todo = list(open_names)
    while todo or names_todo:
        while todo:
            for method in classes[todo.pop()]:
                if method != "forward" and method not in open_names:
                    open_names.add(method)
                    names_todo.append(method)
        while names_todo:
            for name in callers.get(names_todo.pop(), ()):
                if name not in again:
                    again.add(name)
                    todo.append(name)
    if again:  # else no class's call reaches an open name: each read as judged alone
        judged = {name: classes[name] for name in again}
        fixed = {m for m in open_names for c in by_name[m] if c not in again and m in running[c]}
        closed = {m for m in definers.keys() - open_names if not _runs_in(m, by_name, running)}
        running.update(_fixpoint(judged, open_names, closed, fixed))
    return _found(classes, running)


def _runs_in(
    method: str, by_name: Mapping[str, list[str]], running: Mapping[str, Set[str]]
) -> bool:
    """Some class defining `method` runs layers in it."""
    return any(method in running[name] for name in by_name[method])


def _reached_names(methods: Methods) -> frozenset[str]:
    """The names of the methods called on something reached from the method's `self` by
    attributes or items (`self.cls.reset()`, `self.blocks[0].reset()`), not on `self`
    itself: the calls a quiet method of another class may leave running none (_calls)."""
    found: set[str] = set()
    for method in methods.values():
        if not method.args.args:
            continue
        me = method.args.args[0].arg
        for node in walk(method):
            if node.__class__ is not ast.Call:
                continue  # by its class alone: most nodes are none
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
                continue
            func = node.func
            if isinstance(func.value, ast.Name) and func.value.id == me:
                continue
            if func.attr not in _NO_LAYER and _rooted(func.value, {me}):
                found.add(func.attr)
    return frozenset(found)


def forwardless_modules(import_name: str, source: str) -> frozenset[str]:
    """The classes of `layer_methods` that subclass nn.Module and define no forward(), by
    qualified name: the program's model facts name them only for their methods."""
    if "Module" not in source:
        return frozenset()
    try:
        tree = parse_python(source)
    except (SyntaxError, ValueError, RecursionError):
        return frozenset()
    prefix = f"{import_name}." if import_name else ""
    return frozenset(
        prefix + node.name
        for node in tree.body
        if isinstance(node, ast.ClassDef)
        and _module_subclass(node)
        and not any(
            isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == "forward"
            for n in node.body
        )
    )


def _module_subclass(node: ast.ClassDef) -> bool:
    """`class X(nn.Module)` / `(torch.nn.Module)` / `(Module)`: an nn.Module by its base."""
    return any(
        (isinstance(b, ast.Attribute) and b.attr == "Module")
        or (isinstance(b, ast.Name) and b.id == "Module")
        for b in node.bases
    )


def held_runs(
    import_name: str, source: str, is_package: bool
) -> dict[str, dict[str, frozenset[str]]]:
    """Per class of `layer_methods`, its methods that run layers only by calling attributes
    of `self` each bound, wherever the class stores it, to an instance of one class
    (`self.loss = ChamferLoss()`, `get_loss` returning `self.loss(input, output)`), with
    those classes' qualified names: where the program proves each holds no parameter
    (bare_modules.empty_classes), such a method runs none of the model's layers (stop 56
    v4-E: DP108 said "those layers' gradients are not averaged" of a Chamfer loss's call)."""
    if "forward" not in source:
        return {}
    try:
        tree = parse_python(source)
    except (SyntaxError, ValueError, RecursionError):
        return {}
    imports = module_imports(tree, import_name, is_package)
    prefix = f"{import_name}." if import_name else ""
    local = {n.name for n in tree.body if isinstance(n, ast.ClassDef)}
    found: dict[str, dict[str, frozenset[str]]] = {}
    for node in tree.body:
        if not isinstance(node, ast.ClassDef):
            continue
        methods = {
            n.name: n for n in node.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
        }
        if "forward" not in methods:
            continue
        held = _held_instances(node, imports, local, prefix)
        if not held:
            continue
        runs = _running(methods)
        quiet: dict[str, frozenset[str]] = {}
        for name in sorted(runs - {"forward"}):
            called = _called_attributes(name, methods) & set(held)
            if called and name not in _running(methods, frozenset(called)):
                quiet[name] = frozenset(held[a] for a in called)
        if quiet:
            found[prefix + node.name] = quiet
    return found


def quiet_through_held(
    methods: dict[str, tuple[frozenset[str], frozenset[str]]],
    held: dict[str, dict[str, frozenset[str]]],
    empty: Set[str],
) -> dict[str, tuple[frozenset[str], frozenset[str]]]:
    """`methods` (per class: runs, quiet) with each method of `held_runs` whose held
    classes are all `empty` (proved to hold no parameter) moved from runs to quiet."""
    moved = dict(methods)
    for cls, quiet in held.items():
        if cls not in moved:
            continue
        runs, proved = moved[cls]
        none = frozenset(m for m, classes in quiet.items() if classes <= empty)
        if none:
            moved[cls] = (runs - none, proved | none)
    return moved


def _held_instances(
    cls: ast.ClassDef, imports: dict[str, str], local: set[str], prefix: str
) -> dict[str, str]:
    """Attributes of `self` every store of which in the class is a call of one class by
    name (`self.loss = ChamferLoss()`, `self.loss = losses.Chamfer()`), with its
    qualified name."""
    held: dict[str, str] = {}
    other: set[str] = set()
    for node in ast.walk(cls):
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign)):
            targets = [node.target]
        for target in targets:
            if not (
                isinstance(target, ast.Attribute)
                and isinstance(target.value, ast.Name)
                and target.value.id == "self"
            ):
                continue
            value = node.value if isinstance(node, (ast.Assign, ast.AnnAssign)) else None
            name = _class_called(value, imports, local, prefix)
            if not name or held.get(target.attr, name) != name:
                other.add(target.attr)
            else:
                held[target.attr] = name
    return {a: n for a, n in held.items() if a not in other}


def _class_called(
    value: ast.expr | None, imports: dict[str, str], local: set[str], prefix: str
) -> str:
    """The qualified name of the class `value` calls by name, "" for anything else."""
    if not isinstance(value, ast.Call):
        return ""
    func = value.func
    if isinstance(func, ast.Name):
        if func.id in local:
            return prefix + func.id
        return imports.get(func.id, "")
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
        base = imports.get(func.value.id)
        return f"{base}.{func.attr}" if base else ""
    return ""


def _called_attributes(
    name: str, methods: dict[str, ast.FunctionDef | ast.AsyncFunctionDef]
) -> set[str]:
    """The attributes of `self` that the method, or a method of the class it calls on
    `self`, transitively, calls (`self.loss(...)`)."""
    found: set[str] = set()
    todo, seen = [name], set()
    while todo:
        method = methods[todo.pop()]
        if method.name in seen or not method.args.args:
            continue
        seen.add(method.name)
        me = method.args.args[0].arg
        for node in ast.walk(method):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and isinstance(node.func.value, ast.Name)
                and node.func.value.id == me
            ):
                if node.func.attr in methods:
                    todo.append(node.func.attr)
                else:
                    found.add(node.func.attr)
    return found


def _running(
    methods: dict[str, ast.FunctionDef | ast.AsyncFunctionDef],
    silent: frozenset[str] = frozenset(),
    quiet_methods: set[str] | frozenset[str] = frozenset(),
) -> set[str]:
    """The methods whose bodies run a layer, directly or through another method; a call of
    an attribute of `self` in `silent` runs none (held_runs), nor a call of a method in
    `quiet_methods` on something reached from `self` (a submodule's own quiet method)."""
    direct: dict[str, set[str]] = {}
    runs: set[str] = set()
    for name, method in methods.items():
        if _grad_off(method):
            direct[name] = set()  # its layers run with no gradient to average (stop 52 w3)
            continue
        calls, own = _calls(method, methods, silent, quiet_methods)
        direct[name] = own
        if calls:
            runs.add(name)
    changed = True
    while changed:
        changed = False
        for name, own in direct.items():
            if name not in runs and own & (runs | {"forward"}):
                runs.add(name)
                changed = True
    return runs


def _grad_off(method: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Decorated `@torch.no_grad()` or `@torch.inference_mode()` (called with no argument,
    or bare): its body computes no gradient."""
    return any(_turns_off(decorator) for decorator in method.decorator_list)


def _turns_off(manager: ast.expr) -> bool:
    """`torch.no_grad()` / `torch.inference_mode()` (no argument), or bare."""
    if isinstance(manager, ast.Call):
        if manager.args or manager.keywords:
            return False
        manager = manager.func
    name = manager.attr if isinstance(manager, ast.Attribute) else None
    if isinstance(manager, ast.Name):
        name = manager.id
    return name in ("no_grad", "inference_mode")


def _grad_off_calls(method: ast.FunctionDef | ast.AsyncFunctionDef) -> set[int]:
    """The calls in a `with torch.no_grad():` (or `inference_mode()`) block of `method`
    (stop 53 s4: a sampling method whose body is such a block was said to run its layers
    "in a step that backpropagates", as the decorated one of stop 52 w3): they compute no
    gradient. A block inside that turns gradients back on (`torch.enable_grad()`,
    `set_grad_enabled(...)`) is left out: its calls count. Statements only are walked to
    find the blocks (a method without one costs a walk of its statements)."""
    off: list[ast.AST] = []
    on: list[ast.AST] = []
    stack: list[ast.stmt] = list(method.body)
    while stack:
        statement = stack.pop()
        if isinstance(statement, (ast.With, ast.AsyncWith)):
            items = [item.context_expr for item in statement.items]
            if any(_turns_off(item) for item in items):
                off.append(statement)
            elif any(_turns_on(item) for item in items):
                on.append(statement)
        for field in ("body", "orelse", "finalbody", "handlers"):
            inner = getattr(statement, field, [])
            stack.extend(s for s in inner if isinstance(s, ast.stmt))
            stack.extend(s for h in inner if isinstance(h, ast.ExceptHandler) for s in h.body)
    if not off:
        return set()
    found = {id(n) for block in off for n in ast.walk(block) if isinstance(n, ast.Call)}
    return found - {id(n) for block in on for n in ast.walk(block) if isinstance(n, ast.Call)}


def _turns_on(manager: ast.expr) -> bool:
    func = manager.func if isinstance(manager, ast.Call) else manager
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    return name in ("enable_grad", "set_grad_enabled")


def _calls(
    method: ast.FunctionDef | ast.AsyncFunctionDef,
    methods: dict[str, ast.FunctionDef | ast.AsyncFunctionDef],
    silent: frozenset[str] = frozenset(),
    quiet_methods: set[str] | frozenset[str] = frozenset(),
) -> tuple[bool, set[str]]:
    """(the body runs a layer itself, the methods of the class it calls on `self`)."""
    if not method.args.args:
        return False, set()
    me = method.args.args[0].arg
    bound = _bound_from_self(method, me)
    own: set[str] = set()
    quiet = _grad_off_calls(method)
    for node in ast.walk(method):
        if not isinstance(node, ast.Call) or id(node) in quiet:
            continue
        func = node.func
        if _parameter_built(node):
            return True, own
        if isinstance(func, ast.Name) and func.id in bound | {me}:
            return True, own
        if not isinstance(func, ast.Attribute):
            continue
        if isinstance(func.value, ast.Name) and func.value.id == me:
            if func.attr in methods:
                own.add(func.attr)
                continue
            if func.attr in _NO_LAYER or func.attr in silent:
                continue  # `self.add_module(...)`, `self.parameters()`: nn.Module's own
            return True, own  # `self.main(x)`: a submodule (or a callable it holds)
        if func.attr in ("forward", "__call__") and _rooted(func.value, bound | {me}):
            return True, own
        if (
            _rooted(func.value, {me})
            and func.attr not in _NO_LAYER
            and func.attr not in quiet_methods
        ):
            return True, own  # `self.blocks[0](x)` is a Subscript call, `self.enc.net(x)` here
    for node in ast.walk(method):
        if id(node) in quiet:
            continue
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Subscript):
            if _rooted(node.func, bound | {me}):
                return True, own
    return False, own


def _rooted(node: ast.expr, names: set[str]) -> bool:
    """`node` is one of `names` or reached from one by attributes, items and calls
    (`self.blocks.items()`)."""
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Call)):
        node = node.func if isinstance(node, ast.Call) else node.value
    return isinstance(node, ast.Name) and node.id in names


def _bound_from_self(method: ast.AST, me: str) -> set[str]:
    """Local names the method binds directly from an expression reached from `self`: a loop
    or comprehension target over one, an assignment of one (`layer = self.layers[i]`)."""
    bound: set[str] = set()
    for node in ast.walk(method):
        pairs: list[tuple[ast.expr, ast.expr]] = []
        if isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
            pairs.append((node.target, node.iter))
        elif isinstance(node, ast.Assign):
            pairs.extend((t, node.value) for t in node.targets)
        elif isinstance(node, ast.withitem) and node.optional_vars is not None:
            pairs.append((node.optional_vars, node.context_expr))
        for target, value in pairs:
            inner = value.args[0] if isinstance(value, ast.Call) and value.args else value
            if _rooted(value, {me}) or _rooted(inner, {me}):  # `enumerate(self.layers)`
                bound.update(n.id for n in ast.walk(target) if isinstance(n, ast.Name))
    return bound


def _parameter_built(call: ast.Call) -> bool:
    """`nn.Parameter(...)` that may take a gradient: one built `requires_grad=False` (a
    buffer restored as a parameter, stop 57 v4-D) has none to average."""
    func = call.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    frozen = any(
        k.arg == "requires_grad" and isinstance(k.value, ast.Constant) and k.value.value is False
        for k in call.keywords
    )
    return name == "Parameter" and not frozen
