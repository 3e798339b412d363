"""The one home of the small helpers on libcst nodes that passes share: walking a tree,
the last identifier of an expression, an expression's source text, name sets such as the
no_grad spellings. Pure (no metadata), except the few that take a pass to look up parents."""

from __future__ import annotations

import threading
from collections.abc import Callable, Collection, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, overload

import libcst as cst

from dp2ddp.flow.children import SCOPE_KINDS, Kinds, module_nodes_of, tree_nodes, type_test
from dp2ddp.flow.children import ModuleNodes as ModuleNodes  # the passes' home of it
from dp2ddp.transforms._support.children import children_of

if TYPE_CHECKING:  # base imports import_edits, which walks trees with this module
    from dp2ddp.transforms._support.base import MigrationTransform

_EMPTY_MODULE = cst.Module(body=[])
#: Per thread, while `texts_remembered` is open: id(node) -> (node, text); the entry holds the
#: (immutable) node, so its id names it until the cache closes.
_texts = threading.local()


class NodeView(Protocol):
    """What an analysis needs to know about a node beyond the node itself: its parent and
    the names it resolves to. A pass is one (MigrationTransform), and so is the metadata of a
    tree alone (PassMetadata): analyses take a view, not a pass."""

    def parent(self, node: cst.CSTNode) -> cst.CSTNode | None: ...

    def qualified_names(self, node: cst.CSTNode) -> set[str]: ...


#: Context managers that turn gradients off (every spelling torch exports them under).
NO_GRAD: frozenset[str] = frozenset(
    f"torch.{path}{name}"
    for path in ("", "autograd.", "autograd.grad_mode.")
    for name in ("no_grad", "inference_mode")
)
#: nn.Module methods that move, cast or set the mode of a module and return the module
#: itself (`Net().cuda().eval()` is that Net): the one set the analyses of a wrapped or
#: trained module strip (unmoved; toggled_models reads it on `ast`). Tensor methods that
#: keep a batch's rows are another question (batch_noise, squeezes, size_guards: detach,
#: long, contiguous... return a new tensor).
MODULE_SELF_CALLS: frozenset[str] = frozenset(
    {"cpu", "cuda", "to", "float", "half", "double", "type", "eval", "train"}
)


def unmoved(node: cst.BaseExpression) -> cst.BaseExpression:
    """`node` without the MODULE_SELF_CALLS chained on it (`Net().cuda().to(d)` -> `Net()`)."""
    while (
        isinstance(node, cst.Call)
        and isinstance(node.func, cst.Attribute)
        and node.func.attr.value in MODULE_SELF_CALLS
    ):
        node = node.func.value
    return node


def move_to_device(module: cst.BaseExpression) -> cst.BaseExpression:
    """`m` -> `m.to(DEVICE)`; `m.cuda()`/`m.to(x)` -> `m.to(DEVICE)`."""
    if (
        isinstance(module, cst.Call)
        and isinstance(module.func, cst.Attribute)
        and module.func.attr.value in ("cuda", "to")
    ):
        module = module.func.value
    if isinstance(module, (cst.BinaryOperation, cst.BooleanOperation, cst.IfExp, cst.Lambda)):
        module = module.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    return cst.Call(
        func=cst.Attribute(value=module, attr=cst.Name("to")),
        args=[cst.Arg(cst.Name("DEVICE"))],
    )


#: Calls a loop may wrap a loader in: `enumerate(loader)`, `tqdm(loader)`, `zip(a, b)`,
#: `cycle(loader)` (itertools', or a program's own `def cycle(dl): while True: for b in dl:
#: yield b`: its items are the loader's batches all the same).
ITER_WRAPPERS = frozenset({"enumerate", "tqdm", "iter", "zip", "islice", "track", "cycle", "chain"})
#: Calls whose items are integers, so their loop variable can feed `set_epoch`.
COUNTING = frozenset({"range", "trange", "count"})


class Shift(cst.CSTTransformer):
    """Shift continuation lines by `delta` columns (inside brackets only, never strings)."""

    def __init__(self, delta: int) -> None:
        super().__init__()
        self.delta = delta

    def leave_ParenthesizedWhitespace(
        self, original_node: cst.ParenthesizedWhitespace, updated_node: cst.ParenthesizedWhitespace
    ) -> cst.ParenthesizedWhitespace:
        value = updated_node.last_line.value
        if value.strip(" "):
            return updated_node  # tabs: leave as written
        width = max(0, len(value) + self.delta)
        return updated_node.with_changes(last_line=cst.SimpleWhitespace(" " * width))


