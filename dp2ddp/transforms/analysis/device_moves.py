"""Element-wise device moves: what keeps a batch this rank's share on its way to the model.

A loader's batch moved to the device one element at a time stays the rows the sampler dealt
this rank: `batch = {k: v.to(device) for k, v in batch.items()}` (the most common Hugging
Face-style loop), `tuple(t.cuda() for t in batch)`, or one key at a time, `for key in batch:
batch[key] = move_data_to_device(batch[key], device)` (qiuqiangkong/
sound_event_detection_dcase2017_task4@823af88 main.py:245/248, the helper in another module).
A move is a chain of tensor methods that change only the device, dtype or memory
(`.to()`, `.cuda()`, `.float()`, `.long()`...), a conversion given the value alone
(`torch.as_tensor(v)`, `torch.Tensor(v)`), or a call of a function of the program whose
every return is its first parameter so moved (a function summary: `device_moves`, found once
per module with `ast`, ProgramHints.device_moves). Anything else in a comprehension (rows
indexed or sliced, values concatenated across keys) is not a move: the batch proof
(batches/beside.py) does not prove it. The lists of moves and conversions live with the
walk that follows values through them (flow/carriers.py).
"""

from __future__ import annotations

import ast

import libcst as cst

from dp2ddp.flow.carriers import CONVERSIONS, METHODS

#: Calls that join several values into one (rows of other elements added).
JOINS = frozenset({"cat", "concat", "concatenate", "stack", "hstack", "vstack", "dstack"})


def device_moves(tree: ast.Module) -> frozenset[str]:
    """Names of the module's top-level functions whose every `return` is their first
    parameter, moved (`x = torch.Tensor(x)` ... `return x.to(device)`), where the parameter
    is bound in the body only to moves of itself; `-name` for its other top-level functions
    (a name some module defines otherwise is no move: `program_moves`)."""
    found = set()
    for function in tree.body:
        if not isinstance(function, ast.FunctionDef):
            continue
        params = [*function.args.posonlyargs, *function.args.args]
        moves = bool(params) and _moves_first(function, params[0].arg)
        found.add(function.name if moves else f"-{function.name}")
    return frozenset(found)


def program_moves(modules: list[frozenset[str]]) -> frozenset[str]:
    """The names every module that defines them defines as a move (`device_moves` of each)."""
    every = frozenset().union(*modules)
    return frozenset(n for n in every if not n.startswith("-") and f"-{n}" not in every)


def _moves_first(function: ast.FunctionDef, name: str) -> bool:
    returns = []
    for node in ast.walk(function):
        if node is not function and isinstance(node, (ast.FunctionDef, ast.Lambda)):
            return False
        if isinstance(node, ast.Return):
            returns.append(node.value)
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.NamedExpr, ast.For)):
            if any(isinstance(t, ast.Name) and t.id == name for t in ast.walk(node.target)):
                return False
        elif isinstance(node, ast.Assign):
            targets = [t for target in node.targets for t in ast.walk(target)]
            if any(isinstance(t, ast.Name) and t.id == name for t in targets):
                single = len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
                if not (single and _moved_ast(node.value, name)):
                    return False
    return bool(returns) and all(r is not None and _moved_ast(r, name) for r in returns)


def _moved_ast(node: ast.expr, name: str) -> bool:
    if isinstance(node, ast.Name):
        return node.id == name
    if isinstance(node, ast.IfExp):
        return _moved_ast(node.body, name) and _moved_ast(node.orelse, name)
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    if isinstance(func, ast.Attribute) and func.attr in METHODS:
        if _moved_ast(func.value, name):
            return True
    last = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    return last in CONVERSIONS and len(node.args) == 1 and _moved_ast(node.args[0], name)


