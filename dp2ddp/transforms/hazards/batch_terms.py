"""A batch sum among the terms of a loss that is not summed on every term (DP004).

`loss = rec + kl` with `rec` a mean over the batch and `kl = -0.5 * torch.sum(1 + log_var -
mu.pow(2) - log_var.exp())` a sum over it (xcmyz/VAE-Tacotron@d57dd0a loss.py:31-32, stop 47
v2-B): under DDP each rank sums its share and DDP averages the gradients, so the summed
term's gradient is 1/WORLD_SIZE of DataParallel's while the mean's is DataParallel's. The
whole loss cannot be multiplied by WORLD_SIZE (the mean would grow), so the sum is said
(DP004: "a mean mixed in").

A term is said only where it is proved a sum over the batch of values the batch gives: the
additive terms of what reaches backward() (sums, differences, negations, products, a
division by a number literal; names through every binding in the scope), each a `.sum()` /
`torch.sum()` over dim 0 (or every element) with no batch reduction beneath
(hazards.losses' rule), whose summed value comes, through the module's def-use view
(flow.origins: tuple targets, calls of the module's functions), only from constants, a
wrapped model's output or a DataLoader's batches, at least one of the latter. A weight
penalty (`sum(p.pow(2).sum() for p in model.parameters())`, `w.pow(2).sum()`: a model's
parameters, the same on every rank) and a draw (`dist.sample((16,)).sum()`) are no such
sum, nor a hand mean (`(out - y).pow(2).sum() / x.size(0)`: divided by a size, not a number).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import libcst as cst

from dp2ddp.flow import DefUse, Function, Origin, origins
from dp2ddp.flow.returned import returned_values
from dp2ddp.transforms._support.names import DATALOADER, DATAPARALLEL, DISTRIBUTED_DATA_PARALLEL
from dp2ddp.transforms._support.nodes import name_of, walk
from dp2ddp.transforms.analysis.random_draws import RANDOM_DRAWS

QualifiedNames = Callable[[cst.CSTNode], set[str]]
_WRAPS = DATAPARALLEL | DISTRIBUTED_DATA_PARALLEL


def additive_terms(
    node: cst.BaseExpression,
    assigned: dict[str, list[cst.BaseExpression]],
    depth: int = 0,
    sizes: frozenset[str] = frozenset(),
    following: frozenset[int] = frozenset(),
    by_sizes: bool = True,
) -> Iterator[cst.BaseExpression]:
    """The leaves `node` adds up (each binding of a name in the scope followed, eight levels
    deep, and what lies deeper a leaf, not dropped: CBDNet's TV term sat five levels down,
    `loss = l2 + 0.5 * asym + 0.05 * tvloss`, `tvloss = h_tv / count_h + ...`): through
    `+`, `-`, `*`, a unary minus and a division by a number literal or by a row's size
    (row_size: `h_tv / count_h`, `count_h` one sample's element count), and a product or
    such a quotient spelled as a call (`x.mul(beta)`, `x.div(8)`). A product with
    a factor proved zero adds nothing (`torch.sum(pred) * 0`: no gradient on any rank,
    SakuraRiven/EAST@cec7ae9 loss.py:32, stop 51 v1-F4). `sizes`: the methods of the
    enclosing class that return a row's size (size_methods); `following`: the bindings on
    the way here, not followed again (`loss = loss + hinge(...)` reads its own name);
    `by_sizes` False: a quotient by a number literal only (where the batch may lie along
    another dimension than 0: a wrap's `dim=1`, where `t.size(1)` counts the rows)."""
    if depth > 8:
        yield node
        return
    if isinstance(node, cst.Name) and node.value in assigned:
        for bound in assigned[node.value]:
            if id(bound) not in following:
                yield from additive_terms(
                    bound, assigned, depth + 1, sizes, following | {id(bound)}, by_sizes
                )
    elif isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Multiply):
        if not (_zero(node.left) or _zero(node.right)):
            yield from additive_terms(node.left, assigned, depth + 1, sizes, following, by_sizes)
            yield from additive_terms(node.right, assigned, depth + 1, sizes, following, by_sizes)
    elif isinstance(node, cst.BinaryOperation) and isinstance(
        node.operator, (cst.Add, cst.Subtract)
    ):
        yield from additive_terms(node.left, assigned, depth + 1, sizes, following, by_sizes)
        yield from additive_terms(node.right, assigned, depth + 1, sizes, following, by_sizes)
    elif (
        isinstance(node, cst.BinaryOperation)
        and isinstance(node.operator, cst.Divide)
        and (
            row_size(node.right, assigned, sizes)
            if by_sizes
            else isinstance(node.right, (cst.Integer, cst.Float))
        )
    ):
        yield from additive_terms(node.left, assigned, depth + 1, sizes, following, by_sizes)
    elif isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        yield from additive_terms(node.expression, assigned, depth + 1, sizes, following, by_sizes)
    elif isinstance(node, cst.IfExp):  # `-d.sum() if real else d.sum()`: either is a term
        yield from additive_terms(node.body, assigned, depth + 1, sizes, following, by_sizes)
        yield from additive_terms(node.orelse, assigned, depth + 1, sizes, following, by_sizes)
    elif scaled := _scaled(node):
        if not (_method(node).startswith("mul") and any(_zero(o) for o in scaled)):
            for operand in scaled:
                yield from additive_terms(operand, assigned, depth + 1, sizes, following, by_sizes)
    else:
        yield node


def row_size(
    node: cst.BaseExpression,
    assigned: dict[str, list[cst.BaseExpression]],
    sizes: frozenset[str] = frozenset(),
    depth: int = 0,
) -> bool:
    """`node` is a number literal, or the size of one row of a tensor: a product of sizes of
    dimensions past the batch's (`t.size(1)`, `t.size()[2]`, `t.shape[3]`, a literal index
    of 1 or more), of numbers, of names every binding in the scope of which is one, and of
    calls of `self.<method>` in `sizes`. A sum over the batch divided by it is still a sum
    over the batch (round 16, IDKiro/CBDNet-pytorch@09a2e55 model/cbdnet.py:150-156: the TV
    term `h_tv / count_h + w_tv / count_w`, `count_h = self._tensor_size(est_noise[:, :,
    1:, :])` = C·H·W: DataParallel's gradient of it was the whole batch's, DDP's average of
    the ranks' shares' is 1/WORLD_SIZE of that, and no warning said so). A size that may
    count rows (`t.size(0)`, `len(t)`, `t.numel()`, a parameter) is not one: a hand mean."""
    if depth > 4:
        return False
    if isinstance(node, (cst.Integer, cst.Float)):
        return True
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Multiply):
        return row_size(node.left, assigned, sizes, depth + 1) and row_size(
            node.right, assigned, sizes, depth + 1
        )
    if isinstance(node, cst.Name):
        bound = assigned.get(node.value, [])
        return bool(bound) and all(row_size(b, assigned, sizes, depth + 1) for b in bound)
    if isinstance(node, cst.Subscript):  # t.shape[k], t.size()[k]
        inner = node.value
        sized = (isinstance(inner, cst.Attribute) and inner.attr.value == "shape") or (
            _method(inner) == "size" and isinstance(inner, cst.Call) and not inner.args
        )
        index = node.slice[0].slice if len(node.slice) == 1 else None
        return sized and isinstance(index, cst.Index) and _past_rows(index.value)
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
        if node.func.attr.value == "size" and len(node.args) == 1 and not node.args[0].keyword:
            return _past_rows(node.args[0].value)
        held = node.func.value
        return isinstance(held, cst.Name) and held.value == "self" and node.func.attr.value in sizes
    return False


