"""What forward() reaches of a submodule it takes apart, and what a method run after the wrap
freezes: two ways a parameter DDP registered gets no gradient (DP041, partial_forward.py).

Its own module: partial_forward.py reads where forward() uses each layer; these read what a
caller leaves out of a child (issue 28 class U1) and what is frozen late (class T1).
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Container, Iterable, Mapping
from dataclasses import dataclass
from typing import Protocol

from dp2ddp.transforms._support import ast_nodes
from dp2ddp.transforms._support.ast_nodes import is_self_attribute, parse_python
from dp2ddp.transforms.analysis.dropped_outputs import called_methods
from dp2ddp.transforms.analysis.layer_names import Function, PlainToggles, made_tensor


@dataclass(frozen=True)
class TakenApart:
    """forward() never uses `self.attribute` whole (no call, no hand-on), only some of its
    children `self.attribute.part` (layumi/Person_reID_baseline_pytorch's ft_net: a ResNet's
    layers called one by one, its own `fc` never): the children of `holds` (a class of the
    program) that are not among `parts` get no gradient."""

    cls: str
    attribute: str
    holds: str
    parts: frozenset[str]
    line: int
    path: str = ""


def taken_apart(
    cls: str,
    path: str,
    functions: Iterable[ast.FunctionDef | ast.AsyncFunctionDef],
    registered: Mapping[str, tuple[int, str]],
    holders: Mapping[str, set[str]],
) -> tuple[TakenApart, ...]:
    """Registered project-class submodules that `functions` (forward() and the methods it
    calls on self) read only as `self.x.part`."""
    parts, lines, whole = _parts_read(functions)
    return tuple(
        TakenApart(cls, name, registered[name][1], frozenset(found), lines[name], path)
        for name, found in parts.items()
        if name not in whole
        and name not in holders  # held by a container: used as it is
        and registered.get(name, (0, ""))[1]
    )


class Held(Protocol):
    """What is known of the class a submodule taken apart holds (partial_forward's facts)."""

    @property
    def registered(self) -> frozenset[str]: ...
    @property
    def methods(self) -> frozenset[str]: ...


def _parts_read(
    functions: Iterable[ast.FunctionDef | ast.AsyncFunctionDef],
) -> tuple[dict[str, set[str]], dict[str, int], set[str]]:
    """`self.x.part` reads per x (with the first line), and the x read whole."""
    parts: dict[str, set[str]] = {}
    lines: dict[str, int] = {}
    whole: set[str] = set()
    for function in functions:
        if not function.args.args:
            continue
        me = function.args.args[0].arg
        inner: set[int] = set()
        for node in ast_nodes.walk(function):
            if isinstance(node, ast.Attribute) and is_self_attribute(node.value, me):
                assert isinstance(node.value, ast.Attribute)
                inner.add(id(node.value))
                parts.setdefault(node.value.attr, set()).add(node.attr)
                lines.setdefault(node.value.attr, node.lineno)
        for node in ast_nodes.walk(function):
            if is_self_attribute(node, me) and id(node) not in inner:
                assert isinstance(node, ast.Attribute)
                whole.add(node.attr)
    return parts, lines, whole


#: torchvision model families -> the head their forward() ends with.
_HEADS = (
    (("resnet", "resnext", "wide_resnet", "regnet", "shufflenet", "googlenet", "inception"), "fc"),
    (("vgg", "alexnet", "densenet", "mobilenet", "efficientnet", "mnasnet", "squeezenet",
      "convnext"), "classifier"),
    (("vit_", "swin"), "heads"),
)  # fmt: skip


def torchvision_heads(
    init: ast.FunctionDef | ast.AsyncFunctionDef,
    resolve: Callable[[ast.expr], tuple[str, bool] | None],
    functions: Iterable[ast.FunctionDef | ast.AsyncFunctionDef],
) -> list[tuple[str, str, int]]:
    """(what, how, line) for a torchvision model `__init__` keeps (`self.model =
    models.resnet50()`, also through a local name) whose layers forward() calls one by one,
    never the model whole nor its head (layumi/Person_reID_baseline_pytorch's ft_net:
    `self.model.conv1(x)` ... `self.model.avgpool(x)`, then its own classifier): the
    head's parameters get no gradient."""
    if not init.args.args:
        return []
    me = init.args.args[0].arg
    built: dict[str, str] = {}  # local name or attribute -> the torchvision model's head
    held: dict[str, tuple[str, int]] = {}
    for node in init.body:
        if not isinstance(node, ast.Assign) or len(node.targets) != 1:
            continue
        target, value, head = node.targets[0], node.value, None
        if isinstance(value, ast.Call) and (resolved := resolve(value.func)) is not None:
            name = resolved[0]
            if name.startswith("torchvision.models."):
                last = name.rsplit(".", 1)[-1]
                head = next((h for prefixes, h in _HEADS if last.startswith(prefixes)), None)
        elif isinstance(value, ast.Call) and _picked_torchvision(value.func, resolve):
            head = "|".join(sorted({h for _, h in _HEADS}))  # whichever it picks has one
        elif isinstance(value, ast.Name):
            head = built.get(value.id)
        if head is None:
            continue
        if isinstance(target, ast.Name):
            built[target.id] = head
        elif is_self_attribute(target, me):
            assert isinstance(target, ast.Attribute)
            held[target.attr] = (head, node.lineno)
    parts, lines, whole = _parts_read(functions)
    found: list[tuple[str, str, int]] = []
    for attribute, (head, _line) in held.items():
        if attribute in whole or attribute not in parts or set(head.split("|")) & parts[attribute]:
            continue
        used = ", ".join(f"self.{attribute}.{p}" for p in sorted(parts[attribute]))
        how = f"never uses {{attr}}: it calls {used} one by one, never self.{attribute} whole"
        what = head if "|" not in head else "'s head (" + head.replace("|", ", ") + ")"
        found.append(
            (f"{attribute}.{what}" if "|" not in head else attribute + what, how, lines[attribute])
        )
    return found


def _picked_torchvision(
    func: ast.expr, resolve: Callable[[ast.expr], tuple[str, bool] | None]
) -> bool:
    """`models.__dict__[name]` or `getattr(models, name)` with `models` torchvision's
    (euwern/proxynca_pp@217233d's `models.__dict__[model](pretrained=True)`, stop 44 v1-A):
    a torchvision model picked by a name known at run time; every family ends in a head."""
    holder: ast.expr | None = None
    if isinstance(func, ast.Subscript) and isinstance(func.value, ast.Attribute):
        if func.value.attr == "__dict__":
            holder = func.value.value
    elif isinstance(func, ast.Call) and isinstance(func.func, ast.Name) and func.args:
        if func.func.id == "getattr":
            holder = func.args[0]
    resolved = resolve(holder) if holder is not None else None
    return resolved is not None and resolved[0] == "torchvision.models"


def unreached(apart: TakenApart, classes: Mapping[str, Held]) -> tuple[str, str] | None:
    """(the first child of the submodule taken apart that forward() does not reach, how);
    None when its class is not known, all are reached, or a method of it is called (what
    that reads is not followed)."""
    held = classes.get(apart.holds)
    if held is None:
        return None
    missing = sorted(held.registered - apart.parts)
    if not missing or apart.parts & held.methods:
        return None
    used = ", ".join(f"self.{apart.attribute}.{p}" for p in sorted(apart.parts))
    how = f"never uses {{attr}}: it calls {used} one by one, never self.{apart.attribute} whole"
    return f"{apart.attribute}.{missing[0]}", how


#: How a loop walks a submodule's children in registration order.
_CHILD_WALKS = frozenset({"children", "named_children"})
_MODULES_WALKS = frozenset({"items", "values"})


def walked_with_break(
    functions: Iterable[ast.FunctionDef | ast.AsyncFunctionDef],
) -> list[tuple[str, str, int]]:
    """(what, how, line) for a loop of forward() (or a method it calls on self) over a
    submodule's children in order (`self.base._modules.items()`, `.values()`,
    `self.base.children()`, `.named_children()`) that may leave at a `break` of its own
    (Cysu/open-reid's ResNet: `for name, module in self.base._modules.items(): if name ==
    'avgpool': break`, the torchvision backbone's `fc` never reached). The children after
    the break get no gradient whatever the submodule's class, which a factory may hide
    (`ResNet.__factory[depth]`): DDP stopped at step 2, "Expected to have finished
    reduction", with no DP041."""
    found: list[tuple[str, str, int]] = []
    for function in functions:
        if not function.args.args:
            continue
        me = function.args.args[0].arg
        for node in ast_nodes.walk(function):
            if not isinstance(node, (ast.For, ast.AsyncFor)):
                continue
            walked = _walked_children(node.iter, me)
            stop = own_break(node.body)
            if walked is None or stop is None:
                continue
            text = ast.unparse(node.iter).replace("{", "{{").replace("}", "}}")
            how = (
                f"walks {text} one by one and may leave the loop at a break (line "
                f"{stop.lineno}): the children registered after it get no gradient"
            )
            found.append((f"{walked} (its children after the break)", how, node.lineno))
    return found


def _walked_children(node: ast.expr, me: str) -> str | None:
    """The submodule attribute (`base`) whose children `node` yields in order, or None."""
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
        return None
    owner, method = node.func.value, node.func.attr
    if method in _CHILD_WALKS and is_self_attribute(owner, me):
        assert isinstance(owner, ast.Attribute)
        return owner.attr
    if (
        method in _MODULES_WALKS
        and isinstance(owner, ast.Attribute)
        and owner.attr == "_modules"
        and is_self_attribute(owner.value, me)
    ):
        assert isinstance(owner.value, ast.Attribute)
        return owner.value.attr
    return None


def own_break(body: list[ast.stmt]) -> ast.Break | None:
    """A `break` that leaves this loop (not one of a loop nested in it)."""
    stack: list[ast.AST] = list(body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Break):
            return node
        if isinstance(
            node, (ast.For, ast.AsyncFor, ast.While, ast.FunctionDef, ast.AsyncFunctionDef)
        ):
            continue
        stack.extend(ast.iter_child_nodes(node))
    return None


def frozen_after_wrap(
    methods: Mapping[str, ast.FunctionDef | ast.AsyncFunctionDef],
) -> list[tuple[str, str, int]]:
    """(what, how, line) for the parameters a `train()` override or forward() (or a method
    they call on self) freezes:
    `self.bn.weight.requires_grad = False`, `p.requires_grad_(False)`. Such a method runs
    after the wrap (the loop's `model.train()`), when DDP has already registered the
    parameter: it then waits for a gradient that never comes (yjxiong/tsn-pytorch's partial
    BN: "Expected to have finished reduction" at step 2). find_unused_parameters=True lets
    the reducer skip them; the averaged update is DataParallel's."""
    found: list[tuple[str, str, int]] = []
    roots = [methods[name] for name in ("train", "forward") if name in methods]
    functions = [*roots, *(m for r in roots for m in called_methods(r, methods))]
    seen: set[str] = set()
    for function in functions:
        if function.name in seen:
            continue
        seen.add(function.name)
        for node in ast_nodes.walk(function):
            target = _frozen(node)
            if target is None:
                continue
            text = ast.unparse(target).replace("{", "{{").replace("}", "}}")
            line = getattr(node, "lineno", function.lineno)
            how = (
                f"runs without a gradient for {text}: {function.name}() sets its "
                f"requires_grad to False (line {line}), after the wrap registered it"
            )
            found.append((text, how, line))
            break
    return found


def _frozen(node: ast.AST) -> ast.expr | None:
    """What `node` freezes: `x.requires_grad = False`, `x.requires_grad_(False)`."""
    if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant):
        if node.value.value is False:
            for target in node.targets:
                if isinstance(target, ast.Attribute) and target.attr == "requires_grad":
                    return target.value
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "requires_grad_"
    ):
        values = [*node.args, *(k.value for k in node.keywords)]
        if values and isinstance(values[0], ast.Constant) and values[0].value is False:
            return node.func.value
    return None


