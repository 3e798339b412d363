"""Calls of a wrapped model that run several times before one backward (DP096, with DP041).

DDP with `find_unused_parameters=True` looks, when a forward returns, for the parameters
its output does not reach and marks them ready at once. A model called several times
before one backward (CUT's generator: a translation pass, then two encode-only passes for
a feature loss) has those marks made at its last call: a layer an earlier call used but
the last does not reach is marked ready there and again when the backward reaches it
("Expected to mark a variable ready only once", the first backward, on every rank).
Without the flag DDP waits for every parameter, which a step that leaves one unused
never gives; `static_graph=True` records the first step's use and replays it, which
runs both shapes and raises (loudly) at a step whose use differs (measured under torchrun
x2, torch 2.13: docs/real-world.md, stop 33).

What is read, with `ast`, in each function and at module level: the calls of the wrapped
model as the program spells it (`net(x)`, `self.netG(x)`, also `.forward(x)`) with
gradients on (not inside `with torch.no_grad()` / `torch.inference_mode()`), and the
`backward()` calls between them, in source order. Two or more such calls with no
backward between them are "several forwards before one backward", whether the backward
follows in the same function or, in a function with no backward of its own, after it
returns (CUT calls its generator twice in `calculate_NCE_loss` and back-propagates in
`optimize_parameters`). Calls after a function's last backward are not counted (an
evaluation after training). Calls in the two arms of one `if`/`else` (or `x if c else y`)
never run in one pass: a run counts the calls one path can take (pytorch-3dunet's
`_forward_pass`, torch-rechub's trainers: one forward per step). A call repeated by a
loop, with the backward after the loop (gradient accumulation), is not read here.

A module-level name rebound after the wrap to a plain module (`model = Model()`, `model =
model.module`: a translation pass on the saved weights, stop 54 r1-A) and not wrapped again
is the wrap only before that line: module-level calls after it are not counted, nor the
calls of a function that reads the global name and that only module-level statements after
it call (or none: an importer calls it once the module has run).
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from dp2ddp.transforms._support import ast_nodes
from dp2ddp.transforms.analysis.outside_reads import Resolve

_NO_GRAD = frozenset({"no_grad", "inference_mode"})


def forwards_before_backward(
    tree: ast.Module, target: str, wrap_line: int | None = None
) -> tuple[int, ...]:
    """Lines of the first run of two or more gradient-enabled calls of `target` (as
    spelled) with no backward() between them; () when no function has one. With the
    wrap's `wrap_line`, calls of the name once it is rebound to a plain module are not
    the wrap's (see rebound_bare)."""
    bare = rebound_bare(tree, target, wrap_line) if wrap_line is not None else None
    scopes: list[ast.AST] = [tree]
    scopes += [
        n for n in ast_nodes.listed(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
    ]
    for scope in scopes:
        if bare is not None and scope is not tree and _bare_only(tree, scope, target, bare):
            continue
        events: list[_Event] = []
        _collect(scope, target, events, (), top=True)
        if bare is not None and scope is tree:
            events = [e for e in events if e[0] < bare]
        run: list[_Event] = []
        for event in sorted(events):
            if not event[2]:
                lines = _one_path(run)
                if lines:
                    return lines
                run = []
            else:
                run.append(event)
        backward = any(not is_call for _line, _col, is_call, _arms in events)
        lines = _one_path(run) if scope is not tree and not backward else ()
        if lines:
            return lines  # the backward runs after this function returns
    return ()


def handed_forwards(tree: ast.Module, target: str, resolve: Resolve) -> str:
    """Where a function of the program that `target` (a plain name) is handed to runs it two
    or more times before one backward, under its parameter's name (`trainmask(audio_model,
    ...)` of another module, whose `audio_model(x, 'pretrain_mpc')` and `audio_model(x,
    'pretrain_mpg')` meet one backward: YuanGongND/ssast@a1a3eec, stop 57 v2-A); "" when
    no such call. The wrap's own module spells no second call, so its options were chosen
    for one forward (find_unused_parameters=True) and the callee's own wrap of the name, which
    would have static_graph=True, is skipped by its `if not isinstance(...)`: "marked as
    ready twice" at the first backward on every rank, no warning."""
    for function, name, line in _handed(tree, target, resolve):
        alone = ast.Module(body=[function], type_ignores=[])
        lines = forwards_before_backward(alone, name)
        if len(lines) > 1:
            where = ", ".join(map(str, lines))
            return (
                f"`{target}` is handed to {function.name}() (line {line}), which runs "
                f"it as `{name}` {len(lines)} times before one backward (lines {where} of "
                "its module)"
            )
    return ""


def _handed(
    tree: ast.Module, target: str, resolve: Resolve
) -> list[tuple[ast.FunctionDef, str, int]]:
    """(function, its parameter's name, the call's line) for each call of a program function
    (`resolve`) that hands it `target`, a plain name, by position or keyword."""
    found: list[tuple[ast.FunctionDef, str, int]] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
            continue
        function = resolve(node.func.id)
        if function is None:
            continue
        params = [a.arg for a in (*function.args.posonlyargs, *function.args.args)]
        names = [
            params[i]
            for i, arg in enumerate(node.args[: len(params)])
            if isinstance(arg, ast.Name) and arg.id == target
        ]
        names += [
            k.arg
            for k in node.keywords
            if k.arg and isinstance(k.value, ast.Name) and k.value.id == target
        ]
        found += [(function, name, node.lineno) for name in names]
    return found


def rebound_bare(tree: ast.Module, target: str, wrap_line: int) -> int | None:
    """The line of the first module-level statement after the wrap that binds the name
    `target` to a value no DataParallel / DDP wrap (`model = Model()`, `model =
    model.module`); None where there is none, `target` is no plain name or the wrap lies in
    a function (which may run after that statement)."""
    if not target.isidentifier():
        return None
    for node in ast_nodes.listed(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)) and (
            node.lineno <= wrap_line <= (node.end_lineno or node.lineno)
        ):
            return None
    for node in ast_nodes.listed(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        if not isinstance(node, ast.Assign) or node.lineno <= wrap_line:
            continue
        if not any(isinstance(t, ast.Name) and t.id == target for t in node.targets):
            continue
        if _module_level(tree, node) and not _wraps(node.value):
            later = [
                n
                for n in ast_nodes.listed(tree)
                if isinstance(n, ast.Assign)
                and n.lineno > node.lineno
                and any(isinstance(t, ast.Name) and t.id == target for t in n.targets)
                and _wraps(n.value)
            ]
            return None if later else node.lineno  # wrapped again: not followed
    return None


def _module_level(tree: ast.Module, statement: ast.stmt) -> bool:
    """`statement` lies in no function or class body."""
    todo: list[ast.AST] = list(tree.body)
    while todo:
        node = todo.pop()
        if node is statement:
            return True
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            todo += [c for c in ast.iter_child_nodes(node) if isinstance(c, ast.stmt)]
    return False


def _wraps(value: ast.expr) -> bool:
    """A wrap's call (`nn.DataParallel(m)`, `DistributedDataParallel(m)`)."""
    if not isinstance(value, ast.Call):
        return False
    func = value.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    return name in ("DataParallel", "DistributedDataParallel")


def _bare_only(tree: ast.Module, function: ast.AST, target: str, bare: int) -> bool:
    """`function` reads the global `target` (binds no local of that name) and every call
    of it by name is a module-level statement's, after the line `bare` (none: another
    module calls it after the import, when the name holds the plain module)."""
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    args = function.args
    params = [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]
    if any(a is not None and a.arg == target for a in params):
        return False
    for node in ast.walk(function):
        if isinstance(node, ast.Name) and node.id == target and isinstance(node.ctx, ast.Store):
            return False
    calls = [
        n
        for n in ast.walk(tree)
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == function.name
    ]
    inside = {
        id(n)
        for scope in ast.walk(tree)
        if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
        for n in ast.walk(scope)
    }
    return all(c.lineno > bare and id(c) not in inside for c in calls)


#: (line, column, is the model's call, the branch arms it lies in: (id of the if, arm)).
_Event = tuple[int, int, bool, tuple[tuple[int, int], ...]]


def _one_path(run: list[_Event]) -> tuple[int, ...]:
    """Lines of two or more calls of `run` that one path runs together (no two in the
    other arms of one `if`), the first such set; () when no path takes two."""
    for start, first in enumerate(run):
        taken = [first]
        for event in run[start + 1 :]:
            if all(_together(event[3], other[3]) for other in taken):
                taken.append(event)
        if len(taken) > 1:
            return tuple(event[0] for event in taken)
    return ()


def _together(one: tuple[tuple[int, int], ...], other: tuple[tuple[int, int], ...]) -> bool:
    arms = dict(one)
    return all(arms.get(branch, arm) == arm for branch, arm in other)


def _collect(
    node: ast.AST,
    target: str,
    events: list[_Event],
    arms: tuple[tuple[int, int], ...],
    top: bool,
) -> None:
    """The calls of `target` and of backward() under `node`, not in nested scopes nor in a
    block with gradients off, each with the arms of the `if`s it lies in (`arms`)."""
    if not top and isinstance(
        node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
    ):
        return
    if isinstance(node, (ast.With, ast.AsyncWith)) and any(
        _grad_off(item.context_expr) for item in node.items
    ):
        return
    if isinstance(node, ast.Call):
        spelled = ast.unparse(node.func)
        if spelled in (target, f"{target}.forward"):
            events.append((node.lineno, node.col_offset, True, arms))
        elif isinstance(node.func, ast.Attribute) and node.func.attr == "backward":
            # ordered where it runs, after its receiver: `loss_of(model(x)).backward()` is
            # one forward, then its backward (round 29, kevinbro96/CLAE_VAE@680da01's attack
            # step was counted as a third forward before the step's backward)
            end = (node.end_lineno or node.lineno, node.end_col_offset or node.col_offset)
            events.append((*end, False, arms))
    if isinstance(node, (ast.If, ast.IfExp)):
        _collect(node.test, target, events, arms, top=False)
        body: list[ast.AST] = [*node.body] if isinstance(node, ast.If) else [node.body]
        orelse: list[ast.AST] = [*node.orelse] if isinstance(node, ast.If) else [node.orelse]
        for arm, statements in enumerate((body, orelse)):
            for child in statements:
                _collect(child, target, events, (*arms, (id(node), arm)), top=False)
        return
    for other in ast.iter_child_nodes(node):
        _collect(other, target, events, arms, top=False)


def _grad_off(expr: ast.expr) -> bool:
    """`torch.no_grad()`, `torch.inference_mode()`, `torch.set_grad_enabled(False)`."""
    if not isinstance(expr, ast.Call):
        return False
    func = expr.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    if name in _NO_GRAD:
        return True
    return (
        name == "set_grad_enabled"
        and len(expr.args) == 1
        and isinstance(expr.args[0], ast.Constant)
        and expr.args[0].value is False
    )


#: What the reason of a class that back-propagates in its own forward() says (DP097).
BACKWARD_INSIDE = "inside forward(), before DDP can average it"


def backward_inside(
    reached: tuple[ast.FunctionDef | ast.AsyncFunctionDef, ...],
) -> tuple[tuple[str, int], ...]:
    """FUNIT's FUNITModel: forward() (or a method it calls on self) computes the losses
    and calls `loss.backward()` itself. DDP averages the gradients of a backward that
    runs after forward() returns, so no DDP setting runs this right (DP097); the first
    such call: (how, line), a partial use of analysis/partial_forward.py that names it
    (it wins over the others)."""
    for function in reached:
        for node in ast_nodes.walk(function):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "backward"
            ):
                text = ast.unparse(node).replace("{", "{{").replace("}", "}}")
                how = f"calls `{text}` {BACKWARD_INSIDE}"
                return ((how, node.lineno),)
    return ()


