"""One form for a path the program spells several ways (issue 29 item 2, the C1 class).

A cache folder is named `os.path.join(root, "cache")` where it is filled, `f"{root}/cache"`
or `Path(root) / "cache"` where it is read or listed, or through a local, an attribute or a
parameter holding it (`self.cache_dir = os.path.join(root, "cache")` in `__init__`). By its
text no read or listing matched the write: no barrier, and the rank not slowed read a folder
rank 0 had not filled yet (FileNotFoundError, or a part of the files), with `--check` 0.

`path_form` follows the def-use view (dp2ddp/flow) to what the path is built of: string
literals and the module's string constants, `os.path.join`, `pathlib.Path(...)` and its `/`,
`+`, f-strings, `str()`/`os.fspath()`, a local or `self.x` bound once, and a parameter every
call of its function in the module passes one form for; anything else stays a name
(`{root}`, a loop's `{i}`). The form is written as an f-string's text with `/` between the
parts (`f"{root}/cache/{i}.npy"`), so two spellings of one path have one form, and
barriers.py matches writes and reads by it as by their texts (file_paths.py adds it to them).
A name is a name: two functions' parameters both called `root` are taken as one path, as
their texts are (path_texts.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from dp2ddp.flow import view
from dp2ddp.transforms.analysis.module_index import argument
from dp2ddp.transforms.rank_zero.path_shapes import LISTINGS, PATH_LISTINGS

if TYPE_CHECKING:
    from dp2ddp.transforms.rank_zero import RankZeroOnly

#: Calls joining their arguments with `/`, and calls returning their argument's path.
_JOINS = frozenset({"os.path.join", "posixpath.join", "pathlib.Path", "pathlib.PurePath"})
_SAME = frozenset({"str", "builtins.str", "os.fspath"})
#: How many bindings deep a form is followed.
_DEPTH = 6

#: A piece of a form: (True, literal text) or (False, a name's or expression's text).
_Piece = tuple[bool, str]


def path_form(node: cst.BaseExpression, t: RankZeroOnly) -> str | None:
    """The form of the path `node` (see the module's docstring), or None where no literal
    takes part (a bare name, a call of anything else: its text says as much)."""
    pieces = _pieces(node, t, _DEPTH)
    if pieces is None or not any(literal for literal, _ in pieces):
        return None
    text = ""
    for literal, part in pieces:
        if not literal:
            if '"' in part or "\\" in part or "{" in part:
                return None  # not writable inside one f-string's braces
            text += "{" + part + "}"
        else:
            text += part.replace("{", "{{").replace("}", "}}")
    while "//" in text:
        text = text.replace("//", "/")
    if text.startswith("./"):
        text = text[2:]
    if '"' in text or "\\" in text or "\n" in text:
        return None
    named = any(not literal for literal, _ in pieces)
    return f'f"{text}"' if named else f'"{text}"'


def form_within(path: str, directory: str) -> bool:
    """A path's form names something in `directory`'s form (a listing's folder)."""
    inner, folder = _inner(path), _inner(directory)
    return bool(folder) and inner.startswith(folder.rstrip("/") + "/")


def _inner(form: str) -> str:
    """A form's text between its quotes, each literal brace as written in an f-string."""
    return form[2:-1] if form.startswith('f"') else form[1:-1].replace("{", "{{").replace("}", "}}")


def listing_form(call: cst.Call, t: RankZeroOnly) -> str | None:
    """The form of the folder a listing lists: `os.listdir(d)`, `glob.glob(pattern)` (the
    pattern's folder, before its first `*`), `Path(d).glob(...)`, `d.iterdir()`."""
    names = t.qualified_names(call.func)
    if names & LISTINGS:
        if not call.args or call.args[0].keyword is not None or call.args[0].star:
            return None
        form = path_form(call.args[0].value, t)
        if form is None or "*" not in form:
            return form
        head = form.split("*", 1)[0]
        folder = head.rsplit("/", 1)[0] if "/" in head else ""
        return None if not folder or folder in ('f"', '"') else folder + '"'
    func = call.func
    if isinstance(func, cst.Attribute) and func.attr.value in PATH_LISTINGS:
        return path_form(func.value, t)
    return None


def _pieces(node: cst.BaseExpression, t: RankZeroOnly, depth: int) -> list[_Piece] | None:
    if depth <= 0:
        return [(False, t.code(node))]
    if isinstance(node, cst.SimpleString):
        value = node.evaluated_value
        return [(True, value)] if isinstance(value, str) else None
    if isinstance(node, cst.ConcatenatedString):
        left, right = _pieces(node.left, t, depth), _pieces(node.right, t, depth)
        return None if left is None or right is None else left + right
    if isinstance(node, cst.FormattedString):
        return _formatted(node, t, depth)
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, (cst.Add, cst.Divide)):
        left, right = _pieces(node.left, t, depth), _pieces(node.right, t, depth)
        if left is None or right is None:
            return [(False, t.code(node))]
        joint: list[_Piece] = [(True, "/")] if isinstance(node.operator, cst.Divide) else []
        return left + joint + right
    if isinstance(node, cst.Call):
        return _called(node, t, depth)
    if isinstance(node, cst.Name):
        return _bound(node, t, depth)
    if isinstance(node, cst.Attribute):
        return _attribute(node, t, depth)
    return [(False, t.code(node))]


def _formatted(node: cst.FormattedString, t: RankZeroOnly, depth: int) -> list[_Piece] | None:
    pieces: list[_Piece] = []
    for part in node.parts:
        if isinstance(part, cst.FormattedStringText):
            pieces.append((True, part.value.replace("{{", "{").replace("}}", "}")))
        elif not isinstance(part, cst.FormattedStringExpression):
            return None
        elif part.format_spec is None and part.conversion is None:
            inner = _pieces(part.expression, t, depth)
            if inner is None:
                return None
            pieces += inner
        else:
            pieces.append((False, t.code(part.expression)))
    return pieces


def _called(node: cst.Call, t: RankZeroOnly, depth: int) -> list[_Piece] | None:
    names = t.qualified_names(node.func)
    args = [a for a in node.args if a.keyword is None and not a.star]
    if len(args) != len(node.args) or not args:
        return [(False, t.code(node))]
    if names & _SAME and len(args) == 1:
        return _pieces(args[0].value, t, depth)
    if not names & _JOINS:
        return [(False, t.code(node))]
    joined: list[_Piece] = []
    for arg in args:
        inner = _pieces(arg.value, t, depth)
        if inner is None:
            return None
        if inner and inner[0][0] and inner[0][1].startswith("/"):
            joined = []  # an absolute part restarts the path, as os.path.join does
        joined += ([(True, "/")] if joined else []) + inner
    return joined


def _bound(node: cst.Name, t: RankZeroOnly, depth: int) -> list[_Piece]:
    """What a name is bound to where that is one form: a local or module constant bound
    once, or a parameter every call in the module passes one form for."""
    flow = view(t.facts.module)
    definitions = flow.definitions(node)
    if len(definitions) != 1:
        return [(False, node.value)]
    definition = definitions[0]
    if definition.kind in ("assign", "annassign") and definition.value is not None:
        if not definition.element:
            return _pieces(definition.value, t, depth - 1) or [(False, node.value)]
    if definition.kind == "param" and isinstance(definition.target, cst.Param):
        return _passed(definition.target, t, depth) or [(False, node.value)]
    return [(False, node.value)]


def _passed(param: cst.Param, t: RankZeroOnly, depth: int) -> list[_Piece] | None:
    """The one form every call of the parameter's function in the module passes for it."""
    flow = view(t.facts.module)
    function = flow.function_around(param)
    if function is None or not isinstance(function.node, cst.FunctionDef):
        return None
    positional = [p.name.value for p in (*function.node.params.posonly_params,
                                         *function.node.params.params)]  # fmt: skip
    name = param.name.value
    position = positional.index(name) if name in positional else None
    if position is not None and function.self_name is not None:
        position -= 1
    forms: set[tuple[_Piece, ...]] = set()
    for site in flow.call_sites(function):
        passed = argument(site, name, position)
        inner = None if passed is None else _pieces(passed, t, depth - 1)
        if inner is None:
            return None
        forms.add(tuple(inner))
    return list(forms.pop()) if len(forms) == 1 else None


def _attribute(node: cst.Attribute, t: RankZeroOnly, depth: int) -> list[_Piece]:
    """`self.x` bound once in its class's methods: what it is bound to."""
    whole = [(False, t.code(node))]
    if not isinstance(node.value, cst.Name):
        return whole
    flow = view(t.facts.module)
    function = flow.function_around(node)
    if function is None or function.owner is None or node.value.value != function.self_name:
        return whole
    definitions = flow.attribute_definitions(function.owner, node.attr.value)
    if len(definitions) != 1 or definitions[0].value is None or definitions[0].element:
        return whole
    return _pieces(definitions[0].value, t, depth - 1) or whole
