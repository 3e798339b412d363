"""The part of a value an unpacking target or a literal key takes (flow/origins.py's walk).

`a, b = x, y` takes `y` for `b` where the value is a literal of that shape (element_of); a
literal string key takes that item of a dict literal whose every key is a literal string
(`state["loader"]` of `state = {"loader": loader, ...}`: keyed, literal_key).
"""

from __future__ import annotations

import libcst as cst


def literal_key(node: cst.Subscript) -> str | None:
    """The literal string `node` indexes by (`state["loader"]`), else None."""
    if len(node.slice) != 1 or not isinstance(node.slice[0].slice, cst.Index):
        return None
    index = node.slice[0].slice.value
    if isinstance(index, cst.SimpleString) and isinstance(index.evaluated_value, str):
        return index.evaluated_value
    return None


def keyed(node: cst.Dict, key: str | None) -> cst.BaseExpression | None:
    """The value of a dict literal's item under `key`, where every key is a literal string
    (round 36, wvinzh/WS_DAN_PyTorch@cbf7ff5: `state = {"loader": loader, "center": c}`
    handed to the epoch function, which iterates `state["loader"]`: before, every value
    of the dict was a source of the loop's batches)."""
    if key is None:
        return None
    found = None
    for entry in node.elements:
        if not isinstance(entry, cst.DictElement) or not isinstance(entry.key, cst.SimpleString):
            return None
        if entry.key.evaluated_value == key:
            found = entry.value
    return found


def element_of(
    value: cst.BaseExpression, path: tuple[int, ...]
) -> tuple[cst.BaseExpression, tuple[int, ...]]:
    """The element an unpacking target takes: `a, b = x, y` gives b y; where the value is
    not a literal of that shape, the value and the part of the path still to take (a
    function's returned tuple takes it later)."""
    for depth, index in enumerate(path):
        if isinstance(value, (cst.Tuple, cst.List)) and index < len(value.elements):
            element = value.elements[index]
            if isinstance(element, cst.StarredElement):
                return value, ()
            value = element.value
        else:
            return value, path[depth:]
    return value, ()