def kept_rows(node: cst.BaseExpression) -> cst.BaseExpression:
    """`node` less the METHODS chained on it (`next(it).to(device).float()` -> `next(it)`):
    the value whose rows it holds, as they are. The one home of that peel for a tensor (a
    batch drawn `x = next(it).to(device)` is the loader's batch: loop_takers.next_bound,
    sample_grids; round 22 (gen), pkuanjie/ArtFlow@bbc33ec's `content =
    next(content_iter).to(device)` left its running figures without DP030)."""
    while (
        isinstance(node, cst.Call)
        and isinstance(node.func, cst.Attribute)
        and node.func.attr.value in METHODS
    ):
        node = node.func.value
    return node


def moved(node: cst.BaseExpression, name: str, moves: frozenset[str]) -> bool:
    """`node` is the value of `name` moved element-wise (see the module docstring);
    `moves`: the program's functions that move their first argument."""
    if isinstance(node, cst.Name):
        return node.value == name
    if isinstance(node, cst.IfExp):  # `v.cuda() if cuda else v`
        return moved(node.body, name, moves) and moved(node.orelse, name, moves)
    if not isinstance(node, cst.Call):
        return False
    func = node.func
    if isinstance(func, cst.Attribute) and func.attr.value in METHODS:
        if moved(func.value, name, moves):
            return True
    return moves_call(node, moves) and moved(node.args[0].value, name, moves)


def moves_call(call: cst.Call, moves: frozenset[str]) -> bool:
    """A conversion given one value, or a call of a program function that moves its first
    argument (`move_data_to_device(x, device)`, `utils.move_data_to_device(...)`)."""
    last = _last(call.func)
    positional = [a for a in call.args if a.keyword is None and not a.star]
    if not positional or positional[0] is not call.args[0]:
        return False
    if last in CONVERSIONS:
        return len(positional) == 1
    return last in moves


def unmoved_comprehension(
    ancestors: list[cst.CSTNode], moves: frozenset[str]
) -> cst.BaseExpression | None:
    """The element (a dict's value) of a comprehension around a node (`ancestors`: its
    ancestors, innermost first) that is no element-wise move of a name the comprehension's
    `for`s bind (`{k: v[:4] for k, v in batch.items()}`, `{k: torch.cat([v, batch["x"]])
    ...}`); None where every comprehension up to the node's statement moves."""
    for ancestor in ancestors:
        if isinstance(ancestor, (cst.BaseSmallStatement, cst.BaseCompoundStatement)):
            return None
        if isinstance(ancestor, (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)):
            element = ancestor.value if isinstance(ancestor, cst.DictComp) else ancestor.elt
            names: set[str] = set()
            loop: cst.CompFor | None = ancestor.for_in
            while loop is not None:
                names |= {n.value for n in _names(loop.target)}
                loop = loop.inner_for_in
            if not any(moved(element, name, moves) for name in names) and _reshapes(element, names):
                return element
    return None


def _reshapes(element: cst.BaseExpression, names: set[str]) -> bool:
    """The element takes rows of what the comprehension's target holds (`v[:4]`,
    `v[idx]`) or joins values (`torch.cat([v, batch["x"]])`): not one value per element
    (`len(t.split())` per row of a list of texts is left to the proof's other rules)."""
    stack: list[cst.CSTNode] = [element]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Subscript) and any(
            isinstance(n, cst.Name) and n.value in names for n in _walk(node.value)
        ):
            return True
        if isinstance(node, cst.Call) and _last(node.func) in JOINS:
            return True
        stack.extend(node.children)
    return False


def _walk(node: cst.CSTNode) -> list[cst.CSTNode]:
    found, stack = [], [node]
    while stack:
        current = stack.pop()
        found.append(current)
        stack.extend(current.children)
    return found


def _last(func: cst.BaseExpression) -> str:
    if isinstance(func, cst.Attribute):
        return func.attr.value
    return func.value if isinstance(func, cst.Name) else ""


def _names(node: cst.CSTNode) -> list[cst.Name]:
    if isinstance(node, cst.Name):
        return [node]
    if isinstance(node, (cst.Tuple, cst.List)):
        return [n for e in node.elements for n in _names(e.value)]
    return []
