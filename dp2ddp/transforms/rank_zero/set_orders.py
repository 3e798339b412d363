"""An order each process draws alone: a set of strings iterated into something shared.

Python randomizes the hash of `str` and `bytes` (and tuples of them) per process
(PYTHONHASHSEED; torchrun sets none), and a set iterates in hash order: one process
(DataParallel) numbers `labels = set(tags); label2id = {l: i for i, l in
enumerate(labels)}` one way; under torchrun each rank may number them its own way, and the
ranks train one model on two labellings (hertz-pj/BERT-BiLSTM-CRF-NER-pytorch@b1f70a7
ner.py:224: the two ranks printed FB1 16.00 and 17.02 from one model; stop 52 w5).

The agreement rule (issue 28): a value one rank computes alone that names something shared
is rank 0's. Where a set's iteration order is taken (`enumerate(S)`, `list(S)`,
`tuple(S)`, `zip(S, ...)`, a comprehension's `for x in S`), and S is proved a set
(`set(...)`, `frozenset(...)`, a set display or comprehension, or a name every binding of
which is one, on the shared def-use view) whose elements are proved strings (a string
literal, an f-string, `str(...)`, a string method's result: `line.split("\\t")[1]`, through
`S.add(x)` / `S.update(xs)` too), the iterated value becomes `ddp_rank0_order(S)`:
rank 0's order on every rank, through torchrun's store (no collective; the original's own
numbering on rank 0, where `sorted()` would change it). Elements proved numbers (ints,
floats: their hash is not randomized) need nothing; `sorted(S)` is one order already. Where
the elements are not proved either way, or the ranks may not all take the order as often
(a condition on the rank around it, a function run per sample or not proved called alike:
the helper pairs the ranks' n-th calls), DP158 says so. A rank whose own elements differ
from rank 0's (a set built from its own batch) keeps its own order (the helper compares).
A `for` loop over the set is an order site where its body numbers or orders by it
(`vocab[t] = len(vocab)`, `order.append(t)`, an item stored, a yield; stop 53 s1); one whose
body does neither (a print, a membership test) is left as it is. A set another module's
function or method returns (`processor.get_labels(args)`) is proved by the program fact
ProgramHints.set_returns (set_returns.py): every return of it a set of strings. One that
returns a set of strings on some paths and a value it cannot type on another (`labels =
pickle.load(f)`) is not proved: left as it is, with DP167 (stop 53 s1). A set returned
through the program's modules (`utils.get_labels()` returning `label_io.read_set(path)`) is
proved through set_chains.py's join of the facts; past its bound, DP178 (stop 54 s3).
An order handed straight to `sorted()` without a key (`sorted(list(set(text)))`) is no
order site, and the characters of a file read in text mode (`f.read()` of `with open(p) as
f`) are strings (stop 55 s2, r1-D's gpt-v6).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

import libcst as cst

from dp2ddp.flow import DefUse, origins, view
from dp2ddp.transforms._support.nodes import code_of, enclosing_function, walk
from dp2ddp.transforms.analysis.sample_code import per_sample_functions
from dp2ddp.transforms.rank_zero.rule import CallRule
from dp2ddp.transforms.rank_zero.set_returns import (
    NUMBER_CALLS,
    SET_CALLS,
    STR_CALLS,
    STR_METHODS,
)

#: Builtins that take their argument's iteration order.
_ORDERED: Final = frozenset({"enumerate", "list", "tuple", "zip"})
#: The order-taking builtins whose value is the elements alone, in the set's order.
_UNPAIRED: Final = frozenset({"list", "tuple"})
#: Builtins whose value does not depend on the order they are handed the elements in:
#: `sorted` puts them in one order, the others give a set, a count, an extreme or a truth
#: (class r2-C of stop 55: `any(s in name for s in {...})` picking parameters).
_ORDER_FREE: Final = frozenset({"sorted", "set", "frozenset", "len", "min", "max", "any", "all"})
#: Of those, the ones that stop at the first element deciding (what runs depends on order).
_SHORT_CIRCUIT: Final = frozenset({"any", "all"})
#: The builtin that opens a file.
_OPEN: Final = frozenset({"open"})
#: Methods that put what they are given in an order (a `for` loop's body calling one on
#: the set's element numbers or orders it).
_ORDERING_METHODS: Final = frozenset({"append", "appendleft", "extend", "insert"})


def _builtin(defuse: DefUse, func: cst.BaseExpression, names: frozenset[str]) -> bool:
    """`func` is one of the builtins `names`, not rebound in the module."""
    return (
        isinstance(func, cst.Name)
        and func.value in names
        and not any(d.kind != "global" for d in defuse.definitions(func))
    )


class SetOrders(CallRule):
    """Plans, per module, the set expressions whose iteration order is taken; rewrites each
    to rank 0's order, or warns DP158."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        #: ids of the iterated set expressions made rank 0's -> their set's text
        self.shared: set[int] = set()

    def leave_call(
        self, original: cst.Call, updated: cst.Call, names: set[str]
    ) -> cst.BaseExpression | None:
        return None

    def plan(self, module: cst.Module) -> None:
        self.shared = set()
        returning = self.t.state.hints.set_returns
        if not self.facts.sets and not returning:
            return
        defuse = view(module)
        per_sample: frozenset[int] | None = None

        def hinted(call: cst.Call) -> str:
            """ "str" for a call of another module's function or method returning a set of
            strings (ProgramHints.set_returns: `processor.get_labels(args)`), "maybe" for
            one returning a set of strings on some paths and an untyped value on others."""
            if not returning:
                return ""
            names = self.facts.instance_methods(call.func)
            if names & returning:
                return "str"
            for mark, kind in (("?", "maybe"), ("+", "far"), ("~", "untyped")):
                if {f"{n}{mark}" for n in names} & returning:
                    return kind
            return ""

        loops = {id(loop.iter): loop for loop in self.facts.for_loops}
        for node in _order_sites(defuse, self.facts.comp_fors, self.facts.for_loops):
            sets = _set_values(defuse, node, hinted)
            if not sets or (id(node) in loops and not _orders(loops[id(node)])):
                continue
            if _sorted_at_once(defuse, node) or _sorted_next(defuse, node):
                continue
            stops: list[tuple[cst.CSTNode, cst.CSTNode | None]] = []
            kind = _elements(defuse, sets, hinted, stops)
            if kind == "number" or self.facts.under_guard(node):
                continue
            if kind in ("maybe", "far"):
                calls = [v for v in sets if isinstance(v, cst.Call) and hinted(v) == kind]
                self._maybe(node, calls, kind)
                continue
            if per_sample is None:
                hints = self.t.state.hints
                per_sample = per_sample_functions(module, self.t, hints.per_sample)
            why = self._not_every_rank(node, per_sample) if kind == "str" else ""
            if kind == "str" and not why:
                self.shared.add(id(node))
                continue
            if kind == "untyped":  # another module's set of elements it cannot type
                calls = [v for v in sets if isinstance(v, cst.Call) and hinted(v) == kind]
                call = f"`{self.t.code(calls[0].func)}`" if calls else "a function"
                why = f"{call} returns a set whose elements are not proved numbers or strings"
            why = why or self._stopped(stops) or "the elements are not proved numbers or strings"
            self.t.warn(node, "DP158", f"`{self.t.code(node)}` ({why})")

    def _stopped(self, stops: list[tuple[cst.CSTNode, cst.CSTNode | None]]) -> str:
        """Where the elements' proof stopped, for DP158's reason: an empty container filled
        by calls the def-use view does not follow (`self.raw_X = []`, then `.append(X)`:
        NMT's words of `str.split()`, round 14), or a value it cannot type."""
        if not stops:
            return ""
        node, held = stops[0]
        line = self.t.input_position(node)[0]
        empty = isinstance(node, (cst.List, cst.Set, cst.Dict, cst.Tuple)) and not node.elements
        if empty and held is not None:
            return (
                f"the elements come from `{self.t.code(held)}`, bound empty at line {line} and "
                "filled by calls dp2ddp does not follow: not proved numbers or strings"
            )
        if not isinstance(node, cst.Call):
            return ""  # a name the view stops at (a comprehension's target): said generically
        return (
            f"the elements come from `{self.t.code(node)}` (line {line}), which dp2ddp does "
            "not type: not proved numbers or strings"
        )

    def _maybe(self, node: cst.BaseExpression, calls: list[cst.Call], kind: str) -> None:
        """DP167: the value may be a set of strings (set_returns.py's "f?"); DP178: it is
        one through more modules than set_chains.py follows ("f+")."""
        call = f"`{self.t.code(calls[0].func)}`" if calls else "the function"
        if kind == "far":
            self.t.warn(
                node,
                "DP178",
                f"`{self.t.code(node)}` ({call} returns what a function of a further "
                "module returns, past the modules followed)",
            )
            return
        self.t.warn(
            node,
            "DP167",
            f"`{self.t.code(node)}` ({call} returns a set of strings on some of its paths, "
            "on another a value dp2ddp cannot type)",
        )

    def _not_every_rank(self, node: cst.CSTNode, per_sample: frozenset[int]) -> str:
        """Why the ranks may not take this order as often (ddp_rank0_value pairs each
        rank's n-th call with rank 0's n-th): "" when every rank does."""
        uniform = self.facts.uniform
        if uniform.rank_dependent_around(node) is not None:
            return "the order is taken under a condition that differs between ranks"
        function = enclosing_function(node, self.t)
        if function is None:
            return ""
        if id(function) in per_sample:
            return "the order is taken per sample, as often as this rank's share of the data"
        if uniform.unreached_call(function) is not None or uniform.unreached_elsewhere(function):
            return f"{function.name.value}() is not proved called as often on every rank"
        return ""

    def leave_arg(self, original: cst.Arg, updated: cst.Arg) -> cst.Arg:
        """`enumerate(S)` -> `enumerate(ddp_rank0_order(S))`."""
        if id(original.value) not in self.shared:
            return updated
        return updated.with_changes(value=self._rank0(original.value, updated.value))

    def leave_comp_for(self, original: cst.CompFor, updated: cst.CompFor) -> cst.CompFor:
        """`for l in S` of a comprehension -> `for l in ddp_rank0_order(S)`."""
        if id(original.iter) not in self.shared:
            return updated
        return updated.with_changes(iter=self._rank0(original.iter, updated.iter))

    def leave_for(self, original: cst.For, updated: cst.For) -> cst.For:
        """`for t in S:` numbering or ordering what it is given -> `for t in
        ddp_rank0_order(S):`."""
        if id(original.iter) not in self.shared:
            return updated
        return updated.with_changes(iter=self._rank0(original.iter, updated.iter))

    def _rank0(self, original: cst.BaseExpression, updated: cst.BaseExpression) -> cst.Call:
        """The iterated set `S` -> `ddp_rank0_order(S)` (templates/helpers/rank0_order.py.j2)."""
        self.t.state.helpers.add("rank0_order")
        self.t.record(original, "a set's iteration order is rank 0's on every rank")
        inner = updated.with_changes(lpar=[], rpar=[])
        return cst.Call(cst.Name("ddp_rank0_order"), [cst.Arg(inner)])