def walk(root: cst.CSTNode, *, skip_scopes: bool = False) -> Iterator[cst.CSTNode]:
    """All nodes under `root` in source order (optionally not entering defs and lambdas).
    A whole module's are listed once per tree (flow.children.tree_nodes)."""
    if type(root) is cst.Module and not skip_scopes:
        return iter(tree_nodes(root))
    return _walk(root, skip_scopes)


def _walk(root: cst.CSTNode, skip_scopes: bool) -> Iterator[cst.CSTNode]:
    stack = [root]
    scopes = SCOPE_KINDS if skip_scopes else frozenset()
    while stack:
        node = stack.pop()
        yield node
        if type(node) in scopes and node is not root:  # exact types: leaf classes
            continue
        stack.extend(reversed(children_of(node)))


_N = TypeVar("_N", bound=cst.CSTNode)
_M = TypeVar("_M", bound=cst.CSTNode)


@overload
def nodes_of(root: cst.CSTNode, kinds: type[_N], *, skip_scopes: bool = ...) -> Sequence[_N]: ...


@overload
def nodes_of(
    root: cst.CSTNode, kinds: tuple[type[_N], type[_M]], *, skip_scopes: bool = ...
) -> Sequence[_N | _M]: ...


@overload
def nodes_of(
    root: cst.CSTNode, kinds: tuple[type[cst.CSTNode], ...], *, skip_scopes: bool = ...
) -> Sequence[cst.CSTNode]: ...


def nodes_of(root: cst.CSTNode, kinds: Kinds, *, skip_scopes: bool = False) -> Sequence[Any]:
    """The nodes under `root` (itself included) that are `kinds`, in source order: what
    `[n for n in walk(root) if isinstance(n, kinds)]` gives, tested by type once a type
    (flow.children.TypeTest), and for a whole module once per tree. Read only."""
    if type(root) is cst.Module and not skip_scopes:
        return module_nodes_of(root, kinds)
    test = type_test(kinds)
    return [n for n in _walk(root, skip_scopes) if test[type(n)]]


def iterated(expr: cst.BaseExpression) -> list[cst.BaseExpression]:
    """What a `for` iterates, seen through enumerate()/tqdm()/zip(), and each iterable of
    `itertools.chain(a, b)` (round 32, batra-mlp-lab/visdial-challenge-starter-pytorch@
    5844f3d: `for batch in itertools.chain(train_loader)`, a false DP011)."""
    if isinstance(expr, cst.Call) and name_of(expr.func) in ITER_WRAPPERS:
        positional = [a.value for a in expr.args if a.keyword is None and not a.star]
        if name_of(expr.func) not in ("zip", "chain"):
            positional = positional[:1]
        return [inner for value in positional for inner in iterated(value)]
    return [expr]


def counts(expr: cst.BaseExpression) -> bool:
    """The loop yields integers: range(), trange(), tqdm(range(...))."""
    if not isinstance(expr, cst.Call):
        return False
    name = name_of(expr.func)
    if name in COUNTING:
        return True
    return name in ("tqdm", "iter") and bool(expr.args) and counts(expr.args[0].value)


def name_of(
    expr: cst.CSTNode, *, through: tuple[type[cst.Subscript] | type[cst.Call], ...] = ()
) -> str:
    """The last identifier: `a.b.c` -> "c", `f` -> "f"; "" for anything else. Looking
    `through` subscripts and/or calls when asked: `a.b[0]` -> "b", `a.f()` -> "f"."""
    if isinstance(expr, cst.Name):
        return expr.value
    if isinstance(expr, cst.Attribute):
        return expr.attr.value
    if isinstance(expr, cst.Subscript) and cst.Subscript in through:
        return name_of(expr.value, through=through)
    if isinstance(expr, cst.Call) and cst.Call in through:
        return name_of(expr.func, through=through)
    return ""