def detached_only(
    functions: Iterable[ast.FunctionDef | ast.AsyncFunctionDef], registered: Container[str]
) -> list[tuple[str, str, int]]:
    """Registered submodules every call of which (in forward() and the methods it calls on
    `self`) reaches the rest only through `.detach()`: `self.gen(x).detach()`, or
    `fake = self.gen(x)` with every read of `fake` in that function a `fake.detach()`
    (U2, fresh round stop 30: a generator and its critic in one module, the critic's loss
    on the generator's output detached: DataParallel did not mind that the generator got
    no gradient, DDP fails at step 2). A call whose output is read otherwise, or kept in
    anything but a plain local name, counts as a use. (name, how, the line of its first call).

    Also (31f2, fresh round stop 31: clovaai/overhaul-distillation's Distiller): a call of a
    method of the submodule (`self.t_net.extract_feature(x)`: its layers run as in a call
    of it), outputs unpacked into names each of which is never read or read only as
    `.detach()`'s receiver, also through an item (`t_feats[i].detach()`), or measured
    (`len(t_feats)`, `.shape`), and a call under
    `with torch.no_grad():` (no graph at all)."""
    detached: dict[str, int] = {}
    used: set[str] = set()
    for function in functions:
        if not function.args.args:
            continue
        me = function.args.args[0].arg
        parents = {
            child: node for node in ast_nodes.walk(function) for child in ast.iter_child_nodes(node)
        }
        loads: dict[str, list[ast.Name]] = {}
        for node in ast_nodes.walk(function):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                loads.setdefault(node.id, []).append(node)

        for node in ast_nodes.walk(function):
            if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
                continue
            owner = node.func
            if not is_self_attribute(owner, me) and isinstance(owner.value, ast.Attribute):
                owner = owner.value  # `self.t_net.extract_feature(x)`: a method of it
            if not (is_self_attribute(owner, me) and owner.attr in registered):
                continue
            name = owner.attr
            parent = parents.get(node)
            only = _is_detach(node, parents) or _under_no_grad(node, parents)
            if not only and isinstance(parent, ast.Assign) and len(parent.targets) == 1:
                names = [
                    n.id
                    for n in ast_nodes.walk(parent.targets[0])
                    if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
                ]
                plain = isinstance(parent.targets[0], ast.Name) or all(
                    isinstance(e, (ast.Name, ast.Starred))
                    for e in getattr(parent.targets[0], "elts", [None])
                )
                reads = [read for n in names for read in loads.get(n, [])]
                only = (
                    plain
                    and bool(reads)
                    and all(
                        _is_detach(_through_items(read, parents), parents)
                        or _measured(read, parents)
                        for read in reads
                    )
                )
            if only:
                detached.setdefault(name, node.lineno)
            else:
                used.add(name)
    how = "reads {attr}'s output only through .detach() or under no_grad, so it gets no gradient"
    return [(name, how, line) for name, line in detached.items() if name not in used]


