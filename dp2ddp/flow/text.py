"""How a flow's text shows a node of the program: its source on one line, cut short."""

from __future__ import annotations

import functools

import libcst as cst


@functools.lru_cache(maxsize=2048)
def code(node: cst.CSTNode, limit: int = 40) -> str:
    """A node's source on one line, cut at `limit` characters (for flows' texts). Kept for
    the last nodes asked: the walks from a module's calls meet the same nodes again, and
    rendering is most of a short walk's cost."""
    if isinstance(node, cst.Param):
        node = node.name
    text = " ".join(cst.Module([]).code_for_node(node).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
