"""Outputs of a submodule that a caller drops (DP041, with analysis/partial_forward.py).

FloWaveNet (stop 28, L2): each flow block returns (residual output, skip output); the model
reads each block's residual only as the next block's input, so the last block's is dropped
and the layer that feeds only it gets no gradient: DDP fails at the second step. What is
read, with `ast`: which registered layers feed each element of the tuple literal a
forward() returns (`outputs`), and the calls in a caller's forward() whose result is
unpacked into names not all read after the call, or subscripted with a constant
(`dropped_outputs`); `starved` puts the two together across the program's classes.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Container, Iterable, Mapping
from dataclasses import dataclass

from dp2ddp.transforms._support import ast_nodes
from dp2ddp.transforms._support.ast_nodes import is_self_attribute
from dp2ddp.transforms.analysis.growing_methods import put_into
from dp2ddp.transforms.analysis.name_paths import branches as _branches
from dp2ddp.transforms.analysis.name_paths import names as _names
from dp2ddp.transforms.analysis.name_paths import own_nodes as _own_nodes
from dp2ddp.transforms.analysis.name_paths import read_paths
from dp2ddp.transforms.analysis.name_paths import rebindings as _rebindings
from dp2ddp.transforms.analysis.name_paths import rebound as _rebound

#: Per path through a method, the indices of a call's unpacked outputs it reads.
_Paths = tuple[tuple[int, ...], ...]

#: Per element of what a forward() returns, the (attribute, holds) pairs of the registered
#: layers feeding it (holds: "" for torch.nn layers and parameters, else the project class).
Outputs = tuple[tuple[tuple[str, str], ...], ...]


@dataclass(frozen=True)
class DroppedOutput:
    """`self.attribute` (or an element of it, a loop over a container) called at `line`,
    only the elements `kept` of its result read; `arity` is the unpacking's length (0 for
    a subscript: any length)."""

    cls: str
    attribute: str
    callees: tuple[str, ...]
    kept: tuple[int, ...]
    arity: int
    line: int
    path: str
    call: str
    last_pass: bool
    #: The method of `cls` the call is in: forward(), or a method forward() calls on `self`
    #: (ksw0306/ClariNet@df31b4c: `forward()` returns `self.wavenet(x)`, the helper drops
    #: the last block's residual).
    method: str = "forward"
    #: Per path through the method, the elements it reads after the call
    #: (name_paths.read_paths): `kept` is what every path reads; a layer starves when it
    #: feeds no element some path reads (STgram-MFN's head, read only where no margin
    #: head replaces it). (): not known per path, `kept` stands for every path.
    paths: tuple[tuple[int, ...], ...] = ()


def starved(
    dropped: DroppedOutput, outputs_of: Mapping[str, Outputs | None], known: Container[str]
) -> str | None:
    """How `dropped` leaves a callee's layers without a gradient (a `PartialUse.how`): a
    layer that feeds only the elements it leaves unread (a project class counts if it is
    `known`); None when every layer feeds a kept one, or the callee's outputs are not
    known. A callee that is no class `known` (a library's) is said (unread_callee)."""
    if dropped.callees and not any(c in known for c in dropped.callees):
        return unread_callee(dropped)
    for callee in dropped.callees:
        outputs = outputs_of.get(callee)
        if outputs is None:
            continue
        if dropped.arity and dropped.arity != len(outputs):
            continue
        expanded = [_expand(element, outputs_of) for element in outputs]
        how = _starved_on(dropped, callee, expanded, known)
        if how is not None:
            return how
    return None


def _starved_on(
    dropped: DroppedOutput,
    callee: str,
    expanded: list[set[tuple[str, str]]],
    known: Container[str],
) -> str | None:
    """starved's answer for one callee, per path (DroppedOutput.paths)."""
    for read in dropped.paths or (dropped.kept,):
        kept = {pair for index in read if index < len(expanded) for pair in expanded[index]}
        kept_names = {attribute for attribute, _ in kept}
        for index, element in enumerate(expanded):
            if index in read:
                continue
            alone = [
                attribute
                for attribute, holds in sorted(element)
                if attribute not in kept_names and (not holds or holds in known)
            ]
            if alone:
                elsewhere = not dropped.last_pass and any(index in p for p in dropped.paths)
                which = "the last pass's element" if dropped.last_pass else "element"
                layers = ", ".join(f"self.{a}" for a in alone)
                through = (
                    "" if dropped.method == "forward" else f"through self.{dropped.method}(): "
                )
                path = " on a path that does not read it" if elsewhere else ""
                return (
                    f"{through}drops {which} {index} of what {{attr}} returns "
                    f"(`{dropped.call}`){path}, "
                    f"which {callee.rsplit('.', 1)[-1]}.forward() alone feeds from {layers}"
                )
    return None


def unread_callee(dropped: DroppedOutput) -> str:
    """How `dropped` may starve layers of a model whose class no module of the program
    defines (a library's: `seq, _ = self.bert(x)` over pytorch_pretrained_bert's BertModel,
    class v2-C, stop 41): its forward() is not read, so what feeds the element left out is
    not known."""
    callee = dropped.callees[0]
    return (
        f"drops part of what {{attr}} returns (`{dropped.call}`), a model of "
        f"`{callee}`, whose forward() is not read (no file of the program: a library): "
        "the layers that feed only what is dropped get no gradient (a BERT's pooler when "
        "its pooled output is dropped)"
    )


def outputs(
    forward: ast.FunctionDef | ast.AsyncFunctionDef,
    methods: Mapping[str, ast.FunctionDef | ast.AsyncFunctionDef],
    registered: Mapping[str, tuple[int, str]],
    holders: Mapping[str, set[str]],
) -> Outputs | None:
    """Per element of the tuple literal every `return` of forward() gives, the registered
    layers feeding it (see ClassFacts.outputs): through forward()'s local names (every
    assignment of a name counts: an over-approximation that may keep a layer from being
    reported, never reports one that feeds a kept element) and the `self` methods it
    calls; a layer held by one that feeds it (`self.body = nn.Sequential(self.conv)`)
    feeds it too."""
    if not forward.args.args:
        return None
    me = forward.args.args[0].arg
    returns = [n for n in _own_nodes(forward) if isinstance(n, ast.Return)]
    if not returns:
        return None
    lengths = set()
    for each in returns:
        if not isinstance(each.value, (ast.Tuple, ast.List)) or any(
            isinstance(e, ast.Starred) for e in each.value.elts
        ):
            return None
        lengths.add(len(each.value.elts))
    if len(lengths) != 1 or lengths == {1}:
        return None
    method_reads: dict[str, set[str]] = {}

    def direct(node: ast.AST, seen: frozenset[str] = frozenset()) -> tuple[set[str], set[str]]:
        """(self attributes, local names) `node` reads."""
        attributes: set[str] = set()
        names: set[str] = set()
        for sub in ast_nodes.walk(node):
            if is_self_attribute(sub, me):
                assert isinstance(sub, ast.Attribute)
                attributes.add(sub.attr)
                if sub.attr in methods and sub.attr not in seen:
                    if sub.attr not in method_reads:
                        method_reads[sub.attr] = direct(methods[sub.attr], seen | {sub.attr})[0]
                    attributes |= method_reads[sub.attr]
            elif isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Load):
                names.add(sub.id)
        return attributes, names

    flows: list[tuple[set[str], ast.AST]] = []  # (names bound, the value they get)
    #: (name, token): a name unpacked from a call of a submodule of the program's own
    #: (`a, b, stop = self.decoder(h)`) gets only its element, "decoder[2/3]" (see
    #: _element_token), and what the call's arguments read.
    unpacked: list[tuple[str, str]] = []
    for node in _own_nodes(forward):
        member = _unpacked_member(node, me, registered)
        if member is not None:
            assert isinstance(node, ast.Assign) and isinstance(node.value, ast.Call)
            targets = [t.id for t in node.targets[0].elts]  # type: ignore[attr-defined]
            for index, name in enumerate(targets):
                unpacked.append((name, _element_token(member, index, len(targets))))
            arguments = [*node.value.args, *(k.value for k in node.value.keywords)]
            flows.extend((set(targets), argument) for argument in arguments)
            continue
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)) and node.value:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            bound = {n.id for t in targets for n in ast_nodes.walk(t) if isinstance(n, ast.Name)}
            flows.append((bound, node.value))
        elif isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
            flows.append((set(_names(node.target)), node.iter))
        elif isinstance(node, ast.NamedExpr):
            flows.append(({node.target.id}, node.value))
        elif isinstance(node, ast.withitem) and node.optional_vars is not None:
            flows.append((set(_names(node.optional_vars)), node.context_expr))
        elif (
            isinstance(node, ast.Expr)
            and isinstance(node.value, ast.Call)
            and isinstance(node.value.func, ast.Attribute)
            and isinstance(node.value.func.value, ast.Name)
        ):  # `out.add_(self.b(x))`
            flows.append(({node.value.func.value.id}, node.value))
    read = [(bound, direct(value)) for bound, value in flows]
    of_name: dict[str, set[str]] = {}
    for name, token in unpacked:
        of_name.setdefault(name, set()).add(token)
    changed = True
    while changed:
        changed = False
        for bound, (attributes, names) in read:
            got = set(attributes)
            for name in names:
                got |= of_name.get(name, set())
            for name in bound:
                have = of_name.setdefault(name, set())
                if not got <= have:
                    have |= got
                    changed = True
    elements: list[set[str]] = [set() for _ in range(lengths.pop())]
    for returned in returns:
        assert isinstance(returned.value, (ast.Tuple, ast.List))
        for index, value in enumerate(returned.value.elts):
            attributes, names = direct(value)
            elements[index] |= attributes
            for name in names:
                elements[index] |= of_name.get(name, set())
    result = []
    for element in elements:
        grown = set(element)
        size = -1
        while size != len(grown):
            size = len(grown)
            grown |= {a for a, held_by in holders.items() if held_by & grown}
        pairs = {(a, registered[a][1]) for a in grown if a in registered}
        pairs |= {(a, registered[_token_member(a)][1]) for a in grown if _token_member(a)}
        result.append(tuple(sorted(pairs)))
    return tuple(result)