def _past_rows(index: cst.BaseExpression) -> bool:
    """A literal dimension past the batch's (1 or more)."""
    return isinstance(index, cst.Integer) and int(index.value) >= 1


def size_methods(cls: cst.ClassDef) -> frozenset[str]:
    """The methods of `cls` whose every return is a row's size (row_size, with their own
    plain bindings: `return t.size()[1] * t.size()[2] * t.size()[3]`)."""
    if not isinstance(cls.body, cst.IndentedBlock):
        return frozenset()
    found: set[str] = set()
    for method in cls.body.body:
        if not isinstance(method, cst.FunctionDef) or not isinstance(
            method.body, cst.IndentedBlock
        ):
            continue
        statements = [s for s in method.body.body if isinstance(s, cst.SimpleStatementLine)]
        small = [b for line in statements for b in line.body]
        returns = [b for b in small if isinstance(b, cst.Return)]
        if len(statements) != len(method.body.body) or not returns:
            continue  # a branch or a loop: not read here
        assigned: dict[str, list[cst.BaseExpression]] = {}
        for b in small:
            if isinstance(b, cst.Assign) and len(b.targets) == 1:
                target = b.targets[0].target
                if isinstance(target, cst.Name):
                    assigned.setdefault(target.value, []).append(b.value)
        if all(r.value is not None and row_size(r.value, assigned) for r in returns):
            found.add(method.name.value)
    return frozenset(found)