def _order_sites(
    defuse: DefUse, comp_fors: list[cst.CompFor], loops: list[cst.For]
) -> list[cst.BaseExpression]:
    """The expressions whose iteration order is taken: an argument of enumerate / list /
    tuple / zip, a comprehension's iterated value, a `for` loop's whose body numbers or
    orders something by it (_orders)."""
    found: list[cst.BaseExpression] = []
    for call in defuse.calls:
        if _builtin(defuse, call.func, _ORDERED):
            found += [arg.value for arg in call.args if not arg.keyword and not arg.star]
    found += [node.iter for node in comp_fors]
    found += [loop.iter for loop in loops]  # _orders asked once the set is proved
    return found


def _sorted_at_once(defuse: DefUse, node: cst.BaseExpression) -> bool:
    """The order taken at `node` is handed straight to `sorted()` (no `key=`), which puts
    the elements in one order on every rank: `sorted(list(set(text)))`, `sorted(w for w
    in S)`, `sorted([t for t in S])` (stop 54 r1-D: a vocabulary of characters); or to
    another builtin whose value the order does not change (_ORDER_FREE: `any(s in name
    for s in S)`, r2-C of stop 55), for any() and all() where the element calls nothing
    (they stop early: which calls run would depend on the order)."""
    parent = defuse.parent(node)
    if isinstance(parent, cst.Arg):  # `list(S)` / `tuple(S)`; enumerate and zip pair it
        taker = defuse.parent(parent)
        if not (isinstance(taker, cst.Call) and _builtin(defuse, taker.func, _UNPAIRED)):
            return False
    elif isinstance(parent, cst.CompFor):
        taker = defuse.parent(parent)
        if not isinstance(taker, (cst.GeneratorExp, cst.ListComp)):
            return False
    else:
        return False
    arg = defuse.parent(taker)
    call = defuse.parent(arg) if isinstance(arg, cst.Arg) else None
    if not (
        isinstance(call, cst.Call)
        and _builtin(defuse, call.func, _ORDER_FREE)
        and not any(a.keyword is not None for a in call.args)
    ):
        return False
    if _builtin(defuse, call.func, _SHORT_CIRCUIT) and isinstance(taker, cst.BaseComp):
        return not any(isinstance(n, cst.Call) for n in walk(taker))
    return True


