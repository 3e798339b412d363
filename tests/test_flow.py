"""The flow view (dp2ddp/flow): definitions, uses, call sites and origins with their paths."""

from __future__ import annotations

import libcst as cst

from dp2ddp.flow import Origin, code, origins, view
from dp2ddp.flow.origins import Step
from dp2ddp.flow.origins import _Walk as Walk

SOURCE = """
import time

import numpy as np
import torch

X = np.load("x.npy")


def get_batch(source, i):
    seq_len = min(35, len(source) - 1 - i)
    data = source[i:i + seq_len]
    target = source[i + 1:i + 1 + seq_len].view(-1)
    return data, target


train_data = batchify(torch.randint(0, 100, (1000,)), 20)


class It:
    def __init__(self, X, bs):
        self.X = X
        self.bs = bs

    def __iter__(self):
        for i in range(0, len(self.X), self.bs):
            yield self.X[i:i + self.bs], i


def gen(a):
    for k in range(3):
        yield a[k]


def train(args):
    hidden = model.init_hidden(20)
    i = 0
    while i < train_data.size(0) - 1:
        data, targets = get_batch(train_data, i)
        out, hidden = model(data, hidden)
        i += 35
    perm = np.random.permutation(len(X))
    for j in range(0, len(X), 4):
        idx = perm[j:j + 4]
        x = torch.from_numpy(X[idx])
        model(x)
    for xb, step in It(X, 4):
        model(xb)
    for t, w in zip(gen(X), X):
        model(t)
    args.save = "{}-{}".format(args.save, time.strftime("%H"))
    model(f"{args.save}/x")
"""


def _model_calls() -> list[list[Origin]]:
    module = cst.parse_module(SOURCE)
    flow = view(module)
    assert view(module) is flow  # built once per tree
    return [
        origins(flow, call.args[0].value)
        for call in flow.calls
        if isinstance(call.func, cst.Name) and call.func.value == "model"
    ]


def _data(found: list[Origin]) -> set[str]:
    """The data sources that are calls (literals given to them are sources too)."""
    return {f"{o.kind} {code(o.node, 80)}" for o in found if not o.selects and o.kind == "call"}


def test_helper_return_unpacked_to_its_element() -> None:
    first = _model_calls()[0]
    # batchify() is no function of this module: a source, and what it is given too
    assert _data(first) == {
        "call batchify(torch.randint(0, 100, (1000,)), 20)",
        "call torch.randint(0, 100, (1000,))",
    }
    (source,) = [o for o in first if code(o.node).startswith("batchify") and not o.selects]
    text = source.flow(lambda node: None)
    assert text.startswith("batchify(")
    assert "source = train_data" in text and "get_batch() returns" in text
    selects = {code(o.node) for o in first if o.selects}
    assert "35" in selects and "0" in selects  # the while loop's `i = 0`, `i += 35`


def test_index_array_and_array() -> None:
    found = _model_calls()[1]
    assert _data(found) == {'call np.load("x.npy")'}
    assert any(o.selects and code(o.node).startswith("np.random.permutation") for o in found)


def test_iterator_class_and_generator_through_zip() -> None:
    calls = _model_calls()
    assert _data(calls[2]) == {'call np.load("x.npy")'}  # It.__iter__ yields self.X[...]
    assert _data(calls[3]) == {'call np.load("x.npy")'}  # gen(X) yields a[k], zip's first


def test_format_of_attribute_store_reaches_the_clock() -> None:
    found = _model_calls()[4]
    kinds = {f"{o.kind} {code(o.node, 80)}" for o in found}
    assert 'call time.strftime("%H")' in kinds
    assert any(o.kind == "parameter" and code(o.node) == "args" for o in found)


def test_call_sites_and_uses() -> None:
    module = cst.parse_module(SOURCE)
    flow = view(module)
    (get_batch,) = flow.function_named("get_batch")
    assert [code(c) for c in flow.call_sites(get_batch)] == ["get_batch(train_data, i)"]
    assert [p.name.value for p in get_batch.params] == ["source", "i"]
    assert len(flow.uses(module, "train_data")) == 2


def test_deep_tree_is_walked_without_recursion() -> None:
    """`x = a + a + ... + a` (3,000 terms, left-nested three times past Python's recursion
    limit) built node by node: the tree libcst parses from that text (deep_equals, same
    code: checked once, at stop 46), without its parser's time on so deep a nesting
    (30 s in CI, superlinear in the depth)."""
    total: cst.BaseExpression = cst.Name("a")
    for _ in range(2999):
        total = cst.BinaryOperation(total, cst.Add(), cst.Name("a"))
    module = cst.parse_module("a = 1\nx = a\nmodel(x)\n")
    line = module.body[1]
    assert isinstance(line, cst.SimpleStatementLine) and isinstance(line.body[0], cst.Assign)
    line = line.with_changes(body=[line.body[0].with_changes(value=total)])
    module = module.with_changes(body=[module.body[0], line, module.body[2]])
    flow = view(module)
    (call,) = [c for c in flow.calls if code(c.func) == "model"]
    assert {o.kind for o in origins(flow, call.args[0].value)} == {"constant"}