def _zero(node: cst.BaseExpression) -> bool:
    """A number literal 0 (`0`, `0.0`, `-0.`): a name is not followed (the scope's
    `assigned` misses unpackings, loop targets and parameters, so "every binding" is
    unproved there)."""
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        node = node.expression
    return isinstance(node, (cst.Integer, cst.Float)) and node.evaluated_value == 0


def _method(node: cst.BaseExpression) -> str:
    return (
        node.func.attr.value
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute)
        else ""
    )


_SCALES = frozenset({"mul", "mul_", "multiply", "div", "div_", "divide", "true_divide"})


def _scaled(node: cst.BaseExpression) -> list[cst.BaseExpression]:
    """The operands of a product spelled as a call, as `*`'s (`x.mul(beta)`, `torch.mul(x,
    w)`: both), or the dividend of a quotient by a number literal, as `/`'s (`x.div(8)`,
    `torch.div(x, 8)`): stop 49 f1 for number factors, stop 50 s4 for any factor (`beta *
    kl` was followed, `kl.mul(beta)` was not)."""
    if not (isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute)):
        return []
    method = node.func.attr.value
    args = node.args
    if method not in _SCALES or any(a.keyword is not None or a.star for a in args):
        return []
    on_torch = isinstance(node.func.value, cst.Name) and node.func.value.value == "torch"
    operands = [a.value for a in args] if on_torch else [node.func.value, *(a.value for a in args)]
    if len(operands) != 2:
        return []
    if method.startswith("mul"):
        return operands  # x.mul(w), torch.mul(x, w), torch.mul(w, x)
    return [operands[0]] if isinstance(operands[1], (cst.Integer, cst.Float)) else []


#: Methods of a wrapped model that give its weights, not a forward's output of the batch.
_WEIGHT_READS = frozenset(
    {"parameters", "named_parameters", "buffers", "named_buffers", "state_dict", "modules",
     "named_modules", "children", "named_children"}
)  # fmt: skip