#: Context managers that switch a model's parameters' gradients off for the block
#: (advertorch.context): an attack's backward inside runs for the input's gradient only.
_PARAMLESS = frozenset({"ctx_noparamgrad", "ctx_noparamgrad_and_eval"})


def paramless_backwards(
    tree: ast.Module, target: str, resolve: Resolve, line_map: Callable[[int], object]
) -> str:
    """Where the program differentiates through the wrap `target` other than by a step's
    backward(), joined ("" where nowhere): a backward in a `with ctx_noparamgrad(target):`
    block (`_PARAMLESS`; nblt/Sub-AT@9f3bcd5 train_adv.py, an advertorch attack's
    perturb() on the wrap, stop 62 v3-C), or a `torch.autograd.grad(...)` call beside a call
    of the wrap: in a function of this module (or at module level) that calls `target` as
    spelled, or in a function the program hands `target` to that calls its parameter
    (TRADES' trades_loss(): the attack's `torch.autograd.grad(loss_kl, [x_adv])` before the
    step's backward, yaircarmon/semisup-adv@3f05b28, stop 63 v3-A). DDP with
    static_graph=True then averages no gradient of the later steps, each rank keeps its
    own, with no error: measured under torchrun x2, torch 2.14, for autograd.grad by the
    input and by the parameters (and with create_graph=True, a penalty the loss adds,
    which gradient_penalty.py reroutes past the wrap). `line_map`: this module's line as
    the user sees it."""
    places: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.With, ast.AsyncWith)) and any(
            isinstance(item.context_expr, ast.Call)
            and ast_nodes.last_name(item.context_expr.func) in _PARAMLESS
            and any(ast.unparse(a) == target for a in item.context_expr.args)
            for item in node.items
        ):
            places.append(f"`with ctx_noparamgrad({target})` at line {line_map(node.lineno)}")
    grads = _grad_names(tree)
    seen: set[int] = set()
    scopes: list[ast.AST] = [tree, *_functions(tree)]
    for scope in scopes:
        if _calls(scope, target):
            for call in _autograd_grads(scope, grads, seen):
                text = ast.unparse(call.func)
                places.append(f"`{text}()` at line {line_map(call.lineno)}")
    for function, name, _line in _handed(tree, target, resolve):
        if _calls(function, name):
            for call in _autograd_grads(function, grads, seen):
                text = ast.unparse(call.func)
                where = f"line {call.lineno} of its module"
                places.append(f"`{text}()` in {function.name}() ({where})")
    return ", ".join(dict.fromkeys(places))


