"""Where forward() is not proved to give a layer a gradient (DP041, partial_forward.py):
a region with gradients off, an entry picked at run time; and the loops that walk every
position of a container."""

from __future__ import annotations

import ast
from collections.abc import Collection, Mapping, Sequence
from typing import Any

from dp2ddp.transforms._support import ast_nodes
from dp2ddp.transforms._support.ast_nodes import is_self_attribute
from dp2ddp.transforms.analysis import module_parts
from dp2ddp.transforms.analysis.inherited_layers import NOT_JUDGED

#: methods of a layer that set its mode or its flags and run none of its layers: a statement
#: `self.bert.train()` / `self.bert.eval()` / `self.x.requires_grad_(False)` gives no gradient
#: (Kyubyong/bert_ner calls both before running its BERT with gradients on one branch only,
#: under no_grad on the other: stop 43, v2-E). Only as a statement: the result of
#: `self.x.train()` is the layer, and calling it would run it.
MODE_CALLS = frozenset({"train", "eval", "requires_grad_", "zero_grad"})


def mode_call_arguments(statement: ast.stmt, me: str) -> list[ast.AST] | None:
    """The arguments of `statement` when it is `self.x.train()`, `self.x.eval()`,
    `self.x.requires_grad_(flag)`...: it runs none of `self.x`'s layers, so it is no use that
    gives them a gradient (its arguments may use others); None for any other statement."""
    if not isinstance(statement, ast.Expr) or not isinstance(statement.value, ast.Call):
        return None
    call = statement.value
    func = call.func
    if not (isinstance(func, ast.Attribute) and func.attr in MODE_CALLS):
        return None
    return [*call.args, *call.keywords] if is_self_attribute(func.value, me) else None


def both(why: str, branches: Sequence[tuple[Any, ...]], name: str) -> str:
    """Why `name`, used by one branch of an `if` (`why`: "uses {attr} only when `test`"), is
    used only in some passes, where the other branch uses it too under a condition of its
    own (an `elif` chain of modes: DeepEMD's forward() runs `self.encoder` when `mode ==
    'pre_train'` and when `mode == 'encoder'`, not when `mode == 'meta'`): both conditions,
    not the first alone (DP096 said "uses self.encoder only when `self.mode ==
    'pre_train'`": class v1-B of stop 43). `branches`: (uses, ...) of each branch."""
    stem = "uses {attr} only when "
    found = [b[0].sometimes[name][0] for b in branches if name in b[0].sometimes]
    if found and why.startswith(stem) and found[0].startswith(stem):
        return f"{why} or {found[0].removeprefix(stem)}"
    return why


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


def covering_reads(
    function: ast.FunctionDef | ast.AsyncFunctionDef,
    me: str,
    methods: Mapping[str, ast.FunctionDef | ast.AsyncFunctionDef] | None = None,
) -> set[int]:
    """ids of the `self.x[i]` reads in `function` whose loop walks every position of a
    container: `for i in range(len(self.x))`, `for i, _ in enumerate(self.y)`, with `i` not
    bound again in the loop and the loop not left early (a `break`, a `return`). A container
    read at the position of another one it is built beside (`self.norms[i]` in a loop over
    `self.blocks`) is taken as aligned with it: its sizes are not compared (a longer one's
    last entries would be missed). With the class's `methods`, also `for i in range(self.n)`
    over a container `__init__` built by a comprehension over that same count (QANet's
    Highway: `nn.ModuleList([... for _ in range(self.n)])`; see `counted_containers`)."""
    covered: set[int] = set()
    counted: dict[str, str] | None = None
    for loop in ast_nodes.walk(function):
        if not isinstance(loop, (ast.For, ast.AsyncFor)) or module_parts.own_break(loop.body):
            continue
        walked = index_walk(loop, me)
        bound = None
        if walked is None and methods is not None:
            walked, bound = _count_walk(loop, me)
        if walked is None:
            continue
        if bound is not None and counted is None:
            counted = counted_containers(methods or {})
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
                and (bound is None or (counted or {}).get(node.value.attr) == bound)
            ):
                covered.add(id(node))
    return covered