def code_of(node: cst.CSTNode) -> str:
    """The source text of `node` as it stands (no surrounding module needed); printed once
    while `texts_remembered` is open."""
    texts: dict[int, tuple[cst.CSTNode, str]] | None = getattr(_texts, "open", None)
    if texts is None:
        return _EMPTY_MODULE.code_for_node(node)
    known = texts.get(id(node))
    if known is None:
        known = texts[id(node)] = (node, _EMPTY_MODULE.code_for_node(node))
    return known[1]


@contextmanager
def texts_remembered() -> Iterator[None]:
    """`code_of` prints each node once while open: a migration's passes ask for the text of
    the same node objects about four times (stop 59: 24,249 calls, 5,717 nodes, 35 goldens)."""
    outer = getattr(_texts, "open", None)
    _texts.open = {} if outer is None else outer
    try:
        yield
    finally:
        _texts.open = outer


def model_called(func: cst.BaseExpression) -> cst.BaseExpression:
    """The model a call's `func` runs: `net` for `net(x)` and for `net.forward(x)`.
    nn.Module.__call__ runs forward, and both wrappers do their work in forward itself
    (DataParallel's scatter, DistributedDataParallel's _pre_forward/_post_forward, torch
    2.13), so an explicit `.forward(...)` is a call of the model like any other: the one
    spelling every question "is this a call of a wrapped model" asks through."""
    if isinstance(func, cst.Attribute) and func.attr.value == "forward":
        return func.value
    return func


def calls_model(call: cst.CSTNode, models: Collection[str]) -> bool:
    """`call` is a call of one of `models` (their source text): `m(x)` or `m.forward(x)`."""
    return isinstance(call, cst.Call) and code_of(model_called(call.func)) in models


def calls_under(root: cst.CSTNode, *, skip_scopes: bool = False) -> list[cst.Call]:
    """Every call under `root` (itself included), in source order (optionally not in the
    defs, classes and lambdas under it: walk's `skip_scopes`)."""
    return list(nodes_of(root, cst.Call, skip_scopes=skip_scopes))


def variables_under(root: cst.CSTNode) -> list[cst.Name]:
    """Names under `root` that are variables, in source order: of `self.bs` only `self`, of
    `DataLoader(ds, batch_size=n)` not the keyword `batch_size` (a parameter's name, not a
    read of the variable of that name: MobileFaceNet's `batch_size = img.size(0)` global)."""
    nodes = list(walk(root))
    spelled = {id(n.attr) for n in nodes if isinstance(n, cst.Attribute)}
    spelled |= {id(n.keyword) for n in nodes if isinstance(n, cst.Arg) and n.keyword is not None}
    return [n for n in nodes if isinstance(n, cst.Name) and id(n) not in spelled]


def derived_names(root: cst.CSTNode, seed: set[str]) -> set[str]:
    """`seed` and the names assigned under `root` (not in the scopes defined there) from
    them, at any remove: `output = model(input)`, then `loss = criterion(output, y)`; a
    nested loop's target is bound from its iterable as an assignment's from its value
    (`for part in output.split(2)`: stop 50 s4, h1's leftover)."""
    assigns: list[tuple[set[str], set[str]]] = []
    for node in walk(root, skip_scopes=True):
        if isinstance(node, cst.For):
            targets = {n.value for n in variables_under(node.target)}
            assigns.append((targets, {n.value for n in variables_under(node.iter)}))
        elif isinstance(node, cst.Assign):
            targets = {n.value for t in node.targets for n in variables_under(t.target)}
            assigns.append((targets, {n.value for n in variables_under(node.value)}))
        elif isinstance(node, (cst.AnnAssign, cst.AugAssign)) and node.value is not None:
            targets = {n.value for n in variables_under(node.target)}
            assigns.append((targets, {n.value for n in variables_under(node.value)}))
    derived = set(seed)
    while True:
        more = {t for targets, reads in assigns if reads & derived for t in targets} - derived
        if not more:
            return derived
        derived |= more


def parsed_or_none(
    source: str, parsed: Callable[[], cst.Module | None] | None = None
) -> cst.Module | None:
    """`source`'s tree (`parsed()`: as the program model keeps it, parsed once), or None
    where it does not parse: a reader of another module's facts skips such a module, whose
    own migration reports the error."""
    try:
        return parsed() if parsed is not None else cst.parse_module(source)
    except (cst.ParserSyntaxError, RecursionError):
        return None


