"""A model handed to a class and run several times before one backward (DP072).

DP096 (analysis/repeated_forwards.py) reads the calls of the wrapped model as the wrapping
module spells it. A program that hands its wrapped model to a class of another module
(zhunzhong07/ECN@5c5c177: `trainer = Trainer(model, model_inv)`, whose `train()` runs
`self.model(inputs)` and `self.model(inputs_target, 'tgt_feat')` before one backward) is
not followed there: DDP's first backward failed on both ranks ("Expected to mark a variable
ready only once"), no warning (stop 44, helper v1, class v1-C). Said, not proved: this
module sees the calls but not which model the class is handed.

Found, in a module that wraps nothing itself of a program with DataParallel: a class whose
`__init__` binds `self.X` to one of its parameters, and a method (or methods it calls) that
runs `self.X(...)` two or more times with gradients on before one backward
(forwards_before_backward, the same reading DP096 makes).
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator

import libcst as cst

from dp2ddp.transforms._support.ast_nodes import parse_python
from dp2ddp.transforms._support.nodes import ModuleNodes
from dp2ddp.transforms.analysis.repeated_forwards import forwards_before_backward


def handed_forwards(
    module: cst.Module, position: Callable[[cst.CSTNode], tuple[int, int]]
) -> Iterator[tuple[cst.CSTNode, str]]:
    """(node to warn at, detail) for DP072: the first call of a handed-in model run several
    times before a backward (the module itself where no call is on that line)."""
    calls = ModuleNodes(module).of(cst.Call)
    for line, detail in _handed_forwards(parse_python(module.code)):
        yield next((c for c in calls if position(c)[0] == line), module), detail


def _handed_forwards(tree: ast.Module) -> Iterator[tuple[int, str]]:
    """(line of the first call, detail) for each model attribute of a class bound from a
    parameter of its `__init__` and called several times before one backward."""
    for cls in (n for n in tree.body if isinstance(n, ast.ClassDef)):
        init = next(
            (f for f in cls.body if isinstance(f, ast.FunctionDef) and f.name == "__init__"),
            None,
        )
        if init is None or not init.args.args:
            continue
        me = init.args.args[0].arg
        params = {a.arg for a in (*init.args.args[1:], *init.args.kwonlyargs)}
        handed = [
            (target.attr, node.value.id)
            for node in ast.walk(init)
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Name)
            if node.value.id in params
            for target in node.targets
            if isinstance(target, ast.Attribute)
            and isinstance(target.value, ast.Name)
            and target.value.id == me
        ]
        alone = ast.Module(body=[cls], type_ignores=[])
        for attribute, param in handed:
            lines = forwards_before_backward(alone, f"self.{attribute}")
            if len(lines) > 1:
                where = ", ".join(map(str, lines))
                yield (
                    lines[0],
                    f"self.{attribute} (`{cls.name}.__init__`'s `{param}`) runs {len(lines)} "
                    f"forwards before one backward (lines {where}): where the program hands "
                    "it the DDP-wrapped model, that wrap needs static_graph=True",
                )
