"""Layers whose output is not proved to reach forward()'s return value (DP041, with
partial_forward.py): two ways a parameter gets no gradient that DataParallel never minds
and DDP fails on at the second step ("Expected to have finished reduction in the prior
iteration"), with no other sign in the code.

- **An entry overwritten.** A caller binds a submodule's returned dict to a name and stores
  a new value at one of its constant keys before anything reads that entry
  (qiuqiangkong/panns_transfer_to_gtzan@af501a8 models.py:196: Transfer_Cnn14 sets
  `output_dict['clipwise_output']` over Cnn14's, which `fc_audioset` alone computes). The
  callee's forward() is read for which layers feed each constant key of the dict it
  returns (`return {"k": ...}`, or a name bound to such a literal, through its local names,
  flow-insensitively); a layer feeding only the overwritten entry gets no gradient. A
  callee whose entries cannot be read so is said all the same: its layers feeding that
  entry are not proved to reach anything.
- **An argument the callee never reads.** A layer whose output forward() hands only to a
  module `__init__` was given (`self.inner_correlation = correlation`, its class not known
  there) at an argument that reaches the return value through nothing else (MAZiqing/
  FEDformer@c0f6b97 layers/AutoCorrelation.py:165: `keys = self.key_projection(keys)`, then
  `self.inner_correlation(queries, keys, values, attn_mask)`, where the program's
  FourierBlock.forward(q, k, v, mask) reads only `q`). Any nn.Module class of the program
  whose forward() would bind that argument to a parameter it never reads may be the one
  handed in: the layer is not proved to get a gradient. Where every such class reads it,
  it is (a library's module, not read, is taken to read its arguments).

Both are facts of one class each, read once per module with the class (partial_forward's
`ClassFacts`); `starved_entries` and `ignored_arguments` put them together across the
program's classes.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from dp2ddp.transforms._support import ast_nodes
from dp2ddp.transforms._support.ast_nodes import is_self_attribute
from dp2ddp.transforms.analysis.dropped_outputs import held_classes
from dp2ddp.transforms.analysis.module_parts import handed_in
from dp2ddp.transforms.analysis.name_paths import names as _names
from dp2ddp.transforms.analysis.name_paths import own_nodes as _own_nodes

Function = ast.FunctionDef | ast.AsyncFunctionDef


@dataclass(frozen=True)
class Overwritten:
    """`self.attribute(...)` (holding `callees`), its result bound to a name at `line`
    whose entry `key` is stored over at `stored` before any read of it."""

    attribute: str
    callees: tuple[str, ...]
    key: str
    line: int
    stored: int
    helper: str = ""  # the method of the class forward() hands the dict to, which stores


@dataclass(frozen=True)
class HandedCall:
    """`self.attribute(...)` (a module handed to `__init__`) at `line`: the layers `alone`
    feed its argument `position` (or keyword `keyword`) and reach the return value through
    nothing else; `given` positional arguments, `keywords` by name."""

    attribute: str
    position: int
    keyword: str
    alone: tuple[str, ...]
    given: int
    keywords: tuple[str, ...]
    line: int


@dataclass(frozen=True)
class Signature:
    """A forward()'s parameters after `self`, those it never reads, and whether it takes
    `*args`/`**kwargs`."""

    positional: tuple[str, ...] = ()
    keyword_only: tuple[str, ...] = ()
    unread: frozenset[str] = frozenset()
    varargs: bool = False
    kwargs: bool = False


@dataclass(frozen=True)
class Reach:
    """One class's facts for DP041's reach (partial_forward.ClassFacts holds them)."""

    entries: Mapping[str, frozenset[str]] | None = None
    overwritten: tuple[Overwritten, ...] = ()
    handed: tuple[HandedCall, ...] = ()
    signature: Signature = Signature()
    path: str = ""


def class_reach(
    cls: ast.ClassDef,
    registered: Iterable[str],
    resolve: Callable[[ast.expr], tuple[str, bool] | None],
    path: str,
) -> Reach:
    """The facts of one nn.Module class (defining `__init__` and `forward`)."""
    methods = {
        n.name: n for n in cls.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
    }
    init, forward = methods.get("__init__"), methods.get("forward")
    if init is None or forward is None or not init.args.args or not forward.args.args:
        return Reach(path=path)
    me = init.args.args[0].arg
    layers = frozenset(registered)
    held = held_classes(init, me, resolve)
    handed = handed_in(init, me, layers)
    library = held_classes(init, me, lambda f: _library_call(resolve(f)))
    for attribute, made in library.items():
        held.setdefault(attribute, tuple(LIBRARY + m for m in made))
    return Reach(
        entries(forward, layers),
        overwritten(forward, held, methods),
        handed_calls(forward, handed, layers),
        signature(forward),
        path,
    )


#: The mark of a callee built by a call other than of a program class (a library's
#: `AutoModel.from_pretrained(...)`, `create_model(...)`, or a factory function): what its
#: forward() returns is not read.
LIBRARY = "library:"


def _library_call(resolved: tuple[str, bool] | None) -> tuple[str, bool] | None:
    """A call of no program class (a library's, or a factory function; not torch's own
    layers, which return no dict) as `held_classes` takes a project class: what
    `__init__` builds into `self.x` from it may be a model whose returned dict's entries
    feed its layers (stop 49: a library model's `outputs["logits"]` stored over was
    silent)."""
    if resolved is None or resolved[1] or resolved[0].startswith("torch."):
        return None
    return resolved[0], True


def signature(forward: Function) -> Signature:
    """What forward() takes and never reads (a `locals()`/`vars()` call reads all)."""
    arguments = forward.args
    positional = tuple(a.arg for a in (*arguments.posonlyargs, *arguments.args)[1:])
    keyword_only = tuple(a.arg for a in arguments.kwonlyargs)
    loads = {n.id for n in ast_nodes.walk(forward) if isinstance(n, ast.Name)}
    everything = {"locals", "vars"} & loads
    unread = frozenset() if everything else frozenset((*positional, *keyword_only)) - loads
    return Signature(
        positional, keyword_only, unread, arguments.vararg is not None, arguments.kwarg is not None
    )


def _flows(function: Function) -> list[tuple[frozenset[str], ast.AST]]:
    """(names bound, the value they get) of `function`'s own statements."""
    flows: list[tuple[frozenset[str], ast.AST]] = []
    for node in _own_nodes(function):
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)) and node.value:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            flows.append((frozenset(n for t in targets for n in _names(t)), node.value))
        elif isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
            flows.append((_names(node.target), node.iter))
        elif isinstance(node, ast.NamedExpr):
            flows.append((frozenset({node.target.id}), node.value))
        elif isinstance(node, ast.withitem) and node.optional_vars is not None:
            flows.append((_names(node.optional_vars), node.context_expr))
        elif (
            isinstance(node, ast.Expr)
            and isinstance(node.value, ast.Call)
            and isinstance(node.value.func, ast.Attribute)
            and isinstance(node.value.func.value, ast.Name)
        ):  # `out.add_(self.b(x))`, `out.update(...)`
            flows.append((frozenset({node.value.func.value.id}), node.value))
    return flows


