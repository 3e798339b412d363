"""Functions and lambdas a module binds inside its functions (or in a loop at module level),
by the qualified name a call of them resolves to: `train.<locals>.pick` for a `def pick():`
in `train()`, `Trainer.step.<locals>.noise` in a method, `pick` in a `for` at module level.

The draws of helpers (hazards/draws.py) are found through these as through the module's own
functions: a training loop that defines the function it calls, to draw its step's choice or
noise, draws as a helper does.
"""

from __future__ import annotations

import libcst as cst

from dp2ddp.transforms._support.nodes import walk


def local_functions(module: cst.Module) -> dict[str, cst.FunctionDef | cst.Lambda]:
    """The functions defined, and lambdas bound to a plain name, inside the module's functions
    and its classes' methods, by the qualified name a call of them resolves to
    (`train.<locals>.pick`). Stop 60, v4-C, megvii-model/SinglePathOneShot@36eed6c
    src/Supernet/train.py: the training loop defines `get_uniform_sample_cand()` (and the
    lambda `get_random_cand` it calls), which draw the subnetwork of each step with
    np.random, and hands its result to the wrapped model; DataParallel drew one for the
    whole batch, each rank drew its own (the program seeds nothing), silently."""
    found: dict[str, cst.FunctionDef | cst.Lambda] = {}
    for statement in module.body:
        if isinstance(statement, cst.FunctionDef):
            _collect_locals(statement.body, f"{statement.name.value}.<locals>.", found)
        elif isinstance(statement, cst.ClassDef):
            for method in statement.body.body:
                if isinstance(method, cst.FunctionDef):
                    prefix = f"{statement.name.value}.{method.name.value}.<locals>."
                    _collect_locals(method.body, prefix, found)
        else:  # a loop at module level defining them: by their own names
            _collect_locals(statement, "", found)
    return found


def _collect_locals(
    root: cst.CSTNode, prefix: str, found: dict[str, cst.FunctionDef | cst.Lambda]
) -> None:
    for node in walk(root, skip_scopes=True):
        if isinstance(node, cst.FunctionDef):
            name = f"{prefix}{node.name.value}"
            found[name] = node
            _collect_locals(node.body, f"{name}.<locals>.", found)
        elif (
            isinstance(node, cst.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0].target, cst.Name)
            and isinstance(node.value, cst.Lambda)
        ):
            found[f"{prefix}{node.targets[0].target.value}"] = node.value
