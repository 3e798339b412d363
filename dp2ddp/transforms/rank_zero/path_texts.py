"""The texts by which a file's path is matched, for the barrier between a rank-0 write and
every rank's read of the same file (barriers.py).

A path is matched by its text, as written. Two spellings are followed to what they name:
a local bound by plain assignments in the function (each value's text: a read may name
any of them) (`path = self._path()`, so the write of
`path.open("wb")` meets its caller's `self._path().open("rb")`:
jaywonchung/BERT4Rec-VAE-Pytorch@f66f253, rank 1 read the cache rank 0 had not written
yet), and a parameter of the function, by what each call of the function in the module
passes for it (`def build(name): ... pickle.dump(x, open(name, "wb"))` called as
`build("b.pkl")` before `pickle.load(open("b.pkl", "rb"))`: with the path only as the
parameter's text, no read matched, so no barrier and no warning; a race on the first run).
A parameter is followed two calls deep; a call that passes nothing for it (a default) or a
star argument adds no text. An item of a dict display bound once in the function
(`paths = {"cache": cfg.out}`, then `open(paths["cache"], "wb")`) is matched by its value's
text too, so `open(cfg.out, "rb")` reads it. A parameter of a top-level class's `__init__` is
followed to what each construction of the class passes (a dataset that reads its file when
built: `LocalSet("local.pkl")`). Which argument of a call is a path it reads or writes is
file_paths.py's question.
"""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from dp2ddp.flow import view
from dp2ddp.transforms._support.nodes import NodeView, enclosing_function, walk
from dp2ddp.transforms.analysis.module_index import ModuleIndex, argument

#: How many calls deep a parameter is followed to the texts its callers pass.
_CALLS_DEEP = 2


def path_texts(
    path: cst.BaseExpression,
    call: cst.CSTNode,
    view: NodeView,
    code: Callable[[cst.CSTNode], str],
    index: ModuleIndex,
    depth: int = _CALLS_DEEP,
) -> tuple[str, ...]:
    """The texts `path` (an argument of `call`) is matched by: its own, or what it is bound
    to (see the module's docstring)."""
    function = enclosing_function(call, view)
    own = code(path)
    if isinstance(path, cst.Subscript) and function is not None:
        item = _dict_item(path, function)
        return (own,) if item is None else (own, code(item))
    stored = _stored_once(path, function, index) if function is not None else None
    if stored is not None and not isinstance(stored, cst.Attribute):  # `self.out_file`,
        return (own, *path_texts(stored, stored, view, code, index, depth))  # in `__init__`
    if not isinstance(path, cst.Name) or function is None:
        return (own,)
    bound: list[cst.Assign] = []
    for node in walk(function.body, skip_scopes=True):  # one walk, left at another binding
        if isinstance(node, (cst.AugAssign, cst.AnnAssign, cst.NamedExpr)) or (
            isinstance(node, (cst.AsName, cst.For)) and _binds(node, path.value)
        ):
            return (own,)  # any other binding of the name (`with ... as path`, a loop, `+=`)
        if (
            isinstance(node, cst.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0].target, cst.Name)
            and node.targets[0].target.value == path.value
        ):
            bound.append(node)
    if path.value in _parameters(function):
        if bound or depth <= 0:
            return (own,)
        return (own, *_passed_texts(function, path.value, view, code, index, depth - 1))
    if not bound:
        return (own,)
    # Bound more than once (`cur = join(d, "reliable_ids.txt")`, read, then `cur = join(d,
    # "unreliable_ids.txt")`, read): each read may name any of the values, so each one's
    # text is matched; a barrier more is harmless where every rank reaches it
    # (LiheYoung/ST-PlusPlus@f4e7a57 main.py: with only the name's own text no write matched,
    # and rank 1 read reliable_ids.txt before rank 0 had written it: FileNotFoundError;
    # class v1-F of stop 42).
    return tuple(dict.fromkeys(code(b.value) for b in bound))