def bound_names(target: cst.CSTNode) -> list[cst.Name]:
    """The plain names a binding target binds, in order: `a`, `a, *b`, `[a, (b, c)]`; none
    for `x.attr` or `x[i]`. The one reading of what an assignment, a loop or a `with` binds."""
    if isinstance(target, cst.Name):
        return [target]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [n for e in target.elements for n in bound_names(e.value)]
    if isinstance(target, cst.StarredElement):
        return bound_names(target.value)
    return []


def target_names(target: cst.CSTNode) -> set[str]:
    """What `target` binds (bound_names), by name."""
    return {n.value for n in bound_names(target)}


def is_simple(expr: cst.BaseExpression) -> bool:
    """A name, attribute or constant subscript: evaluating it again gives the same object."""
    if isinstance(expr, cst.Name):
        return True
    if isinstance(expr, cst.Attribute):
        return is_simple(expr.value)
    if isinstance(expr, cst.Subscript) and len(expr.slice) == 1:
        index = expr.slice[0].slice
        return (
            is_simple(expr.value)
            and isinstance(index, cst.Index)
            and isinstance(index.value, (cst.Integer, cst.SimpleString, cst.Name))
        )
    return False


def is_none(expr: cst.BaseExpression) -> bool:
    return isinstance(expr, cst.Name) and expr.value == "None"


def is_false(expr: cst.BaseExpression) -> bool:
    return (
        isinstance(expr, cst.Name)
        and expr.value in ("False", "None")
        or (isinstance(expr, cst.Integer) and expr.value == "0")
    )


def bare(expr: cst.BaseExpression) -> cst.BaseExpression:
    """Without redundant parentheses (the expression becomes a call argument)."""
    return expr.with_changes(lpar=[], rpar=[]) if expr.lpar else expr


def dataset_name(loader: str) -> str:
    """`train_loader` -> `train_dataset`, `trainloader` -> `trainset`, `dl` -> `ds`."""
    lowered = loader.lower()
    for suffix, replacement in (("dataloader", "dataset"), ("_loader", "_dataset"), ("_dl", "_ds")):
        if lowered.endswith(suffix):
            return loader[: -len(suffix)] + replacement
    if lowered.endswith("loader") and len(loader) > len("loader"):
        return loader[: -len("loader")] + "set"
    if lowered in ("", "loader", "dl"):
        return "dataset"
    return f"{loader}_dataset"


def _tight_equal(args: list[cst.Arg] | None = None) -> cst.AssignEqual:
    for arg in args or []:
        if arg.keyword is not None and isinstance(arg.equal, cst.AssignEqual):
            return arg.equal
    return cst.AssignEqual(
        whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")
    )


def keyword(name: str, value: cst.BaseExpression, like: list[cst.Arg] | None = None) -> cst.Arg:
    return cst.Arg(keyword=cst.Name(name), value=value, equal=_tight_equal(like))


def call_named(name: str, *args: cst.Arg) -> cst.Call:
    return cst.Call(func=cst.Name(name), args=list(args))


def insert_arg(
    args: list[cst.Arg], at: int, new: cst.Arg, first_space: cst.BaseParenthesizableWhitespace
) -> list[cst.Arg]:
    """Insert `new` at `at`, laid out like its neighbours (one per line stays one per line)."""
    if at < len(args):
        space = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
        separator = args[at - 1].comma if at else space
        return [*args[:at], new.with_changes(comma=separator), *args[at:]]
    last = args[-1]
    if isinstance(last.comma, cst.Comma):  # trailing comma: `new` takes it over
        if len(args) > 1:
            separator = args[-2].comma
        elif isinstance(first_space, cst.ParenthesizedWhitespace):
            separator = cst.Comma(whitespace_after=first_space)
        else:
            separator = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
        return [*args[:-1], last.with_changes(comma=separator), new.with_changes(comma=last.comma)]
    separator = (
        args[-2].comma if len(args) > 1 else cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
    )
    return [*args[:-1], last.with_changes(comma=separator), new]