def _through_items(node: ast.AST, parents: Mapping[ast.AST, ast.AST]) -> ast.AST:
    """`t_feats[i]` for `t_feats` read as the value of an item (`t_feats[i].detach()`)."""
    while isinstance(parent := parents.get(node), ast.Subscript) and parent.value is node:
        node = parent
    return node


def _measured(node: ast.AST, parents: Mapping[ast.AST, ast.AST]) -> bool:
    """`len(t)`, `t.shape`, `t.size(0)`, `t > 0` (round 22, AB_distillation): no gradient."""
    parent = parents.get(node)
    if isinstance(parent, ast.Compare):
        return True
    if isinstance(parent, ast.Call) and node in parent.args:
        return isinstance(parent.func, ast.Name) and parent.func.id == "len"
    return isinstance(parent, ast.Attribute) and parent.attr in ("shape", "size", "dtype", "device")


def _under_no_grad(node: ast.AST, parents: Mapping[ast.AST, ast.AST]) -> bool:
    """`node` inside `with torch.no_grad():` (or `inference_mode`): it builds no graph."""
    current = parents.get(node)
    while current is not None:
        if isinstance(current, (ast.With, ast.AsyncWith)):
            for item in current.items:
                called = item.context_expr
                func = called.func if isinstance(called, ast.Call) else called
                last = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
                if last in ("no_grad", "inference_mode"):
                    return True
        current = parents.get(current)
    return False