def _reads(node: ast.AST, me: str, cut: ast.AST | None) -> tuple[set[str], set[str]]:
    """(self attributes, local names) `node` reads, leaving out the subtree `cut`."""
    attributes: set[str] = set()
    names: set[str] = set()
    stack = [node]
    while stack:
        sub = stack.pop()
        if sub is cut:
            continue
        if is_self_attribute(sub, me):
            assert isinstance(sub, ast.Attribute)
            attributes.add(sub.attr)
        elif isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Load):
            names.add(sub.id)
        stack.extend(ast.iter_child_nodes(sub))
    return attributes, names


def _feeding(
    flows: list[tuple[frozenset[str], ast.AST]], me: str, cut: ast.AST | None = None
) -> dict[str, set[str]]:
    """Local name -> the self attributes feeding it, to a fixed point (flow-insensitive:
    every binding of a name counts)."""
    read = [(bound, _reads(value, me, cut)) for bound, value in flows]
    of_name: dict[str, set[str]] = {}
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
    return of_name


def _fed(node: ast.AST, me: str, of_name: Mapping[str, set[str]], cut: ast.AST | None) -> set[str]:
    attributes, names = _reads(node, me, cut)
    for name in names:
        attributes |= of_name.get(name, set())
    return attributes


def entries(forward: Function, registered: Iterable[str]) -> dict[str, frozenset[str]] | None:
    """Per constant key of the dict every `return` of forward() gives (a dict literal, or a
    name bound only to one and filled by `name[key] = ...`), the registered layers feeding
    it; None when forward() returns anything else."""
    if not forward.args.args:
        return None
    me = forward.args.args[0].arg
    nodes = list(_own_nodes(forward))
    returns = [n for n in nodes if isinstance(n, ast.Return)]
    if not returns or not any(isinstance(n, ast.Dict) for n in nodes):
        return None  # no dict literal to return (most forward()s: one walk)
    flows = _flows(forward)
    literals: list[ast.Dict] = []  # the dict literals returned, shape first (cheap)
    filled: list[ast.Assign] = []  # `name[key] = ...` into a returned name
    for returned in returns:
        value: ast.AST | None = returned.value
        if isinstance(value, ast.Name):
            name = value.id
            bindings = [v for bound, v in flows if name in bound]
            filled += [
                node
                for node in nodes
                if isinstance(node, ast.Assign) and all(_entry_of(t, name) for t in node.targets)
            ]
            whole = [v for v in bindings if not any(v is n.value for n in filled)]
            if len(whole) != 1:
                return None
            value = whole[0]
        if not isinstance(value, ast.Dict):
            return None
        literals.append(value)
    of_name = _feeding(flows, me)
    layers = set(registered)
    found: dict[str, set[str]] = {}
    pairs = [
        (k, v) for literal in literals for k, v in zip(literal.keys, literal.values, strict=True)
    ]
    pairs += [
        (t.slice, node.value)
        for node in filled
        for t in node.targets
        if isinstance(t, ast.Subscript)
    ]
    for key, value in pairs:
        if not isinstance(key, ast.Constant) or not isinstance(key.value, str):
            return None
        found.setdefault(key.value, set()).update(_fed(value, me, of_name, None) & layers)
    return {key: frozenset(fed) for key, fed in found.items()}