def several_outputs(
    cls: ast.ClassDef, resolve: Callable[[ast.expr], tuple[str, bool] | None]
) -> str:
    """How `cls`'s forward() returns several outputs whose layers `outputs` does not map
    to elements: a comprehension (`[head(h) for head in self.heads]`), a list or dict
    built by appends or item assignments in forward() (also on `self`, returned sliced:
    JiawangBian/SC-SfMLearner-Release@681a0e7's decoder, `self.outputs[::-1]`), a dict
    literal, a tuple or list with a starred part; "@attr@A,B" where it returns what its
    submodule `self.attr` (of the program's classes A, B) returns (resolve_several); ""
    for anything else (one tensor, a tuple literal `outputs` reads). A caller keeping
    only part of such a value may starve layers (analysis/kept_outputs.py)."""
    methods = {n.name: n for n in cls.body if isinstance(n, ast.FunctionDef)}
    forward, init = methods.get("forward"), methods.get("__init__")
    if forward is None or init is None or not forward.args.args or not init.args.args:
        return ""
    me = forward.args.args[0].arg
    built: dict[str, str] = {}
    passed: dict[str, str] = {}  # a name bound to `self.attr(...)`: attr
    for node in _own_nodes(forward):
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            key, value = ast.unparse(node.targets[0]), node.value
            if _container(value):
                built[key] = _container(value)
            elif isinstance(value, (ast.List, ast.Dict)) or (
                isinstance(value, ast.Call)
                and isinstance(value.func, ast.Name)
                and value.func.id in ("list", "dict")
                and not value.args
            ):
                built.setdefault(key, "")
            elif isinstance(value, ast.Call) and is_self_attribute(value.func, me):
                passed[key] = value.func.attr  # type: ignore[attr-defined]
    for node in _own_nodes(forward):
        grown = ""
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("append", "extend", "insert")
        ):
            grown = ast.unparse(node.func.value)
        elif isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Subscript):
            grown = ast.unparse(node.targets[0].value)
        if grown in built and not built[grown]:
            built[grown] = f"`{grown}`, built by `{ast.unparse(node).splitlines()[0][:60]}`"
    held = held_classes(init, init.args.args[0].arg, resolve)
    for each in _own_nodes(forward):
        if not isinstance(each, ast.Return) or each.value is None:
            continue
        value = each.value
        if isinstance(value, ast.Subscript) and isinstance(value.slice, ast.Slice):
            value = value.value  # `self.outputs[::-1]`: the same outputs, reordered
        key = ast.unparse(value)
        if _container(value) or built.get(key):
            return _container(value) or built[key]
        if isinstance(value, ast.Call) and is_self_attribute(value.func, me):
            key = passed.setdefault(key, value.func.attr)  # type: ignore[attr-defined]
        if passed.get(key) in held:
            return f"@{passed[key]}@{','.join(held[passed[key]])}"
    return ""


