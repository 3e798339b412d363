"""The wrapped model's parameters read outside its forward into the loss (DP048, with DP041).

DDP with `find_unused_parameters=True` marks ready, when forward returns, every parameter
forward's outputs do not reach. A parameter the loss also reads outside forward gets its
gradient in the backward through that read, and DDP marks it again: "Expected to mark a
variable ready only once" at the first backward, on every rank (rtqichen/ffjord@994864a,
class v2-B of stop 46: the CNF's end time, which forward copies with `torch.tensor(...)`,
summed by `loss + count_total_time(model) * time_penalty`, `count_total_time` running
`model.apply(...)` in train_misc.py). Under DataParallel the read was an ordinary term.

What is read, with `ast`, in the module that wraps: each scope's (module level, each
function's) `x.backward()` calls, and the names whose assignments in that scope flow into
`x`. A value of such an assignment that reads the wrapped model (`target` as spelled) other
than by calling it is a read outside forward: `target.module.scale`, `target.parameters()`
and the like, or a call of a function of the program handed `target` whose body does more
with that parameter than call it (`model.apply(f)`, `model.modules()`, `.parameters()`,
`.module`). The function is found among the module's top-level functions (or an object of
one of its classes, whose forward runs), or in the program module a `from X import f` of
this module names (a file beside it). A function that only
calls the model (`compute_loss(x, model)`: a forward) is no read; one not found is not
counted.
"""

from __future__ import annotations

import ast
import os
from collections.abc import Callable, Iterator

from dp2ddp.transforms._support import ast_nodes
from dp2ddp.transforms._support.ast_nodes import parse_python

#: Attributes of a module whose use reads its parameters outside forward (a call of the
#: model itself, `.forward(...)`, `.train()`/`.eval()` and `.state_dict()` are not).
_READS = frozenset(
    {
        "apply",
        "modules",
        "named_modules",
        "parameters",
        "named_parameters",
        "children",
        "named_children",
        "module",
    }
)

#: name -> the program function it names, or None (see program_functions).
Resolve = Callable[[str], ast.FunctionDef | None]


def outside_reads(tree: ast.Module, target: str, resolve: Resolve) -> list[tuple[int, str]]:
    """The (line, code) where a loss that is backpropagated reads `target` outside its
    forward, by line, in the first scope that has any; [] where none is seen."""
    scopes: list[ast.AST] = [tree]
    scopes += [n for n in ast_nodes.walk(tree) if isinstance(n, ast.FunctionDef)]
    for scope in scopes:
        own = list(_own_nodes(scope))
        names = {
            node.func.value.id
            for node in own
            if isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "backward"
            and isinstance(node.func.value, ast.Name)
        }
        if not names:
            continue
        assigns = [n for n in own if isinstance(n, (ast.Assign, ast.AugAssign, ast.AnnAssign))]
        values: list[ast.expr] = []
        grew = True
        while grew:
            grew = False
            for assign in assigns:
                targets = assign.targets if isinstance(assign, ast.Assign) else [assign.target]
                # names bound: `model.module.head = ...` stores into model, binds no name
                # (EasyOCR's train.py:81, read as the loss reading `model.module`: stop 63 s3)
                bound = {
                    n.id
                    for t in targets
                    for n in ast.walk(t)
                    if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
                }
                if assign.value is None or not bound & names or assign.value in values:
                    continue
                values.append(assign.value)
                read = {n.id for n in ast.walk(assign.value) if isinstance(n, ast.Name)}
                # the model itself, read by the loss only through its calls: a rebinding of
                # its name (`model = model.module` to evaluate after the epoch's steps) is no
                # read of the loss (round 34, y-zheng18/Image-classification@c5b91ae: DP048)
                read.discard(target)
                grew = grew or bool(read - names)
                names |= read
        found = [f for f in (_reads(v, target, resolve) for v in values) if f is not None]
        if found:
            return sorted(set(found))
    return []