def one_per_line(call: cst.Call, indent: str) -> cst.Call:
    """`f(a, b=1)` -> hanging indent, one argument per line, with a trailing comma."""

    def newline(width: str) -> cst.ParenthesizedWhitespace:
        return cst.ParenthesizedWhitespace(indent=True, last_line=cst.SimpleWhitespace(width))

    args = [
        arg.with_changes(
            whitespace_after_arg=cst.SimpleWhitespace(""),
            comma=cst.Comma(whitespace_after=newline(indent if i < len(call.args) - 1 else "")),
        )
        for i, arg in enumerate(call.args)
    ]
    return call.with_changes(whitespace_before_args=newline(indent), args=args)


def remove_arg(args: list[cst.Arg], index: int) -> list[cst.Arg]:
    if index == len(args) - 1 and index > 0:
        # The new last argument keeps the removed one's ending (trailing comma or none).
        args[index - 1] = args[index - 1].with_changes(comma=args[index].comma)
    return [a for i, a in enumerate(args) if i != index]


def reduces_counters(statement: cst.CSTNode | None) -> bool:
    """`... = ddp_all_reduce_sum(...)` (inserted by an earlier run)."""
    return (
        isinstance(statement, cst.SimpleStatementLine)
        and len(statement.body) == 1
        and isinstance(statement.body[0], cst.Assign)
        and isinstance(statement.body[0].value, cst.Call)
        and name_of(statement.body[0].value.func) == "ddp_all_reduce_sum"
    )


def dict_keys(value: cst.BaseExpression | None) -> set[str] | None:
    """String keys of `{...}`, `dict(...)` or `a if c else b` of those; None when unknown."""
    if isinstance(value, cst.IfExp):
        body, orelse = dict_keys(value.body), dict_keys(value.orelse)
        return None if body is None or orelse is None else body | orelse
    if isinstance(value, cst.Dict):
        keys = set()
        for element in value.elements:
            if not isinstance(element, cst.DictElement) or not isinstance(
                element.key, cst.SimpleString
            ):
                return None
            keys.add(str(element.key.evaluated_value))
        return keys
    if isinstance(value, cst.Call) and name_of(value.func) == "dict":
        if any(a.keyword is None for a in value.args):
            return None
        return {a.keyword.value for a in value.args if a.keyword is not None}
    return None


def item_pairs(
    target: cst.BaseExpression, value: cst.BaseExpression
) -> list[tuple[cst.BaseExpression, cst.BaseExpression]]:
    """Each target with its value: item by item where a tuple or list of targets (none
    starred) is given a tuple or list of as many values (`self.outputs, total = [], 0.0`),
    else the target whole."""
    if (
        isinstance(target, (cst.Tuple, cst.List))
        and isinstance(value, (cst.Tuple, cst.List))
        and len(target.elements) == len(value.elements)
        and not any(isinstance(e, cst.StarredElement) for e in target.elements)
    ):
        return [(t.value, v.value) for t, v in zip(target.elements, value.elements, strict=True)]
    return [(target, value)]


def assigned_value(target: cst.CSTNode, transform: MigrationTransform) -> cst.BaseExpression | None:
    """`x` of `x = value` (or `x: T = value`, or `with value as x`) -> value. A `with` item's
    name is taken as bound to the context manager itself, as `__enter__` returning self
    (tqdm bars, files, most context managers) makes it."""
    parent = transform.parent(target)
    if isinstance(parent, cst.AsName) and parent.name is target:
        item = transform.parent(parent)
        if isinstance(item, cst.WithItem):
            return item.item
    if isinstance(parent, cst.AssignTarget):
        assign = transform.parent(parent)
        if isinstance(assign, cst.Assign) and parent.target is target:
            return assign.value
    if isinstance(parent, cst.AnnAssign) and parent.target is target:
        return parent.value
    return None


def wrap_target(call: cst.Call, transform: MigrationTransform) -> str | None:
    """What a wrap call's result is assigned to, as spelled (`model`, `self.model`), through
    a chained `.cuda()`/`.to()` and the IfExp of `DP(m) if guard else m`, also one element of
    a tuple assigned to a tuple of as many names (`gen, dis = DP(gen), DP(dis)`: stop 47's
    v2-A); None for anything else (a return value, a chained assignment)."""
    target = assigned_target(call, transform)
    return code_of(target) if target is not None else None


