"""A source that reaches a model's input only as a Python number holds no rows of a batch.

DataParallel's scatter splits tensors; any other argument (a float, an int, a string, a
bool) goes whole to every replica, as it goes whole to every DDP rank. So a source whose
path turns it into a number on the way (an element of `range(...)`, `len(...)`, `int(...)`,
`float(...)`, `bool(...)`, `str(...)`, any function of the standard library's `math`) and
then only passes it through names, operators and the module's own functions (their returns),
or the builtins that keep a number a number (`min`, `max`, `abs`, `round`), never put into a
list, a comprehension, a subscript or a call on the way (`_held`), contributes no
rows to the value: whatever the value is, this source's part is the same on every rank, as
under DataParallel. AidenMoosa/Tacotron2@699a211's `teacher_forced_ratio`, decayed by
`math.cos` from the epoch of `range(start_epoch, params.epochs)`, was said "every rank gets
all of it" (DP047), which is no difference and failed `--check` for nothing. A path that
turns the number back into data afterwards (a list, a subscript, a library call: `torch.
tensor([len(s) for s in texts[a:b]])`, lengths of a batch's samples) proves nothing.
"""

from __future__ import annotations

import libcst as cst

from dp2ddp.flow.defuse import DefUse
from dp2ddp.flow.origins import Origin, Step
from dp2ddp.transforms._support.metadata import code_of_dotted

#: Builtins whose result is a number (or a string) whatever they are given.
_MAKERS = frozenset({"len", "int", "float", "bool", "str", "round"})
#: Builtins that give a number back when given numbers.
_KEEPERS = frozenset({"min", "max", "abs", "round"})
#: Expressions that hold a number as data (rows of numbers) or hand it on unrecorded.
_HOLDERS = (
    cst.List,
    cst.Tuple,
    cst.Set,
    cst.Dict,
    cst.ListComp,
    cst.SetComp,
    cst.DictComp,
    cst.GeneratorExp,
    cst.Subscript,
    cst.Call,
)
#: Expressions that give numbers back when given numbers.
_OPERATORS = (
    cst.Name,
    cst.BinaryOperation,
    cst.UnaryOperation,
    cst.BooleanOperation,
    cst.Comparison,
    cst.IfExp,
)


def held_alike(flow: DefUse, origin: Origin) -> bool:
    """A source every rank holds alike, as every replica did: a literal, a function or
    class object, a builtin, an attribute the class never binds, or one that reaches the
    value only as a Python number."""
    kinds = ("constant", "definition", "global", "attribute")
    return origin.kind in kinds or number_only(flow, origin)


def number_only(flow: DefUse, origin: Origin) -> bool:
    """The source reaches the value only as a Python number (see the module docstring):
    a step that makes a number, every later step one that keeps it one."""
    path = origin.path
    made = False
    for at, step in enumerate(path):
        node = step.node
        if _makes_number(flow, node) and (_builtin(flow, node) != "range" or _element(path, at)):
            made = True
        elif made and not step.call and at and _shapes(flow, node, path[at - 1].node):
            return True  # a size or a parameter of a library call: the rows are its data's
        elif (
            made
            and not _taken_from_range(flow, path, at)
            and (
                step.cut
                or not (
                    isinstance(node, _OPERATORS)
                    or (step.call and isinstance(node, cst.Call))
                    or _builtin(flow, node) in _KEEPERS
                )
            )
        ):
            made = False  # taken out of something (a list of numbers), or made data again
        if made and at + 1 < len(path) and _held(flow, node, path[at + 1].node):
            made = False
    return made


def _shapes(flow: DefUse, node: cst.CSTNode, given: cst.CSTNode) -> bool:
    """`node` is a library call (`F.adaptive_avg_pool2d(x, size)`, `F.interpolate(x,
    scale_factor=s)`) given the number as an argument after its first: a size or a parameter
    of what it computes from its data, the same number on every rank and every replica
    (GenerativeSkinLesion's `adaptive_avg_pool2d(real, current_size)`, current_size from
    `math.log2` of the configured sizes, was said "every rank gets all of it", stop 54 v3).
    The rows of its result are its data's, judged by that data's own origins."""
    if not isinstance(node, cst.Call) or not node.args:
        return False
    if not flow.imported_root(node.func):
        return False
    first = node.args[0]
    return any(
        a.value is given and (a is not first or a.keyword is not None) and not a.star
        for a in node.args
    )


def _held(flow: DefUse, node: cst.CSTNode, following: cst.CSTNode) -> bool:
    """Between `node` and the path's next step (or its statement), the number is put into
    something the walk does not record as a step: a list, a comprehension (`[float(v) for v
    in torch.randn(4)]`, rows of numbers), a subscript, a call."""
    parent = flow.parent(node)
    while parent is not None and parent is not following:
        if isinstance(parent, (cst.BaseSmallStatement, cst.BaseCompoundStatement)):
            return False
        if isinstance(parent, _HOLDERS):
            return True
        parent = flow.parent(parent)
    return False


def _taken_from_range(flow: DefUse, path: tuple[Step, ...], at: int) -> bool:
    """The step takes the element of the `range(...)` just before it (a loop's target): a
    number still, not a number taken out of data."""
    return at > 0 and path[at].cut and _builtin(flow, path[at - 1].node) == "range"


def _element(path: tuple[object, ...], at: int) -> bool:
    """The step after `range(...)` takes one element of it (a loop's target)."""
    following = path[at + 1] if at + 1 < len(path) else None
    return bool(getattr(following, "cut", False))


def _makes_number(flow: DefUse, node: cst.CSTNode) -> bool:
    return _builtin(flow, node) in _MAKERS | {"range"} or _math_call(flow, node)


def _builtin(flow: DefUse, node: cst.CSTNode) -> str:
    """The builtin a call calls by its own name (not rebound in the module), else ""."""
    if not isinstance(node, cst.Call) or not isinstance(node.func, cst.Name):
        return ""
    return "" if flow.definitions(node.func) else node.func.value


def _math_call(flow: DefUse, node: cst.CSTNode) -> bool:
    """A call of a function of the standard library's `math` (`math.cos(x)` with `import
    math`, `cos(x)` with `from math import cos`): a float or an int, never a tensor."""
    if not isinstance(node, cst.Call):
        return False
    func = node.func
    name = func.value if isinstance(func, cst.Attribute) else func
    if not isinstance(name, cst.Name) or isinstance(name, cst.Attribute):
        return False
    found = flow.definitions(name)
    if not found or any(d.kind != "import" for d in found):
        return False
    for definition in found:
        statement, alias = definition.statement, definition.target
        if not isinstance(alias, cst.ImportAlias):
            return False
        if isinstance(func, cst.Attribute):  # `import math` (as m): m.cos
            if not isinstance(statement, cst.Import) or code_of_dotted(alias.name) != "math":
                return False
        elif not (
            isinstance(statement, cst.ImportFrom)
            and statement.relative == ()
            and statement.module is not None
            and code_of_dotted(statement.module) == "math"
        ):
            return False
    return True
