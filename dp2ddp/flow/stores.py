"""`puts(view, store)`: every value put into a store one producer fills, or None.

`item = self.queue.get()` takes out what other code put into the queue (a background
thread's `run`, a `threading.Thread(target=producer)`). What the element is can be told
only from the puts, and only where all of them are known: the store is made empty here
(`queue.Queue(n)`, `collections.deque()`, `[]`), it never leaves the code that names it
(every use of it is a method called on it: `put`, `get`, `qsize`... never an argument,
a return value or an alias), and its values come from one producer in order (the puts of
data are in one function; a store bound by a plain name is filled by a function started
once, not in a loop: two threads racing to fill one queue give each rank its own order).
Then an element is one of the values the puts were given (`q.put(batch)`: batch; a
constant put, a `None` sentinel, is one of them too). Anything else: None, the caller says
the element is not followed (never assumed).

Two kinds of store are followed: `self.attr` of one class (each instance its own store,
filled by its own thread: `run` puts, `next` gets), and a name bound once in a scope
(`q = queue.Queue()` at module level or in a function, the producer a function nested or
module-level naming it).
"""

from __future__ import annotations

from weakref import WeakKeyDictionary

import libcst as cst

from dp2ddp.flow.children import tree_nodes
from dp2ddp.flow.defuse import Definition, DefUse

#: Methods that put a value into a store.
PUT = frozenset({"put", "put_nowait", "append", "appendleft"})
#: Constructors of an empty store (by the name called).
_EMPTY = frozenset({"Queue", "SimpleQueue", "LifoQueue", "PriorityQueue", "JoinableQueue", "deque"})
#: Nodes inside which code may run more than once.
_REPEATS = (cst.For, cst.While, cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)


#: Per view, per store (its class and attribute, or its name's binding): the answer, so
#: a store taken from in many places is read once.
_ANSWERS: WeakKeyDictionary[DefUse, dict[tuple[int, str], list[cst.Call] | None]] = (
    WeakKeyDictionary()
)


def puts(view: DefUse, store: cst.BaseExpression) -> list[cst.Call] | None:
    """The `put`/`append` calls filling `store` (a `self.attr` or a name), or None where
    what the store holds cannot be told from them (see the module docstring)."""
    key: tuple[int, str] | None = None
    if isinstance(store, cst.Attribute) and isinstance(store.value, cst.Name):
        function = view.function_around(store)
        owner = function.owner if function is not None else None
        key = (id(owner), store.attr.value)
    elif isinstance(store, cst.Name):
        found = view.definitions(store)
        key = (id(found[0].target) if len(found) == 1 else id(store), store.value)
    if key is None:
        return None
    answers = _ANSWERS.setdefault(view, {})
    if key not in answers:
        if isinstance(store, cst.Attribute):
            answers[key] = _attribute_puts(view, store)
        else:
            assert isinstance(store, cst.Name)
            answers[key] = _name_puts(view, store)
    return answers[key]


def _empty(definition: Definition) -> bool:
    value = definition.value
    if definition.kind != "assign" or value is None:
        return False
    if isinstance(value, cst.List):
        return not value.elements
    if not isinstance(value, cst.Call):
        return False
    func = value.func
    name = func.attr.value if isinstance(func, cst.Attribute) else getattr(func, "value", "")
    if name not in _EMPTY:
        return False
    return name != "deque" or not any(a.keyword is None for a in value.args)


def _method_receiver(view: DefUse, node: cst.CSTNode) -> cst.Call | None:
    """The call `node.m(...)` when `node` is the receiver of a method call."""
    parent = view.parent(node)
    if isinstance(parent, cst.Attribute) and parent.value is node:
        call = view.parent(parent)
        if isinstance(call, cst.Call) and call.func is parent:
            return call
    return None


def _attribute_puts(view: DefUse, store: cst.Attribute) -> list[cst.Call] | None:
    function = view.function_around(store)
    owner = function.owner if function is not None else None
    if function is None or owner is None or function.self_name is None:
        return None
    attr = store.attr.value
    definitions = view.attribute_definitions(owner, attr)
    if not definitions or not all(_empty(d) for d in definitions):
        return None
    bound = {id(d.target) for d in definitions}
    found: list[cst.Call] = []
    for node in tree_nodes(view.module):
        if not isinstance(node, cst.Attribute) or node.attr.value != attr:
            continue
        if id(node) in bound:
            continue
        receiver = node.value
        around = view.function_around(node)
        if (
            not isinstance(receiver, cst.Name)
            or around is None
            or around.owner is not owner
            or around.self_name != receiver.value
        ):
            return None  # named from outside its class (`gen.queue`): it escapes
        call = _method_receiver(view, node)
        if call is None:
            return None  # an argument, an alias, a return value: it escapes
        if isinstance(call.func, cst.Attribute) and call.func.attr.value in PUT:
            found.append(call)
    return found if _one_producer(view, found) else None


def _name_puts(view: DefUse, store: cst.Name) -> list[cst.Call] | None:
    definitions = view.definitions(store)
    if len(definitions) != 1 or not _empty(definitions[0]):
        return None
    definition = definitions[0]
    scope = view.scope_of(definition.target)
    found: list[cst.Call] = []
    for use in view.uses(scope, store.value):
        call = _method_receiver(view, use)
        if call is None:
            return None  # passed on (`Thread(args=(q,))`), aliased, returned: it escapes
        if isinstance(call.func, cst.Attribute) and call.func.attr.value in PUT:
            found.append(call)
    if not _one_producer(view, found):
        return None
    for put in found:  # the producer runs once: named once, not in a loop
        function = view.function_around(put)
        if function is None or function is view.function_around(store):
            continue  # put where it is taken: one thread
        node = function.node
        if not isinstance(node, cst.FunctionDef):
            return None
        named = view.uses(view.scope_of(node), node.name.value)
        if len(named) != 1 or any(isinstance(a, _REPEATS) for a in _up_to(view, named[0], node)):
            return None
    return found


def _up_to(view: DefUse, node: cst.CSTNode, stop: cst.CSTNode) -> list[cst.CSTNode]:
    """The ancestors of `node` inside its function (not past a def)."""
    found = []
    for ancestor in view.ancestors(node):
        if ancestor is stop or isinstance(ancestor, (cst.FunctionDef, cst.ClassDef)):
            break
        found.append(ancestor)
    return found


def _one_producer(view: DefUse, found: list[cst.Call]) -> bool:
    """The puts of data (a constant put, a sentinel, aside) are in one function."""
    producers = set()
    for put in found:
        given = [a.value for a in put.args]
        if all(isinstance(v, (cst.Name,)) and v.value == "None" for v in given):
            continue
        function = view.function_around(put)
        producers.add(id(function.node) if function is not None else 0)
    return bool(found) and len(producers) <= 1