def resolve_several(several: Mapping[str, str]) -> dict[str, str]:
    """several_outputs' answers with each "@attr@A,B" (forward() returns what its
    submodule returns) replaced by that class's, "what self.attr returns: ..." ("" where
    none of them returns several outputs), across the program's classes."""

    def answer(name: str, depth: int) -> str:
        text = several.get(name, "")
        if not text.startswith("@") or depth > 8:
            return "" if text.startswith("@") else text
        _, attr, classes = text.split("@", 2)
        for each in classes.split(","):
            inner = answer(each, depth + 1)
            if inner:
                return f"what self.{attr} returns: {inner}"
        return ""

    return {name: answer(name, 0) for name in several}


def _container(value: ast.expr) -> str:
    """A value of several outputs whose elements are not listed one by one."""
    if isinstance(value, (ast.ListComp, ast.DictComp, ast.GeneratorExp)):
        return f"a comprehension, `{ast.unparse(value)[:60]}`"
    if isinstance(value, ast.Dict) and len(value.keys) > 1:
        return f"a dict, `{ast.unparse(value)[:60]}`"
    if isinstance(value, (ast.Tuple, ast.List)) and any(
        isinstance(e, ast.Starred) for e in value.elts
    ):
        return f"a sequence with a starred part, `{ast.unparse(value)[:60]}`"
    return ""