def _count_walk(loop: ast.For | ast.AsyncFor, me: str) -> tuple[str | None, str | None]:
    """(`i`, "n") for `for i in range(self.n)`; (None, None) for any other loop."""
    it, target = loop.iter, loop.target
    if (
        isinstance(it, ast.Call)
        and isinstance(it.func, ast.Name)
        and it.func.id == "range"
        and len(it.args) == 1
        and not it.keywords
        and isinstance(target, ast.Name)
        and is_self_attribute(it.args[0], me)
        and isinstance(it.args[0], ast.Attribute)
    ):
        return target.id, it.args[0].attr
    return None, None


def counted_containers(
    methods: Mapping[str, ast.FunctionDef | ast.AsyncFunctionDef],
) -> dict[str, str]:
    """attribute -> count attribute, for containers `__init__` builds with exactly as many
    entries as `self.<count>` holds: `self.x = nn.ModuleList([f() for _ in range(self.n)])`
    (or `range(n)` where `__init__` set `self.n = n` and never rebinds `n`), each bound once in
    the class and in no other method, the comprehension with one unfiltered `for`. A loop
    `for i in range(self.n)` then reads every entry of `self.x`."""
    init = methods.get("__init__")
    if init is None or not init.args.args:
        return {}
    me = init.args.args[0].arg
    stores: dict[str, int] = {}
    for method in methods.values():
        for node in ast_nodes.walk(method):
            if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                stores[node.attr] = stores.get(node.attr, 0) + 1
    rebound = {
        n.id
        for n in ast_nodes.walk(init)
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
    }
    aliases: dict[str, str] = {}  # parameter -> count attribute
    for stmt in init.body:
        if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1):
            continue
        # `self.n = n`, or element by element `self.c, self.n = c, n` (swz30/MIRNet@6934e83
        # networks/MIRNet_model.py:232, stop 61 v1-B)
        target, value = stmt.targets[0], stmt.value
        pairs: list[tuple[ast.expr, ast.expr]] = [(target, value)]
        if isinstance(target, ast.Tuple) and isinstance(value, ast.Tuple):
            same = len(target.elts) == len(value.elts)
            pairs = list(zip(target.elts, value.elts, strict=True)) if same else []
        for stored, source in pairs:
            if (
                is_self_attribute(stored, me)
                and isinstance(stored, ast.Attribute)
                and isinstance(source, ast.Name)
                and source.id not in rebound
            ):
                aliases[source.id] = stored.attr
    built: dict[str, str] = {}
    for stmt in init.body:
        if not (
            isinstance(stmt, ast.Assign)
            and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], ast.Attribute)
            and is_self_attribute(stmt.targets[0], me)
        ):
            continue
        value = stmt.value
        if isinstance(value, ast.Call) and len(value.args) == 1 and not value.keywords:
            value = value.args[0]  # nn.ModuleList([...]) / nn.ParameterList(...)
        if not isinstance(value, (ast.ListComp, ast.GeneratorExp)) or len(value.generators) != 1:
            continue
        loop = value.generators[0]
        it = loop.iter
        if (
            loop.ifs
            or loop.is_async
            or not (
                isinstance(it, ast.Call)
                and isinstance(it.func, ast.Name)
                and it.func.id == "range"
                and len(it.args) == 1
                and not it.keywords
            )
        ):
            continue
        count = it.args[0]
        name = None
        if isinstance(count, ast.Attribute) and is_self_attribute(count, me):
            name = count.attr
        elif isinstance(count, ast.Name):
            name = aliases.get(count.id)
        if name is not None and stores.get(name) == 1:
            built[stmt.targets[0].attr] = name
    return {attr: count for attr, count in built.items() if stores.get(attr) == 1}


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


#: How partial_forward.py says a layer used only with gradients off.
GRAD_OFF = "uses {attr} only under `with "


def layer_judged(
    how: str, needs: str | None, classes: Collection[str], empty: Collection[str]
) -> bool:
    """A partial use of a layer (`how` it is used; `needs`: its class of the program, if
    the claim rests on one) counts: a class that surely holds no parameter (`empty`) never;
    one judged (`classes`: with a forward of its own) or, for a use only with gradients
    off, any class of the program (round 30, juhongm999/hsnet@6b1bc12: a frozen backbone
    with no forward of its own, walked by a helper under no_grad(), still requiring
    gradients: "Expected to have finished reduction" at the second step, no DP041)."""
    if not needs:
        return True
    if needs.startswith(NOT_JUDGED):  # layers inherited from a base not judged here
        return needs[len(NOT_JUDGED) :] not in classes
    if needs in empty:
        return False
    return needs in classes or how.startswith(GRAD_OFF)
