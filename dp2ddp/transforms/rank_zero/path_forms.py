"""One form for a path the program spells several ways (issue 29 item 2, the C1 class).

A cache folder is named `os.path.join(root, "cache")` where it is filled, `f"{root}/cache"`
or `Path(root) / "cache"` where it is read or listed, or through a local, an attribute or a
parameter holding it (`self.cache_dir = os.path.join(root, "cache")` in `__init__`). By its
text no read or listing matched the write: no barrier, and the rank not slowed read a folder
rank 0 had not filled yet (FileNotFoundError, or a part of the files), with `--check` 0.

`path_form` follows the def-use view (dp2ddp/flow) to what the path is built of: string
literals and the module's string constants, `os.path.join`, `pathlib.Path(...)` and its `/`,
`+`, f-strings, `str()`/`os.fspath()`, a local or `self.x` bound once, a parameter every
call of its function in the module passes one form for, and a loop's name over a
comprehension (`for f in files` of `files = [os.path.join(d, f"{i}.npy") for i in ...]`:
each item's form); anything else stays a name
(`{root}`, a loop's `{i}`). The form is written as an f-string's text with `/` between the
parts (`f"{root}/cache/{i}.npy"`), so two spellings of one path have one form, and
barriers.py matches writes and reads by it as by their texts (file_paths.py adds it to them).
A name is a name: two functions' parameters both called `root` are taken as one path, as
their texts are (path_texts.py).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import libcst as cst

from dp2ddp.flow import view
from dp2ddp.transforms.analysis.module_index import argument

if TYPE_CHECKING:
    from dp2ddp.transforms.rank_zero import RankZeroOnly

#: Listing calls: the directory (or pattern) is their first argument.
LISTINGS = frozenset({"os.listdir", "os.scandir", "glob.glob", "glob.iglob"})
#: A pathlib path's listing methods (`Path(d).glob("*.npy")`): the directory is the object.
PATH_LISTINGS = frozenset({"glob", "rglob", "iterdir"})
#: Calls joining their arguments with `/`, and calls returning their argument's path.
_JOINS = frozenset({"os.path.join", "posixpath.join", "pathlib.Path", "pathlib.PurePath"})
_SAME = frozenset({"str", "builtins.str", "os.fspath"})
#: How many bindings deep a form is followed.
_DEPTH = 6

#: A piece of a form: (True, literal text) or (False, a name's or expression's text).
_Piece = tuple[bool, str]


def path_form(node: cst.BaseExpression, t: RankZeroOnly, *, bare: bool = False) -> str | None:
    """The form of the path `node` (see the module's docstring), or None where no literal
    takes part (a bare name, a call of anything else: its text says as much), unless `bare`
    (a folder listed: `f"{out}"`, whatever its paths within are spelled by)."""
    return form_of(_pieces(node, t, _DEPTH), bare=bare)


def form_of(pieces: list[_Piece] | None, *, bare: bool = False) -> str | None:
    """The form written for `pieces` (path_form's text), or None where no literal takes
    part (unless `bare`) or the text cannot be written as one f-string."""
    if pieces is None or not (bare or any(literal for literal, _ in pieces)):
        return None
    text = ""
    for literal, part in pieces:
        if not literal:
            if '"' in part and "'" not in part:
                part = part.replace('"', "'")  # `{"%03d.npy" % i}`: the other quote
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
    if not (path.endswith('"') and path.startswith(('"', 'f"'))):
        return False  # a text, not a form
    inner, folder = _inner(path), _inner(directory)
    return bool(folder) and inner.startswith(folder.rstrip("/") + "/")


def _inner(form: str) -> str:
    """A form's text between its quotes, each literal brace as written in an f-string."""
    return form[2:-1] if form.startswith('f"') else form[1:-1].replace("{", "{{").replace("}", "}}")


def listing(call: cst.Call, t: RankZeroOnly) -> tuple[str, str] | None:
    """(the form of the folder a listing lists, the extension its pattern asks for or ""):
    `os.listdir(d)`, `glob.glob(pattern)` (the pattern's folder, before its first `*`),
    `Path(d).glob("*.npy")`, `d.iterdir()`; None for any other call. A path written in that
    folder is one whose form is within it (form_within), however either is spelled."""
    if any(a.star for a in call.args):
        return None
    names = t.qualified_names(call.func)
    func = call.func
    if names & LISTINGS:
        if not call.args or call.args[0].keyword is not None:
            return None
        form = path_form(call.args[0].value, t, bare=True)
        if form is None or "*" not in form:
            return None if form is None else (form, "")
        head, _, tail = form.partition("*")
        folder = head.rsplit("/", 1)[0] if "/" in head else ""
        if not folder or folder in ('f"', '"'):
            return None
        return folder + '"', _pattern_suffix("*" + tail[:-1])
    # a local's or a module variable's own name (`cache.iterdir` of `cache = Path(d)`)
    # names no library: what the object is, the method says
    library = {n for n in names if "<locals>" not in n and n != t.code(func)}
    if library or not isinstance(func, cst.Attribute) or func.attr.value not in PATH_LISTINGS:
        return None
    form = path_form(func.value, t, bare=True)
    if form is None:
        return None
    pattern = call.args[0].value if call.args else None
    wanted = ""
    if isinstance(pattern, cst.SimpleString) and isinstance(pattern.evaluated_value, str):
        wanted = _pattern_suffix(pattern.evaluated_value)
    return form, wanted


def _pattern_suffix(pattern: str) -> str:
    match = re.search(r"\*\.([A-Za-z0-9_]{1,10})$", pattern)
    return match.group(1) if match else ""


def pieces(node: cst.BaseExpression, t: RankZeroOnly) -> list[_Piece] | None:
    """What the path `node` is built of, in order: (True, a literal's text) or (False, a
    name's or an expression's text), followed as path_form follows it; None where a part
    cannot be read (a bytes literal, a formatted value with a conversion)."""
    return _pieces(node, t, _DEPTH)


def iterated_strings(iterable: cst.BaseExpression, t: RankZeroOnly) -> tuple[str, ...] | None:
    """The strings a loop over `iterable` binds: a literal list or tuple of strings, or a
    name bound once to one (`SPLITS = ["train", "val"]`); None for anything else."""
    if isinstance(iterable, cst.Name):
        definitions = view(t.facts.module).definitions(iterable)
        if len(definitions) != 1 or definitions[0].kind != "assign" or definitions[0].element:
            return None
        value = definitions[0].value
        return None if value is None else iterated_strings(value, t)
    if not isinstance(iterable, (cst.List, cst.Tuple)):
        return None
    strings = [
        e.value.evaluated_value
        for e in iterable.elements
        if isinstance(e, cst.Element)
        and isinstance(e.value, cst.SimpleString)
        and isinstance(e.value.evaluated_value, str)
    ]
    return tuple(strings) if len(strings) == len(iterable.elements) else None


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
    formatted = _str_format(node, args, t, depth)
    if formatted is not None:
        return formatted
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


def _str_format(
    node: cst.Call, args: list[cst.Arg], t: RankZeroOnly, depth: int
) -> list[_Piece] | None:
    """`"gold_{}.txt".format(str(i))`: the literal's parts with each `{}` (or `{n}`) the
    form of its argument, as an f-string's (round 39, microsoft/CodeXGLUE@ac74a62: written
    with `str(idx)`, read with `idx`, one path by its form; by text none, no barrier, and
    rank 1 read a file rank 0 had not written). None where it is no such call."""
    func = node.func
    if not (
        isinstance(func, cst.Attribute)
        and func.attr.value == "format"
        and isinstance(func.value, cst.SimpleString)
        and isinstance(template := func.value.evaluated_value, str)
    ):
        return None
    parts = re.split(r"\{(\d*)\}", template)
    if any(c in p for p in parts[::2] for c in "{}"):
        return None  # `{name}`, `{:03d}`, `{{`: not followed
    pieces: list[_Piece] = []
    auto = 0
    for index, part in enumerate(parts):
        if index % 2 == 0:
            pieces += [(True, part)] if part else []
            continue
        at = int(part) if part else auto
        auto += not part
        if at >= len(args):
            return None
        inner = _pieces(args[at].value, t, depth)
        if inner is None:
            return None
        pieces += inner
    return pieces


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
    if definition.kind == "for" and not definition.element and definition.value is not None:
        element = _element(definition.value, t)  # `for f in files` of `files = [... for i]`
        if element is not None:
            return _pieces(element, t, depth - 1) or [(False, node.value)]
    return [(False, node.value)]


def _element(iterable: cst.BaseExpression, t: RankZeroOnly) -> cst.BaseExpression | None:
    """What each item of a comprehension is, given directly or by a name bound once."""
    if isinstance(iterable, cst.Name):
        definitions = view(t.facts.module).definitions(iterable)
        if len(definitions) != 1 or definitions[0].kind != "assign" or definitions[0].element:
            return None
        iterable = definitions[0].value or iterable
    if isinstance(iterable, (cst.ListComp, cst.GeneratorExp, cst.SetComp)):
        return iterable.elt
    return None


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
