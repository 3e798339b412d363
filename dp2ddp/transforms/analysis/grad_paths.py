"""Where forward() is not proved to give a layer a gradient (DP041, partial_forward.py):
a region with gradients off, an entry picked at run time; and the loops that walk every
position of a container."""

from __future__ import annotations

import ast

from dp2ddp.transforms._support import ast_nodes
from dp2ddp.transforms._support.ast_nodes import is_self_attribute
from dp2ddp.transforms.analysis import module_parts


def grad_off(item: ast.withitem, me: str) -> str | None:
    """The context manager of `item` when it may turn gradients off: `torch.no_grad()`,
    `torch.inference_mode()`, `torch.set_grad_enabled(flag)` with a flag not proved True
    (`True`, `self.training` are: a step trains); None otherwise."""
    call = item.context_expr
    if not isinstance(call, ast.Call):
        return None
    func = call.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    values = [*call.args, *(k.value for k in call.keywords)]
    on = bool(values) and (
        (isinstance(values[0], ast.Constant) and values[0].value is True)
        or training_side(values[0], me) is True
    )
    off = {
        "no_grad": True,
        "inference_mode": not (
            values and isinstance(values[0], ast.Constant) and values[0].value is False
        ),
        "set_grad_enabled": bool(values) and not on,
    }.get(name, False)
    return ast.unparse(call).replace("{", "{{").replace("}", "}}") if off else None


def fixed_index(index: ast.expr) -> bool:
    """An index or slice made of literals only (`[0]`, `["c"]`, `[-1]`, `[:2]`): the same
    entries in every step."""
    return all(
        isinstance(n, (ast.Constant, ast.Slice, ast.Tuple, ast.UnaryOp, ast.unaryop, ast.Load))
        for n in ast_nodes.walk(index)
    )


def covering_reads(function: ast.FunctionDef | ast.AsyncFunctionDef, me: str) -> set[int]:
    """ids of the `self.x[i]` reads in `function` whose loop walks every position of a
    container: `for i in range(len(self.x))`, `for i, _ in enumerate(self.y)`, with `i` not
    bound again in the loop and the loop not left early (a `break`, a `return`). A container
    read at the position of another one it is built beside (`self.norms[i]` in a loop over
    `self.blocks`) is taken as aligned with it: its sizes are not compared (a longer one's
    last entries would be missed)."""
    covered: set[int] = set()
    for loop in ast_nodes.walk(function):
        if not isinstance(loop, (ast.For, ast.AsyncFor)) or module_parts.own_break(loop.body):
            continue
        walked = index_walk(loop, me)
        if walked is None:
            continue
        index = walked
        inside = [n for stmt in loop.body for n in ast_nodes.walk(stmt)]
        if any(isinstance(n, ast.Return) for n in inside) or any(
            isinstance(n, ast.Name) and n.id == index and not isinstance(n.ctx, ast.Load)
            for n in inside
        ):
            continue
        for node in inside:
            if (
                isinstance(node, ast.Subscript)
                and is_self_attribute(node.value, me)
                and isinstance(node.value, ast.Attribute)
                and isinstance(node.slice, ast.Name)
                and node.slice.id == index
            ):
                covered.add(id(node))
    return covered


def index_walk(loop: ast.For | ast.AsyncFor, me: str) -> str | None:
    """The index name of `for i in range(len(self.x))` or `for i, _ in enumerate(self.x)`;
    None for any other loop."""
    it, target = loop.iter, loop.target
    if not isinstance(it, ast.Call) or not isinstance(it.func, ast.Name) or it.keywords:
        return None
    if it.func.id == "range" and len(it.args) == 1 and isinstance(target, ast.Name):
        counted = it.args[0]
        if (
            isinstance(counted, ast.Call)
            and isinstance(counted.func, ast.Name)
            and counted.func.id == "len"
            and len(counted.args) == 1
            and is_self_attribute(counted.args[0], me)
        ):
            return target.id
    if (
        it.func.id == "enumerate"
        and len(it.args) == 1
        and is_self_attribute(it.args[0], me)
        and isinstance(target, ast.Tuple)
        and target.elts
        and isinstance(target.elts[0], ast.Name)
    ):
        return target.elts[0].id
    return None


def training_side(test: ast.expr, me: str) -> bool | None:
    """True: `if self.training:`; False: `if not self.training:`; None: another test."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = training_side(test.operand, me)
        return None if inner is None else not inner
    if (
        isinstance(test, ast.Attribute)
        and test.attr == "training"
        and isinstance(test.value, ast.Name)
        and test.value.id == me
    ):
        return True
    return None


def exits(statement: ast.If, training: bool | None = None) -> bool:
    """Some branch of `statement` that a training step may take returns (so what follows
    may not run in a step that goes on to its backward). A branch that raises ends no step
    normally: an input check (thunlp/OpenNRE's CNNEncoder) leaves nothing unused. A branch
    on `self.training` whose side is evaluation (`if not self.training: return f`,
    AlignedReID's ResNet50; the `else:` of `if self.training:`) never runs in a training
    step, the only steps DDP's reducer sees (`training`: `training_side` of the test)."""
    blocks: tuple[list[ast.stmt], ...] = (statement.body, statement.orelse)
    if training is not None:
        blocks = (statement.body,) if training else (statement.orelse,)
    return any(
        isinstance(node, ast.Return)
        for block in blocks
        for top in block
        for node in ast_nodes.walk(top)
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
    )


def parameter_attributes(init: ast.FunctionDef | ast.AsyncFunctionDef, me: str) -> frozenset[str]:
    """The attributes `__init__` binds to `nn.Parameter(...)` (any spelling ending so):
    indexing one picks elements of a tensor, the Parameter gets its gradient whole."""
    found: set[str] = set()
    for node in ast_nodes.walk(init):
        if not isinstance(node, (ast.Assign, ast.AnnAssign)) or node.value is None:
            continue
        value = node.value
        if not (isinstance(value, ast.Call) and ast.unparse(value.func).endswith("Parameter")):
            continue
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        found |= {
            t.attr for t in targets if isinstance(t, ast.Attribute) and is_self_attribute(t, me)
        }
    return frozenset(found)