def assigned_target(call: cst.Call, transform: MigrationTransform) -> cst.BaseExpression | None:
    """wrap_target's target node (the Name or Attribute bound)."""
    node: cst.CSTNode | None = transform.parent(call)
    while isinstance(node, (cst.Attribute, cst.Call, cst.IfExp)):
        node = transform.parent(node)
    if isinstance(node, cst.Element):
        values = transform.parent(node)
        assign = transform.parent(values) if isinstance(values, cst.Tuple) else None
        if isinstance(values, cst.Tuple) and isinstance(assign, cst.Assign):
            target = assign.targets[0].target if len(assign.targets) == 1 else None
            if isinstance(target, cst.Tuple) and len(target.elements) == len(values.elements):
                at = next(i for i, e in enumerate(values.elements) if e is node)
                return target.elements[at].value
        return None
    if isinstance(node, cst.AssignTarget):
        return None
    if isinstance(node, cst.Assign) and len(node.targets) == 1:
        return node.targets[0].target
    if isinstance(node, cst.AnnAssign):
        return node.target
    return None


def scoped_name(node: cst.CSTNode, spelled: str, transform: MigrationTransform) -> tuple[int, str]:
    """`spelled` (a name or `self.x`) as seen at `node`: keyed by the function it is local
    to, or by the class for `self.` attributes, so `model` of one builder is not another's."""
    scope: cst.CSTNode | None
    if spelled.startswith("self."):
        scope = enclosing_class(node, transform)
    else:
        scope = enclosing_function(node, transform)
    return (id(scope) if scope is not None else 0, spelled)


def replication_patch(call: cst.Call, transform: MigrationTransform) -> str | None:
    """The sync-BN package's patch_replication_callback, however imported (`as patch_bn`,
    a star import, `sync_batchnorm.patch_replication_callback`): its name, else None."""
    from dp2ddp.transforms._support.names import REPLICATION_PATCHES

    spelled = [code_of(call.func)]
    # Asked of every call: qualified names only where one can end in a patch's name.
    may = transform.may_name(call.func, REPLICATION_PATCHES)
    qualified = transform.qualified_names(call.func) if may else set()
    for name in [*qualified, *spelled]:
        last = name.rsplit(".", 1)[-1]
        if last in REPLICATION_PATCHES:
            return last
    return None


def self_attribute(node: cst.CSTNode) -> str | None:
    """`x` of `self.x`, else None."""
    if (
        isinstance(node, cst.Attribute)
        and isinstance(node.value, cst.Name)
        and node.value.value == "self"
    ):
        return node.attr.value
    return None


def rebase(receiver: cst.BaseExpression | None, site: cst.Call) -> cst.BaseExpression | None:
    """`self.loader` seen from a caller `trainer.fit()` is `trainer.loader`."""
    if receiver is None:
        return None
    root = receiver
    chain: list[cst.Attribute] = []
    while isinstance(root, cst.Attribute):
        chain.append(root)
        root = root.value
    if not (isinstance(root, cst.Name) and root.value == "self"):
        return receiver
    if not isinstance(site.func, cst.Attribute):
        return None
    owner = site.func.value
    if isinstance(owner, cst.Name) and owner.value == "self":
        return receiver
    rebuilt: cst.BaseExpression = owner
    for attribute in reversed(chain):
        rebuilt = attribute.with_changes(value=rebuilt)
    return rebuilt


def inside(node: cst.CSTNode, ancestor: cst.CSTNode, transform: NodeView) -> bool:
    current: cst.CSTNode | None = node
    while current is not None:
        if current is ancestor:
            return True
        current = transform.parent(current)
    return False


def statement_header(statement: cst.CSTNode) -> str:
    """`if acc > best`, `for x in loader`, ...: how a statement starts, for messages."""
    if isinstance(statement, cst.If):
        return f"if {code_of(statement.test)}"
    if isinstance(statement, cst.While):
        return f"while {code_of(statement.test)}"
    if isinstance(statement, cst.For):
        return f"for {code_of(statement.target)} in {code_of(statement.iter)}"
    return "try/except"


def enclosing_function(node: cst.CSTNode, transform: NodeView) -> cst.FunctionDef | None:
    current = transform.parent(node)
    while current is not None and not isinstance(current, cst.FunctionDef):
        current = transform.parent(current)
    return current