def _is_detach(node: ast.AST, parents: Mapping[ast.AST, ast.AST]) -> bool:
    """`node.detach()`: the receiver of a call of `.detach`."""
    attribute = parents.get(node)
    return (
        isinstance(attribute, ast.Attribute)
        and attribute.attr == "detach"
        and isinstance(parents.get(attribute), ast.Call)
    )


#: The tests of the `if` statements whose bodies hold a statement.
_Tests = tuple[ast.expr, ...]


@dataclass(frozen=True)
class GradToggle:
    """A statement setting parameters' requires_grad to a value not proved True (`p.
    requires_grad = on`, `m.requires_grad_(False)`): at `line`, in `function` ("" at module
    level; `__init__` when a constructor's)."""

    line: int
    text: str
    function: str
    #: The lines the enclosing function spans (0, 0 at module level).
    span: tuple[int, int] = (0, 0)


def grad_toggles(tree: ast.Module) -> tuple[GradToggle, ...]:
    """Every statement of the module that may switch parameters' gradients off (U3, fresh
    round stop 30: ajbrock/BigGAN-PyTorch's `toggle_grad(net, on)` between a critic's and a
    generator's steps of one wrapped G_D). A parameter DDP registered at the wrap and frozen
    later gets no gradient in that step: the next step fails ("Expected to have finished
    reduction"), unless the wrap has find_unused_parameters=True. Setting it to True
    (unfreezing) is not one: what was frozen at the wrap DDP never registered."""
    found: list[tuple[GradToggle, tuple[ast.expr, ...]]] = []
    plain = PlainToggles()  # a tensor's flag, no parameter's

    def visit(node: ast.AST, outer: tuple[Function, ...], tests: _Tests) -> None:
        for child in ast.iter_child_nodes(node):
            handle(child, outer, tests)

    def handle(node: ast.AST, outer: tuple[Function, ...], tests: _Tests) -> None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            visit(node, (*outer, node), ())
            return
        if isinstance(node, ast.If):  # its body runs only where its test holds
            handle(node.test, outer, tests)
            for statement in node.body:
                handle(statement, outer, (*tests, node.test))
            for statement in node.orelse:
                handle(statement, outer, tests)
            return
        if _toggled_to(node) is not None and not plain.holds(node, outer):
            text = ast.unparse(node).replace("{", "{{").replace("}", "}}")
            line, inner = getattr(node, "lineno", 0), outer[-1] if outer else None
            span = (inner.lineno, inner.end_lineno or inner.lineno) if inner else (0, 0)
            found.append((GradToggle(line, text, inner.name if inner else "", span), tests))
        visit(node, outer, tests)

    visit(tree, (), ())
    if not any(tests for _, tests in found):
        return tuple(toggle for toggle, _ in found)
    false = _false_names(tree)  # only where a toggle sits under an `if`
    return tuple(
        toggle
        for toggle, tests in found
        if not any(_proved_false(test, false, toggle.span) for test in tests)
    )