def _entry_of(target: ast.expr, name: str) -> bool:
    """`target` is `name[...]`."""
    return (
        isinstance(target, ast.Subscript)
        and isinstance(target.value, ast.Name)
        and target.value.id == name
    )


def overwritten(
    function: Function,
    held: Mapping[str, tuple[str, ...]],
    methods: Mapping[str, Function] | None = None,
) -> tuple[Overwritten, ...]:
    """`name = self.x(...)` (x holding project classes) then `name["k"] = ...` with no read
    of `name` in between but of other constant keys (`name["embedding"]`), or a call of a
    method of the class (`methods`) handed `name` (`self._head(out, x)`) whose first use
    of that parameter is such a store (stop 49: a store in the helper was silent)."""
    if not function.args.args or not held:
        return ()
    me = function.args.args[0].arg
    nodes = list(_own_nodes(function))
    found: list[Overwritten] = []
    for node in nodes:
        if not (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and isinstance(node.value, ast.Call)
            and is_self_attribute(node.value.func, me)
        ):
            continue
        assert isinstance(node.value.func, ast.Attribute)
        callees = held.get(node.value.func.attr, ())
        name = node.targets[0].id
        if not callees:
            continue
        after = (node.end_lineno or node.lineno, node.end_col_offset or 0)
        store = _first_store(nodes, after, name)
        helper = None if store else _stored_by_helper(nodes, after, name, me, methods or {})
        if helper is not None:
            store, method = helper[:2], helper[2]
        if store is not None:
            key, line = store
            found.append(
                Overwritten(
                    node.value.func.attr, callees, key, node.lineno, line,
                    f"self.{method}()" if helper is not None else "",
                )
            )  # fmt: skip
    return tuple(found)


def _stored_by_helper(
    nodes: list[ast.AST],
    after: tuple[int, int],
    name: str,
    me: str,
    methods: Mapping[str, Function],
    depth: int = 0,
) -> tuple[str, int, str] | None:
    """The first call after `after` of a method of the class handed `name` by position or
    by keyword (`self._head(out, x)`, `self._head(x, out=out)`), nothing reading `name`
    before it but at other constant keys: the method's own first store at a constant key of
    that parameter, read nothing before it (`_first_store` in the method), or, where the
    method hands the parameter on the same way, the store found there (three calls deep:
    stop 50 s4), with the methods' names ("_head(), then self._put"); None else."""
    calls = sorted(
        (
            n
            for n in nodes
            if isinstance(n, ast.Call)
            and is_self_attribute(n.func, me)
            and (n.lineno, n.col_offset) >= after
            and any(
                isinstance(a, ast.Name) and a.id == name
                for a in (*n.args, *(k.value for k in n.keywords))
            )
        ),
        key=lambda n: (n.lineno, n.col_offset),
    )
    if not calls:
        return None
    call = calls[0]
    assert isinstance(call.func, ast.Attribute)
    method = methods.get(call.func.attr)
    param = _handed_as(call, name, method) if method is not None else None
    if method is None or param is None:
        return None
    start = (method.body[0].lineno, method.body[0].col_offset)
    inner = list(_own_nodes(method))
    store = _first_store(inner, start, param)
    chain = call.func.attr
    if store is None and depth < 2:
        deeper = _stored_by_helper(inner, start, param, method.args.args[0].arg, methods, depth + 1)
        if deeper is not None:
            store, chain = deeper[:2], f"{chain}(), then self.{deeper[2]}"
    if store is None or _read_between(nodes, name, store[0], after, (call.lineno, call.col_offset)):
        return None
    return store[0], store[1], chain