def test_flow_text_tells_each_hop_once_and_keeps_the_ends() -> None:
    """A name rebound from itself is walked around its loop: the path repeats its hops
    (one warning line of 210 KB in a public repository). The text tells a hop once, and a
    long path its source's end and its sink's."""
    names = [cst.Name(f"v{i}") for i in range(40)]
    lines = {id(node): i + 1 for i, node in enumerate(names)}
    steps = tuple(Step(node, node.value) for node in names)
    looped = Origin("unknown", names[0], steps[:3] * 500)
    assert looped.flow(lambda node: (lines[id(node)], 0)) == "v0 at 1:0 → v1 at 2:0 → v2 at 3:0"
    text = Origin("unknown", names[0], steps).flow(lambda node: None)
    assert text.startswith("v0 → v1 → ") and text.endswith(" → v38 → v39")
    assert " → … → " in text and len(text.split(" → ")) == 16


def test_element_taken_out_of_a_store_is_unknown_not_its_construction() -> None:
    """`self.queue.get()` returns what a thread put: the queue's construction is not its
    source (once taken for a value the same at every step). A keyed `d.get("x")` is still
    what `d` holds."""
    module = cst.parse_module(
        "import queue\nimport numpy as np\nq = queue.Queue(4)\nd = np.load('x.npz')\n"
        "model(q.get())\nmodel(q.get(timeout=1))\nmodel(d.get('x'))\n"
    )
    flow = view(module)
    got = [origins(flow, c.args[0].value) for c in flow.calls if code(c.func) == "model"]
    for found in got[:2]:
        assert [(o.kind, o.cut) for o in found] == [("unknown", True)]
        assert "not followed" in found[0].flow(lambda node: None)
    assert _data(got[2]) == {"call np.load('x.npz')"}
    assert all(o.kind != "unknown" for o in got[2])


def test_element_of_a_store_whose_puts_are_all_known_is_what_was_put() -> None:
    """A queue made empty here, named only as the receiver of its methods, filled by one
    producer started once: its element is what the producer put (a loader's batch). Handed
    on to a thread (`args=(q,)`) or filled by threads started in a loop: not followed."""
    module = cst.parse_module(
        "import queue, threading\nq = queue.Queue(2)\nr = queue.Queue()\np = queue.Queue()\n"
        "def fill():\n    for batch in loader:\n        q.put(batch)\n    q.put(None)\n"
        "def race():\n    p.put(X)\n"
        "threading.Thread(target=fill).start()\n"
        "threading.Thread(target=work, args=(r,)).start()\n"
        "for _ in range(2):\n    threading.Thread(target=race).start()\n"
        "model(q.get())\nmodel(r.get())\nmodel(p.get())\n"
    )
    flow = view(module)
    got = [origins(flow, c.args[0].value) for c in flow.calls if code(c.func) == "model"]
    kinds = {(o.kind, code(o.node)) for o in got[0]}
    assert kinds == {("global", "loader"), ("constant", "None")}, kinds
    assert all(o.cut for o in got[0] if o.kind == "global")
    for found in got[1:]:
        assert [(o.kind, o.cut) for o in found] == [("unknown", True)]


def test_a_target_unpacking_its_own_name_ends_the_walk() -> None:
    """`output, aux = output` in a loop, the output made in a `with` block (stop 56, round
    9: kchengiva/DecoupleGCN-DropGraph@a9c2052 main.py:452): the right side reaches that
    very binding, so each hop asked for the element of the element, a new work item per
    depth, until the budget ran out — minutes of migrate per module, and an `unknown`
    source. Past MAX_PICK the whole value is followed: the walk ends, nothing unknown."""
    source = (
        "class Processor:\n"
        "    def train(self, loader):\n"
        "        for x, y in loader:\n"
        "            with torch.no_grad():\n"
        "                output = self.model(x)\n"
        "            if isinstance(output, tuple):\n"
        "                output, aux = output\n"
        "            loss = self.loss(output, y)\n"
    )
    module = cst.parse_module(source)
    flow = view(module)
    (call,) = [c for c in flow.calls if code(c.func) == "self.loss"]
    walk = Walk(flow, None)
    found = walk.run(call.args[0].value)
    assert len(walk.seen) < 100, len(walk.seen)
    kinds = {f"{o.kind} {code(o.node)}" for o in found if not o.selects}
    assert not any(k.startswith("unknown") for k in kinds), kinds