def _false_names(tree: ast.Module) -> dict[str, tuple[int, int]]:
    """Names the module binds once, to False, None or 0 (`Freeze_Train = False` in a script's
    settings block, bubbliiiing/yolov4-tiny-pytorch@1f2a5b9), each with the span of the
    function that binds it ((0, 0): under `if __name__ == "__main__":`, where no other
    module's `module.NAME = ...` reaches it; a plain module-level binding is not one), and
    never otherwise: no parameter, import, definition, loop target, `global` or `del` of
    the name. A test reading one in that same function (or that block) is false."""
    counts: dict[str, int] = {}
    for node in ast_nodes.listed(tree):
        names: list[str] = []
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            names = [node.id]
        elif isinstance(node, ast.arg):
            names = [node.arg]
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names = [(a.asname or a.name).split(".")[0] for a in node.names]
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names = [node.name]
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            names = [n for n in node.names for _ in range(2)]  # never proved
        for name in names:
            counts[name] = counts.get(name, 0) + 1
    found: dict[str, tuple[int, int]] = {}

    def visit(node: ast.AST, span: tuple[int, int]) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                visit(child, (child.lineno, child.end_lineno or child.lineno))
            elif isinstance(child, ast.ClassDef):
                continue  # a class body's names are its attributes
            elif (
                isinstance(child, ast.Assign)
                and len(child.targets) == 1
                and isinstance(child.targets[0], ast.Name)
                and isinstance(child.value, ast.Constant)
                and child.value.value in (False, None, 0)
                and isinstance(child.value.value, (bool, int, type(None)))
                and counts.get(child.targets[0].id) == 1
            ):
                found[child.targets[0].id] = span
            else:
                visit(child, span)

    for statement in tree.body:
        if isinstance(statement, ast.If) and ast_nodes.is_script_guard(statement.test):
            visit(statement, (0, 0))
        elif isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
            visit(ast.Module(body=[statement], type_ignores=[]), (0, 0))
    return found