def _unpacked_member(
    node: ast.AST, me: str, registered: Mapping[str, tuple[int, str]]
) -> str | None:
    """`x, y = self.m(...)` (or `self.m.forward(...)`), all targets plain names and `m` a
    registered instance of a project class: "m"; else None."""
    if not (
        isinstance(node, ast.Assign)
        and len(node.targets) == 1
        and isinstance(node.targets[0], (ast.Tuple, ast.List))
        and all(isinstance(t, ast.Name) for t in node.targets[0].elts)
        and isinstance(node.value, ast.Call)
    ):
        return None
    func = node.value.func
    if isinstance(func, ast.Attribute) and func.attr == "forward":
        func = func.value
    if not is_self_attribute(func, me):
        return None
    assert isinstance(func, ast.Attribute)
    return func.attr if registered.get(func.attr, (0, ""))[1] else None


def _element_token(member: str, index: int, arity: int) -> str:
    """Element `index` of the `arity` names unpacked from `self.member(...)`: a stand-in
    for the layers of member's class that feed it, resolved by _expand once every class's
    outputs are known."""
    return f"{member}[{index}/{arity}]"


def _token_member(token: str) -> str:
    """The member of an element token ("decoder" of "decoder[3/5]"); "" for an attribute."""
    return token.split("[", 1)[0] if token.endswith("]") and "[" in token else ""


def _expand(
    pairs: Iterable[tuple[str, str]], outputs_of: Mapping[str, Outputs | None], depth: int = 0
) -> set[tuple[str, str]]:
    """Element tokens replaced by the layers that feed that element of the member's class
    (`decoder.stop_linear`), through nested members; a member whose class's outputs are
    not known, or of another length, stands whole for its element (`decoder`)."""
    found: set[tuple[str, str]] = set()
    for attribute, holds in pairs:
        member = _token_member(attribute)
        if not member:
            found.add((attribute, holds))
            continue
        index, arity = (int(n) for n in attribute[len(member) + 1 : -1].split("/"))
        inner = outputs_of.get(holds)
        if inner is None or len(inner) != arity or depth > 8:
            found.add((member, holds))
            continue
        for layer, layer_holds in _expand(inner[index], outputs_of, depth + 1):
            found.add((f"{member}.{layer}", layer_holds))
    return found


def held_classes(
    init: ast.FunctionDef | ast.AsyncFunctionDef,
    me: str,
    resolve: Callable[[ast.expr], tuple[str, bool] | None],
) -> dict[str, tuple[str, ...]]:
    """`self.x` -> the project classes whose instances `__init__` builds into it
    (`self.block = Block()`, `self.blocks = nn.ModuleList([Block() for _ in ...])`,
    `self.blocks.append(Block())` in a loop: FloWaveNet's `self.res_blocks`,
    `self.blocks[k] = Block()`)."""
    held: dict[str, list[str]] = {}

    def hold(attribute: str, value: ast.AST) -> None:
        for call in ast_nodes.walk(value):
            if isinstance(call, ast.Call):
                resolved = resolve(call.func)
                if resolved is not None and resolved[1]:
                    names = held.setdefault(attribute, [])
                    if resolved[0] not in names:
                        names.append(resolved[0])

    for node in ast_nodes.walk(init):
        put = put_into(node)
        if put is None or put[1] == "setattr":
            continue
        for receiver in put[0]:
            if put[1] == "=" and isinstance(receiver, ast.Subscript):
                receiver = receiver.value
            if is_self_attribute(receiver, me):
                assert isinstance(receiver, ast.Attribute)
                for value in put[2]:
                    hold(receiver.attr, value)
    return {k: tuple(v) for k, v in held.items()}