def enclosing_class(node: cst.CSTNode, transform: NodeView) -> cst.ClassDef | None:
    current = transform.parent(node)
    while current is not None and not isinstance(current, cst.ClassDef):
        current = transform.parent(current)
    return current


def method_class(function: cst.FunctionDef, transform: NodeView) -> cst.ClassDef | None:
    block = transform.parent(function)
    owner = transform.parent(block) if isinstance(block, cst.IndentedBlock) else None
    return owner if isinstance(owner, cst.ClassDef) else None


def module_of(node: cst.CSTNode, transform: NodeView) -> cst.CSTNode:
    current = node
    while (above := transform.parent(current)) is not None:
        current = above
    return current


def is_import_line(stmt: cst.CSTNode) -> bool:
    return isinstance(stmt, cst.SimpleStatementLine) and all(
        isinstance(s, (cst.Import, cst.ImportFrom)) for s in stmt.body
    )


def after_imports(body: Sequence[cst.CSTNode]) -> int:
    """Where the setup block goes: after the last top-level import before any def/class."""
    at = 0
    for index, stmt in enumerate(body):
        if isinstance(stmt, cst.BaseCompoundStatement):
            break
        if is_import_line(stmt):
            at = index + 1
    if at == 0 and body and is_docstring(body[0]):
        at = 1
    return at


def is_docstring(stmt: cst.CSTNode) -> bool:
    return (
        isinstance(stmt, cst.SimpleStatementLine)
        and len(stmt.body) == 1
        and isinstance(stmt.body[0], cst.Expr)
        and isinstance(stmt.body[0].value, (cst.SimpleString, cst.ConcatenatedString))
    )


def is_script_guard(test: cst.BaseExpression) -> bool:
    """`__name__ == "__main__"` (either quotes): the block runs only when the file is the
    script, never when the program imports it. Tested by type (what the libcst matcher
    `Comparison(left=Name("__name__"), comparisons=[ComparisonTarget(Equal(), ...)])` tells,
    at a fraction of its cost)."""
    if not (
        isinstance(test, cst.Comparison)
        and isinstance(test.left, cst.Name)
        and test.left.value == "__name__"
        and len(test.comparisons) == 1
    ):
        return False
    target = test.comparisons[0]
    return (
        isinstance(target.operator, cst.Equal)
        and isinstance(target.comparator, cst.SimpleString)
        and target.comparator.value in ('"__main__"', "'__main__'")
    )


def leaves_past(exit_: cst.CSTNode, within: set[int], view: NodeView) -> bool:
    """`exit_` is a jump that leaves the statement whose nodes' ids are `within`, so what
    follows that statement is not run: a `return` or `raise`, or a `break`/`continue` of a
    loop around the statement (one of a loop inside it stays inside)."""
    if isinstance(exit_, (cst.Return, cst.Raise)):
        return True
    if not isinstance(exit_, (cst.Break, cst.Continue)):
        return False
    loop = view.parent(exit_)
    while loop is not None and not isinstance(loop, (cst.For, cst.While)):
        loop = view.parent(loop)
    return loop is None or id(loop) not in within


def list_added(
    node: cst.CSTNode, calls: bool = False
) -> tuple[str, list[cst.BaseExpression]] | None:
    """(`name`, the items) of `name += [a, b]` / `name += (a,)`: items added to a list as
    `name.extend([a, b])` adds them (round 36, hanyoseob/pytorch-WGAN-GP@311745b's `loss_G
    += [loss.item()]`, a running figure `.append` would have shown: DP030 unsaid); with
    `calls`, of `name.append(a)` and `name.extend(b)` too (their arguments)."""
    if (
        calls
        and isinstance(node, cst.Call)
        and isinstance(node.func, cst.Attribute)
        and node.func.attr.value in ("append", "extend")
        and isinstance(node.func.value, cst.Name)
    ):
        return node.func.value.value, [a.value for a in node.args]
    if not (
        isinstance(node, cst.AugAssign)
        and isinstance(node.operator, cst.AddAssign)
        and isinstance(node.target, cst.Name)
        and isinstance(node.value, (cst.List, cst.Tuple))
    ):
        return None
    items = [e.value for e in node.value.elements if not isinstance(e, cst.StarredElement)]
    return node.target.value, items