def _handed_as(call: ast.Call, name: str, method: Function) -> str | None:
    """The parameter of `method` (called as `self.method(...)`) that `call` binds to the
    name `name`, by position (no `*args` before it) or by keyword; None where not known."""
    params = method.args.posonlyargs + method.args.args
    for keyword in call.keywords:
        if isinstance(keyword.value, ast.Name) and keyword.value.id == name:
            named = [p.arg for p in (*method.args.args[1:], *method.args.kwonlyargs)]
            return keyword.arg if keyword.arg in named else None
    position = next(i for i, a in enumerate(call.args) if isinstance(a, ast.Name) and a.id == name)
    if any(isinstance(a, ast.Starred) for a in call.args[:position]) or position + 1 >= len(params):
        return None
    return params[position + 1].arg


def _first_store(nodes: list[ast.AST], after: tuple[int, int], name: str) -> tuple[str, int] | None:
    """The first `name["k"] = ...` after `after` (in source order) whose entry nothing
    reads before it: (k, line); None at a read of the whole, a rebinding, or no store."""
    later = sorted(
        (n for n in nodes if isinstance(n, ast.Assign) and (n.lineno, n.col_offset) >= after),
        key=lambda n: (n.lineno, n.col_offset),
    )
    for store in later:
        target = store.targets[0]
        if not (
            len(store.targets) == 1
            and isinstance(target, ast.Subscript)
            and isinstance(target.value, ast.Name)
            and target.value.id == name
            and isinstance(target.slice, ast.Constant)
            and isinstance(target.slice.value, str)
        ):
            continue
        key = target.slice.value
        end = (store.end_lineno or store.lineno, store.end_col_offset or 0)
        if _read_between(nodes, name, key, after, end):
            return None
        return key, store.lineno
    return None


def _read_between(
    nodes: list[ast.AST], name: str, key: str, start: tuple[int, int], end: tuple[int, int]
) -> bool:
    """Whether `name` is read between `start` and `end` other than at another constant key
    (`name[other]`), or rebound there."""
    parents: dict[int, ast.AST] = {}
    for node in nodes:
        for child in ast.iter_child_nodes(node):
            parents[id(child)] = node
    for node in nodes:
        if not isinstance(node, ast.Name) or node.id != name:
            continue
        where = (node.lineno, node.col_offset)
        if not start <= where < end:
            continue
        if isinstance(node.ctx, ast.Store):
            return True
        parent = parents.get(id(node))
        if (
            isinstance(parent, ast.Subscript)
            and parent.value is node
            and isinstance(parent.slice, ast.Constant)
            and isinstance(parent.slice.value, str)
            and (parent.slice.value != key or isinstance(parent.ctx, ast.Store))
        ):
            continue
        return True
    return False