def _reads(value: ast.expr, target: str, resolve: Resolve) -> tuple[int, str] | None:
    """Where `value` reads `target` other than by calling it."""
    for node in ast.walk(value):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id == target
            and node.attr in _READS
        ):
            return node.lineno, ast.unparse(node)
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
            continue
        handed = [
            i for i, arg in enumerate(node.args) if isinstance(arg, ast.Name) and arg.id == target
        ]
        function = resolve(node.func.id) if handed else None
        if function is None:
            continue
        params = [a.arg for a in function.args.posonlyargs + function.args.args]
        params = params[1:] if params[:1] == ["self"] else params  # an object's forward
        if any(i < len(params) and _reads_param(function, params[i]) for i in handed):
            return node.lineno, ast.unparse(node)
    return None


def _reads_param(function: ast.FunctionDef, param: str) -> bool:
    """`function` does more with its parameter `param` than call it."""
    return any(
        isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == param
        and node.attr in _READS
        for node in ast.walk(function)
    )


def _own_nodes(scope: ast.AST) -> Iterator[ast.AST]:
    """The nodes of `scope`'s own code: not those of a function or class defined in it."""
    body = scope.body if isinstance(scope, (ast.Module, ast.FunctionDef)) else []
    todo: list[ast.AST] = list(body)
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        yield node
        todo.extend(ast.iter_child_nodes(node))


def program_functions(tree: ast.Module, filename: str) -> Resolve:
    """Finds a name's function: a top-level function of `tree`, or of the module beside
    `filename` that a `from X import name` of `tree` names (X a file `X.py` there)."""
    own = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    own.update(_called_objects(tree))
    imported = {
        (alias.asname or alias.name): (node.module, alias.name)
        for node in tree.body
        if isinstance(node, ast.ImportFrom) and node.module and not node.level
        for alias in node.names
    }
    folder = os.path.dirname(os.path.abspath(filename)) if filename else ""
    cache: dict[str, dict[str, ast.FunctionDef]] = {}

    def resolve(name: str) -> ast.FunctionDef | None:
        if name in own:
            return own[name]
        if name not in imported or not folder:
            return None
        module, real = imported[name]
        if module not in cache:
            path = os.path.join(folder, *module.split(".")) + ".py"
            try:
                with open(path, encoding="utf-8") as file:
                    other = parse_python(file.read())
            except (OSError, SyntaxError, ValueError, RecursionError, UnicodeDecodeError):
                other = ast.Module(body=[], type_ignores=[])
            cache[module] = {n.name: n for n in other.body if isinstance(n, ast.FunctionDef)}
        return cache[module].get(real)

    return resolve


def _called_objects(tree: ast.Module) -> dict[str, ast.FunctionDef]:
    """name -> what calling the object it is bound to runs (`criterion = ELBOLoss()`: the
    class's `forward`, or its `__call__`), for a class of `tree`: a loss module handed the
    wrapped model reads it as a function does (round 29, ioangatop/srVAE@dfee765: its
    ELBOLoss.forward ran `model.module.calculate_elbo(...)`, a prior's parameter forward
    never reaches: "marked as ready twice" under find_unused_parameters=True, no DP048)."""
    classes = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}
    if not classes:
        return {}
    found: dict[str, ast.FunctionDef] = {}
    for node in ast_nodes.walk(tree):
        if not (
            isinstance(node, ast.Assign)
            and isinstance(node.value, ast.Call)
            and isinstance(node.value.func, ast.Name)
            and node.value.func.id in classes
        ):
            continue
        methods = {
            m.name: m for m in classes[node.value.func.id].body if isinstance(m, ast.FunctionDef)
        }
        runs = methods.get("__call__") or methods.get("forward")
        for target in node.targets:
            if isinstance(target, ast.Name) and runs is not None:
                found[target.id] = runs
    return found


def said_reads(
    why: str, target: str, reads: list[tuple[int, str]], line_map: Callable[[int], object]
) -> str:
    """DP048's text: `why` (find_unused_parameters=True's reason) and the reads of `target`
    outside its forward, each with the line the user sees (`line_map`)."""
    where = ", ".join(f"`{text}` (line {line_map(line)})" for line, text in reads)
    return (
        f"{why}; and the loss reads `{target}` outside its forward: {where}: DDP marks "
        "a parameter forward's outputs do not "
        "reach ready when forward returns, and again when the backward reaches it through "
        'that read (RuntimeError "Expected to mark a variable ready only once" at the '
        "first backward)"
    )
