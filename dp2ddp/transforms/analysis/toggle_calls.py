"""A gradient toggle in a function the module calls only before its wrap: no parameter it
switches off can be one DDP registered (stop 49 f3: BobLiu20/YOLOv3_PyTorch@c6b4837
training/training.py: `_get_optimizer(config, net)` at line 36 freezes the backbone when
the configuration asks, the wrap is at line 43; DP041 said the freeze "may run after the
wrap", and a freeze that ran before it is no unused parameter of the wrap).

Proved where the toggle's function is a top-level function of the module, defined once,
named nowhere but in calls, each call in the wrap's own function (not in a function defined
inside it), on a line before the wrap, in no loop that also holds the wrap; and the module
is no library of a program (another module could call the function at any time)."""

from __future__ import annotations

import ast

from dp2ddp.transforms.analysis.module_parts import GradToggle


def called_only_before(tree: ast.Module, toggle: GradToggle, line: int) -> bool:
    """The module calls `toggle`'s function only before the wrap at `line` (the docstring)."""
    defs = [
        n
        for n in tree.body
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == toggle.function
    ]
    if len(defs) != 1 or (defs[0].lineno, defs[0].end_lineno) != toggle.span:
        return False
    wrapper = _innermost_function(tree, line)
    if wrapper is None or wrapper is defs[0]:
        return False
    name = toggle.function
    calls = [
        n
        for n in ast.walk(tree)
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == name
    ]
    named = [n for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id == name]
    if not calls or len(named) != len(calls):
        return False  # never called here, or handed on as a value: it may run at any time
    loops = [n for n in ast.walk(wrapper) if isinstance(n, (ast.For, ast.While, ast.AsyncFor))]
    for call in calls:
        if call.lineno >= line or _innermost_function(tree, call.lineno) is not wrapper:
            return False
        if any(_spans(loop, call.lineno) and _spans(loop, line) for loop in loops):
            return False
    return True


def _spans(node: ast.stmt, line: int) -> bool:
    return node.lineno <= line <= (node.end_lineno or node.lineno)


def _innermost_function(
    tree: ast.Module, line: int
) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    found: ast.FunctionDef | ast.AsyncFunctionDef | None = None
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and _spans(node, line):
            if found is None or node.lineno >= found.lineno:
                found = node
    return found