def _sorted_next(defuse: DefUse, node: cst.BaseExpression) -> bool:
    """The order taken at `node` is made a list bound to a name (`keys = list(set(...))`)
    that the next statement sorts in place with no key (`keys.sort()`): no element order of
    the set's survives (round 36, MindVu/AAMSupCon@872877c's speaker list, a false DP158)."""
    arg = defuse.parent(node)
    taker = defuse.parent(arg) if isinstance(arg, cst.Arg) else None
    if not (isinstance(taker, cst.Call) and _builtin(defuse, taker.func, _UNPAIRED)):
        return False
    assign = defuse.parent(taker)
    line = defuse.parent(assign) if isinstance(assign, cst.Assign) else None
    if not (
        isinstance(assign, cst.Assign)
        and len(assign.targets) == 1
        and isinstance(target := assign.targets[0].target, cst.Name)
        and isinstance(line, cst.SimpleStatementLine)
    ):
        return False
    block = getattr(defuse.parent(line), "body", ())
    following = block[block.index(line) + 1] if line in block[:-1] else None
    sort = following.body[0] if isinstance(following, cst.SimpleStatementLine) else None
    call = sort.value if isinstance(sort, cst.Expr) else None
    return (
        isinstance(call, cst.Call)
        and not call.args
        and isinstance(call.func, cst.Attribute)
        and call.func.attr.value == "sort"
        and isinstance(call.func.value, cst.Name)
        and call.func.value.value == target.value
    )