def _stored_once(
    path: cst.BaseExpression, function: cst.FunctionDef, index: ModuleIndex
) -> cst.BaseExpression | None:
    """What `self.attr` (read in a method of a top-level class) holds where the class stores
    it once, in its `__init__` (`self.data_path = data_path`: followed on to what each
    construction passes; round 33, lonePatient/char-cnn-text-classification@814ad1b: a
    preprocessor writing `self.out_file` on rank 0, a dataset reading `self.data_path`, both
    the same config entry: no barrier, rank 1's FileNotFoundError)."""
    owner = index.top_level_class(function)
    if (
        owner is None
        or not isinstance(path, cst.Attribute)
        or not isinstance(path.value, cst.Name)
        or not function.params.params
        or path.value.value != function.params.params[0].name.value
    ):
        return None
    flow = view(index.module)
    stores = flow.attribute_definitions(owner, path.attr.value)
    if len(stores) != 1 or stores[0].kind != "assign" or stores[0].element:
        return None
    store = stores[0]
    inside = flow.function_around(store.target)
    if inside is None or inside.name != "__init__" or not isinstance(store.statement, cst.Assign):
        return None
    return store.value if len(store.statement.targets) == 1 else None


def _dict_item(path: cst.Subscript, function: cst.FunctionDef) -> cst.BaseExpression | None:
    """What `paths["cache"]` names where `paths` is bound once in the function, to a dict
    display with that key and nothing else stores into it (`paths["cache"] = ...`); None
    otherwise."""
    if len(path.slice) != 1 or not isinstance(path.value, cst.Name):
        return None
    index = path.slice[0].slice
    if not isinstance(index, cst.Index) or not isinstance(index.value, cst.SimpleString):
        return None
    key, name = index.value.evaluated_value, path.value.value
    values: list[cst.BaseExpression] = []
    for node in walk(function.body, skip_scopes=True):
        if isinstance(node, (cst.Assign, cst.AugAssign, cst.AnnAssign)):
            targets = node.targets if isinstance(node, cst.Assign) else [node]
            for target in targets:
                bound = target.target
                if isinstance(bound, cst.Subscript) and _named(bound.value, name):
                    return None  # stored into: not the display's value alone
                if any(isinstance(n, cst.Name) and n.value == name for n in walk(bound)):
                    values.append(node.value if isinstance(node, cst.Assign) else bound)
        elif isinstance(node, (cst.AsName, cst.For)) and _binds(node, name):
            return None
    if len(values) != 1 or not isinstance(values[0], cst.Dict):
        return None
    found = [
        element.value
        for element in values[0].elements
        if isinstance(element, cst.DictElement)
        and isinstance(element.key, cst.SimpleString)
        and element.key.evaluated_value == key
    ]
    starred = any(isinstance(e, cst.StarredDictElement) for e in values[0].elements)
    return found[0] if len(found) == 1 and not starred else None


def _named(node: cst.BaseExpression, name: str) -> bool:
    return isinstance(node, cst.Name) and node.value == name


def _passed_texts(
    function: cst.FunctionDef,
    name: str,
    view: NodeView,
    code: Callable[[cst.CSTNode], str],
    index: ModuleIndex,
    depth: int,
) -> tuple[str, ...]:
    """The texts of what the calls of `function` in this module pass for parameter `name`."""
    params = function.params
    positional = [p.name.value for p in (*params.posonly_params, *params.params)]
    position = positional.index(name) if name in positional else None
    if position is not None and isinstance(
        view.parent(view.parent(function) or function), cst.ClassDef
    ):
        position -= 1  # a method called on an instance: `self` is not passed
    texts: list[str] = []
    for site in _sites(function, index):
        if any(a.star for a in site.args):
            continue
        passed = argument(site, name, position)
        if passed is not None:
            texts.extend(path_texts(passed, site, view, code, index, depth))
    return tuple(dict.fromkeys(texts))


def _sites(function: cst.FunctionDef, index: ModuleIndex) -> list[cst.Call]:
    """The calls of `function` in the module; for a top-level class's `__init__`, the class
    constructed (`LocalSet("local.pkl")`: a dataset that reads its file when built)."""
    owner = index.top_level_class(function) if function.name.value == "__init__" else None
    if owner is None:
        return list(index.call_sites(function))
    name = owner.name.value
    return [
        call
        for call in index.calls
        if (isinstance(call.func, cst.Name) and call.func.value == name)
        or (isinstance(call.func, cst.Attribute) and call.func.attr.value == name)
    ]


def _binds(node: cst.AsName | cst.For, name: str) -> bool:
    target = node.name if isinstance(node, cst.AsName) else node.target
    return any(isinstance(n, cst.Name) and n.value == name for n in walk(target))


def _parameters(function: cst.FunctionDef) -> set[str]:
    params = function.params
    every = [*params.posonly_params, *params.params, *params.kwonly_params]
    return {p.name.value for p in every}