def _proved_false(
    test: ast.expr, false: Mapping[str, tuple[int, int]], span: tuple[int, int]
) -> bool:
    """`test` is one of `false`'s names bound in the same function (`span`), or a
    conjunction (`and`) holding one."""
    if isinstance(test, ast.Name):
        return false.get(test.id, (-1, -1)) == span
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        return any(_proved_false(value, false, span) for value in test.values)
    return False


def _toggled_to(node: ast.AST) -> ast.expr | None:
    """The value `node` sets requires_grad to, when not the literal True: `x.requires_grad =
    v`, `x.requires_grad_(v)`; None otherwise (`requires_grad_()` turns it on)."""
    value: ast.expr | None = None
    if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        if any(isinstance(t, ast.Attribute) and t.attr == "requires_grad" for t in targets):
            value = node.value
    elif (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "requires_grad_"
    ):
        values = [*node.args, *(k.value for k in node.keywords)]
        value = None if made_tensor(node.func.value) else values[0] if values else None
    if value is None or (isinstance(value, ast.Constant) and value.value is True):
        return None
    return value


def module_grad_toggles(path: str, source: str) -> tuple[tuple[str, str, bool, str], ...]:
    """A module's toggles, as the program tells other modules (ProgramFacts.grad_toggles):
    (text, "path:line", early, callee), early when it is in a constructor or at module level
    (it runs before a function that wraps: no DP041, but it may freeze a model before its
    wrap, see model_wrap.py's ddp_wrap_trainable); callee: the name of the function holding
    it where only a call by that name can run it (a module-level function, a method of a
    class with no base but `object`; not a dunder): a program that never names it never
    runs the toggle (told.py). "" where a library may call it by its name."""
    if "requires_grad" not in source:
        return ()
    try:
        tree = parse_python(source)
    except (SyntaxError, ValueError, RecursionError):
        return ()
    by_name = _called_by_name_only(tree)
    return tuple(
        (
            toggle.text,
            f"{path}:{toggle.line}",
            toggle.function in ("", "__init__"),
            toggle.function if (toggle.function, toggle.span[0]) in by_name else "",
        )
        for toggle in grad_toggles(tree)
    )


def _called_by_name_only(tree: ast.Module) -> set[tuple[str, int]]:
    """(name, line) of the module's top-level functions and the methods of its top-level
    classes based on nothing but `object`, dunders left out: nothing outside the program
    calls them by a protocol of its own."""
    found: set[tuple[str, int]] = set()
    for node in tree.body:
        functions: list[ast.stmt] = [node]
        if isinstance(node, ast.ClassDef):
            bases = [ast.unparse(b) for b in node.bases]
            if node.keywords or node.decorator_list or bases not in ([], ["object"]):
                continue
            functions = node.body
        for function in functions:
            if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) and not (
                function.name.startswith("__") or function.decorator_list
            ):
                found.add((function.name, function.lineno))
    return found