def handed_calls(
    forward: Function, handed: Iterable[str], registered: Iterable[str]
) -> tuple[HandedCall, ...]:
    """The calls in forward() of a module handed to `__init__` (`self.inner(q, k, v)`), per
    argument: the registered layers feeding it that reach no `return` but through it."""
    handed = set(handed)
    if not forward.args.args or not handed:
        return ()
    me = forward.args.args[0].arg
    layers = set(registered)
    flows = _flows(forward)
    returns = [n.value for n in _own_nodes(forward) if isinstance(n, ast.Return) and n.value]
    of_name = _feeding(flows, me)
    found: list[HandedCall] = []
    for call in _own_nodes(forward):
        if not (
            isinstance(call, ast.Call)
            and isinstance(call.func, ast.Attribute)
            and is_self_attribute(call.func, me)
            and call.func.attr in handed
            and not any(isinstance(a, ast.Starred) for a in call.args)
            and all(k.arg is not None for k in call.keywords)
        ):
            continue
        keywords = tuple(k.arg for k in call.keywords if k.arg is not None)
        given = [(i, "", a) for i, a in enumerate(call.args)]
        given += [(-1, k.arg or "", k.value) for k in call.keywords]
        for position, keyword, argument in given:
            feeds = _fed(argument, me, of_name, None) & layers
            if not feeds:
                continue
            without = _feeding(flows, me, cut=argument)
            reached = {a for r in returns for a in _fed(r, me, without, argument)}
            alone = tuple(sorted(feeds - reached))
            if alone:
                found.append(
                    HandedCall(
                        call.func.attr,
                        position,
                        keyword,
                        alone,
                        len(call.args),
                        keywords,
                        call.lineno,
                    )
                )
    return tuple(found)


def starved_entries(
    each: Overwritten, entries_of: Mapping[str, Mapping[str, frozenset[str]] | None]
) -> tuple[str, str] | None:
    """(layers, how) for an overwritten entry: the callee's layers that feed only it, or,
    where the callee's entries cannot be read, its layers feeding it are not known."""
    for callee in each.callees:
        known = entries_of.get(callee)
        short = callee.rsplit(".", 1)[-1]
        where = f" (in {each.helper}, handed the dict)" if each.helper else ""
        what = (
            f"stores over entry '{each.key}' of the dict {{attr}} returns (line {each.line})"
            f"{where} before anything reads it"
        )
        if callee.startswith(LIBRARY):
            return "", (
                f"{what}: {{attr}} is built by {callee[len(LIBRARY) :]}(), no class of "
                "the program whose forward() is read here, so which of its layers feed "
                "that entry is not known, and those that feed only it get no gradient"
            )
        if known is None:
            return "", (
                f"{what}: which layers of {short}.forward() feed it is not read (no dict "
                "literal returned), and those that feed only it get no gradient"
            )
        fed = known.get(each.key, frozenset())
        others = {a for key, layers in known.items() if key != each.key for a in layers}
        alone = sorted(fed - others)
        if alone:
            names = ", ".join(f"self.{a}" for a in alone)
            return names, f"{what}, which {short}.forward() alone feeds from {names}"
    return None


def ignored_arguments(
    call: HandedCall, signatures: Mapping[str, Signature]
) -> tuple[str, str] | None:
    """(class, parameter): a class of the program whose forward() would bind `call`'s
    argument to a parameter it never reads; None when every class that takes the call
    reads it."""
    for name, sign in sorted(signatures.items()):
        if call.given > len(sign.positional) and not sign.varargs:
            continue
        names = {*sign.positional, *sign.keyword_only}
        if not sign.kwargs and not set(call.keywords) <= names:
            continue
        if call.position >= 0:
            if call.position >= len(sign.positional):
                continue
            parameter = sign.positional[call.position]
        else:
            parameter = call.keyword
        if parameter in sign.unread:
            return name, parameter
    return None


def handed_how(call: HandedCall, cls: str, parameter: str) -> str:
    """partial_forward's `how` for a layer `call` hands to a parameter `cls` never reads."""
    where = f"argument {call.position + 1}" if call.position >= 0 else f"`{call.keyword}=`"
    return (
        f"hands what {{attr}} computes only to self.{call.attribute}(...) (a module handed "
        f"to __init__, its class not known there) as its {where}, which the program's "
        f"{cls.rsplit('.', 1)[-1]}.forward() never reads (parameter `{parameter}`): "
        "{attr} is not proved to get a gradient"
    )


def unproved(
    name: str,
    reach: Reach,
    entries_of: Mapping[str, Mapping[str, frozenset[str]] | None],
    signatures: Mapping[str, Signature],
) -> tuple[str, str, str, int, str] | None:
    """The first layer of class `name` whose output `reach` does not prove to reach the
    return value: partial_forward's PartialUse (class, attribute, how, line, path)."""
    cls = name.rsplit(".", 1)[-1]
    for each in reach.overwritten:
        starved = starved_entries(each, entries_of)
        if starved is not None:
            return cls, each.attribute, starved[1], each.stored, reach.path
    for call in reach.handed:
        ignored = ignored_arguments(call, signatures)
        if ignored is not None:
            how = handed_how(call, *ignored)
            return cls, call.alone[0], how, call.line, reach.path
    return None