def called_methods(
    forward: ast.FunctionDef | ast.AsyncFunctionDef,
    methods: Mapping[str, ast.FunctionDef | ast.AsyncFunctionDef],
) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    """The methods of the class that forward() calls on `self` (`self.run(x)`), and those
    they call, transitively, in order of first call; forward() itself not among them. A
    layer whose output a helper drops starves as surely as one forward() drops itself."""
    found: list[ast.FunctionDef | ast.AsyncFunctionDef] = []
    seen = {forward.name}
    stack = [forward]
    while stack:
        function = stack.pop()
        if not function.args.args:
            continue
        me = function.args.args[0].arg
        for node in _own_nodes(function):
            if (
                isinstance(node, ast.Call)
                and is_self_attribute(node.func, me)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in methods
                and node.func.attr not in seen
            ):
                seen.add(node.func.attr)
                found.append(methods[node.func.attr])
                stack.append(methods[node.func.attr])
    return found


def dropped_outputs(
    cls: str,
    forward: ast.FunctionDef | ast.AsyncFunctionDef,
    held_classes: Mapping[str, tuple[str, ...]],
    path: str,
) -> tuple[DroppedOutput, ...]:
    """Calls in forward() (or in a method forward() calls: its name is kept) of a
    submodule holding project classes (`self.x(...)`, or a loop variable over `self.x`:
    `for block in self.blocks`, `enumerate(self.blocks)`) whose result is unpacked into
    names some of which are never read after the call (`_` too), or subscripted with a
    constant (`self.x(h)[0]`)."""
    if not forward.args.args or not held_classes:
        return ()
    me = forward.args.args[0].arg
    over = loop_variables(forward, me)

    def callee(call: ast.AST) -> str | None:
        if not isinstance(call, ast.Call):
            return None
        if is_self_attribute(call.func, me):
            assert isinstance(call.func, ast.Attribute)
            return call.func.attr
        if isinstance(call.func, ast.Name):
            return over.get(call.func.id)
        return None

    return tuple(
        DroppedOutput(
            cls, attribute, callees, kept, arity, line, path, call, last_pass, forward.name, paths
        )
        for attribute, kept, arity, line, call, last_pass, _node, paths in _unread(forward, callee)
        if (callees := held_classes.get(attribute, ()))
    )


def loop_variables(function: ast.FunctionDef | ast.AsyncFunctionDef, me: str) -> dict[str, str]:
    """Loop variable -> the attribute of `me` it runs over (`for block in self.blocks`,
    `for i, block in enumerate(self.blocks)`, `for a, b in zip(self.a, self.b)`)."""
    over: dict[str, str] = {}
    for node in _own_nodes(function):
        if isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
            iterated, target = node.iter, node.target
            if (
                isinstance(iterated, ast.Call)
                and isinstance(iterated.func, ast.Name)
                and iterated.func.id == "zip"
                and isinstance(target, ast.Tuple)
                and len(target.elts) == len(iterated.args)
            ):
                for each, name in zip(iterated.args, target.elts, strict=True):
                    if is_self_attribute(each, me) and isinstance(name, ast.Name):
                        assert isinstance(each, ast.Attribute)
                        over[name.id] = each.attr
                continue
            if (
                isinstance(iterated, ast.Call)
                and isinstance(iterated.func, ast.Name)
                and iterated.func.id == "enumerate"
                and iterated.args
                and isinstance(target, ast.Tuple)
                and len(target.elts) == 2
            ):
                iterated, target = iterated.args[0], target.elts[1]
            if is_self_attribute(iterated, me) and isinstance(target, ast.Name):
                assert isinstance(iterated, ast.Attribute)
                over[target.id] = iterated.attr
    return over