def handed_in(
    init: ast.FunctionDef | ast.AsyncFunctionDef, me: str, registered: Container[str]
) -> set[str]:
    """Attributes `__init__` binds to one of its parameters (`self.t_net = t_net`,
    `self.a, self.b = a, b`): modules handed in, whose class this one does not know."""
    args = init.args
    params = {a.arg for a in (*args.posonlyargs, *args.args[1:], *args.kwonlyargs)}
    found: set[str] = set()
    for node in init.body:
        if not isinstance(node, ast.Assign):
            continue
        pairs: list[tuple[ast.expr, ast.expr]] = []
        for target in node.targets:
            if isinstance(target, ast.Tuple) and isinstance(node.value, ast.Tuple):
                if len(target.elts) == len(node.value.elts):
                    pairs += list(zip(target.elts, node.value.elts, strict=True))
            else:
                pairs.append((target, node.value))
        found |= {
            target.attr
            for target, value in pairs
            if is_self_attribute(target, me)
            and isinstance(target, ast.Attribute)
            and isinstance(value, ast.Name)
            and value.id in params
            and target.attr not in registered
        }
    return found


def module_unfreezes(path: str, source: str) -> tuple[tuple[str, str], ...]:
    """The statements of a module that set `requires_grad` to True on parameters, as the
    program tells its other modules (ProgramFacts.unfreezes): ("path:line", callee), callee
    as module_grad_toggles gives it. A model frozen in part when it is wrapped and unfrozen
    by such a statement (VITA-Group/DeblurGANv2's `netG.module.unfreeze()`, a method of
    models/fpn_mobilenet.py, of a generator models/networks.py wraps: stop 48 class v2-A)
    trains the unfrozen parameters per rank: DDP's reducer holds what required grad at the
    wrap. A loop variable over `.parameters()` (`for p in m.parameters(): p.requires_grad =
    True`) or an attribute chain (`m.weight.requires_grad_()`); not an input tensor made to
    require grad (a gradient penalty's `x.requires_grad_(True)`)."""
    if "requires_grad" not in source:
        return ()
    try:
        tree = parse_python(source)
    except (SyntaxError, ValueError, RecursionError):
        return ()
    by_name = _called_by_name_only(tree)
    found: list[tuple[str, str]] = []

    def visit(node: ast.AST, function: str, start: int, params: frozenset[str]) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                visit(child, child.name, child.lineno, frozenset())
                continue
            inner = params
            if isinstance(child, ast.For) and any(
                isinstance(n, ast.Attribute) and n.attr in ("parameters", "named_parameters")
                for n in ast.walk(child.iter)
            ):
                inner = params | {n.id for n in ast.walk(child.target) if isinstance(n, ast.Name)}
            if _unfrozen(child, inner):
                callee = function if (function, start) in by_name else ""
                found.append((f"{path}:{getattr(child, 'lineno', 0)}", callee))
            visit(child, function, start, inner)

    visit(tree, "", 0, frozenset())
    return tuple(found)


def _unfrozen(node: ast.AST, params: frozenset[str]) -> bool:
    """`node` sets requires_grad to True on a parameter: a name of `params` or a chain of
    attributes (`self.features.weight`)."""

    def parameter(expr: ast.expr) -> bool:
        if isinstance(expr, ast.Name):
            return expr.id in params
        while isinstance(expr, ast.Attribute):
            expr = expr.value
        return isinstance(expr, ast.Name)

    if isinstance(node, ast.Assign):
        return (
            isinstance(node.value, ast.Constant)
            and node.value.value is True
            and any(
                isinstance(t, ast.Attribute) and t.attr == "requires_grad" and parameter(t.value)
                for t in node.targets
            )
        )
    if not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)):
        return False
    call = node.value
    values = [*call.args, *(k.value for k in call.keywords)]
    return (
        isinstance(call.func, ast.Attribute)
        and call.func.attr == "requires_grad_"
        and parameter(call.func.value)
        and (not values or (isinstance(values[0], ast.Constant) and values[0].value is True))
    )
