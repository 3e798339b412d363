"""A model built by a call whose result dp2ddp cannot see into, taken apart by forward()
(DP041, partial_forward.py).

YuanGongND/ast@31088be (stop 51, class v4-C) src/models/ast_models.py: `__init__` keeps
`self.v = timm.create_model('vit_deit_base_distilled_patch16_384', ...)` and forward() calls
its layers one by one (`self.v.patch_embed(x)`, `for blk in self.v.blocks`, `self.v.norm(x)`)
and its own `self.mlp_head`, never `self.v` whole: timm's model also holds `head` and
`head_dist`, which get no gradient. DataParallel did not mind; DDP stops at the second step
("Expected to have finished reduction in the prior iteration"). torchvision's families are
read by name (module_parts.torchvision_heads: their head is known); a program class taken
apart is read through its own facts (module_parts.unreached). Here the call is neither (a
library's factory, `AutoModel.from_pretrained(...)`, a helper the module imports): what the
object holds is not known, so the layers forward() reaches are not proved to be all of its
parameters, and the wrap gets find_unused_parameters=True, said by DP041.

Taken apart means: bound in `__init__` (anywhere in it: under an `if` too) to such a call,
never read whole by forward() or the methods it calls on self (called, handed on, returned),
and at least one of its parts called or iterated there (`self.v.blocks`): an object whose
parts are run is a module; one only read for a setting (`self.tok.pad_token_id`) is not.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Container, Iterable

from dp2ddp.transforms._support import ast_nodes
from dp2ddp.transforms._support.ast_nodes import is_self_attribute
from dp2ddp.transforms.analysis.module_parts import _parts_read

#: Calls whose result's layers are known elsewhere: torch's own classes (layer_names), and
#: torchvision's model families (module_parts.torchvision_heads).
_KNOWN = ("torch.", "torchvision.models.")


def unknown_models_taken_apart(
    init: ast.FunctionDef | ast.AsyncFunctionDef,
    resolve: Callable[[ast.expr], tuple[str, bool] | None],
    functions: Iterable[ast.FunctionDef | ast.AsyncFunctionDef],
    registered: Container[str],
) -> list[tuple[str, str, int]]:
    """(attribute, how, line) for each such model `__init__` keeps (not a registered layer
    or program class: those are judged by what is known of them)."""
    if not init.args.args:
        return []
    me = init.args.args[0].arg
    built: dict[str, str] = {}  # attribute -> the call that builds it
    for node in ast_nodes.walk(init):
        if not (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and is_self_attribute(target := node.targets[0], me)
            and isinstance(node.value, ast.Call)
        ):
            continue
        assert isinstance(target, ast.Attribute)
        resolved = resolve(node.value.func)
        if resolved is None or resolved[0].startswith(_KNOWN) or target.attr in registered:
            continue
        built.setdefault(target.attr, resolved[0])
    if not built:
        return []
    reached = list(functions)
    parts, lines, whole = _parts_read(reached)
    run = _run_parts(reached)
    found: list[tuple[str, str, int]] = []
    for attribute, maker in built.items():
        if attribute in whole or not run.get(attribute):
            continue
        used = ", ".join(f"self.{attribute}.{p}" for p in sorted(parts[attribute]))
        how = (
            f"takes {{attr}} apart: it reads {used}, never self.{attribute} whole, and "
            f"{maker}() builds it: what else it holds is not known, so its other layers are "
            "not proved to get a gradient"
        )
        found.append((attribute, how, lines[attribute]))
    return found


def _run_parts(functions: Iterable[ast.FunctionDef | ast.AsyncFunctionDef]) -> dict[str, bool]:
    """attribute -> whether a part `self.x.part` is called or iterated (`for b in
    self.x.blocks`) in `functions`."""
    run: dict[str, bool] = {}
    for function in functions:
        if not function.args.args:
            continue
        me = function.args.args[0].arg
        for node in ast_nodes.walk(function):
            part = None
            if isinstance(node, ast.Call):
                part = node.func
            elif isinstance(node, (ast.For, ast.comprehension)):
                part = node.iter
            if (
                isinstance(part, ast.Attribute)
                and isinstance(part.value, ast.Attribute)
                and is_self_attribute(part.value, me)
            ):
                run[part.value.attr] = True
    return run