def _orders(loop: cst.For) -> bool:
    """The loop's body keeps its order: it appends or inserts (`order.append(t)`), stores
    an item (`vocab[t] = len(vocab)`: a numbering, and a dict's order) or yields."""
    for node in walk(loop.body, skip_scopes=True):
        if isinstance(node, cst.Yield):
            return True
        if isinstance(node, cst.Assign) and any(
            isinstance(t.target, cst.Subscript) for t in node.targets
        ):
            return True
        if isinstance(node, cst.AugAssign) and isinstance(node.target, cst.Subscript):
            return True
        if (
            isinstance(node, cst.Call)
            and isinstance(node.func, cst.Attribute)
            and node.func.attr.value in _ORDERING_METHODS
        ):
            return True
    return False


def _set_values(
    defuse: DefUse, node: cst.BaseExpression, hinted: Callable[[cst.Call], str]
) -> list[cst.BaseExpression]:
    """The set values `node` is proved to be (each a `set(...)` call, a display or a
    comprehension, or a call `hinted` says returns a set of strings): all its bindings are
    sets, else none."""
    if isinstance(node, (cst.Set, cst.SetComp)):
        return [node]
    if isinstance(node, cst.Call):
        return [node] if _builtin(defuse, node.func, SET_CALLS) or hinted(node) else []
    if not isinstance(node, cst.Name):
        return []
    definitions = defuse.reaching(node)
    values: list[cst.BaseExpression] = []
    for definition in definitions:
        value = definition.value
        if definition.kind != "assign" or not isinstance(value, cst.BaseExpression):
            return []
        if isinstance(value, cst.Name):
            return []
        inner = _set_values(defuse, value, hinted)
        if not inner:
            return []
        values += inner
        values += _added(defuse, definition.target)
    return values


def _added(defuse: DefUse, target: cst.CSTNode) -> list[cst.BaseExpression]:
    """What `S.add(x)` / `S.update(xs)` put into the set named by `target`, in its scope."""
    if not isinstance(target, cst.Name):
        return []
    scope = defuse.scope_of(target)
    found: list[cst.BaseExpression] = []
    for call in defuse.calls:
        func = call.func
        if (
            isinstance(func, cst.Attribute)
            and isinstance(func.value, cst.Name)
            and func.value.value == target.value
            and func.attr.value in ("add", "update")
            and call.args
            and defuse.scope_of(call) is scope
        ):
            arg = call.args[0].value
            # an element added, or the elements of what is added (`update(xs)`, read as
            # `set(xs)`)
            found.append(
                cst.Set([cst.Element(arg)])
                if func.attr.value == "add"
                else cst.Call(cst.Name("set"), [cst.Arg(arg)])
            )
    return found