def _functions(tree: ast.Module) -> list[ast.AST]:
    return [
        n for n in ast_nodes.listed(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
    ]


def _own(scope: ast.AST) -> list[ast.AST]:
    """The nodes of `scope`, not those of the functions, lambdas and classes it holds."""
    found: list[ast.AST] = []
    todo = list(ast.iter_child_nodes(scope))
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        found.append(node)
        todo += ast.iter_child_nodes(node)
    return found


def _calls(scope: ast.AST, name: str) -> bool:
    """`scope` calls `name` as spelled (`net(x)`, `net.forward(x)`)."""
    spelled = (name, f"{name}.forward")
    return any(isinstance(n, ast.Call) and ast.unparse(n.func) in spelled for n in _own(scope))


def _grad_names(tree: ast.Module) -> frozenset[str]:
    """The names `from torch.autograd import grad [as name]` binds in the module."""
    return frozenset(
        alias.asname or alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module == "torch.autograd"
        for alias in node.names
        if alias.name == "grad"
    )


def _creates_graph(call: ast.Call) -> bool:
    """`create_graph=<anything but False>`, or a 5th positional argument."""
    for keyword in call.keywords:
        if keyword.arg == "create_graph":
            value = keyword.value
            return not (isinstance(value, ast.Constant) and value.value is False)
    return len(call.args) >= 5


def _autograd_grads(scope: ast.AST, grads: frozenset[str], seen: set[int]) -> list[ast.Call]:
    """The `torch.autograd.grad(...)` calls (`autograd.grad`, an imported `grad`) of
    `scope`, outside the functions it holds, not in `seen` (which gets them). Not those
    with create_graph: a gradient penalty, whose forward gradient_penalty.py runs through
    `model.module` with the gradients averaged by hand (or DP023 says why not)."""
    found: list[ast.Call] = []
    for node in _own(scope):
        if not isinstance(node, ast.Call) or id(node) in seen:
            continue
        func = node.func
        if _creates_graph(node):
            continue  # a penalty: gradient_penalty.py reroutes it through `.module`
        if (
            isinstance(func, ast.Attribute)
            and func.attr == "grad"
            and ast_nodes.last_name(func.value) == "autograd"
        ) or (isinstance(func, ast.Name) and func.id in grads):
            seen.add(id(node))
            found.append(node)
    return sorted(found, key=lambda n: (n.lineno, n.col_offset))


def static_graph_text(runs: str, why: str, paramless: str) -> str:
    """DP096's text, or DP117's where the program differentiates through the wrap other
    than by a step's backward (`paramless`: where, see paramless_backwards): with
    static_graph=True the later steps' gradients are not averaged: each rank keeps its own,
    the ranks apart from the first step with no error (measured under torchrun x2, torch
    2.14: an advertorch attack's perturb() before each step, stop 62; torch.autograd.grad
    by the input or the parameters, stop 63). find_unused_parameters=True there: the
    figures of the original where every call reaches the same parameters (measured, stop
    63: also beside a layer no call uses, where no flag raises "Expected to have finished
    reduction" at the next step); "marked as ready twice" where the calls differ."""
    if paramless:
        return (
            f"{runs} and {why}, and the program differentiates through it other than by "
            f"the step's backward ({paramless}: an input's gradient, an attack's): "
            "static_graph=True would leave the gradients of every later step unaveraged, "
            "each rank its own, silently; find_unused_parameters=True instead, right where "
            "every call reaches the same parameters; where an earlier call reaches one the "
            'last does not, DDP raises "marked as ready twice" at the first backward'
        )
    return (
        f"{runs} and {why}: with find_unused_parameters=True DDP marks ready, at the last "
        "call, the parameters that call does not reach, and again when the backward reaches "
        'them through an earlier call (RuntimeError "marked as ready twice"); '
        "static_graph=True averages each once, while every step uses the same "
        "parameters (DDP raises at a step whose use differs)"
    )