class BatchGiven:
    """Does a value come only from constants and what the batch gives (a wrapped model's
    output, a DataLoader's batches, the element of any loop that calls a wrapped model)?
    Over the module's def-use view; each wrapped-model question answered once per callee
    expression, each loop's once.

    A training loop's element is the batch whatever the loop iterates (a generator of the
    program's, a list): round 35, lonePatient/chinese-word2vec-pytorch@22c9b3f, a skip-gram
    model whose forward() sums its batch's loss, fed by a corpus class's `make_iter()`
    generator; the batch pass split each batch, but the loss was left unscaled and unsaid
    (updates 1/WORLD_SIZE of DataParallel's). Counted as the batch here, the hazards pass
    scales it, and the batch proof keeps that scale only where it proves the batch split
    (batches/summed.py: else taken back, said where not proved right)."""

    def __init__(self, flow: DefUse, qualified_names: QualifiedNames) -> None:
        self.flow = flow
        self.qualified_names = qualified_names
        self._wrapped: dict[int, bool] = {}
        self._training_loops: dict[int, bool] = {}

    def _training_element(self, origin: Origin) -> bool:
        """The value passed through the target of a `for` loop whose body calls a wrapped
        model (not a count: `range(...)`), the loop's batch."""
        for step in origin.path:
            if not step.cut or step.index:
                continue
            inner: cst.CSTNode = step.node
            for outer in self.flow.ancestors(step.node):
                if isinstance(outer, cst.For):
                    if outer.target is inner and self._training_loop(outer):
                        return True
                    break
                if not isinstance(outer, (cst.Tuple, cst.List, cst.Element, cst.StarredElement)):
                    break
                inner = outer
        return False

    def _own_layer(self, origin: Origin) -> cst.Call | None:
        """The call of a layer or method the value's own object holds (`self.fc(x)`, read
        from a method's `self`), given arguments: its output is what the layer makes of
        them, the weights alike on every rank."""
        param = origin.node
        if origin.kind != "parameter" or not isinstance(param, cst.Param):
            return None
        function = next(
            (a for a in self.flow.ancestors(param) if isinstance(a, cst.FunctionDef)), None
        )
        if function is None or not function.params.params:
            return None
        if function.params.params[0] is not param:
            return None
        for step in origin.path:
            node = step.node
            if isinstance(node, cst.Attribute):
                parent = self.flow.parent(node)
                node = parent if isinstance(parent, cst.Call) and parent.func is node else node
            if (
                isinstance(node, cst.Call)
                and node.args
                and isinstance(node.func, cst.Attribute)
                and isinstance(node.func.value, cst.Name)
                and node.func.value.value == param.name.value
            ):
                return node
        return None

    def _training_loop(self, loop: cst.For) -> bool:
        known = self._training_loops.get(id(loop))
        if known is None:
            iterable = loop.iter
            counted = isinstance(iterable, cst.Call) and name_of(iterable.func) == "range"
            known = self._training_loops[id(loop)] = not counted and any(
                isinstance(n, cst.Call) and self._is_wrapped_call(n) for n in walk(loop.body)
            )
        return known

    def _is_wrapped_call(self, call: cst.Call) -> bool:
        key = id(call.func)
        known = self._wrapped.get(key)
        if known is None:
            known = self._wrapped[key] = any(
                isinstance(o.node, cst.Call) and bool(self.qualified_names(o.node.func) & _WRAPS)
                for o in origins(self.flow, call.func)
                if not o.selects
            )
        return known

    def _given(self, call: cst.Call) -> bool:
        func = call.func
        if isinstance(func, cst.Attribute) and (
            func.attr.value in _WEIGHT_READS or self._weight(func.value)
        ):
            return False  # `model.named_parameters()`, `p.abs()` of its weights: no batch
        if name_of(call.func) == "ddp_shard_batch":
            return True  # a batch a migration split (a migrated file's)
        return bool(self.qualified_names(call.func) & DATALOADER) or self._is_wrapped_call(call)

    def _computes(self, call: cst.Call) -> bool:
        """A function of torch computing on what it is given (`torch.exp(x)`, `torch.pow`),
        no class of torch.nn and no draw: the walk follows its arguments, which decide."""
        names = self.qualified_names(call.func)
        return bool(names) and all(
            n.startswith("torch.")
            and not n.startswith("torch.nn.")
            and n.rsplit(".", 1)[-1].islower()
            and n not in RANDOM_DRAWS
            for n in names
        )

    def _weight(self, node: cst.CSTNode) -> bool:
        """`node` is a name every binding of which is a `for` over the model's weights
        (`for n, p in model.named_parameters():`): a value computed from it is a weight
        penalty (AWP's `param.abs().sum()`, round 12 v3-C), no batch, whatever the walk
        finds behind the model (`nn.DataParallel(m).cuda()` read as a call of the wrap)."""
        if not isinstance(node, cst.Name):
            return False
        bindings = self.flow.definitions(node)
        return bool(bindings) and all(
            d.kind == "for"
            and isinstance(d.value, cst.Call)
            and isinstance(d.value.func, cst.Attribute)
            and d.value.func.attr.value in _WEIGHT_READS
            for d in bindings
        )

    def __call__(
        self,
        value: cst.BaseExpression,
        site: tuple[cst.Call, Function] | None = None,
        outer: tuple[tuple[cst.Call, Function], ...] = (),
    ) -> bool:
        """`value` is given by the batch; `site`: the call whose function holds `value`
        (its parameters are that call's arguments), `outer`: the calls followed to it, the
        outermost first (a parameter of the criterion's forward() that its helper's is
        passed: hazards.summed_terms)."""
        given = False
        for origin in origins(self.flow, value, self._given):
            if origin.selects or origin.kind == "constant":
                continue
            if any(self._weight(step.node) for step in origin.path):
                return False
            if self._training_element(origin):
                given = True
                continue
            if origin.kind == "call" and isinstance(origin.node, cst.Call):
                if self._given(origin.node):
                    given = True
                    continue
                if self._computes(origin.node):
                    continue  # `torch.exp(2 * log_sigma)`: its arguments are followed too
            layer = self._own_layer(origin)
            if layer is not None and all(self(a.value, site, outer) for a in layer.args):
                given = True  # `self.fc(x)` in forward(): what the layer makes of x
                continue
            chain, argument = (*outer, site) if site is not None else outer, None
            while origin.kind == "parameter" and chain and argument is None:
                argument, chain = _passed(chain[-1], origin.node), chain[:-1]
            caller = chain[-1] if chain else None
            if argument is not None and self(argument, caller, chain[:-1]):
                given = True
                continue
            return False
        return given

    def forward_terms(
        self, name: cst.Name
    ) -> Iterator[tuple[cst.BaseExpression, tuple[cst.Call, Function]]]:
        """A name bound by unpacking what an instance of the module's own class returns
        (`rec, kl = criterion(out, x, mu, log_var)`, stop 47 v2-C): the element of each of
        its forward()'s returned tuples the name takes, with the call and the forward."""
        for definition in self.flow.definitions(name):
            call = definition.value
            if definition.kind != "assign" or len(definition.element) != 1:
                continue
            if not isinstance(call, cst.Call):
                continue
            for origin in origins(self.flow, call.func):
                owner = (
                    self.flow.class_called(origin.node)
                    if origin.kind == "instance" and isinstance(origin.node, cst.Call)
                    else None
                )
                forward = None if owner is None else self.flow.method(owner, "forward")
                if forward is None or forward.self_name is None:
                    continue
                for returned in returned_values(self.flow, forward):
                    index = definition.element[0]
                    if isinstance(returned, cst.Tuple) and index < len(returned.elements):
                        yield returned.elements[index].value, (call, forward)