def _elements(
    defuse: DefUse,
    sets: list[cst.BaseExpression],
    hinted: Callable[[cst.Call], str],
    stops: list[tuple[cst.CSTNode, cst.CSTNode | None]] | None = None,
) -> str:
    """ "str" where every element is proved a string, "number" where every one is proved a
    number, "maybe" where a value is another module's that may be a set of strings, ""
    otherwise; `stops` gets each origin that proves neither (its node, the name or
    attribute bound to it)."""
    kinds: set[str] = set()
    for value in sets:
        if isinstance(value, cst.Call) and not _builtin(defuse, value.func, SET_CALLS):
            kinds.add(hinted(value))  # another module's set of strings ("maybe": may be)
            continue
        if isinstance(value, cst.Call):
            parts = [arg.value for arg in value.args[:1]]
        elif isinstance(value, cst.Set):
            parts = [e.value for e in value.elements if isinstance(e, cst.Element)]
        elif isinstance(value, cst.SetComp):
            parts = [value.elt]
        else:
            parts = []
        for part in parts:
            if _text_read(defuse, part):
                kinds.add("str")
                continue
            for origin in origins(defuse, part):
                path = [s.node for s in origin.path]
                kinds.add(kind := _kind(defuse, origin.node, path))
                if not kind and stops is not None:
                    held = next((n for n in path if isinstance(n, (cst.Name, cst.Attribute))), None)
                    stops.append((origin.node, held))
    for doubt in ("maybe", "far"):
        if doubt in kinds and kinds <= {doubt, "maybe", "far", "str"}:
            return doubt
    return kinds.pop() if len(kinds) == 1 else ""


def _text_read(defuse: DefUse, value: cst.BaseExpression) -> bool:
    """`value` is `f.read()` of a file `open()`ed in text mode (`with open(p) as f`, `f =
    open(p, "r")`, `open(p).read()`), or a name every binding of which is one: a `str`, its
    elements characters (stop 54 r1-D)."""
    if isinstance(value, cst.Name):
        reaching = defuse.reaching(value)
        return bool(reaching) and all(
            d.kind == "assign" and isinstance(d.value, cst.Call) and _text_read(defuse, d.value)
            for d in reaching
        )
    if not isinstance(value, cst.Call):
        return False
    func = value.func
    if not isinstance(func, cst.Attribute) or func.attr.value != "read" or value.args:
        return False
    opened: list[cst.BaseExpression | None] = [func.value]
    if isinstance(func.value, cst.Name):
        reaching = defuse.reaching(func.value)
        if not reaching or any(d.kind not in ("assign", "with") for d in reaching):
            return False
        opened = [d.value for d in reaching]
    for call in opened:
        if not (isinstance(call, cst.Call) and _builtin(defuse, call.func, _OPEN)):
            return False
        modes = [a.value for a in call.args[1:2] if a.keyword is None]
        modes += [a.value for a in call.args if a.keyword and a.keyword.value == "mode"]
        if any(not isinstance(m, cst.SimpleString) or "b" in str(m.evaluated_value) for m in modes):
            return False
    return True


def _kind(defuse: DefUse, source: cst.CSTNode, path: list[cst.CSTNode]) -> str:
    """What one origin proves of an element: "str", "number" or ""."""
    if isinstance(source, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)):
        return "str"
    if isinstance(source, (cst.Integer, cst.Float)):
        return "number"
    for node in (source, *path):
        if isinstance(node, cst.FormattedString):
            return "str"
        if not isinstance(node, cst.Call):
            continue
        if _builtin(defuse, node.func, STR_CALLS):
            return "str"
        if isinstance(node.func, cst.Attribute) and node.func.attr.value in STR_METHODS:
            return "str"
    if isinstance(source, cst.Call) and _builtin(defuse, source.func, NUMBER_CALLS):
        return "number"
    if isinstance(source, cst.Call) and code_of(source.func) in _NUMBER_DRAWS:
        return "number"  # `idx.add(random.randint(0, n - 1))` (round 39, StyleGAN_PyTorch)
    return ""


#: Draws that return numbers (ints, floats: hashed alike in every process).
_NUMBER_DRAWS = frozenset(
    f"{stream}.{name}"
    for stream in ("random", "np.random", "numpy.random")
    for name in ("randint", "randrange", "random", "uniform", "getrandbits")
)