_ALIASES = """
def fit(a, loader): pass
def fit_quiet(a, loader): pass
def other(a, loader): pass

def main(flag, mode):
    if flag:
        train = fit
    else:
        train = fit_quiet
    train(1, 2)
    pick = fit if flag else other
    pick(1, 2)
    again = pick
    again(1, 2)
    step = {"a": fit, "b": other}[mode]
    step(1, 2)
    {"a": fit, "b": other}[mode](1, 2)
    if flag:
        maybe = lambda a, loader: None
    else:
        maybe = fit
    maybe(1, 2)
    made = make()
    made(1, 2)
    mixed = fit if flag else (lambda a, loader: None)
    mixed(1, 2)
"""


def test_a_call_through_a_name_bound_to_functions_runs_each_of_them() -> None:
    """Round 25 (mattmacy/vnet.pytorch@a00c8ea: `train = train_nll` ... `train(args, epoch,
    model, trainLoader)`): a name every binding of which is a function of the module (plain,
    both arms of an if, an IfExp, an alias of an alias, a literal table by a key) calls each;
    a lambda in one arm runs its body, the function of the other arm still runs; one also
    bound to a call's value calls none of them (as before)."""
    module = cst.parse_module(_ALIASES)
    flow = view(module)
    names: dict[str, list[str]] = {}
    for call in flow.calls:
        spelled = code(call.func)
        names[spelled] = sorted(f.name for f in flow.callees(call))
    assert names["train"] == ["fit", "fit_quiet"]
    assert names["pick"] == ["fit", "other"]
    assert names["again"] == ["fit", "other"]
    assert names["step"] == ["fit", "other"]
    assert names['{"a": fit, "b": other}[mode]'] == ["fit", "other"]
    # a lambda runs its own body (the view's own call sites): the other arm's function still
    # runs where the name is called; a call's value may be any function: none followed
    assert names["maybe"] == ["<lambda>", "fit"] and names["mixed"] == ["<lambda>", "fit"]
    assert names["made"] == []
    fit = next(f for f in flow.functions.values() if f.name == "fit")
    assert {code(c.func) for c in flow.call_sites(fit)} >= {
        "train",
        "pick",
        "again",
        "step",
        "maybe",
    }


_FACTORIES = """
def make_loss(scale):
    def loss_fn(model, x):
        return model(x) * scale
    return loss_fn

def make_table():
    return {"a": 1}

def other(model, x): pass

def make_outside():
    return other

def main(flag):
    loss_fn = make_loss(1.0)
    loss_fn(1, 2)
    table = make_table()
    table(1, 2)
    picked = make_outside()
    picked(1, 2)
    again = make_loss
    made = again(2.0)
    made(1, 2)
    either = make_loss(1.0) if flag else other
    either(1, 2)
"""


def test_a_name_bound_to_a_factorys_call_runs_the_closure_it_returns() -> None:
    """Round 26 (harryjo97/GDSS@24cc490 losses.py: `loss_fn = get_sde_loss_fn(...)`, a
    closure defined in the factory and returned): the call of the name runs the closure,
    also through an alias of the factory and an arm of an IfExp; a factory returning
    anything else (a dict, a function defined outside it) gives none."""
    flow = view(cst.parse_module(_FACTORIES))
    names = {code(c.func): sorted(f.name for f in flow.callees(c)) for c in flow.calls}
    assert names["loss_fn"] == ["loss_fn"] and names["made"] == ["loss_fn"]
    assert names["either"] == ["loss_fn", "other"]
    assert names["table"] == [] and names["picked"] == []


def test_a_comprehension_variable_is_its_own() -> None:
    """Stop 72 (round 24, zsyOAOA/VDNet@599c153 train_simulation.py:72): `x` of the batch's
    `[x.cuda() for x in data]` is not `x` of `[x for n, x in net.named_parameters()]` in
    the same function: DP047 traced the batch to the model's parameters. A use outside
    every comprehension reads the enclosing binding; the first `for`'s iterable is read
    outside its comprehension."""
    module = cst.parse_module(
        "def main(net, loader, x):\n"
        "    params = [x for n, x in net.named_parameters()]\n"
        "    for data in loader:\n"
        "        a, b = [x.cuda() for x in data]\n"
        "        model(a)\n"
        "    model(x)\n"
        "    model([x for x in x])\n"
    )
    flow = view(module)
    got = [origins(flow, c.args[0].value) for c in flow.calls if code(c.func) == "model"]
    assert {(o.kind, code(o.node)) for o in got[0]} == {("parameter", "loader")}
    assert [(o.kind, code(o.node)) for o in got[1]] == [("parameter", "x")]
    assert [(o.kind, code(o.node)) for o in got[2]] == [("parameter", "x")]