def _passed(
    site: tuple[cst.Call, Function] | None, param: cst.CSTNode
) -> cst.BaseExpression | None:
    """What the instance call `site` passes for forward()'s `param` (`self` not passed)."""
    if site is None or not isinstance(param, cst.Param):
        return None
    call, forward = site
    if param not in forward.params:
        return None
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == param.name.value:
            return arg.value
    index = forward.params.index(param) - 1
    positional = [a for a in call.args if a.keyword is None]
    if any(a.star for a in positional[: index + 1]) or not 0 <= index < len(positional):
        return None
    return positional[index].value


def penalty(flow: DefUse, qualified_names: QualifiedNames, summed: cst.BaseExpression) -> bool:
    """The summed value depends on no batch: it comes, through the module's def-use view,
    only from constants and model objects (an instance of the module's own class, a
    torch.nn module or Parameter built, a DataParallel/DDP wrap) read through their
    attributes and methods, never called (`net.fc.weight.pow(2)`, `w.pow(2)` of `w =
    nn.Parameter(torch.zeros(3))`): a weight penalty, the same on every rank. A model's
    output (`net(x)`), a draw (`torch.randn(3)`) or a parameter of the function is none."""
    found = False
    for origin in origins(flow, summed):
        if origin.selects or origin.kind == "constant":
            continue
        node = origin.node
        if not isinstance(node, cst.Call) or origin.kind not in ("instance", "call"):
            return False
        if origin.kind == "call" and not _builds_module(node, qualified_names):
            if not any(_builds_module(s.node, qualified_names) for s in origin.path[1:]):
                return False  # a value computed here, not one a module is built from
        if any(s.call or _called(s.node, qualified_names) for s in origin.path[1:]):
            return False
        found = True
    return found


def _builds_module(node: cst.CSTNode, qualified_names: QualifiedNames) -> bool:
    if not isinstance(node, cst.Call):
        return False
    names = qualified_names(node.func)
    return bool(names & _WRAPS) or any(
        n.startswith("torch.nn.") and not n.startswith("torch.nn.functional.") for n in names
    )


#: Tensor methods of one tensor (their arguments an exponent, dims, a device or dtype) a
#: penalty reads its parameters through; any other call on the way may be a model's forward
#: (`model.train_model(x)`, whose argument the walk takes for one that shapes the value).
_PENALTY_METHODS = frozenset(
    "pow abs square sqrt norm sum mean view reshape flatten float double half to clone t "
    "exp log contiguous cpu cuda squeeze unsqueeze".split()
)


def _called(node: cst.CSTNode, qualified_names: QualifiedNames) -> bool:
    """`node` calls something (a model's forward: `net(x)`, `self.fc(x)`,
    `model.train_model(x)`) other than a tensor method of `_PENALTY_METHODS` (`w.pow(2)`)
    or a module's constructor."""
    if not isinstance(node, cst.Call) or _builds_module(node, qualified_names):
        return False
    func = node.func
    return not (isinstance(func, cst.Attribute) and func.attr.value in _PENALTY_METHODS)


def pick_element(
    value: cst.BaseExpression | None, element: tuple[int, ...]
) -> tuple[cst.BaseExpression | None, tuple[int, ...]]:
    """The element at the path in nested tuple or list literals, and what is left of the
    path where a value that is no literal is met (`(a, f(x))` at (1, 0): f(x), (0,))."""
    while element and isinstance(value, (cst.Tuple, cst.List)):
        index = element[0]
        items = value.elements
        starred = any(isinstance(e, cst.StarredElement) for e in items)
        if starred or not -len(items) <= index < len(items):
            return None, element
        value, element = items[index].value, element[1:]
    return value, element