def _unread(
    function: ast.Module | ast.FunctionDef | ast.AsyncFunctionDef,
    callee: Callable[[ast.AST], str | None],
) -> list[tuple[str, tuple[int, ...], int, int, str, bool, ast.Call, _Paths]]:
    """(callee, kept, arity, line, call, last_pass, the call, paths) of each call in
    `function`'s own body that `callee` names whose result is unpacked into names not all
    read after it on every path (`_` too; `paths`: what each path reads), or subscripted
    with a constant (see DroppedOutput)."""
    branches = _branches(function)
    names = [n for n in _own_nodes(function) if isinstance(n, ast.Name)]
    loads = [
        (n.id, (n.lineno, n.col_offset), branches.get(id(n), frozenset()))
        for n in names
        if isinstance(n.ctx, ast.Load)
    ]
    stores = _rebindings(function, branches)
    indexed = {  # a name read at a constant position (`outputs[0]`): the position
        id(n.value): n.slice.value
        for n in _own_nodes(function)
        if isinstance(n, ast.Subscript)
        and isinstance(n.value, ast.Name)
        and isinstance(n.slice, ast.Constant)
        and type(n.slice.value) is int
        and n.slice.value >= 0
    }
    found: list[tuple[str, tuple[int, ...], int, int, str, bool, ast.Call, _Paths]] = []
    for node in _own_nodes(function):
        attribute: str | None = None
        paths: _Paths = ()
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and (attribute := callee(node.value)) is not None
        ):
            # `outputs = self.bert(x)`, then only `outputs[0]`: the other elements are
            # dropped as by `seq, _ = self.bert(x)` (stop 52, v1-B: BERT-BiLSTM-CRF-NER's
            # pooler); a read of the whole result keeps everything
            name, end = node.targets[0].id, (node.end_lineno or 0, node.end_col_offset or 0)
            taken = branches.get(id(node), frozenset())
            reads = [
                indexed.get(id(n))
                for n in names
                if isinstance(n.ctx, ast.Load)
                and n.id == name
                and (n.lineno, n.col_offset) > end
                and branches.get(id(n), frozenset()) <= taken
                and not _rebound(stores, name, end, (n.lineno, n.col_offset), taken)
            ]
            if not reads or None in reads:
                continue
            kept, last_pass, arity = sorted({r for r in reads if r is not None}), False, 0
        elif (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], (ast.Tuple, ast.List))
        ):
            attribute = callee(node.value)
            targets = node.targets[0].elts
            if attribute is None or not all(isinstance(t, ast.Name) for t in targets):
                continue
            end = (node.end_lineno or node.lineno, node.end_col_offset or 0)
            kept, last_pass = [], False
            taken = branches.get(id(node), frozenset())
            for index, target in enumerate(targets):
                assert isinstance(target, ast.Name)
                if target.id != "_" and any(
                    n == target.id
                    and at > end
                    and where <= taken
                    and not _rebound(stores, n, end, at, where)
                    for n, at, where in loads
                ):
                    kept.append(index)
                elif any(n == target.id for n, _at, _where in loads):
                    last_pass = True  # read only before the call (in a loop: its last pass)
                    # or on another branch: FloWaveNet's `if self.skip: h, s = f(h, c)` ...
                    # `else: out = self.final_conv(h)`
            stories = None
            if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
                stories = read_paths(function, node, (t.id for t in targets))  # type: ignore[attr-defined]
            if stories:  # what each path reads, before the name is bound again
                paths = tuple(
                    sorted(
                        {
                            tuple(i for i, t in enumerate(targets) if t.id in story)  # type: ignore[attr-defined]
                            for story in stories
                        }
                    )
                )
                kept = [i for i in range(len(targets)) if all(i in p for p in paths)]
                last_pass = any(  # a dropped element read before the call: in a loop
                    n == target.id and at < end  # type: ignore[attr-defined]
                    for index, target in enumerate(targets)
                    if index not in kept
                    for n, at, _where in loads
                )
            if len(kept) == len(targets):
                continue
            arity = len(targets)
        elif (
            isinstance(node, ast.Subscript)
            and isinstance(node.slice, ast.Constant)
            and type(node.slice.value) is int
            and node.slice.value >= 0
            and isinstance(node.ctx, ast.Load)
        ):
            attribute = callee(node.value)
            if attribute is None:
                continue
            kept, last_pass, arity = [node.slice.value], False, 0
        else:
            continue
        found.append(
            (
                attribute,
                tuple(kept),
                arity,
                node.lineno,
                ast.unparse(node).split("\n")[0],
                last_pass,
                node.value,  # type: ignore[arg-type]
                paths,
            )
        )
    return found
